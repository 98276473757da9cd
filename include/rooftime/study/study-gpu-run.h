/* The GPU study's run (study-gpu-run.c): every plan's client in a trace and a counter run under
 * the CUPTI collector, their directories imported and joined into profiles. */
#ifndef ROOFTIME_STUDY_STUDY_GPU_RUN_H
#define ROOFTIME_STUDY_STUDY_GPU_RUN_H

#include <stddef.h>

#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/util/error.h"

/* Where and how the clients run. */
typedef struct rt_study_gpu_runner {
    const rt_study_gpu_opts *so;
    const rt_study_gpu_plan *plans;
    size_t n_plans;
    const char *dir;       /* the output directory: plans/, collect/, logs/, check/ */
    const char *from;      /* an earlier run's directory whose collect/ is re-imported, or NULL */
    const char *python;    /* the interpreter of the client scripts */
    const char *lib;       /* the collector's real path */
    const char *metrics;   /* the counter run's metrics, comma-separated */
    char *const *scripts;  /* the client script of each framework (RT_GPU_FW_COUNT) */
    double client_timeout; /* seconds one client run may take (then it is killed); 0: no limit */
    /* Told each line a client prints (mode "trace" or "counters"), and each client skipped (mode
     * NULL, line: why); NULL: nothing told. idx: the plan's. */
    void (*progress)(void *ud, size_t idx, const char *mode, const char *line);
    void *progress_ud;
} rt_study_gpu_runner;

/* Run every plan's client in a trace and a counter run, import and join the collector's
 * directories into r->profiles, r->clients the clients that ran (with g->from: import that run's
 * directories instead, running nothing; a client missing there is skipped). A client that exits 3
 * or fails is skipped with its line in r->skipped; -1 with err when the study cannot go on
 * (nothing ran, a directory cannot be made, a collector directory cannot be imported). */
int rt_study_gpu_run(const rt_study_gpu_runner *g, rt_study_gpu_result *r, rt_error *err);

#endif
