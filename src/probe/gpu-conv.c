/* The GPU study's correctness reference: opens one GPU (driver, NVRTC, context), compiles the
 * on-demand module conv-direct.cu alone, and runs its direct convolution per shape on the
 * deterministic inputs it fills on the device. */
#include "rooftime/probe/gpu-conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu-internal.h"

int rt_gpu_conv_out_side(const rt_gpu_conv_shape *s, rt_error *err)
{
    const int v[] = {s->batch, s->channels, s->size, s->filters, s->kernel, s->stride};
    static const char *const names[] = {"batch", "channels", "size", "filters", "kernel", "stride"};
    for (int i = 0; i < 6; i++)
        if (v[i] < 1 || v[i] > 65536) {
            rt_error_set(err, "%s %d is out of range (1..65536)", names[i], v[i]);
            return 0;
        }
    int side = (s->size + 2 * (s->kernel / 2) - s->kernel) / s->stride + 1;
    double x = (double)s->batch * s->channels * s->size * s->size;
    double w = (double)s->filters * s->channels * s->kernel * s->kernel;
    double y = (double)s->batch * s->filters * side * side;
    double most = x > w ? (x > y ? x : y) : (w > y ? w : y);
    if (most > (double)RT_GPU_CONV_MAX_ELEMS) {
        rt_error_set(err, "a tensor of %.0f elements is past the reference's limit of %zu", most,
                     RT_GPU_CONV_MAX_ELEMS);
        return 0;
    }
    return side;
}

typedef struct conv_gpu {
    rt_gpu_probe g; /* the driver, NVRTC, device and context; mod[MOD_CONV] alone */
    rt_cu_function fill, conv;
    rt_cu_ptr x, w, y;
} conv_gpu;

static int open_gpu(conv_gpu *c, int device, char *name, size_t name_len, rt_error *err)
{
    rt_gpu_probe *g = &c->g;
    g->err = err;
    if (rt_cuda_open(&g->cu, err))
        return -1;
    int count = 0, major = 0, minor = 0;
    if (rt_gpu_ck(g, g->cu.DeviceGetCount(&count), "cuDeviceGetCount"))
        return -1;
    if (device < 0 || device >= count) {
        rt_error_set(err, "no GPU %d: the driver sees %d GPU%s", device, count,
                     count == 1 ? "" : "s");
        return -1;
    }
    char dev_name[256] = "";
    if (rt_gpu_ck(g, g->cu.DeviceGet(&g->dev, device), "cuDeviceGet") ||
        rt_gpu_ck(g, g->cu.DeviceGetName(dev_name, sizeof dev_name, g->dev), "cuDeviceGetName") ||
        rt_gpu_ck(g, g->cu.DeviceGetAttribute(&major, RT_CU_ATTR_CC_MAJOR, g->dev),
                  "cuDeviceGetAttribute") ||
        rt_gpu_ck(g, g->cu.DeviceGetAttribute(&minor, RT_CU_ATTR_CC_MINOR, g->dev),
                  "cuDeviceGetAttribute"))
        return -1;
    if (name && name_len)
        snprintf(name, name_len, "%s", dev_name);
    g->sm = major * 10 + minor;
    if (rt_nvrtc_open(&g->nv, g->sm, err))
        return -1;
    if (rt_gpu_ck(g, g->cu.PrimaryCtxRetain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain"))
        return -1;
    g->have_ctx = 1;
    if (rt_gpu_ck(g, g->cu.CtxSetCurrent(g->ctx), "cuCtxSetCurrent"))
        return -1;
    const rt_gpu_module *m = &rt_gpu_modules[MOD_CONV];
    char *src = rt_gpu_kernel_source(m->source, err);
    if (!src)
        return -1;
    char *cubin = NULL;
    size_t size = 0;
    int rc = rt_nvrtc_compile(&g->nv, src, m->source, g->sm, &cubin, &size, err);
    free(src);
    if (rc == 0 && rt_gpu_ck(g, g->cu.ModuleLoadData(&g->mod[MOD_CONV], cubin), "cuModuleLoadData"))
        rc = -1;
    free(cubin);
    if (rc || rt_gpu_get_fn(g, MOD_CONV, "conv_fill", &c->fill) ||
        rt_gpu_get_fn(g, MOD_CONV, "conv_direct", &c->conv))
        return -1;
    return 0;
}

static void free_buffers(conv_gpu *c)
{
    rt_cu_ptr *p[] = {&c->x, &c->w, &c->y};
    for (int i = 0; i < 3; i++)
        if (*p[i]) {
            c->g.cu.MemFree(*p[i]);
            *p[i] = 0;
        }
}

static unsigned blocks_for(size_t n)
{
    size_t b = (n + BLOCK - 1) / BLOCK;
    return (unsigned)(b > 65535 ? 65535 : b < 1 ? 1 : b);
}

static int fill(conv_gpu *c, rt_cu_ptr p, size_t n, unsigned seed, double div)
{
    unsigned long long count = n;
    void *params[] = {&p, &count, &seed, &div};
    return rt_gpu_ck(
        &c->g,
        c->g.cu.LaunchKernel(c->fill, blocks_for(n), 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL),
        "cuLaunchKernel(conv_fill)");
}

/* One shape: inputs filled on the device, the convolution, the output copied back. */
static int run_one(conv_gpu *c, const rt_gpu_conv_shape *s, int side, float **out, size_t *n_out)
{
    rt_gpu_probe *g = &c->g;
    size_t nx = (size_t)s->batch * s->channels * s->size * s->size;
    size_t nw = (size_t)s->filters * s->channels * s->kernel * s->kernel;
    size_t ny = (size_t)s->batch * s->filters * side * side;
    if (rt_gpu_ck(g, g->cu.MemAlloc(&c->x, nx * sizeof(float)), "cuMemAlloc") ||
        rt_gpu_ck(g, g->cu.MemAlloc(&c->w, nw * sizeof(float)), "cuMemAlloc") ||
        rt_gpu_ck(g, g->cu.MemAlloc(&c->y, ny * sizeof(float)), "cuMemAlloc") ||
        fill(c, c->x, nx, 0, 1.0) ||
        fill(c, c->w, nw, 12345, sqrt((double)s->channels * s->kernel * s->kernel)))
        return -1;
    int N = s->batch, C = s->channels, H = s->size, F = s->filters, K = s->kernel, S = s->stride;
    int P = K / 2, OH = side;
    void *params[] = {&c->x, &c->w, &c->y, &N, &C, &H, &F, &K, &S, &P, &OH};
    if (rt_gpu_ck(
            g,
            g->cu.LaunchKernel(c->conv, blocks_for(ny), 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL),
            "cuLaunchKernel(conv_direct)") ||
        rt_gpu_ck(g, g->cu.CtxSynchronize(), "conv_direct (cuCtxSynchronize)"))
        return -1;
    float *host = malloc(ny * sizeof *host);
    if (!host) {
        rt_error_set(g->err, "out of memory for %zu floats", ny);
        return -1;
    }
    if (rt_gpu_ck(g, g->cu.MemcpyDtoH(host, c->y, ny * sizeof(float)), "cuMemcpyDtoH")) {
        free(host);
        return -1;
    }
    *out = host;
    *n_out = ny;
    return 0;
}

int rt_gpu_conv_direct(int device, const rt_gpu_conv_shape *shapes, size_t n, float **out,
                       size_t *n_out, char *device_name, size_t name_len, rt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = NULL;
        n_out[i] = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!rt_gpu_conv_out_side(&shapes[i], err)) {
            rt_error_prefix(err, "check point %zu", i);
            return -1;
        }
    conv_gpu c;
    memset(&c, 0, sizeof c);
    int rc = open_gpu(&c, device, device_name, name_len, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = run_one(&c, &shapes[i], rt_gpu_conv_out_side(&shapes[i], NULL), &out[i], &n_out[i]);
        free_buffers(&c);
        if (rc)
            rt_error_prefix(err, "check point %zu", i);
    }
    free_buffers(&c);
    rt_gpu_close(&c.g);
    if (rc)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
            n_out[i] = 0;
        }
    return rc;
}
