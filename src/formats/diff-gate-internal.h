/* What the gate's files share (diff-gate.c judges, diff-gate-line.c says a row in words,
 * diff-gate-write.c writes). */
#ifndef ROOFTIME_FORMATS_DIFF_GATE_INTERNAL_H
#define ROOFTIME_FORMATS_DIFF_GATE_INTERNAL_H

#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-gate.h"

/* ---- diff-gate.c ---- */

/* A side's mean kernel: sum (its kernels over the side's runs) divided by runs; the spread kept
 * for one run only. Release with rt_kernel_release. */
void gate_mean_kernel(rt_kernel *out, const rt_kernel *sum, double runs);

/* ---- diff-gate-line.c ---- */

/* "FAIL", "UNJUDGED", "pass"; "time", "efficiency", "launches"; "kernel", "config", "total". */
const char *gate_state_name(rt_gate_state s);
const char *gate_check_name(rt_gate_check c);
const char *gate_subject_name(rt_gate_subject s);
/* The row as one line, as `diff --gate` prints it (heap). */
char *gate_row_line(const rt_gate *g, const rt_gate_row *r);

#endif
