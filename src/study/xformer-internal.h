/* Private to the study: the transformer study's sweeps (xformer-points.c), the tensors every
 * implementation starts from (xformer-data.c), and the constructors of its cases (attention-*.c,
 * mlp-*.c, decode-*.c; one entry per implementation in xformer-cases.c). */
#ifndef ROOFTIME_STUDY_XFORMER_INTERNAL_H
#define ROOFTIME_STUDY_XFORMER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/study/xformer-shapes.h"
#include "rooftime/util/error.h"

/* ---- xformer-points.c ---- */
const char *const *rt_xformer_params(rt_study_op op, size_t *n);
long rt_xformer_point_param(const rt_study_point *p, const char *param);
rt_study_point *rt_xformer_points(rt_study_op op, bool quick, double scale, size_t *n);
int rt_xformer_point_check(const rt_study_point *p, rt_error *err);
/* The op's own AI at a point: its FLOPs over its compulsory bytes (the direct loops' count). */
double rt_xformer_nominal_ai(const rt_study_point *p);
/* The small shape of op's correctness check. */
rt_study_point rt_xformer_small_point(rt_study_op op);

/* ---- xformer-data.c: fp32 tensors from a seed, the same for every implementation ---- */

/* q, k, v [batch][heads][seq][head_dim]. */
typedef struct rt_attn_data {
    rt_attn_shape s;
    float *q, *k, *v;
} rt_attn_data;

/* x [tokens][hidden]; up and gate [hidden][ffn], down [ffn][hidden] (gate NULL when not gated);
 * weights scaled by 1/sqrt(fan-in), as a layer is initialised. */
typedef struct rt_mlp_data {
    rt_mlp_shape s;
    float *x, *wu, *wg, *wd;
} rt_mlp_data;

/* x [batch][hidden]; wqkv [hidden][3 hidden] (q, k, v side by side, each heads x head_size), wo
 * [hidden][hidden], w1 [hidden][ffn], w2 [ffn][hidden]; kc, vc [batch][heads][cache + 1][head_size]
 * with positions 0 .. cache-1 filled and position `cache` zero (the step writes it). */
typedef struct rt_decode_data {
    rt_decode_shape s;
    float *x, *wqkv, *wo, *w1, *w2, *kc, *vc;
} rt_decode_data;

void rt_attn_data_init(rt_attn_data *d, const rt_attn_shape *s, uint64_t seed);
void rt_attn_data_release(rt_attn_data *d);
void rt_mlp_data_init(rt_mlp_data *d, const rt_mlp_shape *s, uint64_t seed);
void rt_mlp_data_release(rt_mlp_data *d);
void rt_decode_data_init(rt_decode_data *d, const rt_decode_shape *s, uint64_t seed);
void rt_decode_data_release(rt_decode_data *d);
/* Element counts of each op's result: the attention output, the MLP's y, the decode step's y. */
size_t rt_attn_out_elems(const rt_attn_shape *s);
size_t rt_mlp_out_elems(const rt_mlp_shape *s);
size_t rt_decode_out_elems(const rt_decode_shape *s);
/* A copy of n floats (the out() of a case); NULL src gives one NaN, which fails every check. */
float *rt_xf_copy_out(const float *src, size_t n, size_t *out_n);

/* ---- the constructors: the direct loops (the reference, fp32), OpenBLAS + C kernels (fp32),
 * oneDNN (fp32, bf16); -1 with the reason when a precision, pass or library is missing ---- */
typedef int (*rt_xf_new)(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                         rt_study_case **out, rt_error *err);
int rt_attn_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_mlp_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                      rt_study_case **out, rt_error *err);
int rt_decode_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                         rt_study_case **out, rt_error *err);
int rt_attn_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                        rt_study_case **out, rt_error *err);
int rt_mlp_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_decode_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err);
int rt_attn_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_mlp_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                      rt_study_case **out, rt_error *err);
int rt_decode_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                         rt_study_case **out, rt_error *err);

/* ---- xformer-cases.c: one entry per implementation, dispatching on the point's op ---- */
int rt_xformer_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err);
int rt_xformer_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                           rt_study_case **out, rt_error *err);
int rt_xformer_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err);
/* -1 with "<what> runs the forward pass only" unless pass is the forward; "<what> runs fp32 only"
 * unless prec is fp32 (fp32_only). */
int rt_xformer_require(const char *what, rt_precision prec, rt_pass pass, bool fp32_only,
                       rt_error *err);

/* ---- the C kernels the direct and unfused implementations share ---- */

/* One softmax row of n scores in place, each first scaled by `scale`: 6 n + 1 FLOPs. */
void rt_xf_softmax_row(float *s, long n, float scale);
/* out[n] = x[k] W[k][n] summed over k, W [K][N] row-major (the row order a vectorizing compiler
 * wants): the direct loops' projections, 2 K N FLOPs. */
void rt_xf_row_times(const float *x, const float *w, long K, long N, float *out);
/* GELU (erf) of x. */
float rt_xf_gelu(float x);
/* silu(g) * u. */
float rt_xf_silu_mul(float g, float u);
/* The cost of one kernel from its count: fp32 FLOPs, DRAM bytes, no L1 figure. */
rt_kernel_cost rt_xf_cost(const char *name, rt_xf_count c, const char *impl);
/* What runs the GEMMs: "openblas", or plain loops in a build without it (the kernels' impl tag). */
const char *rt_xf_blas_name(void);
/* C = A B (tb: A B^T), row-major, fp32, single precision BLAS. */
void rt_xf_sgemm(bool tb, long M, long N, long K, const float *A, long lda, const float *B,
                 long ldb, float *C, long ldc);
/* y = A x (ta: A^T x), A M x N row-major. */
void rt_xf_sgemv(bool ta, long M, long N, const float *A, long lda, const float *x, float *y);

#endif
