/* Launch overhead: OpenMP parallel-region fork/join and OpenCL enqueue+finish of an empty kernel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure-internal.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef RT_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

#ifdef RT_HAVE_OPENMP
/* Each thread bumps its own padded counter: a body the compiler must keep, without contention. */
static long run_regions(int threads, long regions, volatile long *slots)
{
    for (long r = 0; r < regions; r++) {
#pragma omp parallel num_threads(threads)
        slots[omp_get_thread_num() * 8] += 1;
    }
    long sum = 0;
    for (int t = 0; t < threads; t++)
        sum += slots[t * 8];
    return sum;
}
#endif

int rt_overhead_openmp(int threads, int trials, long regions, rt_stat *sec, rt_error *err)
{
#ifdef RT_HAVE_OPENMP
    if (threads < 1 || regions < 1) {
        rt_error_set(err, "OpenMP overhead: bad parameters");
        return -1;
    }
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    volatile long *slots = rt_xcalloc((size_t)threads * 8, sizeof(long));
    long done = run_regions(threads, regions / 10 + 1, slots); /* wake the thread pool */
    long want = done;
    double v[64];
    for (int i = 0; i < trials; i++) {
        double t0 = rt_now();
        done = run_regions(threads, regions, slots);
        v[i] = (rt_now() - t0) / (double)regions;
        want += regions * threads;
    }
    free((void *)slots);
    if (done != want) {
        rt_error_set(err,
                     "OpenMP overhead: %ld region bodies ran, expected %ld (fewer threads "
                     "than asked?)",
                     done, want);
        return -1;
    }
    *sec = rt_stat_of(v, (size_t)trials);
    return 0;
#else
    (void)threads, (void)trials, (void)regions, (void)sec;
    rt_error_set(err, "the OpenMP overhead needs OpenMP, not found at configure time");
    return -1;
#endif
}

#ifdef RT_HAVE_OPENCL
static const char *cl_err(cl_int e)
{
    static _Thread_local char buf[32];
    snprintf(buf, sizeof buf, "OpenCL error %d", (int)e);
    return buf;
}
#endif

int rt_overhead_opencl(int trials, long launches, rt_stat *sec, char *device_name, size_t name_len,
                       rt_error *err)
{
    if (device_name && name_len)
        device_name[0] = '\0';
#ifdef RT_HAVE_OPENCL
    cl_uint np = 0;
    cl_int e = clGetPlatformIDs(0, NULL, &np);
    if (e != CL_SUCCESS || np == 0) {
        rt_error_set(err, "no OpenCL platform (Debian pocl-opencl-icd provides one for the CPU)");
        return 1;
    }
    cl_platform_id plats[16];
    if (np > 16)
        np = 16;
    clGetPlatformIDs(np, plats, NULL);
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
            dev = NULL;
    }
    if (!dev) {
        rt_error_set(err, "no OpenCL device on %u platform(s)", np);
        return 1;
    }
    if (device_name && name_len)
        clGetDeviceInfo(dev, CL_DEVICE_NAME, name_len, device_name, NULL);
    int rc = -1;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    if (!ctx) {
        rt_error_set(err, "OpenCL context: %s", cl_err(e));
        goto done;
    }
    q = clCreateCommandQueue(ctx, dev, 0, &e);
    if (!q) {
        rt_error_set(err, "OpenCL queue: %s", cl_err(e));
        goto done;
    }
    const char *src = "__kernel void rt_empty(void) {}";
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    if (!prog || clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        rt_error_set(err, "OpenCL: cannot build the empty kernel");
        goto done;
    }
    k = clCreateKernel(prog, "rt_empty", &e);
    if (!k) {
        rt_error_set(err, "OpenCL kernel: %s", cl_err(e));
        goto done;
    }
    size_t global = 1;
    /* Warm-up: the first launches pay for code generation and thread start. */
    for (int i = 0; i < 20; i++) {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
        clFinish(q);
    }
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    double v[64];
    for (int t = 0; t < trials; t++) {
        double t0 = rt_now();
        for (long i = 0; i < launches; i++) {
            e = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
            if (e == CL_SUCCESS)
                e = clFinish(q);
            if (e != CL_SUCCESS) {
                rt_error_set(err, "OpenCL launch: %s", cl_err(e));
                goto done;
            }
        }
        v[t] = (rt_now() - t0) / (double)launches;
    }
    *sec = rt_stat_of(v, (size_t)trials);
    rc = 0;
done:
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    if (q)
        clReleaseCommandQueue(q);
    if (ctx)
        clReleaseContext(ctx);
    return rc;
#else
    (void)trials, (void)launches, (void)sec;
    rt_error_set(err, "the OpenCL overhead needs OpenCL (Debian ocl-icd-opencl-dev), not found at "
                      "configure time");
    return 1;
#endif
}
