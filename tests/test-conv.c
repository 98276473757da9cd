/* Every Conv2D implementation of the study against the direct loops, all passes, small shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/study/conv-direct.h"
#include "rooftime/study/conv-im2col.h"
#include "rooftime/study/conv-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"

typedef int (*conv_new)(const rt_conv_shape *, rt_precision, rt_pass, uint64_t, rt_study_case **,
                        rt_error *);

/* Small shapes that still exercise padding, strides, odd sizes and tall kernels. */
static const rt_conv_shape shapes[] = {
    {.n = 2, .c = 3, .h = 9, .w = 7, .k = 4, .r = 3, .s = 3, .stride = 2, .pad = 1},
    {.n = 1, .c = 5, .h = 12, .w = 12, .k = 6, .r = 5, .s = 5, .stride = 1, .pad = 2},
    {.n = 3, .c = 4, .h = 11, .w = 10, .k = 3, .r = 3, .s = 3, .stride = 3, .pad = 1},
    {.n = 2, .c = 16, .h = 14, .w = 14, .k = 16, .r = 7, .s = 7, .stride = 2, .pad = 3},
    /* a kernel wider than the input: whole tap rows and columns on the padding, and a stride that
     * skips past the right edge */
    {.n = 1, .c = 2, .h = 6, .w = 5, .k = 3, .r = 9, .s = 9, .stride = 3, .pad = 4},
};

static float *run_case(conv_new fn, const rt_conv_shape *s, rt_precision prec, rt_pass pass,
                       uint64_t seed, size_t *n, int *skipped)
{
    rt_study_case *c = NULL;
    rt_error err;
    *skipped = 0;
    if (fn(s, prec, pass, seed, &c, &err) < 0) {
        print_message("skipped: %s\n", err.msg);
        *skipped = 1;
        return NULL;
    }
    rt_study_timer t;
    rt_timer_init(&t, NULL, NULL);
    assert_int_equal(c->run(c, &t, &err), 0);
    /* a second run must give the same answer (accumulating state would not) */
    assert_int_equal(c->run(c, &t, &err), 0);
    float *out = c->out(c, n);
    rt_study_case_free(c);
    return out;
}

static void check_impl(conv_new fn, rt_precision prec, double bound)
{
    static const rt_pass passes[] = {RT_PASS_FWD, RT_PASS_BWD_DATA, RT_PASS_BWD_WEIGHTS};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int p = 0; p < 3; p++) {
            uint64_t seed = 1000 + 17 * i + (uint64_t)p; /* fresh inputs for every case */
            size_t nr, ni;
            int skip;
            float *ref =
                run_case(rt_conv_direct_new, &shapes[i], RT_PREC_FP32, passes[p], seed, &nr, &skip);
            assert_non_null(ref);
            float *got = run_case(fn, &shapes[i], prec, passes[p], seed, &ni, &skip);
            if (skip) {
                free(ref);
                continue;
            }
            assert_int_equal(nr, ni);
            double d = rt_rel_diff(got, ref, nr);
            if (!(d <= bound))
                fail_msg("shape %zu %s %s: relative difference %g > %g", i, rt_precision_name(prec),
                         rt_pass_name(passes[p]), d, bound);
            free(ref);
            free(got);
        }
}

static void test_direct_bf16(void **state)
{
    (void)state;
    check_impl(rt_conv_direct_new, RT_PREC_BF16, 2e-2);
}

static void test_im2col_fp32(void **state)
{
    (void)state;
    check_impl(rt_conv_im2col_new, RT_PREC_FP32, 1e-4);
}

static void test_onednn_fp32(void **state)
{
    (void)state;
    check_impl(rt_conv_onednn_new, RT_PREC_FP32, 1e-4);
}

static void test_onednn_bf16(void **state)
{
    (void)state;
    check_impl(rt_conv_onednn_new, RT_PREC_BF16, 2e-2);
}

/* FP16 runs where oneDNN has it, else the creation fails with a message that says so. */
static void test_onednn_fp16(void **state)
{
    (void)state;
    rt_study_case *c = NULL;
    rt_error err;
    if (rt_conv_onednn_new(&shapes[0], RT_PREC_FP16, RT_PASS_FWD, 1, &c, &err) < 0) {
        assert_non_null(strstr(err.msg, "fp16"));
        skip();
    }
    rt_study_case_free(c);
    check_impl(rt_conv_onednn_new, RT_PREC_FP16, 2e-2);
}

/* The check itself must catch a wrong result: a perturbed weight changes the answer. */
static void test_detects_difference(void **state)
{
    (void)state;
    size_t n1, n2;
    int skip;
    float *a = run_case(rt_conv_direct_new, &shapes[0], RT_PREC_FP32, RT_PASS_FWD, 5, &n1, &skip);
    float *b = run_case(rt_conv_direct_new, &shapes[0], RT_PREC_FP32, RT_PASS_FWD, 6, &n2, &skip);
    assert_true(rt_rel_diff(a, b, n1) > 0.1);
    assert_true(rt_rel_diff(a, a, n1) == 0);
    /* random inputs are never zero */
    uint64_t seed = 3;
    float x[4096];
    rt_study_fill_random(x, 4096, &seed);
    for (int i = 0; i < 4096; i++)
        assert_true(fabsf(x[i]) >= 0.1f && fabsf(x[i]) < 1.0f);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detects_difference), cmocka_unit_test(test_direct_bf16),
        cmocka_unit_test(test_im2col_fp32),        cmocka_unit_test(test_onednn_fp32),
        cmocka_unit_test(test_onednn_bf16),        cmocka_unit_test(test_onednn_fp16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
