/* Conv2D as frameworks lower it: im2col/col2im (kernels of their own) + OpenBLAS sgemm, per image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime-config.h"
#include "rooftime/study/conv-im2col.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_OPENBLAS
#include <cblas.h>

typedef struct im2col_case {
    rt_study_case base;
    rt_conv_shape s;
    rt_pass pass;
    float *src, *wei, *dst; /* dst holds diff_dst for the backward passes */
    float *col;             /* one image's column buffer: [C R S][P Q] */
    char impl[96];
} im2col_case;

/* Column buffer of image x: each row (c, r, s) holds the input seen by tap (r, s) at every
 * output position; taps on the padding store zeros. */
static void im2col(const rt_conv_shape *sh, const float *x, float *col)
{
    long C = sh->c, H = sh->h, W = sh->w, R = sh->r, S = sh->s;
    long P = rt_conv_out_h(sh), Q = rt_conv_out_w(sh), st = sh->stride, pad = sh->pad;
    for (long c = 0; c < C; c++)
        for (long r = 0; r < R; r++)
            for (long s = 0; s < S; s++) {
                float *row = col + ((c * R + r) * S + s) * P * Q;
                for (long p = 0; p < P; p++) {
                    long ih = p * st - pad + r;
                    for (long q = 0; q < Q; q++) {
                        long iw = q * st - pad + s;
                        row[p * Q + q] = (ih >= 0 && ih < H && iw >= 0 && iw < W)
                                             ? x[(c * H + ih) * W + iw]
                                             : 0.0f;
                    }
                }
            }
}

/* The adjoint of im2col: every column entry inside the image is added to its input position. */
static void col2im(const rt_conv_shape *sh, const float *col, float *x)
{
    long C = sh->c, H = sh->h, W = sh->w, R = sh->r, S = sh->s;
    long P = rt_conv_out_h(sh), Q = rt_conv_out_w(sh), st = sh->stride, pad = sh->pad;
    memset(x, 0, (size_t)(C * H * W) * sizeof *x);
    for (long c = 0; c < C; c++)
        for (long r = 0; r < R; r++)
            for (long s = 0; s < S; s++) {
                const float *row = col + ((c * R + r) * S + s) * P * Q;
                for (long p = 0; p < P; p++) {
                    long ih = p * st - pad + r;
                    if (ih < 0 || ih >= H)
                        continue;
                    for (long q = 0; q < Q; q++) {
                        long iw = q * st - pad + s;
                        if (iw >= 0 && iw < W)
                            x[(c * H + ih) * W + iw] += row[p * Q + q];
                    }
                }
            }
}

static int im2col_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    im2col_case *d = (im2col_case *)base;
    const rt_conv_shape *s = &d->s;
    long K = s->k, CRS = s->c * s->r * s->s, PQ = rt_conv_out_h(s) * rt_conv_out_w(s);
    long CHW = s->c * s->h * s->w;
    rt_kernel_cost c_im2col = {.name = "im2col",
                               .unit = "fp32",
                               .flops = 0,
                               .dram_bytes = 4.0 * (CHW + (double)CRS * PQ),
                               .l1_bytes = 4.0 * (rt_im2col_loads(s) + rt_im2col_stores(s)),
                               .overhead = RT_OVERHEAD_NONE};
    /* zeroing the image, then a load of the column, a load and a store of the image per add */
    rt_kernel_cost c_col2im = {.name = "col2im",
                               .unit = "fp32",
                               .flops = rt_col2im_adds(s),
                               .dram_bytes = 4.0 * (CHW + (double)CRS * PQ),
                               .l1_bytes = 4.0 * (CHW + 3 * rt_col2im_adds(s)),
                               .overhead = RT_OVERHEAD_NONE};
    for (long n = 0; n < s->n; n++) {
        float *x = d->src + n * CHW, *y = d->dst + n * K * PQ;
        if (d->pass == RT_PASS_FWD) {
            rt_timer_start(t);
            im2col(s, x, d->col);
            rt_timer_stop(t, &c_im2col);
            rt_kernel_cost g = {.name = "sgemm_fwd",
                                .unit = "fp32",
                                .flops = rt_gemm_flops(K, PQ, CRS, false),
                                .dram_bytes =
                                    4.0 * ((double)K * CRS + (double)CRS * PQ + (double)K * PQ),
                                .l1_bytes = -1,
                                .impl = d->impl,
                                .overhead = RT_STUDY_BLAS_OVERHEAD};
            rt_timer_start(t);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, PQ, CRS, 1.0f, d->wei, CRS,
                        d->col, PQ, 0.0f, y, PQ);
            rt_timer_stop(t, &g);
        } else if (d->pass == RT_PASS_BWD_DATA) {
            rt_kernel_cost g = {.name = "sgemm_bwd_data",
                                .unit = "fp32",
                                .flops = rt_gemm_flops(CRS, PQ, K, false),
                                .dram_bytes =
                                    4.0 * ((double)K * CRS + (double)K * PQ + (double)CRS * PQ),
                                .l1_bytes = -1,
                                .impl = d->impl,
                                .overhead = RT_STUDY_BLAS_OVERHEAD};
            rt_timer_start(t);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, CRS, PQ, K, 1.0f, d->wei, CRS, y,
                        PQ, 0.0f, d->col, PQ);
            rt_timer_stop(t, &g);
            rt_timer_start(t);
            col2im(s, d->col, x);
            rt_timer_stop(t, &c_col2im);
        } else {
            rt_timer_start(t);
            im2col(s, x, d->col);
            rt_timer_stop(t, &c_im2col);
            bool acc = n > 0; /* the gradient sums over the batch */
            rt_kernel_cost g = {.name = "sgemm_bwd_weights",
                                .unit = "fp32",
                                .flops = rt_gemm_flops(K, CRS, PQ, acc),
                                .dram_bytes = 4.0 * ((double)K * PQ + (double)CRS * PQ +
                                                     (acc ? 2.0 : 1.0) * K * CRS),
                                .l1_bytes = -1,
                                .impl = d->impl,
                                .overhead = RT_STUDY_BLAS_OVERHEAD};
            rt_timer_start(t);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, CRS, PQ, 1.0f, y, PQ, d->col,
                        PQ, acc ? 1.0f : 0.0f, d->wei, CRS);
            rt_timer_stop(t, &g);
        }
    }
    return 0;
}

static float *im2col_out(rt_study_case *base, size_t *n)
{
    im2col_case *d = (im2col_case *)base;
    const float *res = d->pass == RT_PASS_FWD        ? d->dst
                       : d->pass == RT_PASS_BWD_DATA ? d->src
                                                     : d->wei;
    *n = (size_t)(d->pass == RT_PASS_FWD        ? rt_conv_dst_elems(&d->s)
                  : d->pass == RT_PASS_BWD_DATA ? rt_conv_src_elems(&d->s)
                                                : rt_conv_wei_elems(&d->s));
    float *out = rt_xmalloc(*n * sizeof *out);
    memcpy(out, res, *n * sizeof *out);
    return out;
}

static void im2col_free(rt_study_case *base)
{
    im2col_case *d = (im2col_case *)base;
    free(d->src);
    free(d->wei);
    free(d->dst);
    free(d->col);
    free(d->base.note);
    free(d->base.impl);
    free(d);
}
#endif

int rt_conv_im2col_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_conv_shape_check(s, err) < 0)
        return -1;
#ifdef RT_HAVE_OPENBLAS
    if (prec != RT_PREC_FP32) {
        /* Debian's OpenBLAS 0.3.21 is built without BUILD_BFLOAT16: cblas.h declares
         * cblas_sbgemm but the library has no such symbol. */
        rt_error_set(err,
                     "im2col: %s needs a %s GEMM; the OpenBLAS found at configure time has "
                     "fp32 (sgemm) only",
                     rt_precision_name(prec), rt_precision_name(prec));
        return -1;
    }
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD_DATA && pass != RT_PASS_BWD_WEIGHTS) {
        rt_error_set(err, "im2col: conv2d has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    im2col_case *d = rt_xcalloc(1, sizeof *d);
    d->base.run = im2col_run;
    d->base.out = im2col_out;
    d->base.free = im2col_free;
    d->s = *s;
    d->pass = pass;
    d->src = rt_study_random_tensor((size_t)rt_conv_src_elems(s), prec, &seed);
    d->wei = rt_study_random_tensor((size_t)rt_conv_wei_elems(s), prec, &seed);
    d->dst = rt_study_random_tensor((size_t)rt_conv_dst_elems(s), prec, &seed);
    d->col = rt_xmalloc((size_t)rt_im2col_stores(s) * sizeof *d->col);
    snprintf(d->impl, sizeof d->impl, "openblas:%s", openblas_get_corename());
    *out = &d->base;
    return 0;
#else
    (void)prec;
    (void)pass;
    (void)seed;
    rt_error_set(err,
                 "im2col: needs OpenBLAS (Debian libopenblas-dev), not found at configure time");
    return -1;
#endif
}
