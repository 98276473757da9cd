/* Whether an analysis's verdicts can be trusted (verdict-trust.c): the line the summary and
 * `analyze` open with when the machine check fails or kernels run above their roofs. */
#ifndef ROOFTIME_CORE_VERDICT_TRUST_H
#define ROOFTIME_CORE_VERDICT_TRUST_H

#include <stddef.h>

#include "rooftime/core/analysis.h"

/* A kernel counts as above its roof when its efficiency exceeds 1 by more than the ceiling's
 * measured spread ((max - min) / value), or by this much where the file gives no spread. */
#define RT_TRUST_DEFAULT_SPREAD 0.05

/* What sits above one ceiling. */
typedef struct rt_trust_above {
    char name[64];  /* "fp32", "DRAM", "launch overhead" */
    double spread;  /* the tolerance used, a fraction */
    size_t kernels; /* kernels above it by more than the spread */
    double time;    /* their measured time, seconds */
} rt_trust_above;

typedef struct rt_trust {
    size_t failed_rules;  /* rules of `machine check` the machine fails */
    rt_trust_above worst; /* the ceiling with the most time above it (kernels 0: none) */
    size_t kernels_above; /* over every ceiling */
    double time_above;
    size_t ceilings_above; /* how many ceilings have kernels above them */
} rt_trust;

/* Whether v's efficiency exceeds 1 by more than the spread of the ceiling that bounds it (what
 * the trust line counts); *spread (may be NULL) gets that spread, NAN for a ceiling it cannot
 * name. A kernel above its bound within the spread is noise, not evidence against the bound. */
int rt_trust_beyond_spread(const rt_machine *m, const rt_verdict *v, double *spread);

/* Check a's machine and verdicts; 1 when the verdicts are suspect, else 0. */
int rt_trust_check(const rt_analysis *a, rt_trust *t);

/* One line saying why the verdicts are suspect, naming the ceiling, the kernels and time above
 * it and the remedy; NULL when they are not. Caller frees. */
char *rt_trust_line(const rt_analysis *a);

#endif
