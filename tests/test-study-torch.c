/* PyTorch in the study: the real client at tiny shapes, tagged as the study tags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "study-torch.h"

static const char *python = "/usr/bin/python3";

static char *client(void)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/scripts/torch-client.py", tu_src());
    return buf;
}

static void test_conv2d_and_lstm(void **state)
{
    (void)state;
    if (!rt_torch_study_available(python))
        skip();
    rt_study_point pts[2];
    memset(pts, 0, sizeof pts);
    pts[0].op = pts[1].op = RT_OP_CONV2D;
    pts[0].conv = (rt_conv_shape){
        .n = 2, .c = 4, .h = 10, .w = 10, .k = 4, .r = 3, .s = 3, .stride = 2, .pad = 1};
    pts[1].conv = pts[0].conv;
    pts[1].conv.n = 4;
    rt_torch_study_opts o = {.op = RT_OP_CONV2D,
                             .points = pts,
                             .n_points = 2,
                             .precision = RT_PREC_FP32,
                             .pass = RT_PASS_FWD,
                             .warmup = 1,
                             .iters = 2};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_torch_study_run(python, client(), &o, &p, &err) != 0)
        fail_msg("%s", err.msg);
    /* one profile, tagged as the study tags its implementations; kernels carry the point */
    assert_string_equal(rt_tags_get(&p->tags, "implementation"), "pytorch");
    assert_string_equal(rt_tags_get(&p->tags, "operation"), "conv2d");
    assert_string_equal(rt_tags_get(&p->tags, "pass"), "forward");
    assert_string_equal(rt_tags_get(&p->tags, "precision"), "fp32");
    double flops[2] = {0, 0};
    int seen[2] = {0, 0};
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        assert_string_equal(rt_tags_get(&k->tags, "implementation"), "pytorch");
        assert_string_equal(rt_tags_get(&k->tags, "filters"), "4");
        assert_string_equal(rt_tags_get(&k->tags, "kernel"), "3");
        assert_string_equal(rt_tags_get(&k->tags, "stride"), "2");
        int b4 = strcmp(rt_tags_get(&k->tags, "batch"), "4") == 0;
        assert_true(b4 || strcmp(rt_tags_get(&k->tags, "batch"), "2") == 0);
        seen[b4] = 1;
        flops[b4] += rt_values_sum(&k->flops);
    }
    assert_true(seen[0] && seen[1]);
    /* the FLOPs torch records for conv2d over the 2 measured iterations: 2 * N*K*C*R*S*P*Q
     * each (torch counts the padded taps) = 2*N*4*4*9*5*5 */
    assert_close(flops[0], 2 * (2 * 2.0 * 4 * 4 * 9 * 5 * 5), 1e-9);
    assert_close(flops[1], 2 * (2 * 4.0 * 4 * 4 * 9 * 5 * 5), 1e-9);

    /* LSTM backward, added to a profile the caller owns */
    rt_study_point lp = {.op = RT_OP_LSTM,
                         .lstm = {.batch = 2, .seq = 3, .features = 4, .hidden = 5}};
    rt_profile *into = rt_profile_new();
    o = (rt_torch_study_opts){.op = RT_OP_LSTM,
                              .points = &lp,
                              .n_points = 1,
                              .precision = RT_PREC_FP32,
                              .pass = RT_PASS_BWD,
                              .warmup = 1,
                              .iters = 1,
                              .into = into};
    rt_profile *q = NULL;
    if (rt_torch_study_run(python, client(), &o, &q, &err) != 0)
        fail_msg("%s", err.msg);
    assert_ptr_equal(q, into);
    assert_true(into->n_kernels > 3);
    const rt_kernel *k = &into->kernels[0];
    assert_string_equal(rt_tags_get(&k->tags, "pass"), "backward");
    assert_string_equal(rt_tags_get(&k->tags, "seq"), "3");
    assert_string_equal(rt_tags_get(&k->tags, "features"), "4");
    assert_string_equal(rt_tags_get(&k->tags, "hidden"), "5");
    rt_profile_free(into);

    /* what it cannot run, it says */
    o.into = NULL;
    o.pass = RT_PASS_BWD_DATA;
    assert_int_equal(rt_torch_study_run(python, client(), &o, &q, &err), -1);
    assert_non_null(strstr(err.msg, "not separable"));
    o.pass = RT_PASS_FWD;
    assert_int_equal(rt_torch_study_run(python, "/nonexistent/client.py", &o, &q, &err), -1);
    assert_non_null(strstr(err.msg, "failed"));
    assert_null(q);
    rt_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_conv2d_and_lstm)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
