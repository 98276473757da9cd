/* One decode step unfused, as an eager framework runs it: the QKV projection (OpenBLAS GEMM), the
 * new key and value appended to the caches, the scores of each sequence and head against its
 * cache (one GEMV each, one kernel for all), their softmax (C), the weighted values (GEMV), the
 * output projection, and the MLP as GEMM, GELU, GEMM. fp32 (Debian's OpenBLAS has no bf16). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

enum { K_QKV, K_APPEND, K_SCORES, K_SOFTMAX, K_VALUES, K_OUT, K_UP, K_GELU, K_DOWN, K_COUNT };

typedef struct decode_unfused {
    rt_study_case base;
    rt_decode_data d;
    float *qkv, *s, *o, *a, *h, *y; /* [B][3D], [B][H][n], [B][D], [B][D], [B][F], [B][D] */
    rt_kernel_cost cost[K_COUNT];
} decode_unfused;

/* The attention of the step: scores, softmax, values, each one kernel over every head. */
static void attention(decode_unfused *u, rt_study_timer *t)
{
    const rt_decode_shape *s = &u->d.s;
    long B = s->batch, H = s->heads, D = s->hidden, Dh = D / H, n = s->cache + 1;
    rt_timer_start(t);
    for (long b = 0; b < B; b++)
        for (long h = 0; h < H; h++)
            rt_xf_sgemv(false, n, Dh, u->d.kc + (b * H + h) * n * Dh, Dh,
                        u->qkv + b * 3 * D + h * Dh, u->s + (b * H + h) * n);
    rt_timer_stop(t, &u->cost[K_SCORES]);
    float scale = 1.0f / sqrtf((float)Dh);
    rt_timer_start(t);
#pragma omp parallel for schedule(static)
    for (long bh = 0; bh < B * H; bh++)
        rt_xf_softmax_row(u->s + bh * n, n, scale);
    rt_timer_stop(t, &u->cost[K_SOFTMAX]);
    rt_timer_start(t);
    for (long bh = 0; bh < B * H; bh++)
        rt_xf_sgemv(true, n, Dh, u->d.vc + bh * n * Dh, Dh, u->s + bh * n, u->o + bh * Dh);
    rt_timer_stop(t, &u->cost[K_VALUES]);
}

static int unfused_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    decode_unfused *u = (decode_unfused *)base;
    const rt_decode_shape *s = &u->d.s;
    long B = s->batch, H = s->heads, D = s->hidden, Dh = D / H, F = s->ffn, n = s->cache + 1;
    rt_timer_start(t);
    rt_xf_sgemm(false, B, 3 * D, D, u->d.x, D, u->d.wqkv, 3 * D, u->qkv, 3 * D);
    rt_timer_stop(t, &u->cost[K_QKV]);
    rt_timer_start(t);
#pragma omp parallel for schedule(static)
    for (long bh = 0; bh < B * H; bh++) {
        long b = bh / H, h = bh % H;
        memcpy(u->d.kc + (bh * n + n - 1) * Dh, u->qkv + b * 3 * D + D + h * Dh,
               (size_t)Dh * sizeof(float));
        memcpy(u->d.vc + (bh * n + n - 1) * Dh, u->qkv + b * 3 * D + 2 * D + h * Dh,
               (size_t)Dh * sizeof(float));
    }
    rt_timer_stop(t, &u->cost[K_APPEND]);
    attention(u, t);
    rt_timer_start(t);
    rt_xf_sgemm(false, B, D, D, u->o, D, u->d.wo, D, u->a, D);
    rt_timer_stop(t, &u->cost[K_OUT]);
    rt_timer_start(t);
    rt_xf_sgemm(false, B, F, D, u->a, D, u->d.w1, F, u->h, F);
    rt_timer_stop(t, &u->cost[K_UP]);
    rt_timer_start(t);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < B * F; i++)
        u->h[i] = rt_xf_gelu(u->h[i]);
    rt_timer_stop(t, &u->cost[K_GELU]);
    rt_timer_start(t);
    rt_xf_sgemm(false, B, D, F, u->h, F, u->d.w2, D, u->y, D);
    rt_timer_stop(t, &u->cost[K_DOWN]);
    return 0;
}

static float *unfused_out(rt_study_case *base, size_t *n)
{
    decode_unfused *u = (decode_unfused *)base;
    return rt_xf_copy_out(u->y, rt_decode_out_elems(&u->d.s), n);
}

static void unfused_free(rt_study_case *base)
{
    decode_unfused *u = (decode_unfused *)base;
    rt_decode_data_release(&u->d);
    free(u->qkv);
    free(u->s);
    free(u->o);
    free(u->a);
    free(u->h);
    free(u->y);
    free(u);
}

int rt_decode_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err)
{
    *out = NULL;
    const rt_decode_shape *s = &pt->dec;
    if (rt_decode_shape_check(s, err) < 0 ||
        rt_xformer_require("unfused decode (OpenBLAS has no bf16 GEMM here)", prec, pass, true,
                           err) < 0)
        return -1;
    decode_unfused *u = rt_xcalloc(1, sizeof *u);
    u->base.run = unfused_run;
    u->base.out = unfused_out;
    u->base.free = unfused_free;
    rt_decode_data_init(&u->d, s, seed);
    double B = (double)s->batch, D = (double)s->hidden, F = (double)s->ffn;
    size_t b = (size_t)s->batch;
    u->qkv = rt_xcalloc(b * 3 * (size_t)s->hidden, sizeof(float));
    u->s = rt_xcalloc(b * (size_t)s->heads * (size_t)(s->cache + 1), sizeof(float));
    u->o = rt_xcalloc(b * (size_t)s->hidden, sizeof(float));
    u->a = rt_xcalloc(b * (size_t)s->hidden, sizeof(float));
    u->h = rt_xcalloc(b * (size_t)s->ffn, sizeof(float));
    u->y = rt_xcalloc(b * (size_t)s->hidden, sizeof(float));
    const char *blas = rt_xf_blas_name();
    rt_xf_count at[3];
    rt_decode_attn_counts(s, 4, 4, false, at);
    u->cost[K_QKV] = rt_xf_cost("gemm_qkv", rt_xf_gemm_count(B, 3 * D, D, 4), blas);
    /* the new key and value read from the projection and written into the caches */
    u->cost[K_APPEND] = rt_xf_cost("kv_append", (rt_xf_count){0, 4 * B * D * 4, 0}, NULL);
    u->cost[K_SCORES] = rt_xf_cost("attn_scores", at[0], blas);
    u->cost[K_SOFTMAX] = rt_xf_cost("softmax", at[1], NULL);
    u->cost[K_VALUES] = rt_xf_cost("attn_values", at[2], blas);
    u->cost[K_OUT] = rt_xf_cost("gemm_out", rt_xf_gemm_count(B, D, D, 4), blas);
    u->cost[K_UP] = rt_xf_cost("gemm_up", rt_xf_gemm_count(B, F, D, 4), blas);
    u->cost[K_GELU] =
        rt_xf_cost("gelu", rt_xf_elementwise_count(B * F, RT_XF_GELU_FLOPS, 1, 1, 4), NULL);
    u->cost[K_DOWN] = rt_xf_cost("gemm_down", rt_xf_gemm_count(B, D, F, 4), blas);
    *out = &u->base;
    return 0;
}
