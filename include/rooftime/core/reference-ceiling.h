/* Which compute units and memory levels profiles use, the machine's reference unit and level
 * chosen from them and the measured peaks, and the reference and tau an analysis is run with
 * (reference-ceiling.c). */
#ifndef ROOFTIME_CORE_REFERENCE_CEILING_H
#define ROOFTIME_CORE_REFERENCE_CEILING_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* Does some kernel of the analysis carry FLOPs on machine unit u (bytes at level l)? */
bool rt_analysis_uses_unit(const rt_analysis *a, size_t u);
bool rt_analysis_uses_level(const rt_analysis *a, size_t l);

/*
 * Choose the reference for these profiles on m: the unit with the highest peak among the units
 * their kernels carry FLOPs on (the machine's reference when they carry none on any of its units);
 * the level: the machine's reference when the kernels record bytes there, else the recorded level
 * that binds the most kernel time in hier mode, else the machine's. Sets m->ref_unit, m->ref_level
 * and m->ref_reason (why, in words).
 */
void rt_reference_choose(rt_machine *m, rt_profile *const *ps, size_t n);

/* Set the reference from "UNIT" or "UNIT/LEVEL" (a level alone: "/LEVEL"); -1 with a message
 * naming the units or levels m has when one is not m's. */
int rt_reference_set(rt_machine *m, const char *spec, rt_error *err);

/*
 * What `--reference` and `--tau` set before an analysis, for the commands and the API alike: the
 * reference from spec (rt_reference_set), or chosen from the n profiles when spec is NULL
 * (rt_reference_choose); then tau when not NULL: an overhead of m by name becomes the profiles'
 * overhead, a time (4.2us, 3e-6) m's tau with the profiles' overhead cleared. 0, or -1 with err
 * set (tau_option names the option in its message: "--tau takes a time ...").
 */
int rt_reference_tau_apply(rt_machine *m, rt_profile **ps, size_t n, const char *reference,
                           const char *tau, const char *tau_option, rt_error *err);

#endif
