/* The study's sweeps are the paper's, and invalid shapes and requests fail with a clear message. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

static void expect_conv_error(rt_conv_shape s, const char *part)
{
    rt_error err = {{0}};
    assert_int_equal(rt_conv_shape_check(&s, &err), -1);
    if (!strstr(err.msg, part))
        fail_msg("message '%s' lacks '%s'", err.msg, part);
}

static void test_conv_invalid(void **state)
{
    (void)state;
    rt_conv_shape d = rt_conv_default();
    rt_error err;
    assert_int_equal(rt_conv_shape_check(&d, &err), 0);
    rt_conv_shape s = d;
    s.n = 0;
    expect_conv_error(s, "batch must be positive, got 0");
    s = d;
    s.c = -3;
    expect_conv_error(s, "channels must be positive, got -3");
    s = d;
    s.k = 0;
    expect_conv_error(s, "filters must be positive");
    s = d;
    s.stride = 0;
    expect_conv_error(s, "stride must be positive");
    s = d;
    s.pad = -1;
    expect_conv_error(s, "padding must not be negative");
    s = d;
    s.h = s.w = 4;
    s.r = s.s = 9;
    s.pad = 2; /* 9 > 4 + 2*2 */
    expect_conv_error(s, "kernel 9x9 is larger than the padded input 8x8");
    s = d;
    s.pad = 3; /* as wide as the 3x3 kernel */
    expect_conv_error(s, "padding 3 must be smaller than the kernel");
}

static void test_lstm_invalid(void **state)
{
    (void)state;
    rt_lstm_shape d = rt_lstm_default(), s;
    rt_error err;
    assert_int_equal(rt_lstm_shape_check(&d, &err), 0);
    s = d;
    s.seq = 0;
    assert_int_equal(rt_lstm_shape_check(&s, &err), -1);
    assert_non_null(strstr(err.msg, "sequence length must be positive"));
    s = d;
    s.hidden = -16;
    assert_int_equal(rt_lstm_shape_check(&s, &err), -1);
    assert_non_null(strstr(err.msg, "hidden size must be positive, got -16"));
}

static void test_names(void **state)
{
    (void)state;
    rt_study_impl i;
    rt_precision p;
    rt_study_op op;
    rt_error err = {{0}};
    assert_int_equal(rt_study_impl_parse("onednn", &i, NULL), 0);
    assert_int_equal(i, RT_IMPL_ONEDNN);
    assert_int_equal(rt_study_impl_parse("cudnn", &i, &err), -1);
    assert_string_equal(err.msg, "unknown implementation 'cudnn' (known: direct, im2col, onednn, "
                                 "unfused, pytorch, sdpa)");
    assert_int_equal(rt_study_impl_parse(NULL, &i, NULL), -1);
    assert_int_equal(rt_precision_parse("BF16", &p, NULL), 0);
    assert_int_equal(p, RT_PREC_BF16);
    assert_int_equal(rt_precision_parse("fp8", &p, &err), -1);
    assert_string_equal(err.msg, "unknown precision 'fp8' (known: fp32, bf16, fp16)");
    assert_int_equal(rt_study_op_parse("lstm", &op, NULL), 0);
    assert_int_equal(rt_study_op_parse("gemm", &op, NULL), -1);
    assert_true(rt_study_impl_has_op(RT_IMPL_IM2COL, RT_OP_CONV2D));
    assert_false(rt_study_impl_has_op(RT_IMPL_IM2COL, RT_OP_LSTM));
    assert_false(rt_study_impl_has_op(RT_IMPL_UNFUSED, RT_OP_CONV2D));
    assert_true(rt_study_impl_has_op(RT_IMPL_ONEDNN, RT_OP_LSTM));
}

static void test_validate(void **state)
{
    (void)state;
    rt_study_opts o;
    rt_error err;
    rt_study_opts_init(&o);
    assert_int_equal(rt_study_validate(&o, &err), 0);
    memset(o.impls, 0, sizeof o.impls);
    o.impls[RT_IMPL_DIRECT] = true;
    assert_int_equal(rt_study_validate(&o, &err), -1);
    assert_non_null(strstr(err.msg, "no selected implementation runs lstm"));
    rt_study_opts_init(&o);
    memset(o.ops, 0, sizeof o.ops);
    assert_int_equal(rt_study_validate(&o, &err), -1);
    assert_non_null(strstr(err.msg, "no operation selected"));
    rt_study_opts_init(&o);
    memset(o.precisions, 0, sizeof o.precisions);
    assert_int_equal(rt_study_validate(&o, &err), -1);
    rt_study_opts_init(&o);
    o.scale = 0;
    assert_int_equal(rt_study_validate(&o, &err), -1);
    assert_non_null(strstr(err.msg, "scale"));
    rt_study_opts_init(&o);
    o.iters = 0;
    assert_int_equal(rt_study_validate(&o, &err), -1);
    /* an invalid request runs nothing: rt_study_run fails the same way, with no result */
    rt_study_result *r = (rt_study_result *)1;
    assert_int_equal(rt_study_run(&o, &r, &err), -1);
    assert_null(r);
}

/* Every value of every sweep of method.md section 4 appears, one parameter varied at a time. */
static void check_sweep(rt_study_op op, const long values[4][5], size_t expect_points)
{
    size_t n, np;
    rt_study_point *pts = rt_study_points(op, false, 1.0, &n);
    const char *const *params = rt_study_params(op, &np);
    assert_int_equal(n, expect_points);
    assert_string_equal(pts[0].varied, "default");
    for (size_t p = 0; p < np; p++)
        for (int j = 0; values[p][j]; j++) {
            bool found = false;
            for (size_t i = 0; i < n; i++) {
                if (rt_study_point_param(&pts[i], params[p]) != values[p][j])
                    continue;
                /* every other parameter stays at its default */
                bool others = true;
                for (size_t q = 0; q < np; q++)
                    if (q != p && rt_study_point_param(&pts[i], params[q]) !=
                                      rt_study_point_param(&pts[0], params[q]))
                        others = false;
                found |= others;
            }
            if (!found)
                fail_msg("%s=%ld missing from the %s sweep", params[p], values[p][j],
                         rt_study_op_name(op));
        }
    free(pts);
}

static void test_sweeps(void **state)
{
    (void)state;
    rt_conv_shape c = rt_conv_default();
    assert_true(c.n == 16 && c.stride == 2 && c.h == 112 && c.w == 112 && c.c == 64 && c.k == 64 &&
                c.r == 3 && c.s == 3);
    assert_int_equal(rt_conv_out_h(&c), 56);
    rt_lstm_shape l = rt_lstm_default();
    assert_true(l.batch == 16 && l.seq == 16 && l.features == 32 && l.hidden == 16);
    static const long conv[4][5] = {
        {16, 32, 64, 0}, {64, 128, 256, 512, 0}, {3, 7, 9, 0}, {1, 2, 3, 0}};
    static const long lstm[4][5] = {
        {16, 32, 64, 128, 0}, {16, 32, 64, 128, 0}, {32, 64, 128, 0}, {16, 32, 64, 128, 0}};
    check_sweep(RT_OP_CONV2D, conv, 10); /* 13 values, the default counted once */
    check_sweep(RT_OP_LSTM, lstm, 12);
    size_t n;
    rt_study_point *q = rt_study_points(RT_OP_CONV2D, true, 1.0, &n);
    assert_int_equal(n, 5); /* the default and one more value per sweep */
    for (size_t i = 0; i < n; i++) {
        rt_error err;
        assert_int_equal(rt_conv_shape_check(&q[i].conv, &err), 0);
        /* "same" padding keeps the 112x112 input at 56x56 with stride 2 for every kernel */
        if (q[i].conv.stride == 2)
            assert_int_equal(rt_conv_out_h(&q[i].conv), 56);
    }
    free(q);
    q = rt_study_points(RT_OP_LSTM, false, 0.1, &n);
    for (size_t i = 0; i < n; i++) {
        rt_error err;
        assert_int_equal(rt_lstm_shape_check(&q[i].lstm, &err), 0);
    }
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_invalid), cmocka_unit_test(test_lstm_invalid),
        cmocka_unit_test(test_names),        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
