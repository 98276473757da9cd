/* Per-invocation timing of the study's kernels (study-timer.c): a monotonic clock around each call,
 * into a profile. */
#ifndef ROOFTIME_STUDY_STUDY_TIMER_H
#define ROOFTIME_STUDY_STUDY_TIMER_H

#include <stdbool.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/clock.h"

/* What one kernel invocation does: counted by the caller from the formulas above. */
typedef struct rt_kernel_cost {
    const char *name;
    const char *unit; /* compute unit of the FLOPs: fp32, bf16, amx_bf16 ... */
    double flops;
    double dram_bytes; /* compulsory traffic of its tensors */
    double l1_bytes;   /* loads + stores at L1, counted per loop iteration; < 0 when unknown */
    const char *impl;  /* implementation detail (oneDNN impl name, "openblas"); NULL: none */
    /* The overhead each call pays on its path (rt_kernel.overhead): a parallel region
     * (RT_OVERHEAD_OPENMP at overhead_threads), RT_OVERHEAD_NONE for a plain single-threaded
     * call; NULL: the profile's (a oneDNN primitive execute in the oneDNN implementation). */
    const char *overhead;
    int overhead_threads;
    /* Distinct bytes per call where fewer than dram_bytes (an in-place update; rt_kernel's
     * working_set); 0: dram_bytes. */
    double working_set;
} rt_kernel_cost;

/* What an OpenBLAS call pays: its threads, where it starts them (above a size threshold of its
 * own), are a pool of its own, not a region rooftime measures; a small GEMM runs in the calling
 * thread. Nothing measurable, either way. */
#define RT_STUDY_BLAS_OVERHEAD RT_OVERHEAD_NONE

/*
 * Times each kernel invocation with a monotonic clock and, while recording, adds it to a
 * profile under the given tags (warm-up iterations run with recording off).
 */
typedef struct rt_study_timer {
    rt_profile *profile; /* not owned */
    const rt_tags *tags; /* not owned: every kernel of the current config carries them */
    bool recording;
    double t0;
    double total; /* seconds of all timed invocations, recorded or not */
} rt_study_timer;

void rt_timer_init(rt_study_timer *t, rt_profile *p, const rt_tags *tags);
static inline void rt_timer_start(rt_study_timer *t);
/* Stop the clock and record the invocation described by cost. */
void rt_timer_stop(rt_study_timer *t, const rt_kernel_cost *cost);

/* ---- inline ---- */
static inline void rt_timer_start(rt_study_timer *t)
{
    t->t0 = rt_now();
}

#endif
