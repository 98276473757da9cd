/* The GPU study without a GPU: the planner and its plan files (contract section 3), the join of a
 * client's trace and counter profiles (warm-up and untagged kernels dropped, counters per
 * invocation), and the findings and report on the synthetic profiles of
 * tests/data/study-gpu-synthetic (written for the test, not recorded on a GPU). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/render/report.h"
#include "rooftime/study/study-gpu-crosscheck.h"
#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-profiles.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const rt_study_gpu_plan *find_plan(const rt_study_gpu_plan *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return &p[i];
    fail_msg("no plan %s", name);
    return NULL;
}

static void test_plans(void **state)
{
    (void)state;
    rt_study_gpu_opts o;
    rt_study_gpu_opts_init(&o);
    o.check_dir = "out/check";
    rt_study_gpu_plan *p;
    size_t n;
    rt_error err = {{0}};
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), 0);
    /* pytorch: 2 conv2d and 2 lstm variants x 4 precisions; jax: conv2d and lstm x 3 */
    assert_int_equal(n, 22);
    assert_string_equal(p[0].name, "pytorch-conv2d-fp32");
    const rt_study_gpu_plan *q = find_plan(p, n, "pytorch-conv2d-fp16-channels_last");
    assert_int_equal(q->n_points, 10); /* the paper's sweeps, as the CPU study's */
    assert_int_equal(q->n_passes, 3);
    assert_int_equal(q->warmup, 5);
    assert_int_equal(q->iters, 20);
    assert_int_equal(q->c_warmup, 1); /* counters sample 2 of the 20 measured iterations */
    assert_int_equal(q->c_iters, 2);
    assert_true(q->check);
    q = find_plan(p, n, "pytorch-lstm-bf16-graphs");
    assert_int_equal(q->n_points, 12);
    assert_int_equal(q->n_passes, 2);
    assert_false(q->check);
    find_plan(p, n, "jax-lstm-fp16-jit");
    for (size_t i = 0; i < n; i++)
        assert_null(strstr(p[i].name, "jax-conv2d-tf32"));
    rt_study_gpu_plans_free(p, n);

    o.quick = true;
    o.frameworks[RT_GPU_PYTORCH] = false;
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), 0);
    assert_int_equal(n, 6);
    assert_int_equal(p[0].n_points, 5);
    assert_int_equal(p[0].c_iters, p[0].iters); /* quick: counters on every iteration */
    assert_int_equal(p[0].iters, 3);
    rt_study_gpu_plans_free(p, n);

    o.precisions[RT_GPU_FP32] = o.precisions[RT_GPU_FP16] = o.precisions[RT_GPU_BF16] = false;
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), -1);
    assert_non_null(strstr(err.msg, "jax has fp32, fp16, bf16"));
    rt_study_gpu_opts_init(&o);
    o.scale = 0;
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), -1);
    assert_non_null(strstr(err.msg, "scale"));
    rt_gpu_prec pr;
    assert_int_equal(rt_gpu_prec_parse("fp8", &pr, &err), -1);
    assert_non_null(strstr(err.msg, "known: fp32, tf32, fp16, bf16"));
}

static json_t *plan_json(const rt_study_gpu_plan *p, const rt_study_gpu_opts *o, bool counters,
                         long point)
{
    char *s = rt_study_gpu_plan_json(p, o, counters, point);
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("plan is not JSON: %s", je.text);
    free(s);
    return j;
}

static void test_plan_json(void **state)
{
    (void)state;
    rt_study_gpu_opts o;
    rt_study_gpu_opts_init(&o);
    o.check_dir = "/tmp/x/check";
    o.device = 1;
    rt_study_gpu_plan *p;
    size_t n;
    rt_error err = {{0}};
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), 0);
    const rt_study_gpu_plan *c = find_plan(p, n, "pytorch-conv2d-tf32-channels_last");
    json_t *j = plan_json(c, &o, false, -1);
    assert_string_equal(json_string_value(json_object_get(j, "format")),
                        "rooftime-study-gpu-plan/1");
    assert_string_equal(json_string_value(json_object_get(j, "framework")), "pytorch");
    assert_string_equal(json_string_value(json_object_get(j, "op")), "conv2d");
    assert_string_equal(json_string_value(json_object_get(j, "precision")), "tf32");
    assert_string_equal(json_string_value(json_object_get(j, "variant")), "channels_last");
    json_t *passes = json_object_get(j, "passes");
    assert_int_equal(json_array_size(passes), 3);
    assert_string_equal(json_string_value(json_array_get(passes, 2)), "backward-weights");
    assert_int_equal(json_integer_value(json_object_get(j, "warmup")), 5);
    assert_int_equal(json_integer_value(json_object_get(j, "iters")), 20);
    assert_int_equal(json_integer_value(json_object_get(j, "device")), 1);
    json_t *pts = json_object_get(j, "points");
    assert_int_equal(json_array_size(pts), 10);
    json_t *d = json_array_get(pts, 0); /* the paper's default */
    assert_int_equal(json_integer_value(json_object_get(d, "batch")), 16);
    assert_int_equal(json_integer_value(json_object_get(d, "channels")), 64);
    assert_int_equal(json_integer_value(json_object_get(d, "size")), 112);
    assert_int_equal(json_integer_value(json_object_get(d, "filters")), 64);
    assert_int_equal(json_integer_value(json_object_get(d, "kernel")), 3);
    assert_int_equal(json_integer_value(json_object_get(d, "stride")), 2);
    json_t *tags = json_object_get(d, "tags");
    assert_int_equal(json_object_size(tags), 4);
    assert_string_equal(json_string_value(json_object_get(tags, "filters")), "64");
    json_t *chk = json_object_get(j, "check");
    assert_true(json_is_object(chk));
    assert_string_equal(json_string_value(json_object_get(chk, "dir")), "/tmp/x/check");
    size_t ncp;
    rt_study_gpu_check_points(&ncp);
    assert_int_equal(json_array_size(json_object_get(chk, "points")), ncp);
    json_decref(j);
    /* the counter run: sampled iterations, no check */
    j = plan_json(c, &o, true, -1);
    assert_int_equal(json_integer_value(json_object_get(j, "warmup")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "iters")), 2);
    assert_true(json_is_null(json_object_get(j, "check")));
    json_decref(j);
    /* the ncu cross-check: one point, its forward pass */
    j = plan_json(c, &o, true, 0);
    assert_int_equal(json_array_size(json_object_get(j, "points")), 1);
    assert_int_equal(json_array_size(json_object_get(j, "passes")), 1);
    json_decref(j);
    /* LSTM points carry batch, seq, features, hidden; no check */
    const rt_study_gpu_plan *l = find_plan(p, n, "jax-lstm-bf16-jit");
    j = plan_json(l, &o, false, -1);
    assert_string_equal(json_string_value(json_object_get(j, "variant")), "jit");
    d = json_array_get(json_object_get(j, "points"), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "seq")), 16);
    assert_int_equal(json_integer_value(json_object_get(d, "hidden")), 16);
    assert_null(json_object_get(d, "channels"));
    assert_true(json_is_null(json_object_get(j, "check")));
    json_decref(j);
    rt_study_gpu_plans_free(p, n);
}

static rt_profile *load(const char *client, const char *mode)
{
    char *path =
        rt_asprintf("%s/tests/data/study-gpu-synthetic/%s.%s.json", tu_src(), client, mode);
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_profile_load(path, &p, &err) != 0)
        fail_msg("%s", err.msg);
    free(path);
    return p;
}

static const char *const clients[] = {"pytorch-conv2d-fp32", "pytorch-conv2d-fp16",
                                      "pytorch-lstm-fp32", "pytorch-lstm-fp32-graphs"};

/* The synthetic study: every client joined. */
static rt_study_gpu_result *synthetic_result(void)
{
    rt_study_gpu_result *r = rt_xcalloc(1, sizeof *r);
    for (size_t i = 0; i < 4; i++) {
        rt_profile *t = load(clients[i], "trace"), *c = load(clients[i], "counters");
        rt_error err = {{0}};
        assert_int_equal(rt_study_gpu_join(t, c, NULL, clients[i], &r->profiles, &r->n_profiles,
                                           &r->notes, &err),
                         0);
        rt_profile_free(t);
        rt_profile_free(c);
    }
    r->device = rt_strdup("SYNTHETIC H100-like");
    r->warmup = 5;
    r->iters = 20;
    r->c_warmup = 1;
    r->c_iters = 2;
    r->clients = 4;
    r->check_status = -2;
    rt_warnings_add(&r->skipped, "jax-conv2d-fp32-jit: jax: cannot import jax");
    rt_warnings_add(&r->crosscheck, "Skipped: ncu was not found.");
    return r;
}

static const rt_kernel *kernel_of(const rt_profile *p, const char *name, const char *batch)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0 &&
            strcmp(rt_tags_get(&p->kernels[i].tags, "batch"), batch) == 0)
            return &p->kernels[i];
    return NULL;
}

static const rt_profile *profile_of(const rt_study_gpu_result *r, const char *prec, const char *op,
                                    const char *pass, const char *variant)
{
    for (size_t i = 0; i < r->n_profiles; i++) {
        const rt_tags *t = &r->profiles[i]->tags;
        const char *v = rt_tags_get(t, "variant");
        if (strcmp(rt_tags_get(t, "precision"), prec) == 0 &&
            strcmp(rt_tags_get(t, "operation"), op) == 0 &&
            strcmp(rt_tags_get(t, "pass"), pass) == 0 && strcmp(v ? v : "", variant) == 0)
            return r->profiles[i];
    }
    return NULL;
}

static void test_join(void **state)
{
    (void)state;
    rt_study_gpu_result *r = synthetic_result();
    /* conv2d: 3 passes x 2 precisions; lstm: 2 passes x 2 variants */
    assert_int_equal(r->n_profiles, 10);
    assert_int_equal(r->notes.n, 0); /* every measured kernel found its counters */
    const rt_profile *p = profile_of(r, "fp32", "conv2d", "forward", "");
    assert_non_null(p);
    assert_string_equal(rt_tags_get(&p->tags, "implementation"), "pytorch");
    assert_int_equal(p->time_kind, RT_TIME_DEVICE);
    /* warm-up and the kernel before the first mark are gone: 2 points x 1 kernel */
    assert_int_equal(p->n_kernels, 2);
    const rt_kernel *k = kernel_of(p, "implicit_convolve_sgemm", "16");
    assert_non_null(k);
    assert_true(k->invocations == 20);
    assert_null(rt_tags_get(&k->tags, "pass")); /* the profile's tags, not the kernel's */
    assert_string_equal(rt_tags_get(&k->tags, "stride"), "2");
    /* the counter run's FLOPs per invocation (2 sampled) times the trace's 20 */
    double flops = 2.0 * 16 * 64 * 64 * 9 * 56 * 56;
    assert_close(rt_values_get(&k->flops, "fp32", 0), 20 * flops, 1e-12);
    double hbm = 4.0 * (16 * 64 * 112 * 112 + 16 * 64 * 56 * 56 + 64 * 64 * 9);
    assert_close(rt_values_get(&k->bytes, "HBM", 0), 20 * hbm, 1e-12);
    /* graphs: its own profile, the graph node's overhead */
    p = profile_of(r, "fp32", "lstm", "backward", "graphs");
    assert_non_null(p);
    assert_string_equal(p->overhead, "cuda_graph_node");
    assert_null(profile_of(r, "fp32", "lstm", "warmup", ""));
    rt_study_gpu_result_free(r);

    /* CUDA Graphs: the counter run saw graph launches, not kernels; the eager run's counters
     * stand in, matched without the variant tag */
    rt_profile *gt = load("pytorch-lstm-fp32-graphs", "trace");
    rt_profile *gc = load("pytorch-lstm-fp32-graphs", "counters");
    rt_profile *ec = load("pytorch-lstm-fp32", "counters");
    for (size_t i = 0; i < gc->n_kernels; i++) {
        free(gc->kernels[i].name);
        gc->kernels[i].name = rt_strdup("(unnamed range: a graph launch)");
    }
    rt_profile **gps = NULL;
    size_t ngps = 0;
    rt_warnings gw = {0};
    rt_error gerr = {{0}};
    assert_int_equal(rt_study_gpu_join(gt, gc, ec, "g", &gps, &ngps, &gw, &gerr), 0);
    assert_int_equal(gw.n, 1);
    assert_non_null(strstr(gw.msg[0], "g: FLOPs and bytes of 8 of 8 measured kernels from the "
                                      "counter run without CUDA Graphs"));
    const rt_kernel *gk = NULL;
    for (size_t i = 0; i < ngps; i++)
        if (strcmp(rt_tags_get(&gps[i]->tags, "pass"), "forward") == 0)
            gk = kernel_of(gps[i], "ampere_sgemm_32x32_sliced1x4_nn", "16");
    assert_non_null(gk);
    assert_string_equal(rt_tags_get(&gps[0]->tags, "variant"), "graphs");
    /* 2 x batch x 4 hidden x (features + hidden) per GEMM, 2 GEMMs x 16 steps x 20 iterations */
    assert_close(rt_values_get(&gk->flops, "fp32", 0), 2.0 * 16 * 64 * 48 * 2 * 16 * 20, 1e-12);
    for (size_t i = 0; i < ngps; i++)
        rt_profile_free(gps[i]);
    free(gps);
    rt_warnings_release(&gw);
    /* without the eager run: unknown, said */
    gps = NULL;
    ngps = 0;
    assert_int_equal(rt_study_gpu_join(gt, gc, NULL, "g", &gps, &ngps, &gw, &gerr), 0);
    assert_int_equal(gw.n, 1);
    assert_non_null(strstr(gw.msg[0], "8 of 8 measured kernels found no counters"));
    for (size_t i = 0; i < ngps; i++)
        rt_profile_free(gps[i]);
    free(gps);
    rt_warnings_release(&gw);
    rt_profile_free(gt);
    rt_profile_free(gc);
    rt_profile_free(ec);

    /* without counters: times only, one note */
    rt_profile *t = load("pytorch-lstm-fp32", "trace");
    rt_profile **ps = NULL;
    size_t nps = 0;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_study_gpu_join(t, NULL, NULL, "x", &ps, &nps, &w, &err), 0);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "the counter run did not run"));
    assert_int_equal(ps[0]->kernels[0].flops.n, 0);
    for (size_t i = 0; i < nps; i++)
        rt_profile_free(ps[i]);
    free(ps);
    rt_warnings_release(&w);
    /* a client that marked nothing: an error naming it */
    for (size_t i = 0; i < t->n_kernels; i++)
        rt_tags_set(&t->kernels[i].tags, "pass", "warmup");
    ps = NULL;
    nps = 0;
    assert_int_equal(rt_study_gpu_join(t, NULL, NULL, "jax-lstm-fp32-jit", &ps, &nps, NULL, &err),
                     -1);
    assert_non_null(strstr(err.msg, "jax-lstm-fp32-jit: no measured kernel"));
    assert_int_equal(nps, 0);
    free(ps);
    rt_profile_free(t);
}

static void expect(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("findings lack '%s':\n%s", part, text);
}

static void test_findings_report(void **state)
{
    (void)state;
    rt_study_gpu_result *r = synthetic_result();
    char *mpath = rt_asprintf("%s/tests/data/study-gpu-synthetic/machine.json", tu_src());
    rt_machine *m = NULL;
    rt_error err = {{0}};
    if (rt_machine_load(mpath, &m, &err) != 0)
        fail_msg("%s", err.msg);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, r->profiles, r->n_profiles,
                                     rt_study_gpu_group_opts(), &err);
    assert_non_null(a);
    /* configs: conv2d 2 points x 3 passes x 2 precisions, lstm 2 x 2 x 2 variants */
    assert_int_equal(a->n_configs, 20);
    rt_findings *f = rt_study_gpu_findings(a, r);
    char *text = rt_findings_text(f);
    expect(text, "GPU SYNTHETIC H100-like: 4 client processes, 10 profiles, 20 configs");
    expect(text, "Skipped: jax-conv2d-fp32-jit: jax: cannot import jax");
    /* every eager LSTM config is overhead-bound (kernels of a few hundred FLOPs) */
    expect(text, "Overhead-bound LSTM: pytorch fp32 lstm forward batch=16 seq=16 features=32 "
                 "hidden=16");
    expect(text, "Overhead-bound LSTM: pytorch fp32 lstm backward batch=32");
    expect(text, "CUDA Graphs: over 4 LSTM configs run both ways, 4 are overhead-bound eager");
    /* Tensor Cores: every fp16 FLOP, no fp32 one */
    expect(text, "Tensor Core share of FLOPs per precision");
    const rt_findings_block *tb = NULL;
    for (size_t s = 0; s < f->n_sections && !tb; s++)
        if (strstr(f->sections[s].heading, "Tensor Core share"))
            for (size_t b = 0; b < f->sections[s].n_blocks && !tb; b++)
                if (f->sections[s].blocks[b].kind == RT_FINDINGS_TABLE)
                    tb = &f->sections[s].blocks[b];
    assert_non_null(tb);
    assert_int_equal(tb->n_rows, 3); /* the head, fp32, fp16 */
    for (size_t row = 1; row < tb->n_rows; row++)
        assert_string_equal(rt_findings_cell(tb, row, 3),
                            strcmp(rt_findings_cell(tb, row, 0), "fp16") == 0 ? "100.0%" : "0.0%");
    /* AMP: fp16 against fp32 per pass, and the layout kernels AMP added */
    expect(text, "pytorch conv2d forward");
    expect(text, "nchwToNhwcKernel");
    expect(text, "Skipped: ncu was not found.");
    expect(text, "The check did not run.");
    free(text);

    char *dir = tu_tmpdir();
    static const char *const split[] = {"operation", "pass"};
    rt_report_opts ro = {.title = "synthetic",
                         .split_by = split,
                         .n_split_by = 2,
                         .series_by = "implementation",
                         .marker_by = "variant",
                         .fill_by = "precision",
                         .findings = f};
    assert_int_equal(rt_report_write(a, NULL, r->profiles, r->n_profiles, &ro, dir, &err), 0);
    char *html = rt_asprintf("%s/report.html", dir);
    size_t len;
    char *body = tu_read_file(html, &len);
    assert_non_null(body);
    assert_non_null(strstr(body, "Tensor Core share of FLOPs per precision"));
    free(body);
    free(html);
    tu_rmtree(dir);
    free(dir);
    rt_findings_free(f);
    rt_analysis_free(a);
    rt_machine_free(m);
    free(mpath);
    rt_study_gpu_result_free(r);
}

/* The ncu cross-check's comparison: ncu's profile of the same kernels, one quantity 10% off, one
 * kernel missing, one matched by its name without the argument list, one printed as ncu prints
 * names (namespaces dropped, parameters abbreviated: the same key, kernel-name-key.h). */
static void test_crosscheck(void **state)
{
    (void)state;
    rt_study_gpu_result *r = synthetic_result();
    const rt_profile *ours = profile_of(r, "fp16", "conv2d", "forward", "");
    assert_non_null(ours);
    size_t n;
    rt_study_point *pts = rt_study_points(RT_OP_CONV2D, false, 1, &n);
    rt_profile *theirs = rt_profile_new();
    for (size_t i = 0; i < ours->n_kernels; i++) {
        const rt_kernel *k = &ours->kernels[i];
        if (strcmp(rt_tags_get(&k->tags, "batch"), "16") != 0 ||
            strcmp(k->name, "nhwcToNchwKernel") == 0) /* missing from ncu's */
            continue;
        bool cast = strstr(k->name, "cast") != NULL;
        /* ncu's names carry the argument list; its invocations include the warm-up */
        char *name =
            strncmp(k->name, "at::native::", 12) == 0
                ? rt_asprintf("void %s(int, T2)", k->name + 12)
                : rt_asprintf("%s%s", k->name, strncmp(k->name, "sm90", 4) == 0 ? "(int)" : "");
        rt_kernel *t = rt_profile_add_kernel(theirs, name);
        free(name);
        t->invocations = 6;
        t->time = k->time;
        for (size_t u = 0; u < k->flops.n; u++)
            rt_values_add(&t->flops, k->flops.v[u].key, k->flops.v[u].value / k->invocations * 6);
        for (size_t l = 0; l < k->bytes.n; l++)
            rt_values_add(&t->bytes, k->bytes.v[l].key,
                          k->bytes.v[l].value / k->invocations * 6 *
                              (cast && strcmp(k->bytes.v[l].key, "HBM") == 0 ? 1.1 : 1));
        rt_values_add(&t->bytes, "DRAM", 1); /* a level only ncu has: not compared */
    }
    rt_warnings w = {0};
    size_t agree = rt_study_gpu_crosscheck(ours, &pts[0], theirs, RT_STUDY_GPU_CROSSCHECK_TOLERANCE,
                                           "fp16 fwd", &w);
    assert_int_equal(agree, 2);
    assert_int_equal(w.n, 3);
    bool differs = false, missing = false;
    for (size_t i = 0; i < w.n; i++) {
        differs |=
            strstr(w.msg[i], "at::native::cast_kernel_float_to_half: DIFFERS from ncu by "
                             "more than 5%: FLOPs +0.0%, L1 +0.0%, L2 +0.0%, HBM -9.1%") != NULL;
        missing |= strstr(w.msg[i], "nhwcToNchwKernel: not in ncu's output") != NULL;
    }
    assert_true(differs);
    assert_true(missing);
    assert_non_null(strstr(w.msg[w.n - 1], "fp16 fwd: 2 of the 4 longest kernels agree with ncu "
                                           "within 5% in FLOPs and bytes"));
    rt_warnings_release(&w);
    rt_profile_free(theirs);
    free(pts);
    rt_study_gpu_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans),      cmocka_unit_test(test_plan_json),
        cmocka_unit_test(test_join),       cmocka_unit_test(test_findings_report),
        cmocka_unit_test(test_crosscheck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
