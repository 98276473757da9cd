/* The GPU study's result and findings (study-gpu-findings.c): overhead-bound configs and what CUDA
 * Graphs change, compute- against bandwidth-bound per implementation and precision, Tensor Core
 * share of FLOPs, AMP's speed-up against the roofline's, time in kernels without FLOPs, the
 * correctness check and the ncu cross-check. */
#ifndef ROOFTIME_STUDY_STUDY_GPU_FINDINGS_H
#define ROOFTIME_STUDY_STUDY_GPU_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef struct rt_study_gpu_result {
    rt_profile **profiles; /* one per implementation x precision x operation x pass x variant */
    size_t n_profiles;
    rt_warnings skipped;    /* implementations that did not run, and why (one line each) */
    rt_warnings notes;      /* what the reader must know (counters not joined, ...) */
    rt_warnings crosscheck; /* the ncu cross-check, one line per compared kernel or why not */
    char *check_report;     /* the correctness check's lines; NULL when it did not run */
    int check_status;       /* 0 all passed, 1 one failed, -1 could not run, -2 not run */
    char *device;           /* the GPU's name */
    double seconds;
    bool quick;
    int warmup, iters, c_warmup, c_iters;
    size_t clients; /* client processes run */
} rt_study_gpu_result;

void rt_study_gpu_result_free(rt_study_gpu_result *r);

/* The findings of the analysis of r's profiles; rt_findings_free frees them. */
rt_findings *rt_study_gpu_findings(const rt_analysis *a, const rt_study_gpu_result *r);

#endif
