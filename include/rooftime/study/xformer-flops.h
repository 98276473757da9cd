/* Exact FLOP and byte counts of the transformer study's kernels (xformer-flops.c), for the loops
 * and primitives as they run. Bytes are the compulsory traffic of a kernel's tensors at DRAM, each
 * read or written once; `e` is the bytes of an element of the implementation's precision, `se` of
 * a score (the unfused C kernels keep fp32 scores). */
#ifndef ROOFTIME_STUDY_XFORMER_FLOPS_H
#define ROOFTIME_STUDY_XFORMER_FLOPS_H

#include <stdbool.h>

#include "rooftime/study/xformer-shapes.h"

/* FLOPs per element of the elementwise kernels, each libm call one FLOP, a negation none. */
enum {
    RT_XF_GELU_FLOPS = 5,     /* 0.5 x (1 + erf(x / sqrt 2)): multiply, erf, add, 2 multiplies */
    RT_XF_SILU_MUL_FLOPS = 4, /* x / (1 + exp(-x)) * u: exp, add, divide, multiply */
    RT_XF_SOFTMAX_FLOPS = 5,  /* per score: max, subtract, exp, sum, scale by 1/sum */
    RT_XF_SCALE_FLOPS = 1     /* per score: times 1/sqrt(head size) */
};

/* What one kernel invocation does: its FLOPs, its bytes, and where it updates a tensor in place
 * (read and written: twice in its bytes, once in a cache) the distinct bytes it touches (ws; 0:
 * its bytes). */
typedef struct rt_xf_count {
    double flops, bytes, ws;
} rt_xf_count;

/* The scores a query row of length-n keys sees, summed over one head's rows: L(L+1)/2 under a
 * causal mask, L^2 without. */
double rt_attn_valid_scores(const rt_attn_shape *s);
/* The direct loops (one kernel): per valid score 2 head_dim (q.k) + 6 (scale and softmax) +
 * 2 head_dim (p v), plus one reciprocal per row; bytes q, k, v read and the output written. */
rt_xf_count rt_attn_direct_count(const rt_attn_shape *s, double e);
/* S = Q K^T over every (query, key) pair of every head: 2 L^2 head_dim; with `scaled` the scale
 * by 1/sqrt(head_dim) inside (+L^2), with `masked` the causal mask added (+L^2); bytes Q, K read
 * (and the mask, L^2 fp32), S written. */
rt_xf_count rt_attn_qk_count(const rt_attn_shape *s, double e, double se, bool scaled, bool masked);
/* The softmax of every row: valid_only (the C loop: only the keys a query sees, the rest written
 * as zeros) counts 6 per valid score with the scale (5 without, `scaled` false) and 1 per row,
 * reading the valid scores and writing all; otherwise every score is read, counted and written.
 * In place: the scores once are its working set. */
rt_xf_count rt_attn_softmax_count(const rt_attn_shape *s, double se, bool valid_only, bool scaled);
/* O = P V over every pair: 2 L^2 head_dim; bytes P and V read, O written. */
rt_xf_count rt_attn_pv_count(const rt_attn_shape *s, double e, double se);

/* A GEMM [m x k] x [k x n] -> [m x n]: 2 m n k, and its three tensors once. */
rt_xf_count rt_xf_gemm_count(double m, double n, double k, double e);
/* An elementwise kernel over n elements, f FLOPs each, reading `in` and writing `out` tensors of
 * n elements, in place (the outputs overwrite inputs: the `in` tensors are its working set). */
rt_xf_count rt_xf_elementwise_count(double n, double f, int in, int out, double e);
/* The whole MLP block: its GEMMs and activation (the direct loops' one kernel: x and the weights
 * read, y written). */
rt_xf_count rt_mlp_count(const rt_mlp_shape *s, double e);

/* The whole decode step of one layer as the C kernels run it (the direct loops' one kernel):
 * FLOPs of the projections, attention over cache + 1 positions and the MLP; bytes x, the weights
 * and the caches read, the new key and value written into the caches, y written. */
rt_xf_count rt_decode_count(const rt_decode_shape *s, double e);
/* The attention of one decode step over cache + 1 positions per head: scores 2 n head_size,
 * softmax 6 n + 1 (C, scale inside) or 5 n + 1 with the scale in the scores (`scale_in_qk`),
 * values 2 n head_size; the three kernels' counts in out[0..2] (fp32 scores in C: se). */
void rt_decode_attn_counts(const rt_decode_shape *s, double e, double se, bool scale_in_qk,
                           rt_xf_count out[3]);

#endif
