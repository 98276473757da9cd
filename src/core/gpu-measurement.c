/* How a GPU was measured: the launch-overhead definitions by name, the record's release. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/gpu-measurement.h"
#include "rooftime/util/strings.h"

static const char *const tau_names[RT_GPU_TAU_COUNT] = {"paper", "async", "cpu", "graph"};
static const char *const overhead_names[RT_GPU_TAU_COUNT] = {
    "cuda_empty_kernel_event", "cuda_async_launch", "cuda_launch_host", "cuda_graph_node"};

int rt_gpu_tau_parse(const char *s, rt_gpu_tau *out, rt_error *err)
{
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++)
        if (s && strcmp(s, tau_names[i]) == 0) {
            *out = (rt_gpu_tau)i;
            return 0;
        }
    rt_error_set(err, "unknown launch-overhead definition '%s' (paper, async, cpu, graph)",
                 s ? s : "");
    return -1;
}

const char *rt_gpu_tau_name(rt_gpu_tau t)
{
    return t >= 0 && t < RT_GPU_TAU_COUNT ? tau_names[t] : "?";
}

const char *rt_gpu_tau_overhead_name(rt_gpu_tau t)
{
    return t >= 0 && t < RT_GPU_TAU_COUNT ? overhead_names[t] : "?";
}

rt_gpu_measurement *rt_gpu_measurement_new(void)
{
    return rt_xcalloc(1, sizeof(rt_gpu_measurement));
}

void rt_gpu_measurement_free(rt_gpu_measurement *g)
{
    if (!g)
        return;
    for (int i = 0; i < 2; i++) {
        free(g->curve[i].bytes);
        free(g->curve[i].bw);
        free(g->curve[i].min);
        free(g->curve[i].max);
    }
    free(g);
}
