/* Exact FLOP and byte counts of the transformer study's kernels, for the loops and primitives as
 * they run (tests/test-xformer-flops.c counts the loops and checks them). */
#include "rooftime/study/xformer-flops.h"
#include "rooftime/study/xformer-shapes.h"

double rt_attn_valid_scores(const rt_attn_shape *s)
{
    double L = (double)s->seq;
    return s->causal ? L * (L + 1) / 2 : L * L;
}

static double heads(const rt_attn_shape *s)
{
    return (double)s->batch * s->heads;
}

/* q, k, v or the output: every head's seq x head_dim. */
static double qkv_elems(const rt_attn_shape *s)
{
    return heads(s) * s->seq * s->head_dim;
}

rt_xf_count rt_attn_direct_count(const rt_attn_shape *s, double e)
{
    double v = rt_attn_valid_scores(s), D = (double)s->head_dim;
    double per_head = v * (4 * D + RT_XF_SCALE_FLOPS + RT_XF_SOFTMAX_FLOPS) + (double)s->seq;
    return (rt_xf_count){heads(s) * per_head, 4 * qkv_elems(s) * e, 0};
}

rt_xf_count rt_attn_qk_count(const rt_attn_shape *s, double e, double se, bool scaled, bool masked)
{
    double LL = (double)s->seq * s->seq, D = (double)s->head_dim;
    double f = heads(s) * LL * (2 * D + (scaled ? RT_XF_SCALE_FLOPS : 0) + (masked ? 1 : 0));
    double b = 2 * qkv_elems(s) * e + heads(s) * LL * se + (masked ? LL * 4 : 0);
    return (rt_xf_count){f, b, 0};
}

rt_xf_count rt_attn_softmax_count(const rt_attn_shape *s, double se, bool valid_only, bool scaled)
{
    double LL = (double)s->seq * s->seq, v = valid_only ? rt_attn_valid_scores(s) : LL;
    double per = RT_XF_SOFTMAX_FLOPS + (scaled ? RT_XF_SCALE_FLOPS : 0);
    return (rt_xf_count){heads(s) * (v * per + (double)s->seq), heads(s) * (v + LL) * se,
                         heads(s) * LL * se};
}

rt_xf_count rt_attn_pv_count(const rt_attn_shape *s, double e, double se)
{
    double LL = (double)s->seq * s->seq, D = (double)s->head_dim;
    return (rt_xf_count){heads(s) * LL * 2 * D, heads(s) * LL * se + 2 * qkv_elems(s) * e, 0};
}

rt_xf_count rt_xf_gemm_count(double m, double n, double k, double e)
{
    return (rt_xf_count){2 * m * n * k, (m * k + k * n + m * n) * e, 0};
}

rt_xf_count rt_xf_elementwise_count(double n, double f, int in, int out, double e)
{
    return (rt_xf_count){n * f, n * (in + out) * e, n * (in > out ? in : out) * e};
}

rt_xf_count rt_mlp_count(const rt_mlp_shape *s, double e)
{
    double T = (double)s->tokens, d = (double)s->hidden, F = (double)s->ffn;
    double up = (s->gated ? 2 : 1) * 2 * T * d * F, down = 2 * T * F * d;
    double act = T * F * (s->gated ? RT_XF_SILU_MUL_FLOPS : RT_XF_GELU_FLOPS);
    double weights = (s->gated ? 3 : 2) * d * F;
    return (rt_xf_count){up + act + down, (2 * T * d + weights) * e, 0};
}

void rt_decode_attn_counts(const rt_decode_shape *s, double e, double se, bool scale_in_qk,
                           rt_xf_count out[3])
{
    double B = (double)s->batch, H = (double)s->heads, d = (double)s->hidden, Dh = d / H;
    double n = (double)s->cache + 1, BH = B * H;
    /* scores: q (B d) and the keys (B n d) read, the scores (B H n) written */
    out[0] = (rt_xf_count){BH * n * (2 * Dh + (scale_in_qk ? RT_XF_SCALE_FLOPS : 0)),
                           (B * d + B * n * d) * e + BH * n * se, 0};
    out[1] =
        (rt_xf_count){BH * (n * (RT_XF_SOFTMAX_FLOPS + (scale_in_qk ? 0 : RT_XF_SCALE_FLOPS)) + 1),
                      2 * BH * n * se, 0};
    /* values: the probabilities and the values (B n d) read, the output (B d) written */
    out[2] = (rt_xf_count){BH * n * 2 * Dh, BH * n * se + (B * n * d + B * d) * e, 0};
}

rt_xf_count rt_decode_count(const rt_decode_shape *s, double e)
{
    double B = (double)s->batch, d = (double)s->hidden, F = (double)s->ffn;
    double n = (double)s->cache + 1, H = (double)s->heads, Dh = d / H;
    double gemms = 2 * B * d * (3 * d) + 2 * B * d * d + 2 * B * d * F + 2 * B * F * d;
    double attn = B * H * (n * (4 * Dh + RT_XF_SCALE_FLOPS + RT_XF_SOFTMAX_FLOPS) + 1);
    double act = B * F * RT_XF_GELU_FLOPS;
    double weights = 3 * d * d + d * d + 2 * d * F;
    /* x read, the caches read (n positions each), the new key and value written, y written */
    double bytes = (B * d + weights + 2 * B * n * d + 2 * B * d + B * d) * e;
    return (rt_xf_count){gemms + attn + act, bytes, 0};
}
