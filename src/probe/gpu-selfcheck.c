/* The probe's kernels once each, with the work each does known exactly, for the collector's
 * self-check (`machine measure --gpu --self-check`, docs/gpu-measure.md): every compute kernel
 * that exists on this GPU, then the read and read-modify-write streams over a working set far
 * larger than L2. One manifest line per kernel: name, the quantity a counter run must report for
 * it, the figure it must report. */
#include <stdio.h>
#include <string.h>

#include "gpu-internal.h"

/* Loop iterations per compute kernel: enough that the set-up and the final sums are far below
 * 1% of the counted work, little enough that every kernel runs in a millisecond or so. */
#define SELF_ITERS 512
#define SELF_ITERS_WGMMA 129 /* odd: wgmma.cu */

/* The quantity a kernel's work falls under in a profile (metrics.json's names): its unit's, or
 * the one the generation says the counters report it under (counted_as: every tensor type in
 * one counter to sm_75, FP8 mma.sync as the FP16 HMMA ptxas makes of it on sm_90 and sm_100). The
 * counters name no instruction: mma_<type> is tensor_<type>'s quantity. No chip has a vector
 * BF16 counter (GH100's sm__sass_thread_inst_executed_op_* name none) and metrics.json no
 * flops.bf16: the bf16x2 FMA is an HFMA2 (HFMA2.BF16_V2 in the SASS), an "HFMA thread
 * instruction" by the description of sm__sass_thread_inst_executed_op_hfma_pred_on, so it is
 * expected under flops.fp16, which that counter feeds at 4 FLOPs per HFMA2 in the mapping's default
 * recipe, the kernels' own count (whether it counts the BF16 one, a GPU run tells). */
void rt_gpu_selfcheck_quantity(const rt_gpu_compute_kernel *k, const char *unit,
                               const rt_gpu_arch *gen, char *q, size_t n)
{
    if (strcmp(k->family, "fma") == 0) {
        snprintf(q, n, "flops.%s", strcmp(k->type, "bf16") == 0 ? "fp16" : k->type);
        return;
    }
    const char *as = gen ? rt_gpu_arch_counted_as(gen, unit) : unit;
    if (strncmp(as, "mma_", 4) == 0)
        snprintf(q, n, "flops.tensor_%s", as + 4);
    else
        snprintf(q, n, "flops.%s", as);
}

static int run_compute(rt_gpu_probe *g, const rt_gpu_compute_kernel *k, FILE *out, int *ran)
{
    rt_cu_function f;
    unsigned grid, block = k->block ? k->block : BLOCK;
    char unit[24];
    *ran = 0;
    if (!rt_gpu_unit_of(k, g->gen, unit, sizeof unit) || !g->mod[k->mod])
        return 0;
    if (rt_gpu_get_fn(g, k->mod, k->kernel, &f) || rt_gpu_one_wave_of(g, f, block, 0, &grid))
        return -1;
    int iters = k->mod == MOD_WGMMA ? SELF_ITERS_WGMMA : SELF_ITERS;
    float b = RT_GPU_FMA_B, c = RT_GPU_FMA_C;
    void *pf[] = {&g->meta, &g->out, &iters, &b, &c};
    void *pm[] = {&g->meta, &g->out, &iters};
    double sec, meta[4];
    if (rt_gpu_timed_of(g, f, grid, block, 0, k->mod == MOD_FMA ? pf : pm, &sec, meta))
        return -1;
    if (meta[0] <= 0)
        return 0; /* the instruction does not exist here */
    float out0 = 0;
    if (rt_gpu_ck(g, g->cu.MemcpyDtoH(&out0, g->out, sizeof out0), "cuMemcpyDtoH"))
        return -1;
    double want;
    int ok = rt_gpu_result_ok(k, iters, meta, out0, &want);
    /* A wrong result is a failed check of its own ("#!", selfcheck-compare), not the end of the
     * run: its instructions ran, so their count is still compared, and the kernels after it
     * (the streams' HBM bytes among them) still run. */
    if (!ok) {
        fprintf(out, "#! %s: computed %g, expected %g: wrong result\n", k->kernel, out0, want);
        fprintf(stderr, "rooftime: self-check: kernel %s computed %g, expected %g: wrong result\n",
                k->kernel, out0, want);
    }
    char q[48];
    rt_gpu_selfcheck_quantity(k, unit, g->gen, q, sizeof q);
    double warps = (double)grid * block / 32;
    fprintf(out, "%s\t%s\t%.17g\n", k->kernel, q, meta[0] * warps * iters);
    *ran = 1;
    return 0;
}

/* One pass of a stream kernel over `ws` bytes; its HBM bytes are what it reads (and writes). */
static int run_stream(rt_gpu_probe *g, rt_gpu_bw_kind kind, double ws, FILE *out)
{
    rt_cu_function f;
    unsigned grid;
    if (rt_gpu_get_fn(g, MOD_MEM, rt_gpu_bw_kernels[kind], &f) || rt_gpu_one_wave(g, f, 0, &grid))
        return -1;
    unsigned long long slice = (unsigned long long)(ws / 16 / grid);
    if ((double)slice * 16 * grid > (double)g->buf_bytes)
        slice = g->buf_bytes / 16 / grid;
    int reps = 1;
    void *params[] = {&g->meta, &g->buf, &slice, &reps, &g->out};
    double sec, meta[4];
    if (rt_gpu_timed(g, f, grid, 0, params, &sec, meta))
        return -1;
    double bytes = (double)slice * 16 * grid * (kind == BW_RMW ? 2 : 1);
    fprintf(out, "%s\tbytes.HBM\t%.17g\n", rt_gpu_bw_kernels[kind], bytes);
    return 0;
}

int rt_gpu_selfcheck_kernels(int device, const rt_gpu_archs *archs, FILE *out, int *n_kernels,
                             rt_error *err)
{
    rt_gpu_probe g;
    memset(&g, 0, sizeof g);
    rt_gpu_measurement *r = rt_gpu_measurement_new();
    int rc = -1;
    *n_kernels = 0;
    if (rt_gpu_open(&g, device, archs, r, err))
        goto done;
    fprintf(out, "# rooftime self-check manifest: kernel, quantity, expected; %s sm_%d\n",
            r->device, g.sm);
    for (size_t i = 0; i < rt_gpu_n_compute; i++) {
        int ran;
        if (run_compute(&g, &rt_gpu_compute_kernels[i], out, &ran))
            goto done;
        *n_kernels += ran;
    }
    /* 40 x L2 (at least 1 GiB): what L2 holds before or after is at most 2.5% of the stream */
    double ws = 40 * r->l2_bytes > (double)(1u << 30) ? 40 * r->l2_bytes : (double)(1u << 30);
    if (ws > 0.5 * r->mem_bytes)
        ws = 0.5 * r->mem_bytes;
    g.buf_bytes = (size_t)ws;
    if (rt_gpu_ck(&g, g.cu.MemAlloc(&g.buf, g.buf_bytes), "cuMemAlloc (stream buffer)") ||
        rt_gpu_ck(&g, g.cu.MemsetD32(g.buf, 0, g.buf_bytes / 4), "cuMemsetD32") ||
        rt_gpu_ck(&g, g.cu.CtxSynchronize(), "cuCtxSynchronize"))
        goto done;
    if (run_stream(&g, BW_READ, ws, out) || run_stream(&g, BW_RMW, ws, out))
        goto done;
    *n_kernels += 2;
    rc = fflush(out) == 0 && !ferror(out) ? 0 : -1;
    if (rc)
        rt_error_set(err, "self-check: cannot write the manifest");
done:
    rt_gpu_close(&g);
    rt_gpu_measurement_free(r);
    return rc;
}
