/* How a machine was measured (measurement.c): typed records that a probe fills and formats/
 * writes beside the ceilings. The model reads none of it; people and tools do. */
#ifndef ROOFTIME_CORE_MEASUREMENT_H
#define ROOFTIME_CORE_MEASUREMENT_H

#include <stdbool.h>
#include <stddef.h>

/* The median of repeated trials, with the smallest and largest. */
typedef struct rt_spread {
    double median, min, max;
} rt_spread;

/* One compute kernel at one thread count. */
typedef struct rt_peak_trial {
    char *unit, *isa, *instruction;
    int threads;
    rt_spread flops; /* over every trial: the typical figure and its spread */
    double ceiling;  /* the estimate of what the unit can do: a high quantile of the clean trials */
    int clean;       /* undisturbed trials behind the ceiling (0: all were disturbed) */
    double clock_hz; /* the clock measured right before it */
} rt_peak_trial;

/* A cache as the system describes it. */
typedef struct rt_cache_level {
    int level;
    double size_bytes;
    int shared_by; /* logical CPUs sharing one instance */
} rt_cache_level;

/* Bandwidth over working-set sizes: one kernel (read, copy, triad) at one thread count. */
typedef struct rt_bw_curve {
    char *kernel, *isa;
    int threads;
    size_t n;
    double *bytes; /* working set per thread */
    rt_spread *bw; /* bytes/s, all threads together */
    double *ceil;  /* bytes/s: a high quantile of each point's clean trials */
} rt_bw_curve;

/* A plateau found (or not) on a curve: a named memory level. */
typedef struct rt_bw_plateau {
    char *kernel, *name, *note;
    int threads;
    bool found;
    rt_spread bw;   /* median, min and max of the points' ceilings over the plateau */
    double typical; /* the median of the points' medians over the same stretch */
    double from_bytes, to_bytes;
} rt_bw_plateau;

typedef struct rt_measurement {
    /* the processor and the run */
    char *cpu_vendor, *cpu_model, *isa_used, *max_isa;
    int cpu_family, cpu_model_id, cpus;
    int *thread_counts;
    size_t n_thread_counts;
    bool quick;
    double seconds;
    /* seconds each stage took: clock, compute, bandwidth, overheads (OpenMP, OpenCL, framework) */
    double stage_seconds[4];
    long timed_runs, disturbed_runs;
    long slow_runs; /* of the disturbed runs, those slower than the same work before */
    /* the second look: points of a core's own caches and compute figures measured again, and how
     * many of the new figures were kept */
    int revisited_points, revisits_kept, revisited_peaks, peak_revisits_kept;
    /* the core clock */
    rt_spread clock_hz;
    double imul_hz;
    char *clock_method;
    rt_spread clock_before_kernels; /* the clock sampled before each compute kernel */
    size_t clock_samples;
    /* compute */
    rt_peak_trial *peaks;
    size_t n_peaks;
    /* memory */
    rt_cache_level *caches;
    size_t n_caches;
    char *cache_source;
    char *bw_isa, *bw_method;
    rt_bw_curve *curves;
    size_t n_curves;
    rt_bw_plateau *plateaus;
    size_t n_plateaus;
    /* what could not be measured here, and why */
    char **skipped;
    size_t n_skipped;
} rt_measurement;

rt_measurement *rt_measurement_new(void);
void rt_measurement_free(rt_measurement *x);
/* Append a zeroed record (strings copied by the setters below); valid until the next append. */
rt_peak_trial *rt_measurement_add_peak(rt_measurement *x, const char *unit, const char *isa,
                                       const char *instruction, int threads);
rt_bw_curve *rt_measurement_add_curve(rt_measurement *x, const char *kernel, const char *isa,
                                      int threads, size_t n);
rt_bw_plateau *rt_measurement_add_plateau(rt_measurement *x, const char *kernel, int threads,
                                          const char *name, const char *note);
void rt_measurement_add_cache(rt_measurement *x, int level, double size_bytes, int shared_by);
void rt_measurement_add_skipped(rt_measurement *x, const char *why);

#endif
