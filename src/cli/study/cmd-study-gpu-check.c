/* `rooftime study --gpu`: the correctness check. The conv2d clients wrote their forward outputs on
 * the check points to DIR/check; rt_study_gpu_check (study-gpu-check.c) runs rooftime's direct
 * NVRTC convolution on the same points and compares every output with it. */
#include <stdlib.h>

#include "cli-study-gpu.h"
#include "rooftime/study/study-gpu-check.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

void cli_study_gpu_check(const cli_gpu_study *g, rt_study_gpu_result *r)
{
    size_t n;
    const rt_study_gpu_check_point *pts = rt_study_gpu_check_points(&n);
    char *dir = rt_asprintf("%s/check", g->dir), *report = NULL;
    rt_error err = {{0}};
    int rc = rt_study_gpu_check(g->so.device, pts, n, dir, &report, &err);
    free(r->check_report);
    if (rc < 0) {
        free(report);
        r->check_status = -1;
        r->check_report = rt_asprintf("The reference could not run: %s", err.msg);
    } else {
        r->check_status = rc;
        r->check_report =
            report && *report
                ? report
                : rt_asprintf("No output to check in %s (no conv2d client wrote one)", dir);
        if (r->check_report != report)
            free(report);
    }
    free(dir);
}
