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
    /* Counts that bound nothing: no FLOPs and no bytes (a trace that records times only). */
    RT_BOUND_UNKNOWN,
} rt_bound;

/* How much of a verdict the counts support. */
typedef enum rt_evidence {
    RT_EVIDENCE_FULL = 0, /* FLOPs or bytes recorded (W = 0 with bytes is a zero-AI kernel) */
    RT_EVIDENCE_PARTIAL,  /* FLOPs but no bytes: a compute bound only, the class may change */
    RT_EVIDENCE_NONE,     /* neither: the verdict is unknown */
} rt_evidence;

/* Which overhead a kernel's calls pay on their path, the floor under wall time (docs/model.md,
 * "The overhead a kernel's calls pay"; overhead-path.c). */
typedef enum rt_paid_path {
    RT_PAID_TAU = 0,    /* the implementation's tau, the overhead box's (the paper's) */
    RT_PAID_OVERHEAD,   /* one of the machine's overheads, its own (paid_oh) */
    RT_PAID_NONE,       /* nothing measurable: a plain single-threaded call */
    RT_PAID_UNMEASURED, /* an overhead the machine has not measured: no floor (warned) */
    RT_PAID_MIXED,      /* a config whose members pay different ones */
} rt_paid_path;

/* What a verdict is computed with, besides the machine. (Fields in order of size: an analysis holds
 * one per kernel.) */
typedef struct rt_verdict_ctx {
    rt_mode mode;
    rt_time_kind time;    /* device time: the overhead bound classifies but caps nothing */
    double tau;           /* launch overhead per invocation, seconds: the overhead box */
    const char *tau_name; /* which overhead it is, for messages; NULL: the machine's tau */
    /* The overhead each call pays on its path (RT_PAID_TAU, the zero value: tau itself):
     * paid seconds per invocation, the machine's overhead it is (NULL: none, the machine's tau or
     * a time given), and its name for the verdict (NULL with RT_PAID_TAU: tau_name). */
    double paid;
    const rt_overhead *paid_oh;
    const char *paid_name;
    rt_paid_path paid_path;
    int paid_threads; /* the threads of paid_oh where the kernel names its threads, else 0 */
    /* The kernel's bytes are estimates at main memory (the profile's source.bytes): hier mode
     * places them at the level that holds its working set on `threads` threads (0: unknown),
     * core/byte-placement.h. */
    int threads;
    bool place_bytes;
} rt_verdict_ctx;

/* The longest verdict label, with its NUL: a longer one is cut (a unit or level name that long). */
#define RT_BOUND_LABEL_MAX 64

/* The model's answer for one kernel or one config. (Fields in order of size, so that no padding
 * lies between them: an analysis holds two per kernel.) */
typedef struct rt_verdict {
    double n, time; /* invocations, measured seconds */
    double W;       /* FLOPs over all units */
    double q_ref;   /* bytes at the reference level (NAN when the kernel has none recorded);
                     * estimated bytes placed in a cache: all of them, at that level */
    double ai_ref;  /* W / q_ref */
    size_t n_levels;
    double *q;    /* bytes per machine level, NAN where not recorded; owned */
    double *ai;   /* W / q per level; owned */
    double *t_bw; /* q / B per level; owned */
    double t_compute, t_bw_max, t_oh;
    double t_roof; /* max(t_compute, t_bw_max): the roofline without overhead */
    /* n x the overhead its calls pay on their path (ctx.paid): t_oh unless the kernel names its
     * own; 0 on device time, where launches lie outside the time */
    double t_paid;
    double
        t_bound; /* the lower bound efficiency is measured against: max(t_roof, t_paid) for
                  * wall time, t_roof for device time (launches are outside it); 0 when unknown */
    double tau;  /* the launch overhead used, seconds */
    const rt_overhead *paid_oh; /* the overhead of t_paid where the machine has it (its measured
                                 * spread); NULL: none, the machine's tau or given */
    const char *paid_name;      /* the overhead paid: "openmp_fork_join", "none", "mixed" ... */
    /* "overhead", "bandwidth:DRAM", "compute:fp32", "compute:fp32 (partial)", "unknown", "none":
     * at most RT_BOUND_LABEL_MAX - 1 bytes, the one copy of its text (rt_intern), which millions
     * of verdicts share; NULL in a verdict not computed */
    const char *bound_label;
    double efficiency;  /* t_bound / time, NAN when time is 0 or the verdict unknown */
    double recoverable; /* time - t_bound, >= 0; NAN when the verdict is unknown */
    double perf;        /* W / time, FLOP/s */
    /* Time plane (paper Fig. 2c), from the measured time: max(x, y) = time. */
    double bw_time, compute_time;
    /* Estimated bytes placed by working set (core/byte-placement.h): whether they were (placed),
     * the level that holds them (placed_level; main memory when no cache does), the working set
     * of one invocation (ws), the capacity of the caches up to that level (ws_capacity; all of
     * them when none held it) and the threads that capacity was taken at (ws_threads; 0: unknown,
     * every instance). */
    double ws, ws_capacity;
    int placed_level;
    int ws_threads;
    rt_mode mode;
    rt_bound bound;
    rt_evidence evidence;
    rt_time_kind time_kind;
    rt_paid_path paid_path; /* the path of t_paid (its overhead: paid_oh) */
    int paid_threads;       /* its threads where it names them, else 0 */
    int bound_level;        /* machine level index for bandwidth, else -1 */
    int bound_unit;         /* machine unit index for compute (the unit with most time), else -1 */
    bool overhead_bound;    /* max(t_compute, t_bw) < t_oh: inside the overhead box */
    bool zero_ai;           /* W == 0 with bytes: a pure data-movement kernel */
    bool lower_bound;       /* its counts are lower bounds (tag counts=lower_bound): partial */
    bool levels_lent;       /* q, ai and t_bw lie in the caller's block (rt_verdict_compute_at) */
    bool placed;
} rt_verdict;

/*
 * Compute the verdict of one kernel (or a config summed into a kernel) on m in ctx's mode, time
 * kind and tau. Consistency warnings name `what` (efficiency above 1 with the suspect ceiling,
 * FLOPs with no bytes). Caller releases out with rt_verdict_release.
 */
void rt_verdict_compute_in(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                           const char *what, rt_verdict *out, rt_warnings *w);
/* The same with q, ai and t_bw in block, rt_verdict_levels(m) doubles of the caller's that
 * outlive the verdict (rt_verdict_release leaves them): an analysis of a million kernels takes one
 * block for all its verdicts instead of a million. */
size_t rt_verdict_levels(const rt_machine *m);
void rt_verdict_compute_at(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                           const char *what, double *block, rt_verdict *out, rt_warnings *w);
/* The same with times of unknown kind (read as wall time) and the machine's tau. */
void rt_verdict_compute(const rt_machine *m, rt_mode mode, const rt_kernel *k, const char *what,
                        rt_verdict *out, rt_warnings *w);
/* True when the verdict is one the counts fully support (not partial, not unknown). */
bool rt_verdict_is_real(const rt_verdict *v);
/* The term that sets v->t_bound: v->bound, but for an overhead-bound verdict whose floor lies
 * under its roof (on device time the overhead box classifies, yet caps nothing; a kernel whose
 * calls pay less than the box's tau on their path) the roof's, bandwidth or compute; and
 * RT_BOUND_OVERHEAD for a verdict whose paid overhead lies above its roof. */
rt_bound rt_verdict_binding(const rt_verdict *v);
void rt_verdict_release(rt_verdict *v);

/* Traditional-roofline launch-overhead ceiling W_total / (n_total * tau), FLOP/s (INFINITY if n or
 * tau is 0). */
double rt_overhead_ceiling(double W_total, double n_total, double tau);

#endif
