/* The study's run (study-run.c): the correctness checks and the sweeps, timed, into profiles. */
#ifndef ROOFTIME_STUDY_STUDY_RUN_H
#define ROOFTIME_STUDY_STUDY_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

/* The transformer ops' iterations in a full run unless --warmup and --iters say otherwise. */
#define RT_STUDY_XF_WARMUP 2
#define RT_STUDY_XF_ITERS 5

typedef struct rt_study_progress {
    size_t done, total; /* cases */
    const char *what;   /* "onednn bf16 conv2d forward filters=256" */
    double elapsed;     /* seconds since the study started */
} rt_study_progress;

typedef struct rt_study_opts {
    bool ops[RT_OP_COUNT];
    bool precisions[RT_PREC_COUNT];
    bool impls[RT_IMPL_COUNT];
    int warmup, iters; /* < 0: the paper's 5 and 20 (quick: 1 and 3) */
    bool quick;
    double scale; /* 1: the paper's shapes; smaller shrinks them (tests) */
    void (*progress)(void *ud, const rt_study_progress *p);
    void *progress_ud;
    const char *python; /* for pytorch; NULL: $ROOFTIME_PYTHON, else /usr/bin/python3 */
    /* pytorch was selected by default, not asked for: when torch cannot run here the study skips
     * it with a note; otherwise that is an error (rt_study_run fails before any work) */
    bool pytorch_optional;
    /* the precisions were selected by default, not asked for: one torch only emulates on this
     * CPU (bf16 without AVX-512, several times slower than fp32) is skipped with a note */
    bool emulated_optional;
} rt_study_opts;

/* Everything selected: every op, fp32 and bf16 (fp16 tried too), every implementation (pytorch
 * optional). */
void rt_study_opts_init(rt_study_opts *o);

/* One correctness check: an implementation's result against the reference at a small shape. */
typedef struct rt_study_check {
    char *what; /* "onednn bf16 conv2d backward-data" */
    double rel_diff, bound;
    bool ok;
} rt_study_check;

typedef struct rt_study_result {
    rt_profile **profiles; /* one per implementation x precision x op x pass */
    size_t n_profiles;
    rt_study_check *checks;
    size_t n_checks;
    rt_warnings skipped; /* what did not run and why */
    double seconds;      /* wall time of the whole study */
    char *isa;           /* what oneDNN dispatches to */
    bool quick;          /* the sweeps that ran (rt_study_points) */
    double scale;
    int warmup, iters;
    int xf_warmup, xf_iters; /* the transformer ops' (RT_STUDY_XF_WARMUP, _ITERS in a full run) */
    /* 1-minute load average at the start and the end, and the CPUs online: a loaded machine
     * inflates the times (a thread descheduled at an OpenMP barrier stalls its team). */
    double load_start, load_end;
    long ncpu;
    double clock_cost; /* seconds one clock read takes: inside every timed invocation once */
} rt_study_result;

/* Validate opts (every shape, every selected implementation) before any work starts. */
int rt_study_validate(const rt_study_opts *o, rt_error *err);
/* Run the checks and the sweeps; *out owns the profiles. */
int rt_study_run(const rt_study_opts *o, rt_study_result **out, rt_error *err);
void rt_study_result_free(rt_study_result *r);

/* How the study groups kernels into configs and families (for rt_analysis_new and the report). */
const rt_group_opts *rt_study_group_opts(void);

#endif
