/* The study's FLOP and byte formulas against loops that count, at tiny shapes. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/conv-direct.h"
#include "rooftime/study/conv-im2col.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"

static const rt_conv_shape shapes[] = {
    {.n = 2, .c = 3, .h = 9, .w = 7, .k = 4, .r = 3, .s = 3, .stride = 2, .pad = 1},
    {.n = 1, .c = 2, .h = 12, .w = 11, .k = 3, .r = 5, .s = 3, .stride = 1, .pad = 2},
    {.n = 3, .c = 1, .h = 10, .w = 10, .k = 2, .r = 9, .s = 9, .stride = 3, .pad = 4},
    {.n = 1, .c = 2, .h = 5, .w = 5, .k = 1, .r = 5, .s = 5, .stride = 2, .pad = 0},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Multiply-adds of the forward pass over taps inside the input, counted one by one. */
static double count_fwd_macs(const rt_conv_shape *s)
{
    double m = 0;
    long P = rt_conv_out_h(s), Q = rt_conv_out_w(s);
    for (long n = 0; n < s->n; n++)
        for (long k = 0; k < s->k; k++)
            for (long p = 0; p < P; p++)
                for (long q = 0; q < Q; q++)
                    for (long c = 0; c < s->c; c++)
                        for (long r = 0; r < s->r; r++)
                            for (long t = 0; t < s->s; t++) {
                                long ih = p * s->stride - s->pad + r,
                                     iw = q * s->stride - s->pad + t;
                                m += ih >= 0 && ih < s->h && iw >= 0 && iw < s->w;
                            }
    return m;
}

/* The same for backward-data in its gather form: input positions x taps that land on outputs. */
static double count_bwd_data_macs(const rt_conv_shape *s)
{
    double m = 0;
    long P = rt_conv_out_h(s), Q = rt_conv_out_w(s);
    for (long h = 0; h < s->h; h++)
        for (long w = 0; w < s->w; w++)
            for (long r = 0; r < s->r; r++)
                for (long t = 0; t < s->s; t++) {
                    long ph = h + s->pad - r, qw = w + s->pad - t;
                    if (ph >= 0 && ph % s->stride == 0 && ph / s->stride < P && qw >= 0 &&
                        qw % s->stride == 0 && qw / s->stride < Q)
                        m += (double)s->n * s->c * s->k;
                }
    return m;
}

static void test_conv_macs(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSHAPES; i++) {
        const rt_conv_shape *s = &shapes[i];
        double counted = count_fwd_macs(s);
        assert_close(rt_conv_macs_valid(s), counted, 1e-15);
        assert_close(rt_conv_macs_valid(s), count_bwd_data_macs(s), 1e-15);
        assert_close(rt_conv_macs_padded(s),
                     (double)s->n * s->k * s->c * s->r * s->s * rt_conv_out_h(s) * rt_conv_out_w(s),
                     1e-15);
        /* with padding, some taps fall outside: the valid count is smaller */
        if (s->pad > 0)
            assert_true(rt_conv_macs_valid(s) < rt_conv_macs_padded(s));
        /* im2col loads one element per column entry inside the image, col2im adds one */
        assert_close(rt_im2col_loads(s) * s->n * s->k, counted, 1e-15);
        assert_close(rt_col2im_adds(s), rt_im2col_loads(s), 1e-15);
    }
}

/* Winograd F(4x4, 3x3) on a 3x3 stride-1 convolution of 2 x 3 channels, 10 x 10, padding 1, 5
 * filters: the 10 x 10 output takes 3 x 3 tiles of 4 x 4 per image, each 6 x 6 products per
 * channel pair: 2 x 9 x 3 x 5 x 36 = 9720 multiply-adds (direct: 2 x 5 x 3 x 9 taps x 100 less the
 * border's). F(2x2, 3x3): 5 x 5 tiles of 4 x 4 products. Stride 2 or a 5x5 filter: not Winograd. */
static void test_winograd_macs(void **state)
{
    (void)state;
    rt_conv_shape s = {
        .n = 2, .c = 3, .h = 10, .w = 10, .k = 5, .r = 3, .s = 3, .stride = 1, .pad = 1};
    assert_close(rt_conv_macs_winograd(&s, RT_PASS_FWD, 4, 3), 9720, 1e-15);
    assert_close(rt_conv_macs_winograd(&s, RT_PASS_BWD_DATA, 4, 3), 9720, 1e-15);
    assert_close(rt_conv_macs_winograd(&s, RT_PASS_BWD_WEIGHTS, 4, 3), 9720, 1e-15);
    assert_close(rt_conv_macs_winograd(&s, RT_PASS_FWD, 2, 3), 2.0 * 25 * 3 * 5 * 16, 1e-15);
    assert_true(rt_conv_macs_winograd(&s, RT_PASS_FWD, 4, 3) < rt_conv_macs_valid(&s));
    assert_true(rt_conv_macs_winograd(&s, RT_PASS_FWD, 4, 5) < 0);
    s.stride = 2;
    assert_true(rt_conv_macs_winograd(&s, RT_PASS_FWD, 4, 3) < 0);
}

/* The direct implementation records 2 x counted MACs, and loads 2 per MAC plus one store per
 * output element at L1; the compulsory bytes are the three tensors once. */
static void test_direct_records(void **state)
{
    (void)state;
    static const rt_pass passes[] = {RT_PASS_FWD, RT_PASS_BWD_DATA, RT_PASS_BWD_WEIGHTS};
    for (size_t i = 0; i < NSHAPES; i++)
        for (int p = 0; p < 3; p++) {
            const rt_conv_shape *s = &shapes[i];
            rt_study_case *c = NULL;
            rt_error err;
            assert_int_equal(rt_conv_direct_new(s, RT_PREC_FP32, passes[p], 1, &c, &err), 0);
            rt_profile *prof = rt_profile_new();
            rt_study_timer t;
            rt_timer_init(&t, prof, NULL);
            t.recording = true;
            assert_int_equal(c->run(c, &t, &err), 0);
            assert_int_equal(prof->n_kernels, 1);
            const rt_kernel *k = &prof->kernels[0];
            double macs = count_fwd_macs(s);
            double outs = p == 0   ? rt_conv_dst_elems(s)
                          : p == 1 ? rt_conv_src_elems(s)
                                   : rt_conv_wei_elems(s);
            assert_close(rt_values_get(&k->flops, "fp32", 0), 2 * macs, 1e-15);
            assert_close(rt_values_get(&k->bytes, "L1", 0), 4 * (2 * macs + outs), 1e-15);
            double tensors = (double)s->n * s->c * s->h * s->w + (double)s->k * s->c * s->r * s->s +
                             (double)s->n * s->k * rt_conv_out_h(s) * rt_conv_out_w(s);
            assert_close(rt_values_get(&k->bytes, "DRAM", 0), 4 * tensors, 1e-15);
            assert_true(k->invocations == 1);
            rt_profile_free(prof);
            rt_study_case_free(c);
        }
}

/* The im2col implementation: per image one im2col (no FLOPs) and one GEMM of 2 K CRS PQ. */
static void test_im2col_records(void **state)
{
    (void)state;
    const rt_conv_shape *s = &shapes[0];
    rt_study_case *c = NULL;
    rt_error err;
    if (rt_conv_im2col_new(s, RT_PREC_FP32, RT_PASS_BWD_WEIGHTS, 1, &c, &err) < 0)
        skip();
    rt_profile *prof = rt_profile_new();
    rt_study_timer t;
    rt_timer_init(&t, prof, NULL);
    t.recording = true;
    assert_int_equal(c->run(c, &t, &err), 0);
    double crs = (double)s->c * s->r * s->s, pq = (double)rt_conv_out_h(s) * rt_conv_out_w(s);
    for (size_t i = 0; i < prof->n_kernels; i++) {
        const rt_kernel *k = &prof->kernels[i];
        assert_true(k->invocations == s->n);
        if (strcmp(k->name, "im2col") == 0) {
            assert_true(rt_values_sum(&k->flops) == 0);
        } else {
            /* the first image writes the gradient, the others add to it */
            double expect = s->n * 2.0 * s->k * crs * pq + (s->n - 1) * (double)s->k * crs;
            assert_close(rt_values_sum(&k->flops), expect, 1e-15);
        }
    }
    assert_int_equal(prof->n_kernels, 2);
    rt_profile_free(prof);
    rt_study_case_free(c);
}

static void test_gemm_and_taps(void **state)
{
    (void)state;
    /* a counted GEMM loop */
    long M = 3, N = 5, K = 7;
    double ops = 0;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            for (long p = 0; p < K; p++)
                ops += 2; /* multiply + add */
            ops += 1;     /* + C when accumulating */
        }
    assert_close(rt_gemm_flops(M, N, K, true), ops, 1e-15);
    assert_close(rt_gemm_flops(M, N, K, false), ops - M * N, 1e-15);
    /* taps inside the input, brute force over many small cases */
    for (long in = 1; in < 12; in++)
        for (long k = 1; k <= in + 2; k++)
            for (long st = 1; st < 4; st++)
                for (long pad = 0; pad < k; pad++) {
                    if (k > in + 2 * pad)
                        continue;
                    long out = (in + 2 * pad - k) / st + 1, cnt = 0;
                    for (long p = 0; p < out; p++)
                        for (long r = 0; r < k; r++) {
                            long x = p * st - pad + r;
                            cnt += x >= 0 && x < in;
                        }
                    assert_int_equal(rt_conv_valid_taps(in, k, st, pad, out), cnt);
                }
}

/* The LSTM formula against a count of the unfused algorithm's operations, step by step. */
static void test_lstm_formula(void **state)
{
    (void)state;
    rt_lstm_shape s = {.batch = 3, .seq = 4, .features = 5, .hidden = 2};
    double N = 3, F = 5, H = 2, G = 8, T = 4, fwd = 0, bwd = 0;
    for (int t = 0; t < T; t++) {
        fwd += 2 * N * G * F;                 /* x W */
        fwd += 2 * N * G * H + N * G;         /* + h U */
        fwd += N * H * (3 * 4 + 2);           /* sigmoid(i, f, o) and tanh(g), each with its bias */
        fwd += N * H * 3 + N * H * 2;         /* c = f c + i g; h = o tanh(c) */
        bwd += N * H * 11 + N * H * 13;       /* elementwise gradients (lstm-unfused.c) */
        bwd += 2 * N * F * G + 2 * N * H * G; /* dx, dh */
        bwd += 2 * F * G * N + F * G + 2 * H * G * N + H * G; /* dW, dU accumulated */
        bwd += N * G;                                         /* db */
    }
    assert_close(rt_lstm_flops(&s, RT_PASS_FWD), fwd, 1e-15);
    assert_close(rt_lstm_flops(&s, RT_PASS_BWD), bwd, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_macs),      cmocka_unit_test(test_winograd_macs),
        cmocka_unit_test(test_direct_records), cmocka_unit_test(test_im2col_records),
        cmocka_unit_test(test_gemm_and_taps),  cmocka_unit_test(test_lstm_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
