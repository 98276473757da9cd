/* Private interface between the measurement parts: kernels, timing loops and their statistics. */
#ifndef ROOFTIME_MEASURE_INTERNAL_H
#define ROOFTIME_MEASURE_INTERNAL_H

#include "rooftime/probe/measure-plateau.h"
#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/measurement.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/error.h"

/* Median with min and max of repeated trials, and the ceiling estimate (see rt_stat_ceiling). */
typedef struct rt_stat {
    double median, min, max;
    double best; /* the ceiling: RT_STAT_QUANTILE of the undisturbed trials (all, when none was) */
    int clean;   /* undisturbed trials behind best (0: every trial was disturbed) */
} rt_stat;

/*
 * The quantile of the undisturbed trials a ceiling is read at. Contention only ever lowers a
 * throughput measurement, so the median of disturbed and clean trials together underestimates
 * what the machine can do; the maximum alone is one trial's luck (a timer tick, a clock
 * excursion). A high quantile of the clean trials is what ERT (the maximum over trials) and
 * likwid-bench (the best of its repetitions) approximate, less sensitive to one outlier.
 */
#define RT_STAT_QUANTILE 0.9

static inline void rt_stat_sort(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: n is a handful of trials */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* The q-quantile of n sorted values, linearly interpolated (n >= 1). */
static inline double rt_stat_quantile(const double *v, size_t n, double q)
{
    if (n == 1)
        return v[0];
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/*
 * Summarise n trial values; clean[i] says trial i ran undisturbed (NULL: all did). Median, min
 * and max are over every trial (the typical figure and its spread); best over the clean ones.
 * The arrays are not kept in order.
 */
static inline rt_stat rt_stat_of_clean(double *v, const bool *clean, size_t n)
{
    rt_stat s = {0, 0, 0, 0, 0};
    if (n == 0)
        return s;
    double c[64];
    size_t nc = 0;
    for (size_t i = 0; i < n && nc < 64; i++)
        if (!clean || clean[i])
            c[nc++] = v[i];
    rt_stat_sort(v, n);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.clean = (int)nc;
    if (nc == 0) {
        s.best = rt_stat_quantile(v, n, RT_STAT_QUANTILE);
    } else {
        rt_stat_sort(c, nc);
        s.best = rt_stat_quantile(c, nc, RT_STAT_QUANTILE);
    }
    return s;
}

/* Summarise n trial values, all undisturbed (n >= 1; the array is sorted in place). */
static inline rt_stat rt_stat_of(double *v, size_t n)
{
    return rt_stat_of_clean(v, NULL, n);
}

/* Threads OpenMP may use here (1 without OpenMP). */
int rt_measure_max_threads(void);

/* ---- a team of threads running one job at once (measure-team.c) ---- */

typedef struct rt_team_timing {
    double wall;       /* first start to last finish, seconds */
    double thread_max; /* the longest single thread's own time */
    /* The threads' own times' harmonic mean: all the work over it is the sum of the threads' own
     * rates, the rate of work that is each core's own (see rt_team_run_synced's balanced) */
    double own;
    double skew;      /* spread of the threads' starts: late wake-ups */
    int threads;      /* threads that ran */
    double cpu_ratio; /* least CPU time / wall time of any thread: < 1 when descheduled */
    bool disturbed;   /* rt_team_run_synced: every attempt was disturbed */
    bool slow;        /* ... the one kept by being slower than slow_after, not by the guest */
} rt_team_timing;

/* Timed runs since the reset, how many stayed disturbed after their attempts, and how many of
 * those were slow rather than descheduled (slow may be NULL). */
void rt_team_stats_reset(void);
void rt_team_stats(long *runs, long *disturbed, long *slow);

/* CPU time of the calling thread, seconds. */
double rt_thread_cpu_now(void);

/* Run job(ctx, tid) on `threads` threads started together; -1 when any job returned non-zero. */
int rt_team_run(int threads, int (*job)(void *ctx, int tid), void *ctx, rt_team_timing *tm);
/* The same, run again while a thread started late (skew > 5% of wall) or one was descheduled
 * (CPU time < 95% of wall), or the run took longer than slow_after seconds (0: no such limit;
 * see RT_SLOW_SAME; balanced, each thread's work its own core's: its time is tm->own),
 * yielding the core between attempts so another
 * process's burst can end; the least disturbed run is kept and tm->disturbed says whether it
 * still was. Up to
 * RT_TEAM_ATTEMPTS attempts, within a retry budget of RT_TEAM_RETRY_SHARE of the time measured
 * so far (plus RT_TEAM_RETRY_FLOOR seconds): a disturbance that persists is not waited out. */
#define RT_TEAM_ATTEMPTS 8
#define RT_TEAM_RETRY_SHARE 0.25
#define RT_TEAM_RETRY_FLOOR 1.0
/* Pin the team's threads one per CPU of the process's affinity mask (on), or give them the whole
 * mask back (off): a thread that the scheduler moves onto its sibling's CPU halves both. */
void rt_team_pin(bool on);
int rt_team_run_synced(int threads, int (*job)(void *ctx, int tid), void *ctx, double slow_after,
                       bool balanced, rt_team_timing *tm);
/* Whether the first `threads` pinned CPUs are on distinct cores (no two SMT siblings, by sysfs);
 * true for one thread, false when unpinned or unknown. */
bool rt_team_distinct_cores(int threads);
/* Logical CPUs per core (SMT siblings) of the process's first CPU by sysfs; 1 when unknown. */
int rt_team_smt_width(void);

/*
 * A run is slow, and counts as disturbed, when its rate per thread falls below RT_SLOW_SAME of the
 * best clean rate the same work reached on as many threads, or below RT_SLOW_CROSS of the rate
 * per thread on one thread (only where the threads have cores of their own: work on distinct
 * cores runs at one core's rate, less a lower clock when all cores are busy). Under a
 * hypervisor the host's other work on a core's SMT sibling slows it unseen: on the AMD Zen 3 VM
 * of issue 26 L1 reads of one thread ran at 140-170 against 200 GB/s in stretches of 0.5-3 s,
 * and FMA on two threads at 25.5 against 50 GFLOP/s each, both at once (two virtual CPUs on one
 * core), with each thread's CPU time equal to its wall time.
 */
#define RT_SLOW_SAME 0.95
#define RT_SLOW_CROSS 0.7
/* Work that is each core's own (compute; working sets inside a core's own caches) runs this many
 * times the plan's trials, each as much shorter: the host slows a core in stretches of
 * milliseconds to seconds, and the ceiling, a high quantile of the trials, needs some that fell
 * between them. */
#define RT_OWN_SPLIT 4
/* What the second looks (measure-compute.c, measure-revisit.c) measure again: a rate per thread
 * below this much of the same work's on another thread count (threads on cores of their own).
 * Undisturbed, one thread never reads below more (more busy cores only lower the clock); more
 * threads read below one by their lower all-core clock, and are measured again for nothing. */
#define RT_SLOW_UP 0.95

/* ---- core clock (measure-clock.c) ---- */

/*
 * Core clock in Hz from a chain of dependent register-to-register adds (one
 * cycle each), timed with the monotonic clock; `trials` runs of about
 * `seconds` each. imul_hz gets the estimate from a chain of dependent imul
 * (3 cycles each on current x86 cores), a cross-check; may be NULL.
 */
rt_stat rt_measure_clock(int trials, double seconds, rt_stat *imul_hz);

/* ---- compute kernels (measure-flops.c) ---- */

typedef struct rt_flops_kernel {
    const char *unit;       /* fp64 fp32 bf16 fp16 int8 amx_bf16 amx_int8 */
    rt_isa isa;             /* level it needs */
    const char *instr;      /* the instruction it times */
    double flops_per_instr; /* FLOPs (or int8 ops) one instruction does */
    int instr_per_iter;     /* instructions in one loop iteration */
    /* Does the CPU have what the kernel needs? */
    bool (*available)(const rt_cpu_info *cpu);
    /* Run iters iterations on the calling thread; 0 when the checked result is right. */
    int (*run)(long iters);
} rt_flops_kernel;

/* Every kernel this build has, lowest ISA first within a unit. */
const rt_flops_kernel *rt_flops_kernels(size_t *n);

/* Run k once with iters iterations and check its result; -1 with a message when wrong. */
int rt_flops_kernel_check(const rt_flops_kernel *k, long iters, rt_error *err);

/*
 * FLOP/s of k on `threads` threads (each runs the kernel), `trials` runs of
 * about `seconds` each after calibration. one_thread: k's rate on one thread
 * measured before (0: none), a reference for slow runs (RT_SLOW_CROSS) beside
 * the calibration's. -1 when a result check fails.
 */
int rt_flops_measure(const rt_flops_kernel *k, int threads, int trials, double seconds,
                     double one_thread, rt_stat *flops, rt_error *err);

/* ---- a guarded run (guarded-run.c): a function run once where a fault cannot end the caller ----
 */

typedef enum rt_guard_end {
    RT_GUARD_RETURNED, /* value: 0 when the function returned 0, else 1 */
    RT_GUARD_SIGNAL,   /* value: the signal it raised (SIGILL, SIGSEGV, SIGBUS, SIGFPE ...) */
    RT_GUARD_EXIT,     /* value: an exit status its process ended with otherwise */
    RT_GUARD_TIMEOUT,  /* it ran past the time allowed and was stopped */
} rt_guard_end;

typedef struct rt_guarded {
    rt_guard_end end;
    int value;
} rt_guarded;

/*
 * Run fn(arg) once in a child process (fork; Linux's AMX permission goes with it) and say in out
 * how it ended; one that runs past timeout seconds is killed. 0, or -1 with the reason in err when
 * no child could be started or waited for. The caller's signal handlers are left as they are.
 */
int rt_guarded_run(int (*fn)(long), long arg, double timeout, rt_guarded *out, rt_error *err);
/* How g ended, in words: "raised SIGILL", "did not end within 10 s" ... */
void rt_guarded_describe(const rt_guarded *g, double timeout, char *buf, size_t n);
/* "SIGILL" for the signals a kernel's run may end with; NULL for others. */
const char *rt_signal_name(int sig);

/* A trial run may take this long (one takes microseconds to milliseconds). */
#define RT_TRIAL_TIMEOUT 10.0
/*
 * A kernel's trial run before it is measured: fn(arg) in a child (rt_guarded_run). CPUID can list
 * an instruction set that faults all the same (a hypervisor that passes the CPUID bit through but
 * not the instruction; AMX where Linux granted the permission and the host did not), and a fault
 * in the measurement itself would end the whole process. 0 when it ran right; 1 when it raised a
 * signal, did not end within RT_TRIAL_TIMEOUT or computed a wrong result, how in how[0..n) ("raised
 * SIGILL although CPUID lists the instruction set", "computed a wrong result" ...). Where no child
 * can be started, fn runs in this process, unguarded, from then on (*unguarded), and skipped says
 * so once, naming `what` ("compute kernels").
 */
int rt_guarded_trial(int (*fn)(long), long arg, const char *what, bool *unguarded,
                     rt_warnings *skipped, char *how, size_t n);

/* ---- progress of a machine measurement: each stage owns a slice [lo, hi) of [0, 1] ---- */

typedef struct rt_run_progress {
    rt_progress_fn fn;
    void *ctx;
    const char *stage;
    double lo, hi;
} rt_run_progress;

/* Report the fraction f of the current stage done. */
static inline void rt_progress_report(rt_run_progress *p, double f)
{
    if (p->fn)
        p->fn(p->ctx, p->stage, p->lo + (p->hi - p->lo) * (f < 0 ? 0 : f > 1 ? 1 : f));
}

/* Start the stage `name`, owning [lo, hi) of the run. */
static inline void rt_progress_stage(rt_run_progress *p, const char *name, double lo, double hi)
{
    p->stage = name;
    p->lo = lo;
    p->hi = hi;
    rt_progress_report(p, 0);
}

/* ---- the compute stage (measure-compute.c) ---- */

#define RT_N_UNITS 7
/* The units in the machine's order: fp64 fp32 bf16 fp16 int8 amx_bf16 amx_int8. */
extern const char *const rt_unit_order[RT_N_UNITS];

/* One unit's best kernel: its figures at the most threads and on one, the clock before it. */
typedef struct rt_unit_result {
    const rt_flops_kernel *k;
    rt_stat all, one;
    double hz;
    int have;
} rt_unit_result;

typedef struct rt_compute_plan {
    int trials;
    double seconds; /* per trial */
    bool quick;     /* only the best ISA of each unit (among those whose trial run passed) */
    const rt_flops_kernel *kernels; /* the kernels to choose from: rt_flops_kernels()'s */
    size_t n_kernels;
} rt_compute_plan;

/* Iterations of a compute kernel's trial run (rt_guarded_trial: microseconds). */
#define RT_TRIAL_ITERS 100

/*
 * Every compute kernel of the plan the CPU has within `limit` at the thread counts
 * tcounts[0..nt), the clock before each, into meas; figures that read slow against the kernel's
 * other thread counts (RT_SLOW_CROSS, RT_SLOW_SAME) or kept no clean trial are measured again
 * after the others and the better kept. best[u] gets unit rt_unit_order[u]'s best kernel. Each
 * kernel first has a trial run (rt_guarded_trial, RT_TRIAL_ITERS iterations): one that raises a
 * signal (SIGILL where a hypervisor lists an instruction set it does not run), does not end or
 * computes a wrong result is left out with a line in skipped, the others measured. A kernel that
 * computes a wrong result later (on more threads, over longer runs, on its second look) is left
 * out the same way, its figures dropped; under --quick its unit is then measured with the next
 * ISA whose trial passed.
 */
void rt_measure_compute(const rt_compute_plan *pl, const rt_cpu_info *cpu, rt_isa limit,
                        const int *tcounts, int nt, rt_run_progress *pr, rt_measurement *meas,
                        rt_unit_result best[RT_N_UNITS], rt_warnings *skipped);

/* ---- bandwidth kernels (measure-bandwidth.c) ---- */

typedef enum rt_bw_kind {
    RT_BW_READ,
    RT_BW_COPY,
    RT_BW_TRIAD,
    RT_BW_UPDATE,
    RT_BW_NKINDS
} rt_bw_kind;
const char *rt_bw_kind_name(rt_bw_kind k);
/* The traffic one pass of kernel k moves per byte of its working set: 2 for update (each element
 * read and written back: the Empirical Roofline Toolkit's kernel), 1 for the others (STREAM's
 * counting: copy and triad's write-allocate reads not counted). */
double rt_bw_traffic(rt_bw_kind k);

/* Working sets are multiples of this (whole unrolled steps of every kernel, 3 triad arrays). */
#define RT_BW_GRAIN 1536

/* Fill buf (bytes a multiple of RT_BW_GRAIN, 64-byte aligned) with the pattern the kernels check.
 */
void rt_bw_fill(rt_bw_kind kind, void *buf, size_t bytes);
/*
 * One bandwidth kernel: a kind with one ISA's loads and stores. run makes `passes` passes over buf
 * (filled by rt_bw_fill) and counts `bytes` x rt_bw_traffic(kind) per pass (read: all of it; copy:
 * half read, half written; triad: two thirds read, one third written; update: all of it read and
 * written back in place); 0 when its check matched.
 */
typedef struct rt_bw_kernel {
    rt_bw_kind kind;
    rt_isa isa; /* RT_ISA_SCALAR (plain C), RT_ISA_SSE, RT_ISA_AVX2 or RT_ISA_AVX512 */
    int (*run)(void *buf, size_t bytes, long passes);
} rt_bw_kernel;

/* Every bandwidth kernel this build has, by kind, lowest ISA first. */
const rt_bw_kernel *rt_bw_kernels(size_t *n);
/* The kernel of ks[0..n) of `kind` with the best ISA up to isa; NULL when none. */
const rt_bw_kernel *rt_bw_kernel_find(const rt_bw_kernel *ks, size_t n, rt_bw_kind kind,
                                      rt_isa isa);
/* k over buf (bytes a multiple of RT_BW_GRAIN, 64-byte aligned): 0 when its check matched, -1
 * when not or on sizes that are not whole kernel steps. */
int rt_bw_run(const rt_bw_kernel *k, void *buf, size_t bytes, long passes);

typedef struct rt_bw_point {
    double bytes; /* working set per thread */
    rt_stat bw;   /* bytes/s, all threads together */
} rt_bw_point;

/* The median of the points' medians between from and to: a plateau's typical figure
 * (measure-plateau.c). */
double rt_plateau_typical_over(const rt_bw_point *pts, size_t n, double from, double to);
/* The rate a plateau's clean points between from and to reach unslowed: the second highest
 * ceiling (the highest when fewer than three points) (measure-plateau.c). */
double rt_plateau_top(const rt_bw_point *pts, size_t n, double from, double to);
/* A plateau's ceiling from its points that kept a clean trial: the median of their best figures,
 * min and max beside it; with trim (a level of a core's own caches) only of those within
 * RT_PLATEAU_FLAT of rt_plateau_top either way; p unchanged when none did (measure-plateau.c). */
/* A level of a core's own caches is flat by construction (every working set served by the same
 * cache): undisturbed, its points read within a few percent of each other. */
#define RT_PLATEAU_FLAT 0.95
void rt_plateau_from_clean(const rt_bw_point *pts, size_t n, rt_plateau *p, bool trim);

/* The working sets of a sweep, per thread: from min to max in geometric steps of `step`, leaving
 * out those in (skip_from, skip_to] (none when skip_to <= skip_from). */
typedef struct rt_bw_grid {
    double min, max, step;
    double skip_from, skip_to;
} rt_bw_grid;

/* The grid's working sets, whole kernel steps (RT_BW_GRAIN), ascending and distinct, at most cap
 * of them; returns how many (0 on a bad grid: step <= 1, min < RT_BW_GRAIN or max < min). */
size_t rt_bw_grid_sizes(const rt_bw_grid *g, size_t *sizes, size_t cap);

/* What tells a slow trial of a sweep (see RT_SLOW_SAME): up to private_bytes per thread (the
 * caches of one core; 0: nowhere) a trial must reach RT_SLOW_SAME of the best clean rate at its
 * working set, and with several threads RT_SLOW_CROSS of the one-thread curve `one` (may be NULL)
 * there per thread. */
typedef struct rt_bw_ref {
    double private_bytes;
    const rt_bw_point *one;
    size_t n_one;
} rt_bw_ref;

/*
 * Sweep the grid's working sets with kernel k on `threads` threads (measure-sweep.c); fills pts
 * (caller frees) and *n. ref and progress(ctx, fraction) may be NULL. 0; 1 when the kernel
 * computed a wrong result, err saying where ("at 3072 bytes per thread on 2 threads"); -1 on other
 * errors.
 */
int rt_bw_sweep(const rt_bw_kernel *k, int threads, const rt_bw_grid *grid, int trials,
                double seconds, const rt_bw_ref *ref, rt_bw_point **pts, size_t *n,
                void (*progress)(void *ctx, double fraction), void *ctx, rt_error *err);
/* The same at the working sets sizes[0..np) (whole RT_BW_GRAINs), into out[0..np). */
int rt_bw_points(const rt_bw_kernel *k, int threads, const size_t *sizes, size_t np, int trials,
                 double seconds, const rt_bw_ref *ref, rt_bw_point *out,
                 void (*progress)(void *ctx, double fraction), void *ctx, rt_error *err);

/* ---- the kernel each bandwidth sweep uses (measure-bw-variants.c) ---- */

/* Each kind's kernels up to an ISA, best first, and the one in use. */
typedef struct rt_bw_variants {
    const rt_bw_kernel *cand[RT_BW_NKINDS][8];
    size_t n[RT_BW_NKINDS];
    size_t cur[RT_BW_NKINDS]; /* the one in use; n[kind] when none is left */
    bool tried[RT_BW_NKINDS]; /* the one in use has passed its trial run */
    bool tried_all;           /* the one trial of every kind's best kernel has run */
    rt_isa isa;               /* the ISA asked for */
    bool unguarded;           /* no trial process could be started: trials run in this one */
} rt_bw_variants;

/* The kernels of ks[0..n) up to isa, per kind. */
void rt_bw_variants_init(rt_bw_variants *v, const rt_bw_kernel *ks, size_t n, rt_isa isa);
/*
 * The kernel to measure `kind` with: the best one whose trial run (rt_guarded_trial: a few passes
 * over 12 KiB; the first call tries every kind's best kernel in one child, and only where that
 * fails each kind's on its own) passed; with why (not NULL), the one in use is out for that reason
 * ("computed a wrong result at ...") and the next is chosen. Each kernel left out gets a line in sk
 * that names the one used instead, or says the kind is not measured. NULL when no kernel is left.
 */
const rt_bw_kernel *rt_bw_variant(rt_bw_variants *v, rt_bw_kind kind, const char *why,
                                  rt_warnings *sk);
/* The ISA `kind` is measured at: the one asked for while its best kernel serves, else the kernel's
 * own. */
rt_isa rt_bw_variant_isa(const rt_bw_variants *v, rt_bw_kind kind);

/* One swept curve: its kernel, thread count and points (owned). */
typedef struct rt_bw_swept {
    rt_bw_kind kind;
    int threads;
    rt_bw_point *pts;
    size_t n;
} rt_bw_swept;

/* ---- the memory levels of a machine measurement (measure-levels.c) ---- */

/* How the bandwidth sweeps run. */
typedef struct rt_levels_plan {
    int trials;
    double seconds, step, total_max; /* per trial; between working sets; all threads' bytes */
    double llc_mult; /* sweep to at least this many times a thread's last-level share */
    /* --quick: copy, triad and update at the most threads only, in steps of 2, to total_max; read
     * leaves out the working sets between the last-level share and twice it (no level lies there)
     */
    bool quick;
    const rt_bw_kernel *kernels; /* the kernels to choose from: rt_bw_kernels()'s */
    size_t n_kernels;
} rt_levels_plan;

/* The caches and the levels found on the reference curve (read at the most threads), each level's
 * bandwidth the read's or the update kernel's plateau at the most threads, the faster. */
typedef struct rt_levels {
    rt_cache_info caches[8];
    int ncache;
    const char *cache_source; /* "hwloc", "sysfs" or "none" */
    rt_plateau found[9];      /* the caches, then DRAM */
    double typical[9];
    /* the kernel whose plateau gives each level's bandwidth: read's, or update's where it moved
     * more (a level serves reads and write-backs at once) */
    rt_bw_kind kind[9];
    size_t n;
    rt_isa isa[RT_BW_NKINDS]; /* the ISA each kernel was measured at (rt_bw_variant_isa) */
} rt_levels;

/*
 * Sweep every kind of kernel at the thread counts tcounts[0..nt), each with its best kernel of the
 * plan's up to isa whose trial run passed (rt_bw_variant), add the curves, their plateaus and the
 * caches to meas, and name the levels of the reference curve in out. A kernel that computes a
 * wrong result, in its sweep or on the second look, has its curves dropped and the next one
 * sweeps its kind again. The stage owns [lo, hi) of the run's progress. Warnings (no cache sizes,
 * a level not found on the reference curve, a kernel left out) go to skipped. -1 when no read
 * kernel is left, or on other errors.
 */
int rt_measure_levels(const rt_levels_plan *pl, rt_isa isa, const int *tcounts, int nt, double lo,
                      double hi, rt_run_progress *pr, rt_measurement *meas, rt_levels *out,
                      rt_warnings *skipped, rt_error *err);

/*
 * The second look (measure-revisit.c): on each read curve of cv[0..ncv) (one thread before more),
 * the points of the levels inside a core's own caches that read below RT_SLOW_SAME of what the
 * level's points reach (rt_plateau_top) or of its best rate per thread on another curve (one
 * thread: RT_SLOW_UP), or kept no clean trial, are measured again and the better figure kept (a
 * clean trial over none, else the higher ceiling). A level with no such point has its middle point
 * measured again, and all its points when that one now reads RT_REVISIT_GAIN times the level or
 * more (a stretch slowed alike). The kernel `read` measures them. *revisited and *kept count them.
 * 1 when it computed a wrong result, err saying where (rt_bw_points), -1 on other errors.
 */
#define RT_REVISIT_GAIN 1.05
int rt_levels_revisit(const rt_levels_plan *pl, const rt_bw_kernel *read, const rt_levels *lv,
                      double private_bytes, rt_bw_swept *cv, size_t ncv, int *revisited, int *kept,
                      rt_error *err);

/* ---- launch overhead (measure-overhead.c) ---- */

/* Seconds per OpenMP parallel region (fork + join) on `threads` threads. */
int rt_overhead_openmp(int threads, int trials, long regions, rt_stat *sec, rt_error *err);
/*
 * Seconds per OpenCL enqueue of an empty kernel + clFinish; returns 1 (and a
 * reason in err) when it cannot run here: no OpenCL at build time or no platform.
 * device_name (may be NULL) gets the device's name.
 */
int rt_overhead_opencl(int trials, long launches, rt_stat *sec, char *device_name, size_t name_len,
                       rt_error *err);

/* ---- one layer up (measure-framework-overhead.c): 0, or 1 with the reason in err when it cannot
 * run ---- */

/* Seconds per PyTorch eager op (a one-element add, one thread) timed in `python`; version gets
 * torch's version. */
int rt_overhead_torch(const char *python, int trials, long ops, rt_stat *sec, char *version,
                      size_t version_len, rt_error *err);
/* Seconds per oneDNN primitive execute + stream wait (a one-element reorder); what says which. */
int rt_overhead_onednn(int trials, long execs, rt_stat *sec, char *what, size_t what_len,
                       rt_error *err);

#endif
