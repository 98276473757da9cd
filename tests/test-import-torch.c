/* PyTorch trace importer: both JSON shapes, self time, FLOPs, GPU kernels, bad JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

static const char *data_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/data/%s", tu_src(), name);
    return buf;
}

static const rt_kernel *find(const rt_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    fail_msg("no kernel '%s'", name);
    return NULL;
}

static rt_profile *import_text(const char *text, const char *within)
{
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_torch_text(text, strlen(text), "t.json", within, &p, &w, &err) != 0)
        fail_msg("import failed: %s", err.msg);
    rt_warnings_release(&w);
    return p;
}

/* conv2d (100 us) holds convolution (90) holds mkldnn_convolution (80) holds empty (5);
 * a sibling add (10); conv2d records the FLOPs. */
#define EVENTS                                                                                     \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":1,\"tid\":1,\"ts\":0,"     \
    "\"dur\":100,\"args\":{\"Input Dims\":[[2,3]],\"flops\":1000}},\n"                             \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":1,\"tid\":1,"         \
    "\"ts\":5,\"dur\":90,\"args\":{}},\n"                                                          \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mkldnn_convolution\",\"pid\":1,\"tid\":1,"  \
    "\"ts\":10,\"dur\":80,\"args\":{}},\n"                                                         \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":12,"     \
    "\"dur\":5},\n"                                                                                \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":200,"      \
    "\"dur\":10,\"args\":{\"flops\":50,\"Input type\":[\"c10::BFloat16\"]}},\n"                    \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":2,\"ts\":12,"     \
    "\"dur\":7},\n"                                                                                \
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"forward\",\"pid\":1,\"tid\":1,\"ts\":0," \
    "\"dur\":300},\n"                                                                              \
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"x\"}}\n"

static void check_nesting(const rt_profile *p)
{
    /* self times: conv2d 100-90, convolution 90-80, mkldnn 80-5, empty 5 (+7 on thread 2) */
    assert_close(find(p, "aten::conv2d [[2,3]]")->time, 10e-6, 1e-9);
    assert_close(find(p, "aten::convolution")->time, 10e-6, 1e-9);
    const rt_kernel *m = find(p, "aten::mkldnn_convolution");
    assert_close(m->time, 75e-6, 1e-9);
    /* the FLOPs go where the time went */
    assert_close(rt_values_get(&m->flops, "fp32", 0), 1000, 0);
    assert_int_equal(find(p, "aten::conv2d [[2,3]]")->flops.n, 0);
    const rt_kernel *e = find(p, "aten::empty");
    assert_close(e->time, 12e-6, 1e-9);
    assert_close(e->invocations, 2, 0);
    const rt_kernel *a = find(p, "aten::add");
    assert_close(rt_values_get(&a->flops, "bf16", 0), 50, 0);
    /* the sum of self times is the time the threads were busy, nothing counted twice */
    double t = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        t += p->kernels[i].time;
    assert_close(t, (100 + 10 + 7) * 1e-6, 1e-9);
    assert_int_equal(p->n_kernels, 5); /* python_function is no kernel */
    /* The overhead box is the dispatch's; a self time holds no overhead rooftime measures (the
     * range opens inside the dispatcher, after the Python binding framework_dispatch times). */
    assert_string_equal(p->overhead, RT_OVERHEAD_FRAMEWORK);
    for (size_t i = 0; i < p->n_kernels; i++)
        assert_string_equal(p->kernels[i].overhead, RT_OVERHEAD_NONE);
}

static void test_nesting_both_shapes(void **state)
{
    (void)state;
    rt_profile *p = import_text("[" EVENTS "]", NULL);
    check_nesting(p);
    rt_profile_free(p);
    p = import_text("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}],\n"
                    " \"traceEvents\": [" EVENTS "],\n \"displayTimeUnit\": \"ms\"}",
                    NULL);
    check_nesting(p);
    rt_profile_free(p);
}

/* GPU kernels: one invocation per launch, launches counted from the runtime events. */
static void test_gpu_kernels(void **state)
{
    (void)state;
    const char *text =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":1,\"dur\":4,\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
        "\"ts\":6,\"dur\":4,\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,"
        "\"ts\":10,\"dur\":20,\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,"
        "\"ts\":40,\"dur\":30,\"args\":{\"correlation\":8}}]}";
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_torch_text(text, strlen(text), "g.json", NULL, &p, &w, &err), 0);
    const rt_kernel *k = find(p, "volta_sgemm_128x64_nn");
    assert_close(k->invocations, 2, 0);
    assert_close(k->time, 50e-6, 1e-9);
    assert_string_equal(k->overhead, RT_OVERHEAD_NONE); /* its duration leaves out its launch */
    for (size_t i = 0; i < w.n; i++)
        assert_null(strstr(w.msg[i], "kernel launches")); /* counts agree */
    assert_int_equal(p->n_kernels, 1);                    /* runtime calls are not kernels */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

static void expect_error(const char *text, const char *want)
{
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_torch_text(text, strlen(text), "bad.json", NULL, &p, &w, &err), -1);
    assert_null(p);
    print_message("%s\n", err.msg);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
    rt_warnings_release(&w);
}

static void test_bad_json(void **state)
{
    (void)state;
    /* a missing comma on line 3: jansson's position, moved to the file's line and column */
    expect_error("[\n{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1}\n  {\"ph\":\"X\"}]",
                 "cannot read 'bad.json': line 3, column 3: expected ',' or ']'");
    expect_error("{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": tru}]}",
                 "cannot read 'bad.json': line 2, column 25: invalid token near 'tru'");
    expect_error("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":0}]",
                 "line 1, column 2: trace event 1 ('a'): field 'dur' missing");
    expect_error("", "empty file");
    expect_error("{\"other\": 1}", "no 'traceEvents' member");
    expect_error("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":0,\"dur\":1}] x",
                 "unexpected text after the trace");
    expect_error("[{\"ph\":\"M\",\"name\":\"x\"}]", "no operators or GPU kernels");
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_torch("/nonexistent.json", NULL, &p, &w, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read '/nonexistent.json'"));
}

/* The recordings: torch 1.13's own export (no Kineto: bare array, no cat, no args) and the
 * client's Kineto-layout trace of the same profiler, restricted to the measured range. */
static void test_recordings(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(
        rt_import_torch(data_path("torch-1.13-lstm-forward-legacy.json"), NULL, &p, &w, &err), 0);
    const rt_kernel *addmm = find(p, "aten::addmm");
    assert_close(addmm->invocations, 16, 0); /* one hidden-state product per step of 16 */
    rt_profile_free(p);
    /* that format has no shapes even with record_shapes=True: said once, naming what records
     * them, with and without the cost model; never blaming record_shapes or with_flops */
    for (int cost = 0; cost < 2; cost++) {
        rt_torch_ops *ops = NULL;
        if (cost)
            assert_int_equal(rt_torch_ops_load(NULL, &ops, &err), 0);
        rt_torch_options o = {.ops = ops};
        rt_warnings_release(&w);
        assert_int_equal(rt_import_torch_opts(data_path("torch-1.13-lstm-forward-legacy.json"), &o,
                                              &p, &w, &err),
                         0);
        size_t legacy = 0;
        for (size_t i = 0; i < w.n; i++) {
            if (strstr(w.msg[i], "carries no input shapes and no FLOPs: torch's own "
                                 "export_chrome_trace of the legacy") &&
                strstr(w.msg[i], "even with record_shapes=True") &&
                strstr(w.msg[i], "`rooftime profile --torch -- python3 script.py`") &&
                strstr(w.msg[i], "torch.profiler.profile (Kineto)"))
                legacy++;
            assert_null(strstr(w.msg[i], "(record_shapes=True)"));
            assert_null(strstr(w.msg[i], "profile with with_flops=True"));
        }
        assert_int_equal(legacy, 1);
        rt_profile_free(p);
        rt_torch_ops_free(ops);
    }
    rt_warnings_release(&w);
    assert_int_equal(rt_import_torch(data_path("torch-1.13-lstm-forward.json"), "rooftime:measured",
                                     &p, &w, &err),
                     0);
    const rt_kernel *a = find(p, "aten::addmm [[64],[16,16],[16,64],[],[]]");
    assert_close(a->invocations, 16, 0);
    /* 2*16*16*64 per step */
    assert_close(rt_values_get(&a->flops, "fp32", 0), 16 * 32768.0, 1e-12);
    const rt_kernel *mm = find(p, "aten::mm [[256,32],[32,64]]");
    assert_close(rt_values_get(&mm->flops, "fp32", 0), 2.0 * 256 * 32 * 64, 1e-12);
    /* one measured iteration, nothing from outside the measured range */
    assert_close(find(p, "aten::lstm [[16,16,32],[],[],[],[],[],[],[],[]]")->invocations, 1, 0);
    rt_profile_free(p);
    assert_int_equal(rt_import_torch(data_path("torch-1.13-conv2d-backward.json"),
                                     "rooftime:measured", &p, &w, &err),
                     0);
    const rt_kernel *cb =
        find(p, "aten::convolution_backward "
                "[[2,16,14,14],[2,16,28,28],[16,16,3,3],[],[],[],[],[],[],[],[]]");
    assert_close(cb->invocations, 2, 0);
    for (size_t i = 0; i < p->n_kernels; i++)
        assert_null(strstr(p->kernels[i].name, "aten::conv2d")); /* forward not measured */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Events with escapes or non-ASCII text are read by jansson, the others by the fast scanner: both
 * must give the same kernel. */
static void test_two_parsers_agree(void **state)
{
    (void)state;
    rt_profile *p = import_text(
        "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\\u0064d\",\"pid\":1,\"tid\":1,"
        "\"ts\":0,\"dur\":4,\"args\":{\"Input Dims\": [[1, 2], []], \"flops\": 2}},\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 10, \"dur\": 6, \"args\": {\"Input Dims\":[[1,2],[]],\"flops\":2}},\n"
        " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"caf\u00e9\",\"pid\":1,\"tid\":1,\"ts\":20,"
        "\"dur\":1}]",
        NULL);
    const rt_kernel *k = find(p, "aten::add [[1,2],[]]");
    assert_close(k->invocations, 2, 0);
    assert_close(k->time, 10e-6, 1e-9);
    assert_close(rt_values_get(&k->flops, "fp32", 0), 4, 0);
    assert_close(find(p, "caf\xc3\xa9")->invocations, 1, 0);
    assert_int_equal(p->n_kernels, 2);
    rt_profile_free(p);
}

/* Every kernel's spread covers each of its calls' self times. */
static void check_spreads(const rt_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        const rt_time_spread *s = &k->spread;
        if (s->n != k->invocations || !(s->q1 <= s->median && s->median <= s->q3))
            fail_msg("kernel '%s': %g invocations, spread n %g, %g <= %g <= %g", k->name,
                     k->invocations, s->n, s->q1, s->median, s->q3);
        assert_null(k->samples);
        /* the median call is no longer than all the calls together */
        assert_true(s->median <= k->time + 1e-12);
    }
}

/* Per-call self times: median and quartiles per aggregated operator, with and without the cost
 * model (which merges calls of one name and source under one kernel). */
static void test_spreads(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_torch(data_path("torch-1.13-lstm-forward.json"), "rooftime:measured",
                                     &p, &w, &err),
                     0);
    check_spreads(p);
    /* 16 steps' hidden-state products, self times 4 to 6 us (torch 1.13 rounds to 1 us) */
    const rt_kernel *a = find(p, "aten::addmm [[64],[16,16],[16,64],[],[]]");
    assert_true(a->spread.n == 16 && rt_time_spread_known(&a->spread));
    assert_close(a->spread.median, 5e-6, 1e-9);
    assert_close(a->spread.q1, 4.75e-6, 1e-9);
    assert_close(a->spread.q3, 5.5e-6, 1e-9);
    /* one call: a spread of one, not known */
    const rt_kernel *mm = find(p, "aten::mm [[256,32],[32,64]]");
    assert_true(mm->spread.n == 1 && mm->spread.median == mm->time);
    assert_false(rt_time_spread_known(&mm->spread));
    rt_profile_free(p);
    assert_int_equal(rt_import_torch(data_path("torch-1.13-conv2d-backward.json"),
                                     "rooftime:measured", &p, &w, &err),
                     0);
    check_spreads(p);
    rt_profile_free(p);
    rt_torch_ops *ops = NULL;
    assert_int_equal(rt_torch_ops_load(NULL, &ops, &err), 0);
    rt_torch_options o = {.within = "rooftime:measured", .ops = ops};
    assert_int_equal(
        rt_import_torch_opts(data_path("torch-1.13-lstm-forward.json"), &o, &p, &w, &err), 0);
    check_spreads(p);
    rt_profile_free(p);
    rt_torch_ops_free(ops);
    rt_warnings_release(&w);
    /* Two calls of 4 and 6 us. */
    p = import_text("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,"
                    "\"tid\":1,\"ts\":0,\"dur\":4},\n"
                    " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,"
                    "\"tid\":1,\"ts\":10,\"dur\":6}]",
                    NULL);
    const rt_kernel *k = find(p, "aten::add");
    assert_true(k->spread.n == 2);
    assert_close(k->spread.median, 5e-6, 1e-12);
    assert_close(k->spread.q1, 4.5e-6, 1e-12);
    assert_close(k->spread.q3, 5.5e-6, 1e-12);
    rt_profile_free(p);
}

/* The runner's window names its optimizer steps (args.steps): the profile's note 'steps', read the
 * same by both parsers (an escape in the name sends the second to jansson); a count that is not a
 * whole number from 1 up is no count. */
static void test_window_steps(void **state)
{
    (void)state;
    static const char *const names[] = {"rooftime:window", "rooftime:windo\\u0077"};
    static const char *const steps[] = {"10", "0", "2.5", "\"3\""};
    static const char *const want[] = {"10", NULL, NULL, NULL};
    for (int n = 0; n < 2; n++)
        for (int i = 0; i < 4; i++) {
            char text[512];
            snprintf(text, sizeof text,
                     "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,"
                     "\"tid\":1,\"ts\":10,\"dur\":4},\n"
                     " {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"%s\",\"pid\":1,"
                     "\"tid\":0,\"ts\":0,\"dur\":50,\"args\":{\"steps\":%s}}]",
                     names[n], steps[i]);
            rt_profile *p = import_text(text, NULL);
            const char *got = rt_tags_get(&p->provenance.notes, "steps");
            if (want[i])
                assert_string_equal(got, want[i]);
            else
                assert_null(got);
            assert_non_null(rt_tags_get(&p->provenance.notes, "torch_window"));
            rt_profile_free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_both_shapes),
        cmocka_unit_test(test_gpu_kernels),
        cmocka_unit_test(test_bad_json),
        cmocka_unit_test(test_recordings),
        cmocka_unit_test(test_two_parsers_agree),
        cmocka_unit_test(test_spreads),
        cmocka_unit_test(test_window_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
