/* One GPU for the probe: the driver and NVRTC opened, a context, the kernels of data/gpu/ compiled
 * and loaded, the buffers every kernel uses; timing one launch, trials into a spread, progress. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu-internal.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* A kernel source is a few kilobytes; anything past this is not one. */
#define MAX_SOURCE ((size_t)1 << 20)

char *rt_gpu_kernel_source(const char *name, rt_error *err)
{
    char *p1 = rt_asprintf("%s/gpu/common.cuh", rt_datadir());
    char *p2 = rt_asprintf("%s/gpu/%s", rt_datadir(), name);
    char *a = NULL, *b = NULL;
    size_t na, nb;
    if (rt_read_text_file(p1, MAX_SOURCE, &a, &na, err) == 0)
        rt_read_text_file(p2, MAX_SOURCE, &b, &nb, err);
    char *src = b ? rt_asprintf("%s\n%s", a, b) : NULL;
    free(p1);
    free(p2);
    free(a);
    free(b);
    return src;
}
int rt_gpu_ck(rt_gpu_probe *g, rt_cu_result rc, const char *what)
{
    if (rc == RT_CU_SUCCESS)
        return 0;
    char buf[256];
    rt_error_set(g->err, "%s failed: %s", what, rt_cuda_strerror(&g->cu, rc, buf, sizeof buf));
    return -1;
}

int rt_gpu_get_fn(rt_gpu_probe *g, int mod, const char *name, rt_cu_function *f)
{
    char what[96];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    return rt_gpu_ck(g, g->cu.ModuleGetFunction(f, g->mod[mod], name), what);
}

/* Blocks of BLOCK threads that fill every SM once (one wave). */
int rt_gpu_one_wave(rt_gpu_probe *g, rt_cu_function f, size_t smem, unsigned *grid)
{
    return rt_gpu_one_wave_of(g, f, BLOCK, smem, grid);
}

int rt_gpu_one_wave_of(rt_gpu_probe *g, rt_cu_function f, unsigned block, size_t smem,
                       unsigned *grid)
{
    int per_sm = 0;
    if (rt_gpu_ck(g, g->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)block, smem),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
        return -1;
    if (per_sm < 1)
        per_sm = 1;
    *grid = (unsigned)(g->sms * per_sm);
    if ((size_t)*grid * block > g->out_floats)
        *grid = (unsigned)(g->out_floats / block);
    return 0;
}

/* Launch once between the two events and wait; seconds of device time; meta copied to host. */
int rt_gpu_timed(rt_gpu_probe *g, rt_cu_function f, unsigned grid, unsigned smem, void **params,
                 double *sec, double meta[4])
{
    return rt_gpu_timed_of(g, f, grid, BLOCK, smem, params, sec, meta);
}

int rt_gpu_timed_of(rt_gpu_probe *g, rt_cu_function f, unsigned grid, unsigned block, unsigned smem,
                    void **params, double *sec, double meta[4])
{
    float ms = 0;
    if (rt_gpu_ck(g, g->cu.MemsetD32(g->meta, 0, 8), "cuMemsetD32") ||
        rt_gpu_ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
        rt_gpu_ck(g, g->cu.LaunchKernel(f, grid, 1, 1, block, 1, 1, smem, g->s, params, NULL),
                  "cuLaunchKernel") ||
        rt_gpu_ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
        rt_gpu_ck(g, g->cu.EventSynchronize(g->e1), "kernel run (cuEventSynchronize)") ||
        rt_gpu_ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime") ||
        rt_gpu_ck(g, g->cu.MemcpyDtoH(meta, g->meta, 4 * sizeof(double)), "cuMemcpyDtoH"))
        return -1;
    *sec = ms * 1e-3;
    return 0;
}

rt_spread rt_gpu_stat_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    rt_spread s = {0, 0, 0};
    if (n > 0) {
        s.min = v[0];
        s.max = v[n - 1];
        s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    return s;
}

double rt_gpu_clock_of(const double meta[4])
{
    return meta[3] > 0 ? meta[2] / meta[3] * 1e9 : 0;
}
void rt_gpu_progress(rt_gpu_progress_t *p, double f)
{
    if (p->o->progress)
        p->o->progress(p->o->progress_ctx, p->stage,
                       p->lo + (p->hi - p->lo) * (f < 0   ? 0
                                                  : f > 1 ? 1
                                                          : f));
}

void rt_gpu_stage(rt_gpu_progress_t *p, const char *name, double lo, double hi)
{
    p->stage = name;
    p->lo = lo;
    p->hi = hi;
    rt_gpu_progress(p, 0);
}
/* ---- set-up and tear-down ---- */

void rt_gpu_close(rt_gpu_probe *g)
{
    if (g->have_ctx) {
        for (int i = 0; i < N_MODS; i++)
            if (g->mod[i])
                g->cu.ModuleUnload(g->mod[i]);
        if (g->meta)
            g->cu.MemFree(g->meta);
        if (g->out)
            g->cu.MemFree(g->out);
        if (g->buf)
            g->cu.MemFree(g->buf);
        if (g->e0)
            g->cu.EventDestroy(g->e0);
        if (g->e1)
            g->cu.EventDestroy(g->e1);
        if (g->s)
            g->cu.StreamDestroy(g->s);
        g->cu.PrimaryCtxRelease(g->dev);
    }
    rt_nvrtc_close(&g->nv);
    rt_cuda_close(&g->cu);
}

static int attr(rt_gpu_probe *g, int which, int *v)
{
    return rt_gpu_ck(g, g->cu.DeviceGetAttribute(v, which, g->dev), "cuDeviceGetAttribute");
}

int rt_gpu_open(rt_gpu_probe *g, int index, const rt_gpu_archs *archs, rt_gpu_measurement *r,
                rt_error *err)
{
    g->err = err;
    if (rt_cuda_open(&g->cu, err))
        return -1;
    int count = 0;
    if (rt_gpu_ck(g, g->cu.DeviceGetCount(&count), "cuDeviceGetCount"))
        return -1;
    if (index < 0 || index >= count) {
        if (count == 0)
            rt_error_set(err, "no GPU %d: the driver sees no GPU", index);
        else
            rt_error_set(err, "no GPU %d: the driver sees %d GPU%s (0..%d)", index, count,
                         count == 1 ? "" : "s", count - 1);
        return -1;
    }
    if (rt_gpu_ck(g, g->cu.DeviceGet(&g->dev, index), "cuDeviceGet") ||
        rt_gpu_ck(g, g->cu.DeviceGetName(r->device, sizeof r->device, g->dev), "cuDeviceGetName"))
        return -1;
    int v;
    if (attr(g, RT_CU_ATTR_CC_MAJOR, &r->cc_major) || attr(g, RT_CU_ATTR_CC_MINOR, &r->cc_minor) ||
        attr(g, RT_CU_ATTR_SM_COUNT, &r->sms))
        return -1;
    if (attr(g, RT_CU_ATTR_CLOCK_RATE, &v))
        return -1;
    r->clock_hz = v * 1e3;
    if (attr(g, RT_CU_ATTR_MEMORY_CLOCK, &v))
        return -1;
    r->mem_clock_hz = v * 1e3;
    if (attr(g, RT_CU_ATTR_MEMORY_BUS_WIDTH, &v))
        return -1;
    r->bus_width_bits = v;
    r->hbm_theoretical = 2 * r->mem_clock_hz * r->bus_width_bits / 8;
    if (attr(g, RT_CU_ATTR_L2_SIZE, &v))
        return -1;
    r->l2_bytes = v;
    size_t mem = 0;
    if (rt_gpu_ck(g, g->cu.DeviceTotalMem(&mem, g->dev), "cuDeviceTotalMem"))
        return -1;
    r->mem_bytes = (double)mem;
    r->driver_version = g->cu.version;
    r->index = index;
    g->sm = r->cc_major * 10 + r->cc_minor;
    g->arch = archs ? rt_gpu_arch_find(archs, g->sm) : NULL;
    g->gen = archs ? rt_gpu_arch_generation(archs, g->sm) : NULL;
    g->sms = r->sms;
    g->clock_hz = r->clock_hz;
    if (rt_nvrtc_open(&g->nv, g->sm, err))
        return -1;
    snprintf(r->nvrtc, sizeof r->nvrtc, "%d.%d (%s)", g->nv.major, g->nv.minor, g->nv.path);
    if (rt_gpu_ck(g, g->cu.PrimaryCtxRetain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain"))
        return -1;
    g->have_ctx = 1;
    if (rt_gpu_ck(g, g->cu.CtxSetCurrent(g->ctx), "cuCtxSetCurrent") ||
        rt_gpu_ck(g, g->cu.StreamCreate(&g->s, RT_CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
        rt_gpu_ck(g, g->cu.EventCreate(&g->e0, 0), "cuEventCreate") ||
        rt_gpu_ck(g, g->cu.EventCreate(&g->e1, 0), "cuEventCreate"))
        return -1;
    g->out_floats = (size_t)g->sms * 32 * BLOCK;
    if (rt_gpu_ck(g, g->cu.MemAlloc(&g->meta, 8 * sizeof(double)), "cuMemAlloc") ||
        rt_gpu_ck(g, g->cu.MemAlloc(&g->out, g->out_floats * sizeof(float)), "cuMemAlloc") ||
        rt_gpu_ck(g, g->cu.MemsetD32(g->out, 0, g->out_floats), "cuMemsetD32"))
        return -1;
    for (int i = 0; i < N_MODS; i++) {
        const rt_gpu_module *m = &rt_gpu_modules[i];
        if (m->on_demand)
            continue;
        if (!rt_gpu_module_applies(m, g->gen)) {
            snprintf(g->absent[i], sizeof g->absent[i],
                     "%s: not compiled: %s on sm_%d (data/gpu/architectures.json)", m->source,
                     g->gen ? "no ceiling is reached by its instruction" : "no generation known",
                     g->sm);
            continue;
        }
        char *src = rt_gpu_kernel_source(m->source, err);
        if (!src)
            return -1;
        char *cubin = NULL;
        size_t size;
        int rc = rt_nvrtc_compile_feature(&g->nv, src, m->source, g->sm,
                                          m->feature ? m->feature : "", &cubin, &size, err);
        free(src);
        if (rc != 0 && m->family) {
            /* an NVRTC too old for sm_90a: the Tensor Core ceiling goes unmeasured, said so */
            snprintf(g->absent[i], sizeof g->absent[i], "%s", err->msg);
            continue;
        }
        if (rc == 0 && rt_gpu_ck(g, g->cu.ModuleLoadData(&g->mod[i], cubin), "cuModuleLoadData"))
            rc = -1;
        free(cubin);
        if (rc)
            return -1;
    }
    return 0;
}
