/* rt_gpu_measure: compiles the kernels of data/gpu/ with NVRTC and times them on an NVIDIA GPU. */
#define _GNU_SOURCE
#include "rooftime/probe/gpu-measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/probe/gpu-arch.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/strings.h"

#define BLOCK 256
#define MAX_TRIALS 9

const char *const rt_gpu_kernel_sources[] = {"fma.cu", "mma.cu", "memory.cu", "launch.cu", NULL};

static const char *const tau_names[RT_GPU_TAU_COUNT] = {"paper", "async", "cpu", "graph"};

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

static char *read_text(const char *path, rt_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        rt_error_set(err, "cannot read the GPU kernel source '%s'", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = rt_xmalloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 >= cap)
            buf = rt_xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        rt_error_set(err, "cannot read the GPU kernel source '%s'", path);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

char *rt_gpu_kernel_source(const char *name, rt_error *err)
{
    char *p1 = rt_asprintf("%s/gpu/common.cuh", rt_datadir());
    char *p2 = rt_asprintf("%s/gpu/%s", rt_datadir(), name);
    char *a = read_text(p1, err);
    char *b = a ? read_text(p2, err) : NULL;
    char *src = b ? rt_asprintf("%s\n%s", a, b) : NULL;
    free(p1);
    free(p2);
    free(a);
    free(b);
    return src;
}

/* ---- one GPU, its context and the buffers every kernel uses ---- */

enum { MOD_FMA, MOD_MMA, MOD_MEM, MOD_LAUNCH, N_MODS };

typedef struct gpu {
    rt_cuda cu;
    rt_nvrtc nv;
    rt_cu_device dev;
    rt_cu_context ctx;
    int have_ctx;
    rt_cu_stream s;
    rt_cu_event e0, e1;
    rt_cu_module mod[N_MODS];
    rt_cu_ptr meta, out, buf;
    size_t buf_bytes, out_floats;
    int sm, sms;
    double clock_hz;
    rt_error *err;
} gpu;

static int ck(gpu *g, rt_cu_result rc, const char *what)
{
    if (rc == RT_CU_SUCCESS)
        return 0;
    char buf[256];
    rt_error_set(g->err, "%s failed: %s", what, rt_cuda_strerror(&g->cu, rc, buf, sizeof buf));
    return -1;
}

static int get_fn(gpu *g, int mod, const char *name, rt_cu_function *f)
{
    char what[96];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    return ck(g, g->cu.ModuleGetFunction(f, g->mod[mod], name), what);
}

/* Blocks of BLOCK threads that fill every SM once (one wave). */
static int one_wave(gpu *g, rt_cu_function f, size_t smem, unsigned *grid)
{
    int per_sm = 0;
    if (ck(g, g->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, BLOCK, smem),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
        return -1;
    if (per_sm < 1)
        per_sm = 1;
    *grid = (unsigned)(g->sms * per_sm);
    if ((size_t)*grid * BLOCK > g->out_floats)
        *grid = (unsigned)(g->out_floats / BLOCK);
    return 0;
}

/* Launch once between the two events and wait; seconds of device time; meta copied to host. */
static int timed(gpu *g, rt_cu_function f, unsigned grid, unsigned smem, void **params, double *sec,
                 double meta[4])
{
    float ms = 0;
    if (ck(g, g->cu.MemsetD32(g->meta, 0, 8), "cuMemsetD32") ||
        ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
        ck(g, g->cu.LaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, smem, g->s, params, NULL),
           "cuLaunchKernel") ||
        ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
        ck(g, g->cu.EventSynchronize(g->e1), "kernel run (cuEventSynchronize)") ||
        ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime") ||
        ck(g, g->cu.MemcpyDtoH(meta, g->meta, 4 * sizeof(double)), "cuMemcpyDtoH"))
        return -1;
    *sec = ms * 1e-3;
    return 0;
}

static rt_gpu_stat stat_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    rt_gpu_stat s = {0, 0, 0};
    if (n > 0) {
        s.min = v[0];
        s.max = v[n - 1];
        s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    return s;
}

static double clock_of(const double meta[4])
{
    return meta[3] > 0 ? meta[2] / meta[3] * 1e9 : 0;
}

/* ---- progress ---- */

typedef struct progress {
    const rt_gpu_opts *o;
    const char *stage;
    double lo, hi;
} progress;

static void report_progress(progress *p, double f)
{
    if (p->o->progress)
        p->o->progress(p->o->progress_ctx, p->stage,
                       p->lo + (p->hi - p->lo) * (f < 0   ? 0
                                                  : f > 1 ? 1
                                                          : f));
}

static void stage(progress *p, const char *name, double lo, double hi)
{
    p->stage = name;
    p->lo = lo;
    p->hi = hi;
    report_progress(p, 0);
}

/* ---- compute ---- */

typedef struct compute_kernel {
    const char *unit, *kernel, *instr;
    int mod;
} compute_kernel;

static const compute_kernel compute_kernels[] = {
    {"fp64", "fma_fp64", "fma.rn.f64", MOD_FMA},
    {"fp32", "fma_fp32", "fma.rn.f32", MOD_FMA},
    {"fp16", "fma_fp16", "fma.rn.f16x2", MOD_FMA},
    {"bf16", "fma_bf16", "fma.rn.bf16x2", MOD_FMA},
    {"tensor", "mma_fp16", "mma.sync f16 x f16 + f32", MOD_MMA},
    {"tensor_bf16", "mma_bf16", "mma.sync bf16 x bf16 + f32", MOD_MMA},
    {"tensor_tf32", "mma_tf32", "mma.sync tf32 x tf32 + f32", MOD_MMA},
    {"tensor_int8", "mma_int8", "mma.sync s8 x s8 + s32", MOD_MMA},
    {"tensor_fp8", "mma_fp8", "mma.sync e4m3 x e4m3 + f32", MOD_MMA},
    {"tensor_fp64", "mma_fp64", "mma.sync f64 m8n8k4", MOD_MMA},
};
#define N_COMPUTE (sizeof compute_kernels / sizeof *compute_kernels)

/* FMA chains converge to c / (1 - b). */
#define FMA_B 0.75f
#define FMA_C 0.25f

static int run_compute(gpu *g, const compute_kernel *k, const rt_gpu_arch *arch, int trials,
                       double target, rt_gpu_compute *res, int *absent)
{
    rt_cu_function f;
    unsigned grid;
    *absent = 0;
    if (get_fn(g, k->mod, k->kernel, &f) || one_wave(g, f, 0, &grid))
        return -1;
    int iters = 8;
    float b = FMA_B, c = FMA_C;
    void *pf[] = {&g->meta, &g->out, &iters, &b, &c};
    void *pm[] = {&g->meta, &g->out, &iters};
    void **params = k->mod == MOD_FMA ? pf : pm;
    double sec, meta[4];
    /* two calibration runs: the second at the scaled count, to settle clocks too */
    for (int cal = 0; cal < 2; cal++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        if (meta[0] <= 0) {
            *absent = 1;
            return 0;
        }
        double want = iters * target / (sec > 1e-6 ? sec : 1e-6);
        iters = want > 1 << 22 ? 1 << 22 : want < 8 ? 8 : (int)want;
    }
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    double warps = (double)grid * BLOCK / 32;
    for (int t = 0; t < trials; t++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        v[t] = meta[0] * warps * iters / sec;
        clk[t] = clock_of(meta);
    }
    /* the result must be what the kernel computes: the work was done */
    float out0 = 0;
    if (ck(g, g->cu.MemcpyDtoH(&out0, g->out, sizeof out0), "cuMemcpyDtoH"))
        return -1;
    if (k->mod == MOD_FMA) {
        double want = FMA_C / (1.0 - FMA_B);
        if (!(fabs(out0 - want) <= 0.01 * want)) {
            rt_error_set(g->err, "%s: kernel %s computed %g, expected %g: wrong result", k->unit,
                         k->kernel, out0, want);
            return -1;
        }
    } else {
        double want = iters * meta[1];
        if (!(fabs(out0 - want) <= 1e-6 * want)) {
            rt_error_set(g->err, "%s: kernel %s computed %g, expected %g: wrong result", k->unit,
                         k->kernel, out0, want);
            return -1;
        }
    }
    memset(res, 0, sizeof *res);
    snprintf(res->unit, sizeof res->unit, "%s", k->unit);
    snprintf(res->kernel, sizeof res->kernel, "%s", k->kernel);
    snprintf(res->instr, sizeof res->instr, "%s", k->instr);
    double top = v[0];
    for (int t = 1; t < trials; t++)
        top = v[t] > top ? v[t] : top;
    res->flops = stat_of(v, trials);
    rt_gpu_stat cs = stat_of(clk, trials);
    res->clock_hz = cs.median;
    res->trials = trials;
    double clock = cs.max > g->clock_hz ? cs.max : g->clock_hz;
    res->theoretical = arch ? rt_gpu_theoretical(arch, k->unit, g->sms, clock, clock) : 0;
    if (res->theoretical > 0 && top > res->theoretical * 1.001) {
        rt_error_set(g->err,
                     "%s: measured %.4g FLOP/s, above the theoretical %.4g (%d SMs x %.4g GHz x "
                     "%g FLOPs per SM per cycle): the kernel's FLOP count or "
                     "architectures.json is wrong",
                     k->unit, top, res->theoretical, g->sms, clock / 1e9,
                     rt_gpu_arch_rate(arch, k->unit));
        return -1;
    }
    return 0;
}

/* ---- bandwidth ---- */

typedef enum { BW_READ, BW_READ_L2, BW_RMW } bw_kind;
static const char *const bw_kernels[] = {"bw_read", "bw_read_l2", "bw_rmw"};

/* Stream `ws` bytes per rep with kernel `kind`; bytes/s over the trials (RMW counts both ways). */
static int run_bw(gpu *g, bw_kind kind, double ws, int trials, double target, rt_gpu_stat *st,
                  double *clock, double *ws_used)
{
    rt_cu_function f;
    unsigned grid;
    if (get_fn(g, MOD_MEM, bw_kernels[kind], &f) || one_wave(g, f, 0, &grid))
        return -1;
    unsigned long long slice = (unsigned long long)(ws / 16 / grid);
    if (slice < 1)
        slice = 1;
    if ((double)slice * 16 * grid > (double)g->buf_bytes)
        slice = g->buf_bytes / 16 / grid;
    int reps = 1;
    void *params[] = {&g->meta, &g->buf, &slice, &reps, &g->out};
    double sec, meta[4];
    for (int cal = 0; cal < 2; cal++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e6 ? 1000000 : want < 1 ? 1 : (int)want;
    }
    double bytes = (double)slice * 16 * grid * reps * (kind == BW_RMW ? 2 : 1);
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = clock_of(meta);
    }
    *st = stat_of(v, trials);
    *clock = stat_of(clk, trials).median;
    *ws_used = (double)slice * 16 * grid;
    return 0;
}

/* L1 hits: 16 KB per block, at most half the L1 per SM in all (max_per_sm blocks, 0: no limit). */
static int run_l1(gpu *g, int max_per_sm, int trials, double target, rt_gpu_stat *st, double *clock,
                  double *ws)
{
    rt_cu_function f;
    unsigned grid;
    if (get_fn(g, MOD_MEM, "bw_l1", &f) ||
        ck(g, g->cu.FuncSetAttribute(f, RT_CU_FUNC_CARVEOUT, 0), "cuFuncSetAttribute") ||
        one_wave(g, f, 0, &grid))
        return -1;
    if (max_per_sm > 0 && grid > (unsigned)(g->sms * max_per_sm))
        grid = (unsigned)(g->sms * max_per_sm);
    int reps = 16;
    void *params[] = {&g->meta, &g->buf, &reps, &g->out};
    double sec, meta[4];
    for (int cal = 0; cal < 2; cal++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e7 ? 10000000 : want < 16 ? 16 : (int)want;
    }
    double bytes = (double)grid * BLOCK * 4 * 16 * reps;
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = clock_of(meta);
    }
    *st = stat_of(v, trials);
    *clock = stat_of(clk, trials).median;
    *ws = (double)grid * BLOCK * 4 * 16;
    return 0;
}

static int run_shared(gpu *g, int trials, double target, rt_gpu_stat *st, double *clock)
{
    rt_cu_function f;
    unsigned grid, smem = BLOCK * 16 * sizeof(float);
    if (get_fn(g, MOD_MEM, "bw_shared", &f) || one_wave(g, f, smem, &grid))
        return -1;
    int reps = 16;
    void *params[] = {&g->meta, &reps, &g->out};
    double sec, meta[4];
    for (int cal = 0; cal < 2; cal++) {
        if (timed(g, f, grid, smem, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e7 ? 10000000 : want < 16 ? 16 : (int)want;
    }
    double bytes = (double)grid * BLOCK * reps * 16 * sizeof(float);
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (timed(g, f, grid, smem, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = clock_of(meta);
    }
    *st = stat_of(v, trials);
    *clock = stat_of(clk, trials).median;
    return 0;
}

static rt_gpu_bw *add_bw(rt_gpu_report *r, const char *name, const char *level, const char *kernel)
{
    rt_gpu_bw *b = &r->bw[r->n_bw++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->level, sizeof b->level, "%s", level);
    snprintf(b->kernel, sizeof b->kernel, "%s", kernel);
    return b;
}

static int run_sweep(gpu *g, rt_gpu_curve *c, bw_kind kind, double lo, double hi, double step,
                     int trials, double target, progress *p, double f0, double f1)
{
    size_t cap = (size_t)(log(hi / lo) / log(step)) + 2;
    c->bytes = rt_xcalloc(cap, sizeof(double));
    c->bw = rt_xcalloc(cap, sizeof(double));
    c->min = rt_xcalloc(cap, sizeof(double));
    c->max = rt_xcalloc(cap, sizeof(double));
    snprintf(c->kind, sizeof c->kind, "%s", kind == BW_RMW ? "rmw" : "read");
    snprintf(c->kernel, sizeof c->kernel, "%s", bw_kernels[kind]);
    for (double ws = lo; ws <= hi * 1.0001 && c->n < cap; ws *= step) {
        rt_gpu_stat st;
        double clock, used;
        if (run_bw(g, kind, ws, trials, target, &st, &clock, &used))
            return -1;
        if (c->n > 0 && used <= c->bytes[c->n - 1])
            continue;
        c->bytes[c->n] = used;
        c->bw[c->n] = st.median;
        c->min[c->n] = st.min;
        c->max[c->n] = st.max;
        c->n++;
        report_progress(p, f0 + (f1 - f0) * log(ws / lo) / log(hi / lo));
    }
    return 0;
}

/* ---- launch overhead ---- */

static int overhead_paper(gpu *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    long per = n / trials;
    for (int t = 0; t < trials; t++) {
        double sum = 0;
        for (long i = 0; i < per; i++) {
            float ms;
            if (ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
                ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                   "cuLaunchKernel") ||
                ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
                ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
                ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
                return -1;
            sum += ms * 1e-3;
        }
        v[t] = sum / per;
    }
    o->seconds = stat_of(v, trials);
    o->launches = per * trials;
    snprintf(o->method, sizeof o->method,
             "the paper's: empty <<<1,1>>> kernel between two device events, synchronized after "
             "each launch; mean of %ld launches per trial, median of %d trials",
             per, trials);
    return 0;
}

static int overhead_async(gpu *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    long per = n / trials;
    for (int t = 0; t < trials; t++) {
        float ms;
        if (ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord"))
            return -1;
        for (long i = 0; i < per; i++)
            if (ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                   "cuLaunchKernel"))
                return -1;
        if (ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
            ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
            ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
            return -1;
        v[t] = ms * 1e-3 / per;
    }
    o->seconds = stat_of(v, trials);
    o->launches = per * trials;
    snprintf(o->method, sizeof o->method,
             "back-to-back: %ld empty <<<1,1>>> kernels launched asynchronously between two "
             "device events, device time per launch; median of %d trials",
             per, trials);
    return 0;
}

static int overhead_cpu(gpu *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o)
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
                if (ck(g, g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL),
                       "cuLaunchKernel"))
                    return -1;
            sum += rt_now() - t0;
            if (ck(g, g->cu.StreamSynchronize(g->s), "cuStreamSynchronize"))
                return -1;
        }
        v[t] = sum / (batches * BATCH);
    }
    o->seconds = stat_of(v, trials);
    o->launches = batches * BATCH * trials;
    snprintf(o->method, sizeof o->method,
             "host time inside cuLaunchKernel: batches of %d asynchronous launches of an empty "
             "<<<1,1>>> kernel timed on the CPU clock, the stream drained between batches; "
             "median of %d trials",
             BATCH, trials);
    return 0;
}

/* A graph of `nodes` empty kernels in a chain; device time of one launch of it (median of 5). */
static int graph_time(gpu *g, rt_cu_function f, int nodes, double *sec)
{
    rt_cu_graph graph = NULL;
    rt_cu_graph_exec exec = NULL;
    int rc = -1;
    if (ck(g, g->cu.StreamBeginCapture(g->s, RT_CU_CAPTURE_MODE_THREAD_LOCAL),
           "cuStreamBeginCapture"))
        return -1;
    for (int i = 0; i < nodes; i++)
        if (g->cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->s, NULL, NULL) != RT_CU_SUCCESS)
            break;
    if (ck(g, g->cu.StreamEndCapture(g->s, &graph), "cuStreamEndCapture") ||
        ck(g, g->cu.GraphInstantiate(&exec, graph, 0), "cuGraphInstantiate"))
        goto done;
    double v[5];
    for (int t = -2; t < 5; t++) {
        float ms;
        if (ck(g, g->cu.EventRecord(g->e0, g->s), "cuEventRecord") ||
            ck(g, g->cu.GraphLaunch(exec, g->s), "cuGraphLaunch") ||
            ck(g, g->cu.EventRecord(g->e1, g->s), "cuEventRecord") ||
            ck(g, g->cu.EventSynchronize(g->e1), "cuEventSynchronize") ||
            ck(g, g->cu.EventElapsedTime(&ms, g->e0, g->e1), "cuEventElapsedTime"))
            goto done;
        if (t >= 0)
            v[t] = ms * 1e-3;
    }
    *sec = stat_of(v, 5).median;
    rc = 0;
done:
    if (exec)
        g->cu.GraphExecDestroy(exec);
    if (graph)
        g->cu.GraphDestroy(graph);
    return rc;
}

static int overhead_graph(gpu *g, rt_cu_function f, int small, int big, int trials,
                          rt_gpu_overhead *o)
{
    double v[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        double a, b;
        if (graph_time(g, f, small, &a) || graph_time(g, f, big, &b))
            return -1;
        v[t] = (b - a) / (big - small);
    }
    o->seconds = stat_of(v, trials);
    o->launches = (long)(small + big) * 7 * trials;
    snprintf(o->method, sizeof o->method,
             "per node of a CUDA graph: a chain of %d and one of %d empty <<<1,1>>> kernels "
             "captured from a stream, device time of a graph launch; the difference per node, "
             "median of %d trials",
             small, big, trials);
    return 0;
}

/* ---- set-up and tear-down ---- */

static void gpu_close(gpu *g)
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

static int attr(gpu *g, int which, int *v)
{
    return ck(g, g->cu.DeviceGetAttribute(v, which, g->dev), "cuDeviceGetAttribute");
}

static int gpu_open(gpu *g, int index, rt_gpu_report *r, rt_error *err)
{
    g->err = err;
    if (rt_cuda_open(&g->cu, err))
        return -1;
    int count = 0;
    if (ck(g, g->cu.DeviceGetCount(&count), "cuDeviceGetCount"))
        return -1;
    if (index < 0 || index >= count) {
        rt_error_set(err, "no GPU %d: the driver sees %d GPU%s (0..%d)", index, count,
                     count == 1 ? "" : "s", count - 1);
        return -1;
    }
    if (ck(g, g->cu.DeviceGet(&g->dev, index), "cuDeviceGet") ||
        ck(g, g->cu.DeviceGetName(r->device, sizeof r->device, g->dev), "cuDeviceGetName"))
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
    if (ck(g, g->cu.DeviceTotalMem(&mem, g->dev), "cuDeviceTotalMem"))
        return -1;
    r->mem_bytes = (double)mem;
    r->driver_version = g->cu.version;
    r->index = index;
    g->sm = r->cc_major * 10 + r->cc_minor;
    g->sms = r->sms;
    g->clock_hz = r->clock_hz;
    if (rt_nvrtc_open(&g->nv, g->sm, err))
        return -1;
    snprintf(r->nvrtc, sizeof r->nvrtc, "%d.%d (%s)", g->nv.major, g->nv.minor, g->nv.path);
    if (ck(g, g->cu.PrimaryCtxRetain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain"))
        return -1;
    g->have_ctx = 1;
    if (ck(g, g->cu.CtxSetCurrent(g->ctx), "cuCtxSetCurrent") ||
        ck(g, g->cu.StreamCreate(&g->s, RT_CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
        ck(g, g->cu.EventCreate(&g->e0, 0), "cuEventCreate") ||
        ck(g, g->cu.EventCreate(&g->e1, 0), "cuEventCreate"))
        return -1;
    g->out_floats = (size_t)g->sms * 32 * BLOCK;
    if (ck(g, g->cu.MemAlloc(&g->meta, 8 * sizeof(double)), "cuMemAlloc") ||
        ck(g, g->cu.MemAlloc(&g->out, g->out_floats * sizeof(float)), "cuMemAlloc") ||
        ck(g, g->cu.MemsetD32(g->out, 0, g->out_floats), "cuMemsetD32"))
        return -1;
    for (int i = 0; i < N_MODS; i++) {
        char *src = rt_gpu_kernel_source(rt_gpu_kernel_sources[i], err);
        if (!src)
            return -1;
        char *cubin = NULL;
        size_t size;
        int rc = rt_nvrtc_compile(&g->nv, src, rt_gpu_kernel_sources[i], g->sm, &cubin, &size, err);
        free(src);
        if (rc == 0 && ck(g, g->cu.ModuleLoadData(&g->mod[i], cubin), "cuModuleLoadData"))
            rc = -1;
        free(cubin);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- the whole run ---- */

typedef struct plan {
    int trials;
    double compute_s, bw_s, sweep_s, sweep_step, sweep_max, hbm_min;
    long paper_launches, async_launches, cpu_launches;
    int graph_small, graph_big;
} plan;

/* hbm_min: the HBM kernels stream max(8 x L2, hbm_min) bytes. */
static const plan quick_plan = {
    3,     0.02, 0.005, 0.002, 1.4142135623730951, 512.0 * (1 << 20), 256.0 * (1 << 20), 6000,
    30000, 6000, 50,    500};
static const plan full_plan = {
    7,      0.05,  0.02, 0.005, 1.189207115002721, 1024.0 * (1 << 20), 256.0 * (1 << 20), 100000,
    200000, 50000, 100,  1000};

static const char *level_of(const rt_gpu_report *r, const char *level, const rt_gpu_bw **best)
{
    *best = NULL;
    for (size_t i = 0; i < r->n_bw; i++)
        if (strcmp(r->bw[i].level, level) == 0 &&
            (!*best || r->bw[i].bw.median > (*best)->bw.median))
            *best = &r->bw[i];
    return level;
}

static rt_machine *build_machine(const rt_gpu_report *r, const rt_gpu_arch *arch)
{
    char *name = rt_asprintf("%s (GPU %d, measured)", r->device, r->index);
    rt_machine *m = rt_machine_new(name);
    free(name);
    rt_machine_set_str(&m->source, "measured");
    char *method = rt_asprintf(
        "rooftime machine measure --gpu%s: kernels of data/gpu/ compiled by NVRTC %s for "
        "sm_%d%d; FMA chains and mma.sync loops, one wave of %d-thread blocks on %d SMs; "
        "bandwidth from per-block slices (shared memory, L1), ld.global.cg (L2) and large "
        "streams (HBM), with an ERT-like sweep; launch overhead four ways, tau the '%s' one. "
        "Figures are medians of %d trials, min and max kept.",
        r->quick ? " --quick" : "", r->nvrtc, r->cc_major, r->cc_minor, BLOCK, r->sms,
        rt_gpu_tau_name(r->tau), r->quick ? quick_plan.trials : full_plan.trials);
    rt_machine_set_str(&m->method, method);
    free(method);
    for (size_t i = 0; i < r->n_compute; i++) {
        const rt_gpu_compute *c = &r->compute[i];
        rt_unit *u = rt_machine_add_unit(m, c->unit, c->flops.median);
        u->min = c->flops.min;
        u->max = c->flops.max;
        u->theoretical = c->theoretical;
        char *note = rt_asprintf("%s (%s), SM clock %.4g GHz during the runs; theoretical %s",
                                 c->kernel, c->instr, c->clock_hz / 1e9,
                                 c->theoretical > 0 ? "from architectures.json"
                                                    : "unknown for this architecture");
        rt_machine_set_str(&u->note, note);
        free(note);
    }
    static const char *const levels[] = {"L1", "L2", "HBM"};
    for (size_t i = 0; i < 3; i++) {
        const rt_gpu_bw *b;
        level_of(r, levels[i], &b);
        if (!b)
            continue;
        rt_level *l = rt_machine_add_level(m, levels[i], b->bw.median);
        l->min = b->bw.min;
        l->max = b->bw.max;
        l->size_bytes = i == 0   ? (arch ? arch->l1_bytes_per_sm * r->sms : 0)
                        : i == 1 ? r->l2_bytes
                                 : r->mem_bytes;
        char *note =
            rt_asprintf("%s kernel (%s), the best of this level's kernels", b->name, b->kernel);
        rt_machine_set_str(&l->note, note);
        free(note);
    }
    const rt_gpu_overhead *o = &r->overhead[r->tau];
    m->tau = o->seconds.median;
    rt_machine_set_str(&m->tau_method, o->method);
    rt_machine_set_str(&m->ref_unit, rt_machine_unit(m, "tensor") ? "tensor" : "fp32");
    rt_machine_set_str(&m->ref_level, "HBM");
    return m;
}

void rt_gpu_report_release(rt_gpu_report *r)
{
    for (int i = 0; i < 2; i++) {
        free(r->curve[i].bytes);
        free(r->curve[i].bw);
        free(r->curve[i].min);
        free(r->curve[i].max);
    }
    memset(r, 0, sizeof *r);
}

int rt_gpu_measure(const rt_gpu_opts *opts, rt_machine **out, rt_gpu_report *r,
                   rt_warnings *skipped, rt_error *err)
{
    rt_gpu_opts defaults = {0};
    const rt_gpu_opts *o = opts ? opts : &defaults;
    const plan *pl = o->quick ? &quick_plan : &full_plan;
    *out = NULL;
    memset(r, 0, sizeof *r);
    r->quick = o->quick;
    r->tau = o->tau;
    double t_start = rt_now();
    rt_gpu_archs archs;
    if (rt_gpu_archs_load(NULL, &archs, err))
        return -1;
    gpu g;
    memset(&g, 0, sizeof g);
    progress p = {o, "", 0, 0};
    int rc = -1;
    stage(&p, "GPU: loading the driver, compiling kernels", 0, 0.05);
    if (gpu_open(&g, o->device, r, err))
        goto done;
    const rt_gpu_arch *arch = rt_gpu_arch_find(&archs, g.sm);
    if (arch)
        snprintf(r->arch, sizeof r->arch, "%s", arch->name);
    else if (skipped)
        rt_warnings_add(skipped,
                        "theoretical peaks: architectures.json has no entry for sm_%d; every "
                        "kernel is tried, none is checked against a peak",
                        g.sm);

    /* compute */
    for (size_t i = 0; i < N_COMPUTE; i++) {
        const compute_kernel *k = &compute_kernels[i];
        char label[64];
        snprintf(label, sizeof label, "GPU compute: %s", k->unit);
        stage(&p, label, 0.05 + 0.35 * i / N_COMPUTE, 0.05 + 0.35 * (i + 1) / N_COMPUTE);
        if (arch && rt_gpu_arch_rate(arch, k->unit) <= 0) {
            if (skipped)
                rt_warnings_add(skipped, "%s: sm_%d (%s) has no such unit", k->unit, g.sm,
                                arch->name);
            continue;
        }
        int absent;
        if (run_compute(&g, k, arch, pl->trials, pl->compute_s, &r->compute[r->n_compute], &absent))
            goto done;
        if (absent) {
            if (skipped)
                rt_warnings_add(skipped, "%s: the %s instruction does not exist on sm_%d", k->unit,
                                k->instr, g.sm);
            continue;
        }
        r->n_compute++;
    }

    /* bandwidth: one buffer for the largest working set */
    double hbm_ws = 8 * r->l2_bytes > pl->hbm_min ? 8 * r->l2_bytes : pl->hbm_min;
    double need = hbm_ws > pl->sweep_max ? hbm_ws : pl->sweep_max;
    g.buf_bytes = (size_t)need;
    if (ck(&g, g.cu.MemAlloc(&g.buf, g.buf_bytes), "cuMemAlloc (bandwidth buffer)") ||
        ck(&g, g.cu.MemsetD32(g.buf, 0, g.buf_bytes / 4), "cuMemsetD32"))
        goto done;
    stage(&p, "GPU bandwidth: shared memory, L1, L2, HBM", 0.40, 0.55);
    {
        rt_gpu_bw *b = add_bw(r, "shared", "L1", "bw_shared");
        if (run_shared(&g, pl->trials, pl->bw_s, &b->bw, &b->clock_hz))
            goto done;
        b->working_set = (double)BLOCK * 16 * sizeof(float);
        b->theoretical = arch ? arch->l1_bytes_per_clock_per_sm * r->sms *
                                    (b->clock_hz > r->clock_hz ? b->clock_hz : r->clock_hz)
                              : 0;
        report_progress(&p, 0.2);
        b = add_bw(r, "l1_read", "L1", "bw_l1");
        int max_per_sm = arch ? (int)(arch->l1_bytes_per_sm / 2 / (BLOCK * 64)) : 0;
        if (run_l1(&g, max_per_sm > 0 ? max_per_sm : 1, pl->trials, pl->bw_s, &b->bw, &b->clock_hz,
                   &b->working_set))
            goto done;
        b->theoretical = r->bw[0].theoretical;
        report_progress(&p, 0.4);
        struct {
            const char *name, *level;
            bw_kind kind;
            double ws;
        } runs[] = {{"l2_read", "L2", BW_READ_L2, r->l2_bytes / 4},
                    {"l2_rmw", "L2", BW_RMW, r->l2_bytes / 4},
                    {"hbm_read", "HBM", BW_READ, hbm_ws},
                    {"hbm_rmw", "HBM", BW_RMW, hbm_ws}};
        for (size_t i = 0; i < 4; i++) {
            b = add_bw(r, runs[i].name, runs[i].level, bw_kernels[runs[i].kind]);
            if (run_bw(&g, runs[i].kind, runs[i].ws, pl->trials, pl->bw_s * (i < 2 ? 1 : 2), &b->bw,
                       &b->clock_hz, &b->working_set))
                goto done;
            if (i >= 2)
                b->theoretical = r->hbm_theoretical;
            report_progress(&p, 0.4 + 0.15 * (i + 1));
        }
    }
    for (size_t i = 0; i < r->n_bw; i++) {
        const rt_gpu_bw *b = &r->bw[i];
        if (b->theoretical > 0 && b->bw.max > b->theoretical * 1.001) {
            rt_error_set(err,
                         "%s: measured %.4g B/s, above the theoretical %.4g: the kernel's "
                         "byte count or the device's figures are wrong",
                         b->name, b->bw.max, b->theoretical);
            goto done;
        }
    }

    /* the ERT-like sweep, L2 and HBM (loads bypass L1) */
    {
        unsigned grid;
        rt_cu_function f;
        if (get_fn(&g, MOD_MEM, "bw_read_l2", &f) || one_wave(&g, f, 0, &grid))
            goto done;
        double lo = (double)grid * BLOCK * 16;
        bw_kind kinds[2] = {BW_READ_L2, BW_RMW};
        for (int c = 0; c < 2; c++) {
            stage(&p, c == 0 ? "GPU sweep: read-only" : "GPU sweep: read-modify-write",
                  0.55 + 0.15 * c, 0.70 + 0.15 * c);
            rt_gpu_curve *cv = &r->curve[c];
            if (run_sweep(&g, cv, kinds[c], lo, pl->sweep_max, pl->sweep_step, pl->trials,
                          pl->sweep_s, &p, 0, 1))
                goto done;
            double limit = r->l2_bytes;
            const char *names[] = {"L2"};
            rt_warnings w = {0};
            rt_error perr;
            if (rt_plateau_detect(cv->bytes, cv->bw, cv->n, &limit, names, 1, cv->plateau, &w,
                                  &perr) != 0 &&
                skipped)
                rt_warnings_add(skipped, "%s sweep: %s", cv->kind, perr.msg);
            for (size_t i = 0; i < w.n; i++)
                if (skipped)
                    rt_warnings_add(skipped, "%s sweep: %s", cv->kind, w.msg[i]);
            rt_warnings_release(&w);
            snprintf(cv->plateau[1].name, sizeof cv->plateau[1].name, "HBM");
        }
    }

    /* launch overhead */
    {
        rt_cu_function f;
        if (get_fn(&g, MOD_LAUNCH, "empty_kernel", &f))
            goto done;
        for (int i = 0; i < 100; i++) /* warm-up */
            if (ck(&g, g.cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g.s, NULL, NULL),
                   "cuLaunchKernel"))
                goto done;
        if (ck(&g, g.cu.StreamSynchronize(g.s), "cuStreamSynchronize"))
            goto done;
        for (int i = 0; i < RT_GPU_TAU_COUNT; i++)
            snprintf(r->overhead[i].label, sizeof r->overhead[i].label, "%s", tau_names[i]);
        stage(&p, "GPU launch overhead: paper (event-timed, synchronized)", 0.85, 0.93);
        if (overhead_paper(&g, f, pl->paper_launches, pl->trials, &r->overhead[RT_GPU_TAU_PAPER]))
            goto done;
        stage(&p, "GPU launch overhead: async, cpu, graph", 0.93, 1.0);
        if (overhead_async(&g, f, pl->async_launches, pl->trials, &r->overhead[RT_GPU_TAU_ASYNC]) ||
            overhead_cpu(&g, f, pl->cpu_launches, pl->trials, &r->overhead[RT_GPU_TAU_CPU]) ||
            overhead_graph(&g, f, pl->graph_small, pl->graph_big, pl->trials,
                           &r->overhead[RT_GPU_TAU_GRAPH]))
            goto done;
        report_progress(&p, 1);
    }
    r->seconds = rt_now() - t_start;
    *out = build_machine(r, arch);
    rc = 0;
done:
    gpu_close(&g);
    rt_gpu_archs_release(&archs);
    if (rc != 0)
        rt_gpu_report_release(r);
    return rc;
}
