/* What the gate's two files share (diff-gate.c, diff-gate-write.c). */
#ifndef ROOFTIME_FORMATS_DIFF_GATE_INTERNAL_H
#define ROOFTIME_FORMATS_DIFF_GATE_INTERNAL_H

#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-gate.h"

/* A side's mean kernel: sum (its kernels over the side's runs) divided by runs; the spread kept
 * for one run only. Release with rt_kernel_release. */
void gate_mean_kernel(rt_kernel *out, const rt_kernel *sum, double runs);
/* The row as one line, as `diff --gate` prints it (heap). */
char *gate_row_line(const rt_gate *g, const rt_gate_row *r);

#endif
