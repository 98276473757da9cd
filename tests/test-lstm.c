/* Every LSTM implementation of the study against the plain-C reference, forward and backward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/lstm-direct.h"
#include "rooftime/study/lstm-onednn.h"
#include "rooftime/study/lstm-unfused.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"

typedef int (*lstm_new)(const rt_lstm_shape *, rt_precision, rt_pass, uint64_t, rt_study_case **,
                        rt_error *);

static const rt_lstm_shape shapes[] = {
    {.batch = 3, .seq = 4, .features = 5, .hidden = 6},
    {.batch = 1, .seq = 1, .features = 8, .hidden = 4},
    {.batch = 16, .seq = 16, .features = 32, .hidden = 16}, /* the paper's default */
};

static float *run_case(lstm_new fn, const rt_lstm_shape *s, rt_precision prec, rt_pass pass,
                       uint64_t seed, size_t *n)
{
    rt_study_case *c = NULL;
    rt_error err;
    if (fn(s, prec, pass, seed, &c, &err) < 0) {
        print_message("skipped: %s\n", err.msg);
        return NULL;
    }
    rt_study_timer t;
    rt_timer_init(&t, NULL, NULL);
    /* twice: gradients that accumulate across runs would double */
    assert_int_equal(c->run(c, &t, &err), 0);
    assert_int_equal(c->run(c, &t, &err), 0);
    float *out = c->out(c, n);
    rt_study_case_free(c);
    return out;
}

static void check_impl(lstm_new fn, rt_precision prec, double bound)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int p = 0; p < 2; p++) {
            rt_pass pass = p ? RT_PASS_BWD : RT_PASS_FWD;
            uint64_t seed = 77 + 13 * i + (uint64_t)p;
            size_t nr = 0, ni = 0;
            float *ref = run_case(rt_lstm_direct_new, &shapes[i], RT_PREC_FP32, pass, seed, &nr);
            assert_non_null(ref);
            float *got = run_case(fn, &shapes[i], prec, pass, seed, &ni);
            if (!got) {
                free(ref);
                skip();
            }
            assert_int_equal(nr, ni);
            double d = rt_rel_diff(got, ref, nr);
            if (!(d <= bound))
                fail_msg("shape %zu %s %s: relative difference %g > %g", i, rt_precision_name(prec),
                         rt_pass_name(pass), d, bound);
            free(ref);
            free(got);
        }
}

static void test_unfused_fp32(void **state)
{
    (void)state;
    check_impl(rt_lstm_unfused_new, RT_PREC_FP32, 1e-4);
}

static void test_onednn_fp32(void **state)
{
    (void)state;
    check_impl(rt_lstm_onednn_new, RT_PREC_FP32, 1e-4);
}

static void test_onednn_bf16(void **state)
{
    (void)state;
    check_impl(rt_lstm_onednn_new, RT_PREC_BF16, 2e-2);
}

/* The unfused kernels' FLOPs add up to the whole-LSTM formula, per pass. */
static void test_unfused_flops_sum(void **state)
{
    (void)state;
    for (int p = 0; p < 2; p++) {
        rt_pass pass = p ? RT_PASS_BWD : RT_PASS_FWD;
        rt_study_case *c = NULL;
        rt_error err;
        assert_int_equal(rt_lstm_unfused_new(&shapes[0], RT_PREC_FP32, pass, 1, &c, &err), 0);
        rt_profile *prof = rt_profile_new();
        rt_study_timer t;
        rt_timer_init(&t, prof, NULL);
        t.recording = true;
        assert_int_equal(c->run(c, &t, &err), 0);
        double w = 0, n = 0;
        for (size_t k = 0; k < prof->n_kernels; k++) {
            w += rt_values_sum(&prof->kernels[k].flops);
            n += prof->kernels[k].invocations;
        }
        assert_close(w, rt_lstm_flops(&shapes[0], pass), 1e-12);
        /* forward: 6 kernels per step; backward: 7 per step and one zeroing */
        assert_true(n == (p ? 7.0 * shapes[0].seq + 1 : 6.0 * shapes[0].seq));
        rt_profile_free(prof);
        rt_study_case_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unfused_fp32),
        cmocka_unit_test(test_onednn_fp32),
        cmocka_unit_test(test_onednn_bf16),
        cmocka_unit_test(test_unfused_flops_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
