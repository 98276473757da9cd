/* PyTorch in the study: the real client at tiny shapes, tagged as the study tags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-torch.h"
#include "rooftime/util/error.h"

static const char *python = "/usr/bin/python3";

static char *client(void)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/scripts/torch-client.py", tu_src());
    return buf;
}

/* The study's PyTorch kernels carry bytes as `profile --torch` gives them: a kernel with FLOPs
 * and no bytes would get a partial verdict and miss every bandwidth view. */
static void assert_no_flops_without_bytes(const rt_kernel *k)
{
    if (rt_values_sum(&k->flops) > 0 && !(rt_values_sum(&k->bytes) > 0))
        fail_msg("pytorch kernel '%s' has FLOPs and no bytes", k->name);
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
        assert_no_flops_without_bytes(k);
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
    /* the client's untimed oneDNN verbose pass, joined: what it found is said; an operator that ran
     * a primitive pays its execute; torch's threads are the profile's */
    const char *units = rt_tags_get(&p->provenance.notes, "onednn_units"),
               *threads = rt_tags_get(&p->provenance.notes, "torch_threads");
    assert_non_null(units);
    assert_non_null(strstr(units, "operators with FLOPs"));
    for (size_t i = 0; i < p->n_kernels; i++)
        if (rt_tags_get(&p->kernels[i].tags, "onednn"))
            assert_string_equal(p->kernels[i].overhead, RT_OVERHEAD_ONEDNN);
    assert_non_null(threads);
    assert_true(p->threads >= 1);
    assert_int_equal(p->threads, atoi(threads));
    /* the cost model's FLOPs for conv2d over the 2 measured iterations, counted as the study's
     * own implementations count them (the taps inside the input), plus the bias's N K P Q */
    for (int b = 0; b < 2; b++) {
        double macs = rt_conv_macs_valid(&pts[b].conv), nkpq = pts[b].conv.n * 4.0 * 5 * 5;
        assert_close(flops[b], 2 * (2 * macs + nkpq), 1e-9);
    }

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
    double lstm_bytes = 0;
    for (size_t i = 0; i < into->n_kernels; i++) {
        assert_no_flops_without_bytes(&into->kernels[i]);
        lstm_bytes += rt_values_sum(&into->kernels[i].bytes);
    }
    assert_true(lstm_bytes > 0);
    const rt_kernel *k = &into->kernels[0];
    assert_string_equal(rt_tags_get(&k->tags, "pass"), "backward");
    assert_string_equal(rt_tags_get(&k->tags, "seq"), "3");
    assert_string_equal(rt_tags_get(&k->tags, "features"), "4");
    assert_string_equal(rt_tags_get(&k->tags, "hidden"), "5");
    rt_profile_free(into);

    /* what it cannot run, it says: the LSTM's backward is one */
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

static void record_progress(void *ud, size_t i)
{
    char *seen = ud;
    size_t n = strlen(seen);
    seen[n] = (char)('0' + i);
    seen[n + 1] = '\0';
}

/* All the points run in one process; progress arrives per point; a point that fails is named
 * and the points before it stay in the caller's profile. */
static void test_progress_and_failure(void **state)
{
    (void)state;
    if (!rt_torch_study_available(python))
        skip();
    rt_study_point pts[3];
    memset(pts, 0, sizeof pts);
    for (int i = 0; i < 3; i++) {
        pts[i].op = RT_OP_CONV2D;
        pts[i].conv = (rt_conv_shape){
            .n = 1, .c = 2, .h = 6, .w = 6, .k = 2, .r = 3, .s = 3, .stride = 1, .pad = 1};
    }
    pts[1].conv.k = 3;
    pts[2].conv.k = 5;
    char seen[16] = "";
    rt_profile *into = rt_profile_new();
    rt_torch_study_opts o = {.op = RT_OP_CONV2D,
                             .points = pts,
                             .n_points = 3,
                             .precision = RT_PREC_BF16,
                             .pass = RT_PASS_BWD_DATA,
                             .warmup = 0,
                             .iters = 1,
                             .into = into,
                             .progress = record_progress,
                             .progress_ud = seen};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_torch_study_run(python, client(), &o, &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(seen, "012");
    /* the convolution's backward split as the other implementations split theirs: the data pass
     * computes the input gradient alone, the weights pass the weight and bias gradients */
    for (int w = 0; w < 2; w++) {
        if (w) {
            seen[0] = '\0';
            into = rt_profile_new();
            o.into = into;
            o.pass = RT_PASS_BWD_WEIGHTS;
            if (rt_torch_study_run(python, client(), &o, &p, &err) != 0)
                fail_msg("%s", err.msg);
        }
        int filters[6] = {0};
        double bwd_flops[6] = {0};
        for (size_t i = 0; i < into->n_kernels; i++) {
            const rt_kernel *k = &into->kernels[i];
            assert_no_flops_without_bytes(k);
            assert_string_equal(rt_tags_get(&k->tags, "precision"), "bf16");
            assert_string_equal(rt_tags_get(&k->tags, "pass"),
                                w ? "backward-weights" : "backward-data");
            int f = atoi(rt_tags_get(&k->tags, "filters"));
            filters[f] = 1;
            /* FLOPs of bf16 tensors are counted on the bf16 unit */
            assert_true(rt_values_get(&k->flops, "fp32", 0) == 0);
            if (strncmp(k->name, "aten::convolution_backward", 26) == 0) {
                assert_true(k->invocations == 1);
                bwd_flops[f] += rt_values_get(&k->flops, "bf16", 0);
            }
        }
        assert_true(filters[2] && filters[3] && filters[5]);
        /* each gradient costs the forward's 2 x (taps inside the input); the weights pass adds
         * the bias gradient's N K P Q */
        for (int f = 2; f <= 5; f += 3) {
            rt_conv_shape sh = pts[0].conv;
            sh.k = f;
            double want = 2 * rt_conv_macs_valid(&sh) + (w ? 1.0 * f * 6 * 6 : 0);
            assert_close(bwd_flops[f], want, 1e-12);
        }
        rt_profile_free(into);
    }

    /* point 1's kernel is larger than its padded input: torch refuses it */
    pts[1].conv.r = pts[1].conv.s = 9;
    pts[1].conv.pad = 0;
    seen[0] = '\0';
    into = rt_profile_new();
    o.precision = RT_PREC_FP32;
    o.pass = RT_PASS_FWD;
    o.into = into;
    assert_int_equal(rt_torch_study_run(python, client(), &o, &p, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "failed at point 1 (batch=1,channels=2,input=6,filters=3,"));
    assert_string_equal(seen, "01");
    assert_true(into->n_kernels > 0);
    for (size_t i = 0; i < into->n_kernels; i++)
        assert_string_equal(rt_tags_get(&into->kernels[i].tags, "filters"), "2");
    rt_profile_free(into);
}

/* What the study needs to run torch, and what it says when something is missing. */
static void test_probe_and_script(void **state)
{
    (void)state;
    rt_error err = {{0}};
    assert_int_equal(rt_torch_study_probe("/nonexistent/python3", &err), -1);
    assert_non_null(strstr(err.msg, "cannot run '/nonexistent/python3'"));
    assert_false(rt_torch_study_available("/nonexistent/python3"));
    /* a python without torch: /bin/false stands in, it runs and fails */
    assert_int_equal(rt_torch_study_probe("/bin/false", &err), -1);
    assert_non_null(strstr(err.msg, "'/bin/false' cannot import torch"));

    setenv("ROOFTIME_PYTHON", "/opt/py/bin/python3", 1);
    assert_string_equal(rt_torch_study_python(), "/opt/py/bin/python3");
    unsetenv("ROOFTIME_PYTHON");
    assert_string_equal(rt_torch_study_python(), "/usr/bin/python3");

    char *s = rt_torch_study_script(&err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_string_equal(s, client());
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_conv2d_and_lstm),
                                       cmocka_unit_test(test_progress_and_failure),
                                       cmocka_unit_test(test_probe_and_script)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
