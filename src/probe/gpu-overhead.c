/* A GPU's launch overhead by four definitions: the paper's (event-timed, synchronized), back to
 * back, host time inside cuLaunchKernel, and per node of a CUDA graph. */
#include <stdio.h>

#include "gpu-internal.h"
#include "rooftime/util/clock.h"

int rt_gpu_overhead_paper(rt_gpu_probe *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    long per = n / trials;
    for (int t = 0; t < trials; t++) {
        double sum = 0;
        for (long i = 0; i < per; i++) {
            float ms;
            if (rt_gpu_ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
                rt_gpu_ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                          "cuLaunchKernel") ||
                rt_gpu_ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
                rt_gpu_ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
                rt_gpu_ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
                return -1;
            sum += ms * 1e-3;
        }
        v[t] = sum / per;
    }
    o->seconds = rt_gpu_stat_of(v, trials);
    o->launches = per * trials;
    snprintf(o->method, sizeof o->method,
             "the paper's: empty <<<1,1>>> kernel between two device events, synchronized after "
             "each launch; mean of %ld launches per trial, median of %d trials",
             per, trials);
    return 0;
}

int rt_gpu_overhead_async(rt_gpu_probe *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    long per = n / trials;
    for (int t = 0; t < trials; t++) {
        float ms;
        if (rt_gpu_ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord"))
            return -1;
        for (long i = 0; i < per; i++)
            if (rt_gpu_ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                          "cuLaunchKernel"))
                return -1;
        if (rt_gpu_ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
            rt_gpu_ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
            rt_gpu_ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
            return -1;
        v[t] = ms * 1e-3 / per;
    }
    o->seconds = rt_gpu_stat_of(v, trials);
    o->launches = per * trials;
    snprintf(o->method, sizeof o->method,
             "back-to-back: %ld empty <<<1,1>>> kernels launched asynchronously between two "
             "device events, device time per launch; median of %d trials",
             per, trials);
    return 0;
}

int rt_gpu_overhead_cpu(rt_gpu_probe *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
{
    enum { BATCH = 128 }; /* well under the launch queue's depth, so no launch waits */
    double v[MAX_TRIALS];
    long batches = n / trials / BATCH;
    if (batches < 1)
        batches = 1;
    for (int t = 0; t < trials; t++) {
        double sum = 0;
        for (long b = 0; b < batches; b++) {
            double t0 = rt_now();
            for (int i = 0; i < BATCH; i++)
                if (rt_gpu_ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                              "cuLaunchKernel"))
                    return -1;
            sum += rt_now() - t0;
            if (rt_gpu_ck(g, g->cu.StreamSynchronize(g->s), "cuStreamSynchronize"))
                return -1;
        }
        v[t] = sum / (batches * BATCH);
    }
    o->seconds = rt_gpu_stat_of(v, trials);
    o->launches = batches * BATCH * trials;
    snprintf(o->method, sizeof o->method,
             "host time inside cuLaunchKernel: batches of %d asynchronous launches of an empty "
             "<<<1,1>>> kernel timed on the CPU clock, the stream drained between batches; "
             "median of %d trials",
             BATCH, trials);
    return 0;
}

/* A graph of `nodes` empty kernels in a chain; device time of one launch of it (median of 5). */
static int graph_time(rt_gpu_probe *g, rt_cu_function f, int nodes, double *sec)
{
    rt_cu_graph graph = NULL;
    rt_cu_graph_exec exec = NULL;
    int rc = -1;
    if (rt_gpu_ck(g, g->cu.StreamBeginCapture(g->s, RT_CU_CAPTURE_MODE_THREAD_LOCAL),
                  "cuStreamBeginCapture"))
        return -1;
    rt_cu_result launched = RT_CU_SUCCESS;
    for (int i = 0; i < nodes && launched == RT_CU_SUCCESS; i++)
        launched = g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL);
    /* The capture ends whatever happened, so the stream stays usable; a graph shorter than asked
     * would time fewer nodes, so a failed launch is an error. */
    rt_cu_result ended = g->cu.StreamEndCapture(g->s, &graph);
    if (rt_gpu_ck(g, launched, "cuLaunchKernel (stream capture)") ||
        rt_gpu_ck(g, ended, "cuStreamEndCapture") ||
        rt_gpu_ck(g, g->cu.GraphInstantiate(&exec, graph, 0), "cuGraphInstantiate"))
        goto done;
    double v[5];
    for (int t = -2; t < 5; t++) {
        float ms;
        if (rt_gpu_ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
            rt_gpu_ck(g, g->cu.GraphLaunch(exec, g->s), "cuGraphLaunch") ||
            rt_gpu_ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
            rt_gpu_ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
            rt_gpu_ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
            goto done;
        if (t >= 0)
            v[t] = ms * 1e-3;
    }
    *sec = rt_gpu_stat_of(v, 5).median;
    rc = 0;
done:
    if (exec)
        g->cu.GraphExecDestroy(exec);
    if (graph)
        g->cu.GraphDestroy(graph);
    return rc;
}

int rt_gpu_overhead_graph(rt_gpu_probe *g, rt_cu_function f, int small, int big, int trials,
                          rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        double a, b;
        if (graph_time(g, f, small, &a) || graph_time(g, f, big, &b))
            return -1;
        v[t] = (b - a) / (big - small);
    }
    o->seconds = rt_gpu_stat_of(v, trials);
    o->launches = (long)(small + big) * 7 * trials;
    snprintf(o->method, sizeof o->method,
             "per node of a CUDA graph: a chain of %d and one of %d empty <<<1,1>>> kernels "
             "captured from a stream, device time of a graph launch; the difference per node, "
             "median of %d trials",
             small, big, trials);
    return 0;
}
