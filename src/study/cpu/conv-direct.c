/* Conv2D by direct loops in C (forward, backward-data, backward-weights; FP32 and BF16 storage):
 * the correctness reference of the study, not a fast path. */
#include <stdlib.h>
#include <string.h>

#include "rooftime-config.h"
#include "rooftime/study/conv-direct.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_OPENMP
#include <omp.h>
#define PARALLEL_FOR2 _Pragma("omp parallel for collapse(2) schedule(static)")
#else
#define PARALLEL_FOR2
#endif

typedef struct direct_case {
    rt_study_case base;
    rt_conv_shape s;
    rt_precision prec;
    rt_pass pass;
    void *src, *wei, *dst; /* dst holds diff_dst for the backward passes */
} direct_case;

static long max_l(long a, long b)
{
    return a > b ? a : b;
}
static long min_l(long a, long b)
{
    return a < b ? a : b;
}
/* Ceiling division for a positive divisor and any sign of numerator. */
static long cdiv(long a, long b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* One body per element type: LD reads an element as float, ST stores a float. */
#define DIRECT_PASSES(SUFFIX, T, LD, ST)                                                           \
    static void fwd_##SUFFIX(const rt_conv_shape *sh, const T *src, const T *wei, T *dst)          \
    {                                                                                              \
        long N = sh->n, C = sh->c, H = sh->h, W = sh->w, K = sh->k, R = sh->r, S = sh->s;          \
        long P = rt_conv_out_h(sh), Q = rt_conv_out_w(sh), st = sh->stride, pad = sh->pad;         \
        PARALLEL_FOR2                                                                              \
        for (long n = 0; n < N; n++)                                                               \
            for (long k = 0; k < K; k++)                                                           \
                for (long p = 0; p < P; p++) {                                                     \
                    long r0 = max_l(0, pad - p * st), r1 = min_l(R, H + pad - p * st);             \
                    for (long q = 0; q < Q; q++) {                                                 \
                        long s0 = max_l(0, pad - q * st), s1 = min_l(S, W + pad - q * st);         \
                        float acc = 0;                                                             \
                        for (long c = 0; c < C; c++)                                               \
                            for (long r = r0; r < r1; r++) {                                       \
                                const T *x = src + ((n * C + c) * H + p * st - pad + r) * W;       \
                                const T *w = wei + ((k * C + c) * R + r) * S;                      \
                                for (long s = s0; s < s1; s++)                                     \
                                    acc += LD(x[q * st - pad + s]) * LD(w[s]);                     \
                            }                                                                      \
                        dst[((n * K + k) * P + p) * Q + q] = ST(acc);                              \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    static void bwd_data_##SUFFIX(const rt_conv_shape *sh, T *dsrc, const T *wei, const T *ddst)   \
    {                                                                                              \
        long N = sh->n, C = sh->c, H = sh->h, W = sh->w, K = sh->k, R = sh->r, S = sh->s;          \
        long P = rt_conv_out_h(sh), Q = rt_conv_out_w(sh), st = sh->stride, pad = sh->pad;         \
        PARALLEL_FOR2                                                                              \
        for (long n = 0; n < N; n++)                                                               \
            for (long c = 0; c < C; c++)                                                           \
                for (long h = 0; h < H; h++)                                                       \
                    for (long w = 0; w < W; w++) {                                                 \
                        float acc = 0;                                                             \
                        for (long r = 0; r < R; r++) {                                             \
                            long ph = h + pad - r;                                                 \
                            if (ph < 0 || ph % st || ph / st >= P)                                 \
                                continue;                                                          \
                            for (long s = 0; s < S; s++) {                                         \
                                long qw = w + pad - s;                                             \
                                if (qw < 0 || qw % st || qw / st >= Q)                             \
                                    continue;                                                      \
                                for (long k = 0; k < K; k++)                                       \
                                    acc += LD(ddst[((n * K + k) * P + ph / st) * Q + qw / st]) *   \
                                           LD(wei[((k * C + c) * R + r) * S + s]);                 \
                            }                                                                      \
                        }                                                                          \
                        dsrc[((n * C + c) * H + h) * W + w] = ST(acc);                             \
                    }                                                                              \
    }                                                                                              \
    static void bwd_weights_##SUFFIX(const rt_conv_shape *sh, const T *src, T *dwei,               \
                                     const T *ddst)                                                \
    {                                                                                              \
        long N = sh->n, C = sh->c, H = sh->h, W = sh->w, K = sh->k, R = sh->r, S = sh->s;          \
        long P = rt_conv_out_h(sh), Q = rt_conv_out_w(sh), st = sh->stride, pad = sh->pad;         \
        PARALLEL_FOR2                                                                              \
        for (long k = 0; k < K; k++)                                                               \
            for (long c = 0; c < C; c++)                                                           \
                for (long r = 0; r < R; r++) {                                                     \
                    long p0 = max_l(0, cdiv(pad - r, st)), p1 = min_l(P, cdiv(H + pad - r, st));   \
                    for (long s = 0; s < S; s++) {                                                 \
                        long q0 = max_l(0, cdiv(pad - s, st));                                     \
                        long q1 = min_l(Q, cdiv(W + pad - s, st));                                 \
                        float acc = 0;                                                             \
                        for (long n = 0; n < N; n++)                                               \
                            for (long p = p0; p < p1; p++) {                                       \
                                const T *dy = ddst + ((n * K + k) * P + p) * Q;                    \
                                const T *x = src + ((n * C + c) * H + p * st - pad + r) * W;       \
                                for (long q = q0; q < q1; q++)                                     \
                                    acc += LD(dy[q]) * LD(x[q * st - pad + s]);                    \
                            }                                                                      \
                        dwei[((k * C + c) * R + r) * S + s] = ST(acc);                             \
                    }                                                                              \
                }                                                                                  \
    }

#define LD_F32(x) (x)
#define ST_F32(x) (x)
DIRECT_PASSES(f32, float, LD_F32, ST_F32)
DIRECT_PASSES(bf16, uint16_t, rt_bf16_to_f32, rt_f32_to_bf16)

static const char *const kernel_names[] = {"direct_fwd", "direct_bwd_data", "direct_bwd_weights"};

static int direct_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    direct_case *d = (direct_case *)base;
    const rt_conv_shape *s = &d->s;
    double eb = d->prec == RT_PREC_FP32 ? 4 : 2;
    rt_kernel_cost cost = {.name = kernel_names[d->pass],
                           .unit = "fp32", /* bf16 elements are widened and multiplied in fp32 */
                           .flops = 2 * rt_conv_macs_valid(s),
                           .dram_bytes = rt_conv_pass_bytes(s, d->pass, eb),
                           .l1_bytes = rt_conv_direct_l1_bytes(s, d->pass, eb),
                           .impl = NULL,
#ifdef RT_HAVE_OPENMP
                           /* one parallel region per call, of the team's threads */
                           .overhead = RT_OVERHEAD_OPENMP,
                           .overhead_threads = omp_get_max_threads()};
#else
                           .overhead = RT_OVERHEAD_NONE};
#endif
    rt_timer_start(t);
    if (d->prec == RT_PREC_FP32) {
        if (d->pass == RT_PASS_FWD)
            fwd_f32(s, d->src, d->wei, d->dst);
        else if (d->pass == RT_PASS_BWD_DATA)
            bwd_data_f32(s, d->src, d->wei, d->dst);
        else
            bwd_weights_f32(s, d->src, d->wei, d->dst);
    } else {
        if (d->pass == RT_PASS_FWD)
            fwd_bf16(s, d->src, d->wei, d->dst);
        else if (d->pass == RT_PASS_BWD_DATA)
            bwd_data_bf16(s, d->src, d->wei, d->dst);
        else
            bwd_weights_bf16(s, d->src, d->wei, d->dst);
    }
    rt_timer_stop(t, &cost);
    return 0;
}

static float *direct_out(rt_study_case *base, size_t *n)
{
    direct_case *d = (direct_case *)base;
    const void *res = d->pass == RT_PASS_FWD        ? d->dst
                      : d->pass == RT_PASS_BWD_DATA ? d->src
                                                    : d->wei;
    double elems = d->pass == RT_PASS_FWD        ? rt_conv_dst_elems(&d->s)
                   : d->pass == RT_PASS_BWD_DATA ? rt_conv_src_elems(&d->s)
                                                 : rt_conv_wei_elems(&d->s);
    *n = (size_t)elems;
    float *out = rt_xmalloc(*n * sizeof *out);
    for (size_t i = 0; i < *n; i++)
        out[i] = d->prec == RT_PREC_FP32 ? ((const float *)res)[i]
                                         : rt_bf16_to_f32(((const uint16_t *)res)[i]);
    return out;
}

static void direct_free(rt_study_case *base)
{
    direct_case *d = (direct_case *)base;
    free(d->src);
    free(d->wei);
    free(d->dst);
    free(d->base.note);
    free(d->base.impl);
    free(d);
}

int rt_conv_direct_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_conv_shape_check(s, err) < 0)
        return -1;
    if (prec != RT_PREC_FP32 && prec != RT_PREC_BF16) {
        rt_error_set(err, "direct: %s is not implemented (fp32 and bf16 are)",
                     rt_precision_name(prec));
        return -1;
    }
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD_DATA && pass != RT_PASS_BWD_WEIGHTS) {
        rt_error_set(err, "direct: conv2d has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    direct_case *d = rt_xcalloc(1, sizeof *d);
    d->base.run = direct_run;
    d->base.out = direct_out;
    d->base.free = direct_free;
    d->s = *s;
    d->prec = prec;
    d->pass = pass;
    d->src = rt_study_random_tensor((size_t)rt_conv_src_elems(s), prec, &seed);
    d->wei = rt_study_random_tensor((size_t)rt_conv_wei_elems(s), prec, &seed);
    d->dst = rt_study_random_tensor((size_t)rt_conv_dst_elems(s), prec, &seed);
    *out = &d->base;
    return 0;
}
