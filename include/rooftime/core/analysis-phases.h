/* The phases of a generation loop in an analysis (analysis-phases.c): the kernels split by their
 * `phase` tag (prefill, decode, or a user's mark's name), each phase's time and what bounds it. */
#ifndef ROOFTIME_CORE_ANALYSIS_PHASES_H
#define ROOFTIME_CORE_ANALYSIS_PHASES_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"

/* A section "Phases of the generation loop": per phase (in order of first appearance, then the
 * kernels without one) its kernels, launches, time and share, FLOPs, bytes at the reference level
 * and AI, its time by bound (compute, bandwidth, overhead, unknown) and recoverable time; then
 * each phase's largest bound in a sentence. NULL when no kernel carries a phase. Caller frees. */
rt_findings *rt_analysis_phases(const rt_analysis *a);

#endif
