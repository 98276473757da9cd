/* The probe's kernels: FLOP/s of one compute unit (checked against what the kernel computes and
 * the architecture's peak), bandwidth of one level, and the working-set sweep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu-internal.h"
#include "rooftime/util/strings.h"

/* ---- compute ---- */

/* Which of them measures which unit is data: each generation's entry in
 * data/gpu/architectures.json names the family that reaches its Tensor Core ceilings (mma.sync to
 * sm_89 and on sm_120, wgmma on sm_90a, tcgen05.mma on sm_100) and the exceptions (DMMA, FP64,
 * has no wgmma form). */
const rt_gpu_compute_kernel rt_gpu_compute_kernels[] = {
    {"fma", "fp64", "fma_fp64", "fma.rn.f64", MOD_FMA, 0},
    {"fma", "fp32", "fma_fp32", "fma.rn.f32", MOD_FMA, 0},
    {"fma", "fp16", "fma_fp16", "fma.rn.f16x2", MOD_FMA, 0},
    {"fma", "bf16", "fma_bf16", "fma.rn.bf16x2", MOD_FMA, 0},
    {"wgmma", "fp16", "wgmma_fp16", "wgmma m64n256k16 f16 x f16 + f32", MOD_WGMMA, 128},
    {"wgmma", "bf16", "wgmma_bf16", "wgmma m64n256k16 bf16 x bf16 + f32", MOD_WGMMA, 128},
    {"wgmma", "tf32", "wgmma_tf32", "wgmma m64n256k8 tf32 x tf32 + f32", MOD_WGMMA, 128},
    {"wgmma", "int8", "wgmma_int8", "wgmma m64n256k32 s8 x s8 + s32", MOD_WGMMA, 128},
    {"wgmma", "fp8", "wgmma_fp8", "wgmma m64n256k32 e4m3 x e4m3 + f32", MOD_WGMMA, 128},
    {"mma.sync", "fp16", "mma_fp16", "mma.sync f16 x f16 + f32", MOD_MMA, 0},
    {"mma.sync", "bf16", "mma_bf16", "mma.sync bf16 x bf16 + f32", MOD_MMA, 0},
    {"mma.sync", "tf32", "mma_tf32", "mma.sync tf32 x tf32 + f32", MOD_MMA, 0},
    {"mma.sync", "int8", "mma_int8", "mma.sync s8 x s8 + s32", MOD_MMA, 0},
    {"mma.sync", "fp8", "mma_fp8", "mma.sync e4m3 x e4m3 + f32", MOD_MMA, 0},
    {"mma.sync", "fp64", "mma_fp64", "mma.sync f64 m8n8k4", MOD_MMA, 0},
};
const size_t rt_gpu_n_compute = sizeof rt_gpu_compute_kernels / sizeof *rt_gpu_compute_kernels;

int rt_gpu_unit_of(const rt_gpu_compute_kernel *k, const rt_gpu_arch *gen, char *unit, size_t n)
{
    if (strcmp(k->family, "fma") == 0) {
        snprintf(unit, n, "%s", k->type);
        return 1;
    }
    if (!gen)
        return 0;
    snprintf(unit, n, "tensor_%s", k->type);
    if (strcmp(rt_gpu_arch_timed_by(gen, unit), k->family) == 0)
        return 1;
    /* mma.sync where another family reaches the ceiling: a ceiling of its own */
    snprintf(unit, n, "mma_%s", k->type);
    return strcmp(k->family, "mma.sync") == 0;
}

void rt_gpu_untimed(const rt_gpu_arch *gen, int sm, rt_warnings *w)
{
    int done[RT_GPU_MAX_UNITS] = {0};
    for (size_t i = 0; gen && i < gen->n_units; i++) {
        const char *by = rt_gpu_arch_timed_by(gen, gen->units[i].name);
        char list[512] = "";
        for (size_t j = i; j < gen->n_units; j++) {
            const char *u = gen->units[j].name;
            if (done[j] || strncmp(u, "tensor_", 7) != 0 ||
                strcmp(rt_gpu_arch_timed_by(gen, u), by))
                continue;
            int timed = 0;
            for (size_t k = 0; k < rt_gpu_n_compute; k++)
                timed |= strcmp(rt_gpu_compute_kernels[k].family, by) == 0 &&
                         strcmp(rt_gpu_compute_kernels[k].type, u + 7) == 0;
            done[j] = 1;
            if (!timed) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", u);
            }
        }
        if (list[0])
            rt_warnings_add(w,
                            "%s: not timed on sm_%d (%s): %s reaches %s, and the probe has no "
                            "such kernel yet (data/gpu/architectures.json)",
                            list, sm, gen->name, by, strchr(list, ',') ? "these ceilings" : "it");
    }
}

/* FMA chains converge to c / (1 - b). */
int rt_gpu_result_ok(const rt_gpu_compute_kernel *k, int iters, const double meta[4], float out0,
                     double *want)
{
    *want = k->mod == MOD_FMA     ? RT_GPU_FMA_C / (1.0 - RT_GPU_FMA_B)
            : k->mod == MOD_WGMMA ? meta[1]
                                  : iters * meta[1];
    return fabs(out0 - *want) <= (k->mod == MOD_FMA ? 0.01 : 1e-6) * *want;
}

int rt_gpu_run_compute(rt_gpu_probe *g, const rt_gpu_compute_kernel *k, const rt_gpu_arch *arch,
                       int trials, double target, rt_gpu_compute *res, int *absent, char *why,
                       size_t why_n)
{
    rt_cu_function f;
    unsigned grid, block = k->block ? k->block : BLOCK;
    char unit[24];
    *absent = 0;
    if (!rt_gpu_unit_of(k, g->gen, unit, sizeof unit) || !g->mod[k->mod]) {
        *absent = 1;
        return 0;
    }
    if (rt_gpu_get_fn(g, k->mod, k->kernel, &f) || rt_gpu_one_wave_of(g, f, block, 0, &grid))
        return -1;
    int iters = 8;
    float b = RT_GPU_FMA_B, c = RT_GPU_FMA_C;
    void *pf[] = {&g->meta, &g->out, &iters, &b, &c};
    void *pm[] = {&g->meta, &g->out, &iters};
    void **params = k->mod == MOD_FMA ? pf : pm;
    double sec, meta[4];
    /* two calibration runs: the second at the scaled count, to settle clocks too */
    for (int cal = 0; cal < 2; cal++) {
        if (rt_gpu_timed_of(g, f, grid, block, 0, params, &sec, meta))
            return -1;
        if (meta[0] <= 0) {
            *absent = 1;
            return 0;
        }
        double want = iters * target / (sec > 1e-6 ? sec : 1e-6);
        iters = want > 1 << 22 ? 1 << 22 : want < 8 ? 8 : (int)want;
        if (k->mod == MOD_WGMMA)
            iters |= 1; /* an odd count leaves meta[1] in the accumulators (wgmma.cu) */
    }
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    double warps = (double)grid * block / 32;
    for (int t = 0; t < trials; t++) {
        if (rt_gpu_timed_of(g, f, grid, block, 0, params, &sec, meta))
            return -1;
        v[t] = meta[0] * warps * iters / sec;
        clk[t] = rt_gpu_clock_of(meta);
    }
    /* the result must be what the kernel computes: the work was done */
    float out0 = 0;
    if (rt_gpu_ck(g, g->cu.MemcpyDtoH(&out0, g->out, sizeof out0), "cuMemcpyDtoH"))
        return -1;
    double want;
    if (!rt_gpu_result_ok(k, iters, meta, out0, &want)) {
        snprintf(why, why_n, "kernel %s computed %g, expected %g: wrong result", k->kernel, out0,
                 want);
        *absent = 2;
        return 0;
    }
    memset(res, 0, sizeof *res);
    snprintf(res->unit, sizeof res->unit, "%s", unit);
    snprintf(res->kernel, sizeof res->kernel, "%s", k->kernel);
    snprintf(res->instr, sizeof res->instr, "%s", k->instr);
    double top = v[0];
    for (int t = 1; t < trials; t++)
        top = v[t] > top ? v[t] : top;
    res->flops = rt_gpu_stat_of(v, trials);
    rt_spread cs = rt_gpu_stat_of(clk, trials);
    res->clock_hz = cs.median;
    res->trials = trials;
    double clock = cs.max > g->clock_hz ? cs.max : g->clock_hz;
    res->theoretical = arch ? rt_gpu_theoretical(arch, unit, g->sms, clock, clock) : 0;
    if (res->theoretical > 0 && top > res->theoretical * 1.001) {
        snprintf(why, why_n,
                 "kernel %s measured %.4g FLOP/s, above the theoretical %.4g (%d SMs x %.4g GHz x "
                 "%g FLOPs per SM per cycle): the kernel's FLOP count or architectures.json is "
                 "wrong",
                 k->kernel, top, res->theoretical, g->sms, clock / 1e9,
                 rt_gpu_arch_rate(arch, unit));
        *absent = 2;
        return 0;
    }
    return 0;
}
/* ---- bandwidth ---- */

const char *const rt_gpu_bw_kernels[] = {"bw_read", "bw_read_l2", "bw_rmw"};

/* Stream `ws` bytes per rep with kernel `kind`; bytes/s over the trials (RMW counts both ways). */
int rt_gpu_run_bw(rt_gpu_probe *g, rt_gpu_bw_kind kind, double ws, int trials, double target,
                  rt_spread *st, double *clock, double *ws_used)
{
    rt_cu_function f;
    unsigned grid;
    if (rt_gpu_get_fn(g, MOD_MEM, rt_gpu_bw_kernels[kind], &f) || rt_gpu_one_wave(g, f, 0, &grid))
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
        if (rt_gpu_timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e6 ? 1000000 : want < 1 ? 1 : (int)want;
    }
    double bytes = (double)slice * 16 * grid * reps * (kind == BW_RMW ? 2 : 1);
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (rt_gpu_timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = rt_gpu_clock_of(meta);
    }
    *st = rt_gpu_stat_of(v, trials);
    *clock = rt_gpu_stat_of(clk, trials).median;
    *ws_used = (double)slice * 16 * grid;
    return 0;
}

/* L1 hits: 16 KB per block, at most half the L1 per SM in all (max_per_sm blocks, 0: no limit). */
int rt_gpu_run_l1(rt_gpu_probe *g, int max_per_sm, int trials, double target, rt_spread *st,
                  double *clock, double *ws)
{
    rt_cu_function f;
    unsigned grid;
    if (rt_gpu_get_fn(g, MOD_MEM, "bw_l1", &f) ||
        rt_gpu_ck(g, g->cu.FuncSetAttribute(f, RT_CU_FUNC_CARVEOUT, 0), "cuFuncSetAttribute") ||
        rt_gpu_one_wave(g, f, 0, &grid))
        return -1;
    if (max_per_sm > 0 && grid > (unsigned)(g->sms * max_per_sm))
        grid = (unsigned)(g->sms * max_per_sm);
    int reps = 16;
    void *params[] = {&g->meta, &g->buf, &reps, &g->out};
    double sec, meta[4];
    for (int cal = 0; cal < 2; cal++) {
        if (rt_gpu_timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e7 ? 10000000 : want < 16 ? 16 : (int)want;
    }
    double bytes = (double)grid * BLOCK * 4 * 16 * reps;
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (rt_gpu_timed(g, f, grid, 0, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = rt_gpu_clock_of(meta);
    }
    *st = rt_gpu_stat_of(v, trials);
    *clock = rt_gpu_stat_of(clk, trials).median;
    *ws = (double)grid * BLOCK * 4 * 16;
    return 0;
}

int rt_gpu_run_shared(rt_gpu_probe *g, int trials, double target, rt_spread *st, double *clock)
{
    rt_cu_function f;
    unsigned grid, smem = BLOCK * 16 * sizeof(float);
    if (rt_gpu_get_fn(g, MOD_MEM, "bw_shared", &f) || rt_gpu_one_wave(g, f, smem, &grid))
        return -1;
    int reps = 16;
    void *params[] = {&g->meta, &reps, &g->out};
    double sec, meta[4];
    for (int cal = 0; cal < 2; cal++) {
        if (rt_gpu_timed(g, f, grid, smem, params, &sec, meta))
            return -1;
        double want = reps * target / (sec > 1e-6 ? sec : 1e-6);
        reps = want > 1e7 ? 10000000 : want < 16 ? 16 : (int)want;
    }
    double bytes = (double)grid * BLOCK * reps * 16 * sizeof(float);
    double v[MAX_TRIALS], clk[MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        if (rt_gpu_timed(g, f, grid, smem, params, &sec, meta))
            return -1;
        v[t] = bytes / sec;
        clk[t] = rt_gpu_clock_of(meta);
    }
    *st = rt_gpu_stat_of(v, trials);
    *clock = rt_gpu_stat_of(clk, trials).median;
    return 0;
}
int rt_gpu_run_sweep(rt_gpu_probe *g, rt_gpu_curve *c, rt_gpu_bw_kind kind, double lo, double hi,
                     double step, int trials, double target, rt_gpu_progress_t *p, double f0,
                     double f1)
{
    size_t cap = (size_t)(log(hi / lo) / log(step)) + 2;
    c->bytes = rt_xcalloc(cap, sizeof(double));
    c->bw = rt_xcalloc(cap, sizeof(double));
    c->min = rt_xcalloc(cap, sizeof(double));
    c->max = rt_xcalloc(cap, sizeof(double));
    snprintf(c->kind, sizeof c->kind, "%s", kind == BW_RMW ? "rmw" : "read");
    snprintf(c->kernel, sizeof c->kernel, "%s", rt_gpu_bw_kernels[kind]);
    for (double ws = lo; ws <= hi * 1.0001 && c->n < cap; ws *= step) {
        rt_spread st;
        double clock, used;
        if (rt_gpu_run_bw(g, kind, ws, trials, target, &st, &clock, &used))
            return -1;
        if (c->n > 0 && used <= c->bytes[c->n - 1])
            continue;
        c->bytes[c->n] = used;
        c->bw[c->n] = st.median;
        c->min[c->n] = st.min;
        c->max[c->n] = st.max;
        c->n++;
        rt_gpu_progress(p, f0 + (f1 - f0) * log(ws / lo) / log(hi / lo));
    }
    return 0;
}
