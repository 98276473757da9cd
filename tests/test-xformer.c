/* The transformer study's implementations (attention, mlp, decode: unfused OpenBLAS + C, oneDNN in
 * fp32 and bf16) against the direct C reference, and their FLOP counts against the loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/error.h"

static rt_study_point attn(long b, long h, long l, long d, long causal)
{
    rt_study_point p = {.op = RT_OP_ATTENTION, .varied = "test"};
    p.attn = (rt_attn_shape){.batch = b, .heads = h, .seq = l, .head_dim = d, .causal = causal};
    return p;
}

static rt_study_point mlp(long t, long d, long f, long gated)
{
    rt_study_point p = {.op = RT_OP_MLP, .varied = "test"};
    p.mlp = (rt_mlp_shape){.tokens = t, .hidden = d, .ffn = f, .gated = gated};
    return p;
}

static rt_study_point decode(long b, long cache, long d, long h, long f)
{
    rt_study_point p = {.op = RT_OP_DECODE, .varied = "test"};
    p.dec = (rt_decode_shape){.batch = b, .cache = cache, .hidden = d, .heads = h, .ffn = f};
    return p;
}

/* Run a case twice (a kernel that accumulates across calls would differ), into prof when given. */
static float *run_case(rt_study_impl impl, const rt_study_point *pt, rt_precision prec,
                       uint64_t seed, rt_profile *prof, size_t *n)
{
    rt_study_case *c = NULL;
    rt_error err;
    if (rt_study_case_new(impl, pt, prec, RT_PASS_FWD, seed, &c, &err) < 0) {
        print_message("skipped: %s\n", err.msg);
        return NULL;
    }
    rt_study_timer t;
    rt_timer_init(&t, prof, NULL);
    assert_int_equal(c->run(c, &t, &err), 0);
    t.recording = prof != NULL;
    assert_int_equal(c->run(c, &t, &err), 0);
    float *out = c->out(c, n);
    rt_study_case_free(c);
    return out;
}

static void check(rt_study_impl impl, rt_precision prec, const rt_study_point *pts, size_t n,
                  double bound)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t seed = 91 + 7 * i;
        size_t nr = 0, ni = 0;
        float *ref = run_case(RT_IMPL_DIRECT, &pts[i], RT_PREC_FP32, seed, NULL, &nr);
        assert_non_null(ref);
        float *got = run_case(impl, &pts[i], prec, seed, NULL, &ni);
        if (!got) {
            free(ref);
            skip();
        }
        assert_int_equal(nr, ni);
        double d = rt_rel_diff(got, ref, nr);
        if (!(d <= bound))
            fail_msg("%s %s %s point %zu: relative difference %g > %g", rt_study_impl_name(impl),
                     rt_precision_name(prec), rt_study_op_name(pts[i].op), i, d, bound);
        free(ref);
        free(got);
    }
}

static const rt_study_point *attn_points(size_t *n)
{
    static rt_study_point p[4];
    p[0] = attn(2, 3, 13, 8, 1);
    p[1] = attn(1, 2, 9, 16, 0);
    p[2] = attn(1, 1, 1, 4, 1); /* one token: the only key it sees is itself */
    p[3] = attn(2, 2, 64, 32, 1);
    *n = 4;
    return p;
}

static const rt_study_point *mlp_points(size_t *n)
{
    static rt_study_point p[3];
    p[0] = mlp(5, 12, 20, 0);
    p[1] = mlp(5, 12, 20, 1);
    p[2] = mlp(1, 32, 128, 1); /* one token: a decode step's */
    *n = 3;
    return p;
}

static const rt_study_point *decode_points(size_t *n)
{
    static rt_study_point p[3];
    p[0] = decode(3, 11, 16, 2, 24);
    p[1] = decode(1, 0, 8, 1, 16); /* an empty cache: attention over the new token alone */
    p[2] = decode(4, 40, 64, 4, 256);
    *n = 3;
    return p;
}

static void test_unfused(void **state)
{
    (void)state;
    size_t n;
    const rt_study_point *p = attn_points(&n);
    check(RT_IMPL_UNFUSED, RT_PREC_FP32, p, n, 1e-4);
    p = mlp_points(&n);
    check(RT_IMPL_UNFUSED, RT_PREC_FP32, p, n, 1e-4);
    p = decode_points(&n);
    check(RT_IMPL_UNFUSED, RT_PREC_FP32, p, n, 1e-4);
}

static void test_onednn_fp32(void **state)
{
    (void)state;
    size_t n;
    const rt_study_point *p = attn_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_FP32, p, n, 1e-4);
    p = mlp_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_FP32, p, n, 1e-4);
    p = decode_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_FP32, p, n, 1e-4);
}

static void test_onednn_bf16(void **state)
{
    (void)state;
    size_t n;
    const rt_study_point *p = attn_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_BF16, p, n, 2e-2);
    p = mlp_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_BF16, p, n, 2e-2);
    p = decode_points(&n);
    check(RT_IMPL_ONEDNN, RT_PREC_BF16, p, n, 2e-2);
}

/* What the study refuses: another pass, another precision where only fp32 runs, a bad shape. */
static void test_refusals(void **state)
{
    (void)state;
    rt_study_point p = attn(1, 1, 4, 4, 1);
    rt_study_case *c = NULL;
    rt_error err = {{0}};
    assert_int_equal(rt_study_case_new(RT_IMPL_UNFUSED, &p, RT_PREC_FP32, RT_PASS_BWD, 1, &c, &err),
                     -1);
    assert_non_null(strstr(err.msg, "runs the forward pass only"));
    assert_int_equal(rt_study_case_new(RT_IMPL_DIRECT, &p, RT_PREC_BF16, RT_PASS_FWD, 1, &c, &err),
                     -1);
    assert_non_null(strstr(err.msg, "direct attention runs fp32 only"));
    p.attn.causal = 2;
    assert_int_equal(rt_study_case_new(RT_IMPL_DIRECT, &p, RT_PREC_FP32, RT_PASS_FWD, 1, &c, &err),
                     -1);
    assert_string_equal(err.msg, "attention: causal must be 0 or 1, got 2");
    rt_study_point d = decode(1, 4, 10, 3, 8);
    assert_int_equal(rt_study_case_new(RT_IMPL_UNFUSED, &d, RT_PREC_FP32, RT_PASS_FWD, 1, &c, &err),
                     -1);
    assert_string_equal(err.msg, "decode: hidden size 10 is not a multiple of the 3 heads");
    rt_study_point m = mlp(0, 4, 4, 0);
    assert_int_equal(rt_study_case_new(RT_IMPL_ONEDNN, &m, RT_PREC_FP32, RT_PASS_FWD, 1, &c, &err),
                     -1);
    assert_string_equal(err.msg, "mlp: tokens must be positive, got 0");
    assert_null(c);
}

/* The direct attention's count, by walking its loops: per query row, n keys (q.k: 2 D each), the
 * softmax (6 n + 1), the weighted values (2 D n). */
static void test_attention_counts(void **state)
{
    (void)state;
    for (int causal = 0; causal < 2; causal++) {
        rt_attn_shape s = {.batch = 2, .heads = 3, .seq = 7, .head_dim = 5, .causal = causal};
        double f = 0, valid = 0;
        for (long bh = 0; bh < 6; bh++)
            for (long i = 0; i < 7; i++) {
                long n = causal ? i + 1 : 7;
                valid += n;
                f += n * 2 * 5 + 6 * n + 1 + 2 * 5 * n;
            }
        rt_xf_count c = rt_attn_direct_count(&s, 4);
        assert_true(fabs(c.flops - f) < 1e-9);
        assert_true(fabs(rt_attn_valid_scores(&s) * 6 - valid) < 1e-9);
        assert_true(fabs(c.bytes - 4 * 6 * 7 * 5 * 4.0) < 1e-9);
        /* the unfused GEMMs count every pair: the causal mask halves the direct loops only */
        rt_xf_count qk = rt_attn_qk_count(&s, 4, 4, false, false);
        assert_true(fabs(qk.flops - 6 * 49 * 2 * 5.0) < 1e-9);
        rt_xf_count sm = rt_attn_softmax_count(&s, 4, true, true);
        assert_true(fabs(sm.flops - (6 * valid + 6 * 7.0)) < 1e-9);
    }
    /* 4096 tokens, causal: L (L + 1) / 2 of the L^2 scores, the halving */
    rt_attn_shape big = {.batch = 1, .heads = 1, .seq = 4096, .head_dim = 64, .causal = 1};
    assert_true(fabs(rt_attn_valid_scores(&big) - 4096.0 * 4097 / 2) < 1);
}

static double profile_flops(const rt_profile *p, double *bytes)
{
    double f = 0;
    *bytes = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        f += rt_values_sum(&p->kernels[i].flops);
        *bytes += rt_values_get(&p->kernels[i].bytes, "DRAM", 0);
    }
    return f;
}

/* The unfused decode and MLP's kernels add up to the whole op's count (the direct loops' one
 * kernel); their bytes to more (activations between kernels go to memory and back). */
static void test_kernels_add_up(void **state)
{
    (void)state;
    rt_study_point d = decode(3, 11, 16, 2, 24), m = mlp(5, 12, 20, 1);
    const rt_study_point *pts[2] = {&d, &m};
    for (int i = 0; i < 2; i++) {
        rt_profile *p = rt_profile_new();
        size_t n;
        free(run_case(RT_IMPL_UNFUSED, pts[i], RT_PREC_FP32, 5, p, &n));
        double bytes, f = profile_flops(p, &bytes);
        rt_xf_count whole = i == 0 ? rt_decode_count(&d.dec, 4) : rt_mlp_count(&m.mlp, 4);
        if (fabs(f - whole.flops) > 1e-6 * whole.flops)
            fail_msg("%s: kernels %g FLOPs, whole %g", i ? "mlp" : "decode", f, whole.flops);
        assert_true(bytes > whole.bytes);
        assert_int_equal(p->n_kernels, i == 0 ? 9 : 4);
        rt_profile_free(p);
    }
}

/* oneDNN runs every kernel of the study's shapes through its optimized implementations (a
 * transposed view of K, or the mask as a post-op broadcast over heads, sent the batched matmul to
 * its reference kernel: minutes per iteration at sequence 4096). */
static void test_onednn_no_reference_kernels(void **state)
{
    (void)state;
    rt_study_point pts[] = {attn(2, 4, 64, 32, 1), attn(1, 4, 64, 64, 0), mlp(16, 64, 256, 0),
                            mlp(16, 64, 256, 1), decode(4, 32, 64, 4, 256)};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        for (int pr = 0; pr < 2; pr++) {
            rt_study_case *c = NULL;
            rt_error err;
            if (rt_study_case_new(RT_IMPL_ONEDNN, &pts[i], pr ? RT_PREC_BF16 : RT_PREC_FP32,
                                  RT_PASS_FWD, 3, &c, &err) < 0) {
                print_message("skipped: %s\n", err.msg);
                continue;
            }
            assert_non_null(c->note);
            if (strstr(c->note, "ref:"))
                fail_msg("%s %s: a reference kernel: %s", rt_study_op_name(pts[i].op),
                         pr ? "bf16" : "fp32", c->note);
            rt_study_case_free(c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unfused),
        cmocka_unit_test(test_onednn_fp32),
        cmocka_unit_test(test_onednn_bf16),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_attention_counts),
        cmocka_unit_test(test_kernels_add_up),
        cmocka_unit_test(test_onednn_no_reference_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
