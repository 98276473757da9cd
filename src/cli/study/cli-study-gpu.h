/* `rooftime study --gpu` (cmd-study-gpu.c and its rooms): the GPU study's request, and the steps
 * that checks the clients' outputs (cmd-study-gpu-check.c); the study wing runs the clients
 * (rt_study_gpu_run) and their ncu cross-check (rt_study_gpu_ncu_crosscheck). */
#ifndef ROOFTIME_CLI_STUDY_GPU_H
#define ROOFTIME_CLI_STUDY_GPU_H

#include <stdbool.h>

#include "rooftime/core/profile.h"
#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/util/error.h"

typedef struct cli_gpu_study {
    rt_study_gpu_opts so;
    rt_study_gpu_plan *plans;
    size_t n_plans;
    const char *dir;    /* the output directory */
    const char *from;   /* --from: an earlier run's directory, re-imported (nothing runs) */
    const char *python; /* $ROOFTIME_PYTHON, else python3 */
    char *lib;          /* the collector's real path */
    char *metrics;      /* the counter run's metrics, comma-separated */
    char *scripts[RT_GPU_FW_COUNT];
    int sm;                /* the device's compute capability, 90 for 9.0 */
    bool no_ncu;           /* skip the ncu cross-check */
    double client_timeout; /* seconds one client run may take; 0: no limit */
    const char *ncu_clock; /* the cross-check's --clock-control: "base" (else "none") or "none" */
    bool tty;
    double t0;
} cli_gpu_study;

/* `rooftime study --gpu ...` (argv as `study` got it). */
int cli_study_gpu(int argc, char **argv);

/* The correctness check of the clients' outputs in DIR/check against rooftime's direct NVRTC
 * convolution, into r->check_report and r->check_status. */
void cli_study_gpu_check(const cli_gpu_study *g, rt_study_gpu_result *r);

#endif
