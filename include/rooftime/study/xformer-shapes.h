/* The transformer study's shapes (xformer-shapes.c): attention in prefill, the MLP block and the
 * per-token decode step of one layer, their checks and defaults. */
#ifndef ROOFTIME_STUDY_XFORMER_SHAPES_H
#define ROOFTIME_STUDY_XFORMER_SHAPES_H

#include "rooftime/util/error.h"

/* Self-attention over a whole sequence (prefill): q, k and v [batch][heads][seq][head_dim], the
 * query as long as the keys; causal: query i sees keys 0 .. i. */
typedef struct rt_attn_shape {
    long batch, heads, seq, head_dim;
    long causal; /* 0 or 1 */
} rt_attn_shape;

/* The MLP block of a layer over `tokens` rows (batch x sequence): x [tokens][hidden] through
 * [hidden][ffn], an activation and [ffn][hidden]; gated (SwiGLU): silu(x Wg) * (x Wu), then down.
 * Not gated: GELU (erf). */
typedef struct rt_mlp_shape {
    long tokens, hidden, ffn;
    long gated; /* 0 or 1 */
} rt_mlp_shape;

/* One decode step of one layer: a token per sequence of `batch`, each with a KV cache of `cache`
 * tokens: the QKV projection, the new key and value appended, attention over cache + 1 positions,
 * the output projection and the MLP (GELU), without layer norms and residual additions. */
typedef struct rt_decode_shape {
    long batch, cache, hidden, heads, ffn;
} rt_decode_shape;

/* Sizes positive, flags 0 or 1, hidden a multiple of heads, every tensor well inside memory:
 * 0, or -1 naming the field. */
int rt_attn_shape_check(const rt_attn_shape *s, rt_error *err);
int rt_mlp_shape_check(const rt_mlp_shape *s, rt_error *err);
int rt_decode_shape_check(const rt_decode_shape *s, rt_error *err);

/* The study's defaults (docs/study.md, "The transformer study"). */
rt_attn_shape rt_attn_default(void);
rt_mlp_shape rt_mlp_default(void);
rt_decode_shape rt_decode_default(void);

#endif
