/* The time-based hierarchical roofline model: bounds, classes and time-plane coordinates. */
#ifndef ROOFTIME_CORE_MODEL_H
#define ROOFTIME_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef enum rt_mode {
    /* The paper's mode: W = sum of all FLOPs against the reference peak, Q at the reference level.
     */
    RT_MODE_SINGLE = 0,
    /* Every unit at its own peak (T_compute = sum_u W_u / P_u), every level at its own bandwidth.
     */
    RT_MODE_HIER = 1,
} rt_mode;

const char *rt_mode_name(rt_mode mode);
/* Like every *_parse of the library: 0, or -1 with "unknown mode ... (single or hier)" in err
 * (which may be NULL). */
int rt_mode_parse(const char *s, rt_mode *out, rt_error *err);

typedef enum rt_bound {
    RT_BOUND_NONE = 0, /* nothing to bound: no work, no bytes, no launches */
    RT_BOUND_COMPUTE,
    RT_BOUND_BANDWIDTH,
    RT_BOUND_OVERHEAD,
    /* A communication kernel (class=communication, core/comm.h): its bound is its link bytes
     * (bytes["link"]) over the machine's link bandwidth, unknown (NAN) without either. */
    RT_BOUND_COMMUNICATION,
} rt_bound;

/* The model's answer for one kernel or one config. */
typedef struct rt_verdict {
    rt_mode mode;
    double n, time; /* invocations, measured seconds */
    double W;       /* FLOPs over all units */
    double q_ref;   /* bytes at the reference level (NAN when the kernel has none recorded) */
    double ai_ref;  /* W / q_ref */
    size_t n_levels;
    double *q;    /* bytes per machine level, NAN where not recorded; owned */
    double *ai;   /* W / q per level; owned */
    double *t_bw; /* q / B per level; owned */
    double t_compute, t_bw_max, t_oh;
    double t_roof;  /* max(t_compute, t_bw_max): the roofline without overhead */
    double t_bound; /* max(t_roof, t_oh) */
    rt_bound bound;
    int bound_level;      /* machine level index for bandwidth, else -1 */
    int bound_unit;       /* machine unit index for compute (the unit with most time), else -1 */
    char bound_label[64]; /* "overhead", "bandwidth:DRAM", "compute:fp32", "none" */
    double efficiency;    /* t_bound / time, NAN when time is 0 */
    double recoverable;   /* time - t_bound, >= 0 */
    double perf;          /* W / time, FLOP/s */
    bool overhead_bound;  /* max(t_compute, t_bw) < t_oh: inside the overhead box */
    bool zero_ai;         /* W == 0 with bytes or time: a pure data-movement kernel */
    /* Time plane (paper Fig. 2c), from the measured time: max(x, y) = time. */
    double bw_time, compute_time;
} rt_verdict;

/*
 * Compute the verdict of one kernel (or a config summed into a kernel) on m in mode.
 * Consistency warnings name `what` (efficiency above 1, FLOPs with no bytes, units or
 * levels the machine lacks). Caller releases out with rt_verdict_release.
 */
void rt_verdict_compute(const rt_machine *m, rt_mode mode, const rt_kernel *k, const char *what,
                        rt_verdict *out, rt_warnings *w);
void rt_verdict_release(rt_verdict *v);

/* Traditional-roofline launch-overhead ceiling W_total / (n_total * tau), FLOP/s (INFINITY if n or
 * tau is 0). */
double rt_overhead_ceiling(double W_total, double n_total, double tau);

#endif
