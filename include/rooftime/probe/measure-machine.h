/* Characterizing the CPU we run on: peak FLOP/s per unit, bandwidth per memory level, launch
 * overhead. */
#ifndef ROOFTIME_PROBE_MEASURE_MACHINE_H
#define ROOFTIME_PROBE_MEASURE_MACHINE_H

#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"

/* Called between stages; fraction in [0,1] is the share of the whole run done. */
typedef void (*rt_progress_fn)(void *ctx, const char *stage, double fraction);

typedef struct rt_measure_opts {
    int quick;           /* fewer sizes and trials: under 30 s on 2 cores */
    int max_threads;     /* 0: all cores */
    const char *max_isa; /* NULL, or "sse", "avx2", "avx512", "amx": never use an ISA above it */
    rt_progress_fn progress;
    void *progress_ctx;
    int no_pin; /* leave the threads where the OS puts them (several measurements at once) */
} rt_measure_opts;

/*
 * Measure this machine (opts may be NULL: full run, all cores, every ISA).
 * On success *out is a new machine with source "measured": units fp64, fp32
 * and those of bf16, fp16, int8, amx_bf16, amx_int8 the CPU has; levels L1,
 * L2, L3, DRAM found on the read-bandwidth curve; tau the OpenMP fork/join;
 * per-thread-count results, the clock, the curves and the OpenCL overhead in
 * extra. Every ceiling is a high quantile of the undisturbed trials, their
 * median kept as `typical`, min and max as the spread.
 * What could not be measured here (no AMX, no OpenCL platform, a level with
 * no plateau ...) is added to `skipped` (may be NULL). Returns -1 with err
 * filled on bad options or a kernel that computed a wrong result.
 */
int rt_machine_measure(const rt_measure_opts *opts, rt_machine **out, rt_warnings *skipped,
                       rt_error *err);

#endif
