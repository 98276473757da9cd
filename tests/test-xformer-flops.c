/* The transformer study's exact counts (study/xformer-flops.c) against the loops as they run: each
 * test walks the loop nests of the direct and unfused C kernels (attention-direct.c, mlp-direct.c,
 * decode-direct.c, xformer-kernels.c) adding the FLOPs each statement does, and sums the bytes of
 * every tensor a kernel reads or writes, once; small odd shapes, causal and not, gated and not. */
#include <math.h>
#include <stdio.h>

#include "testutil.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/study/xformer-shapes.h"

static void near(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
        fail_msg("%s: %.17g, want %.17g", what, got, want);
}

/* row_times(x, W, K, N): out[n] += x[k] W[k][n], a multiply and an add per (k, n). */
static double row_times(double K, double N)
{
    double f = 0;
    for (long k = 0; k < (long)K; k++)
        for (long n = 0; n < (long)N; n++)
            f += 2;
    return f;
}

/* rt_xf_softmax_row over n scores: scale and max (2), subtract, exp and sum (3), times 1/sum (1)
 * per score; the reciprocal once. */
static double softmax_row(long n)
{
    double f = 1;
    for (long j = 0; j < n; j++)
        f += 2 + 3 + 1;
    return f;
}

static void test_mlp(void **state)
{
    (void)state;
    for (int gated = 0; gated < 2; gated++) {
        rt_mlp_shape s = {.tokens = 5, .hidden = 12, .ffn = 20, .gated = gated};
        double f = 0;
        for (long t = 0; t < s.tokens; t++) {
            f += row_times(12, 20); /* up */
            if (gated)
                f += row_times(12, 20) + 20.0 * RT_XF_SILU_MUL_FLOPS; /* gate; silu(g) * u */
            else
                f += 20.0 * RT_XF_GELU_FLOPS;
            f += row_times(20, 12); /* down */
        }
        /* x and y [tokens][hidden], the weights up (and gate) [hidden][ffn], down [ffn][hidden] */
        double bytes = (5 * 12 + (gated ? 2 : 1) * 12 * 20 + 20 * 12 + 5 * 12) * 4.0;
        rt_xf_count c = rt_mlp_count(&s, 4);
        near(c.flops, f, gated ? "gated mlp FLOPs" : "mlp FLOPs");
        near(c.bytes, bytes, "mlp bytes");
        /* the unfused kernels add up to the loops: GEMMs and the activation */
        double k = rt_xf_gemm_count(5, 20, 12, 4).flops * (gated ? 2 : 1) +
                   rt_xf_elementwise_count(5 * 20, gated ? RT_XF_SILU_MUL_FLOPS : RT_XF_GELU_FLOPS,
                                           gated ? 2 : 1, 1, 4)
                       .flops +
                   rt_xf_gemm_count(5, 12, 20, 4).flops;
        near(k, f, "unfused mlp kernels");
    }
    /* a GEMM's bytes: A, B and C once; an elementwise kernel's: its inputs and output */
    near(rt_xf_gemm_count(3, 5, 7, 2).bytes, (3 * 7 + 7 * 5 + 3 * 5) * 2.0, "gemm bytes");
    near(rt_xf_elementwise_count(11, 4, 2, 1, 4).bytes, 11 * 3 * 4.0, "silu_mul bytes");
}

/* decode_seq per sequence: the qkv projection, per head the scores, softmax and weighted values
 * over cache + 1 positions, the output projection, up, GELU, down. */
static void test_decode(void **state)
{
    (void)state;
    rt_decode_shape s = {.batch = 3, .cache = 11, .hidden = 16, .heads = 2, .ffn = 24};
    long B = 3, D = 16, H = 2, Dh = 8, F = 24, n = 12;
    double f = 0, scores = 0, soft = 0, values = 0;
    for (long b = 0; b < B; b++) {
        f += row_times(D, 3 * D);
        for (long h = 0; h < H; h++) {
            for (long j = 0; j < n; j++)
                for (long c = 0; c < Dh; c++)
                    scores += 2;
            soft += softmax_row(n);
            for (long j = 0; j < n; j++)
                for (long c = 0; c < Dh; c++)
                    values += 2;
        }
        f += row_times(D, D) + row_times(D, F) + (double)F * RT_XF_GELU_FLOPS + row_times(F, D);
    }
    f += scores + soft + values;
    /* x read; the weights (qkv, out, up, down); each head's key and value caches read over n
     * positions; the new key and value written into them; y written */
    double bytes = (B * D + (D * 3 * D + D * D + D * F + F * D) + 2.0 * B * H * n * Dh +
                    2.0 * B * H * Dh + B * D) *
                   4;
    rt_xf_count c = rt_decode_count(&s, 4);
    near(c.flops, f, "decode FLOPs");
    near(c.bytes, bytes, "decode bytes");
    /* the three attention kernels, the scale in the softmax (C) or in the scores (oneDNN) */
    for (int in_qk = 0; in_qk < 2; in_qk++) {
        rt_xf_count at[3];
        rt_decode_attn_counts(&s, 4, 4, in_qk, at);
        double per_score = (double)B * H * n;
        near(at[0].flops, scores + (in_qk ? per_score : 0), "decode scores FLOPs");
        near(at[1].flops, soft - (in_qk ? per_score : 0), "decode softmax FLOPs");
        near(at[2].flops, values, "decode values FLOPs");
        /* scores: q and the keys read, the scores written; softmax: the scores read and written;
         * values: the probabilities and the values read, the output written */
        near(at[0].bytes, (B * D + B * n * D + per_score) * 4.0, "decode scores bytes");
        near(at[1].bytes, 2 * per_score * 4.0, "decode softmax bytes");
        near(at[2].bytes, (per_score + B * n * D + B * D) * 4.0, "decode values bytes");
    }
}

/* The unfused attention's kernels: the GEMMs over every (query, key) pair, the C softmax over the
 * keys a query sees (the causal halving) writing every score; their bytes. */
static void test_attention_kernels(void **state)
{
    (void)state;
    for (int causal = 0; causal < 2; causal++) {
        rt_attn_shape s = {.batch = 2, .heads = 3, .seq = 7, .head_dim = 5, .causal = causal};
        double BH = 6, L = 7, D = 5, soft = 0, valid = 0;
        for (long bh = 0; bh < 6; bh++)
            for (long i = 0; i < 7; i++) {
                long seen = causal ? i + 1 : 7;
                soft += softmax_row(seen);
                valid += seen;
            }
        rt_xf_count qk = rt_attn_qk_count(&s, 4, 4, false, false);
        near(qk.flops, BH * L * L * 2 * D, "qk FLOPs");
        near(qk.bytes, (2 * BH * L * D + BH * L * L) * 4, "qk bytes: Q, K read, S written");
        rt_xf_count qkm = rt_attn_qk_count(&s, 2, 4, true, true);
        near(qkm.flops, BH * L * L * (2 * D + 2), "qk scaled and masked FLOPs");
        near(qkm.bytes, 2 * BH * L * D * 2 + BH * L * L * 4 + L * L * 4,
             "qk masked bytes: bf16 Q, K, fp32 scores and mask");
        rt_xf_count sm = rt_attn_softmax_count(&s, 4, true, true);
        near(sm.flops, soft, "softmax FLOPs: the keys a query sees");
        near(sm.bytes, (valid + BH * L * L) * 4,
             "softmax bytes: the valid scores read, all written");
        rt_xf_count full = rt_attn_softmax_count(&s, 4, false, false);
        near(full.flops, BH * (L * L * RT_XF_SOFTMAX_FLOPS + L),
             "library softmax over every score");
        rt_xf_count pv = rt_attn_pv_count(&s, 4, 4);
        near(pv.flops, BH * L * L * 2 * D, "pv FLOPs");
        near(pv.bytes, (BH * L * L + 2 * BH * L * D) * 4, "pv bytes: P, V read, O written");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_mlp), cmocka_unit_test(test_decode),
                                       cmocka_unit_test(test_attention_kernels)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
