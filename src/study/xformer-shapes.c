/* The transformer study's shapes: their checks and defaults. */
#include "rooftime/study/xformer-shapes.h"
#include "rooftime/util/error.h"

typedef struct named {
    const char *name;
    long v;
} named;

/* Every size positive: 0, or -1 naming the first that is not. */
static int positive(const char *op, const named *v, int n, rt_error *err)
{
    for (int i = 0; i < n; i++)
        if (v[i].v <= 0) {
            rt_error_set(err, "%s: %s must be positive, got %ld", op, v[i].name, v[i].v);
            return -1;
        }
    return 0;
}

static int flag(const char *op, const char *name, long v, rt_error *err)
{
    if (v != 0 && v != 1) {
        rt_error_set(err, "%s: %s must be 0 or 1, got %ld", op, name, v);
        return -1;
    }
    return 0;
}

/* A tensor of elems elements (doubles: no overflow) at most limit; -1 naming it otherwise. */
static int within(const char *op, const char *what, double elems, double limit, rt_error *err)
{
    if (elems > limit) {
        rt_error_set(err, "%s: %s of %.3g elements are too large (at most %.0e)", op, what, elems,
                     limit);
        return -1;
    }
    return 0;
}

/* The scores of the unfused implementations and the KV caches live whole in memory: 2e9
 * elements are 8 GB in fp32. */
#define MAX_LARGE 2e9
#define MAX_TENSOR 1e10

int rt_attn_shape_check(const rt_attn_shape *s, rt_error *err)
{
    const named v[] = {{"batch", s->batch},
                       {"heads", s->heads},
                       {"sequence length", s->seq},
                       {"head size", s->head_dim}};
    if (positive("attention", v, 4, err) < 0 || flag("attention", "causal", s->causal, err) < 0)
        return -1;
    double bh = (double)s->batch * s->heads;
    return within("attention", "q, k and v", bh * s->seq * s->head_dim, MAX_TENSOR, err) < 0 ||
                   within("attention", "the scores", bh * s->seq * s->seq, MAX_LARGE, err) < 0
               ? -1
               : 0;
}

int rt_mlp_shape_check(const rt_mlp_shape *s, rt_error *err)
{
    const named v[] = {{"tokens", s->tokens}, {"hidden size", s->hidden}, {"ffn size", s->ffn}};
    if (positive("mlp", v, 3, err) < 0 || flag("mlp", "gated", s->gated, err) < 0)
        return -1;
    double big = s->tokens > s->hidden ? (double)s->tokens : (double)s->hidden;
    return within("mlp", "the activations or weights", big * s->ffn, MAX_TENSOR, err);
}

int rt_decode_shape_check(const rt_decode_shape *s, rt_error *err)
{
    const named v[] = {
        {"batch", s->batch}, {"hidden size", s->hidden}, {"heads", s->heads}, {"ffn size", s->ffn}};
    if (positive("decode", v, 4, err) < 0)
        return -1;
    if (s->cache < 0) {
        rt_error_set(err, "decode: the cache length must not be negative, got %ld", s->cache);
        return -1;
    }
    if (s->hidden % s->heads != 0) {
        rt_error_set(err, "decode: hidden size %ld is not a multiple of the %ld heads", s->hidden,
                     s->heads);
        return -1;
    }
    double kv = 2.0 * s->batch * (s->cache + 1) * s->hidden;
    double w = (double)s->hidden * (s->ffn > 3 * s->hidden ? s->ffn : 3 * s->hidden);
    return within("decode", "the KV caches", kv, MAX_LARGE, err) < 0 ||
                   within("decode", "the weights", w, MAX_TENSOR, err) < 0
               ? -1
               : 0;
}

/* Sizes of GPT-2 medium's layer (hidden 1024, 16 heads of 64, ffn 4 x hidden): its fp32
 * weights (50 MB, 25 MB in bf16) pass a 32 MB last-level cache in fp32, so that decode at batch
 * 1 streams them from memory; its cache of 128 tokens keeps the batch-256 point's caches at 270
 * MB. Attention runs 4 heads of 64 at sequence 512 by default: the sweep's sequence 4096 must fit
 * the full study's minute on two cores. */
rt_attn_shape rt_attn_default(void)
{
    return (rt_attn_shape){.batch = 1, .heads = 4, .seq = 512, .head_dim = 64, .causal = 1};
}

rt_mlp_shape rt_mlp_default(void)
{
    return (rt_mlp_shape){.tokens = 128, .hidden = 1024, .ffn = 4096, .gated = 0};
}

rt_decode_shape rt_decode_default(void)
{
    return (rt_decode_shape){.batch = 1, .cache = 128, .hidden = 1024, .heads = 16, .ffn = 4096};
}
