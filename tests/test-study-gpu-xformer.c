/* The GPU study's transformer clients without a GPU: the planner (run when --op names them, one
 * pass, the sweeps of the CPU study), their plan files, the join of a client that ran each point
 * eager and under CUDA Graphs (the graph's kernels their own profiles, the graph node's overhead,
 * counters from the same client's eager kernels), and the findings on CUDA Graphs and SDPA's back
 * ends (synthetic profiles made here, not recorded). */
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
#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-gpu-profiles.h"
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
    /* the default: the paper's ops only */
    assert_false(o.ops[RT_OP_ATTENTION] || o.ops[RT_OP_MLP] || o.ops[RT_OP_DECODE]);
    for (int op = 0; op < RT_OP_COUNT; op++)
        o.ops[op] = rt_study_op_is_xformer((rt_study_op)op);
    rt_study_gpu_plan *p;
    size_t n;
    rt_error err = {{0}};
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), 0);
    /* attention (unfused, sdpa), mlp, decode (unfused, sdpa) x 4 precisions; no jax */
    assert_int_equal(n, 20);
    const rt_study_gpu_plan *q = find_plan(p, n, "pytorch-attention-fp16-sdpa");
    assert_int_equal(q->n_passes, 1);
    assert_int_equal(q->passes[0], RT_PASS_FWD);
    assert_int_equal(q->n_points, 8); /* the CPU study's sweep */
    assert_false(q->check);
    q = find_plan(p, n, "pytorch-decode-bf16");
    assert_int_equal(q->n_points, 8);
    char *json = rt_study_gpu_plan_json(q, &o, false, -1);
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "op")), "decode");
    json_t *pt = json_array_get(json_object_get(j, "points"), 0);
    assert_int_equal(json_integer_value(json_object_get(pt, "hidden")), 1024);
    assert_int_equal(json_integer_value(json_object_get(pt, "cache")), 128);
    assert_string_equal(json_string_value(json_object_get(json_object_get(pt, "tags"), "batch")),
                        "1");
    json_decref(j);
    free(json);
    q = find_plan(p, n, "pytorch-mlp-tf32");
    assert_int_equal(q->n_points, 6);
    rt_study_gpu_plans_free(p, n);
    /* jax has none */
    o.frameworks[RT_GPU_PYTORCH] = false;
    assert_int_equal(rt_study_gpu_plans(&o, &p, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no implementation runs the selected operations"));
}

/* A kernel of the client's marks: implementation, precision, operation, pass, variant, seq. */
static void add(rt_profile *p, const char *name, const char *variant, const char *seq, double n,
                double time, double flops, double bytes)
{
    rt_tags t = {0};
    rt_tags_set(&t, "implementation", "pytorch");
    rt_tags_set(&t, "precision", "fp16");
    rt_tags_set(&t, "operation", "attention");
    rt_tags_set(&t, "pass", "forward");
    if (*variant)
        rt_tags_set(&t, "variant", variant);
    rt_tags_set(&t, "seq", seq);
    rt_kernel *k = rt_profile_find_or_add(p, name, &t);
    rt_tags_release(&t);
    k->invocations += n;
    k->time += time;
    if (flops > 0)
        rt_values_add(&k->flops, "tensor_fp16", flops);
    if (bytes > 0)
        rt_values_add(&k->bytes, "HBM", bytes);
}

static rt_profile *client(bool counters)
{
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("cupti");
    p->time_kind = RT_TIME_DEVICE;
    const char *seqs[] = {"512", "4096"};
    for (int s = 0; s < 2; s++) {
        double scale = s ? 64 : 1;
        /* the unfused math: three kernels; the flash back end one; each eager and graphed */
        const char *math[] = {"gemm_qk", "softmax", "gemm_pv"};
        for (int g = 0; g < 2; g++) {
            if (counters && g) /* the Range Profiler sees a graph launch, not its kernels */
                continue;
            for (int k = 0; k < 3; k++)
                add(p, math[k], g ? "graphs" : "", seqs[s], 20, (g ? 20e-6 : 60e-6) * scale,
                    counters ? 1e9 * scale : 0, counters ? 4e6 * scale : 0);
            add(p, "flash_fwd", g ? "sdpa_flash_graphs" : "sdpa_flash", seqs[s], 20,
                (g ? 10e-6 : 25e-6) * scale, counters ? 3e9 * scale : 0, counters ? 1e6 : 0);
        }
    }
    return p;
}

static void test_join_and_findings(void **state)
{
    (void)state;
    rt_profile *trace = client(false), *counters = client(true);
    rt_profile **ps = NULL;
    size_t n = 0;
    rt_warnings w = {0};
    rt_error err = {{0}};
    /* the transformer client's own counter run holds its eager kernels */
    assert_int_equal(rt_study_gpu_join(trace, counters, counters, "pytorch-attention-fp16-sdpa",
                                       &ps, &n, &w, &err),
                     0);
    assert_int_equal(n, 4); /* "", graphs, sdpa_flash, sdpa_flash_graphs */
    size_t graphs = 0;
    for (size_t i = 0; i < n; i++) {
        const char *v = rt_tags_get(&ps[i]->tags, "variant");
        bool g = v && strstr(v, "graphs");
        graphs += g;
        /* a graph's kernels pay a graph node's launch */
        if (g)
            assert_string_equal(ps[i]->overhead, "cuda_graph_node");
        for (size_t k = 0; k < ps[i]->n_kernels; k++)
            assert_true(rt_values_sum(&ps[i]->kernels[k].flops) > 0);
    }
    assert_int_equal(graphs, 2);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "from the counter run without CUDA Graphs"));
    rt_warnings_release(&w);

    char *mpath = rt_asprintf("%s/data/machines/h100-sxm.json", tu_src());
    rt_machine *m = NULL;
    if (rt_machine_load(mpath, &m, &err) != 0)
        fail_msg("%s", err.msg);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, ps, n, rt_study_gpu_group_opts(), &err);
    assert_non_null(a);
    rt_study_gpu_result r = {.profiles = ps, .n_profiles = n, .check_status = -2};
    rt_findings *f = rt_study_gpu_findings(a, &r);
    char *text = rt_findings_text(f);
    /* 2 configs a pair; eager 180 us + 11.52 ms against graphed 60 us + 3.84 ms */
    if (!strstr(text, "attention fp16: eager -> graphs | 2 | 11.7 ms | 3.9 ms | 7.8 ms (66.7%)"))
        fail_msg("no CUDA Graphs row:\n%s", text);
    if (!strstr(text, "attention fp16: sdpa_flash -> sdpa_flash_graphs | 2 | "))
        fail_msg("no graphed SDPA row:\n%s", text);
    /* fusion: the unfused math against the flash back end */
    if (!strstr(text, "attention fp16: eager -> sdpa_flash | 2 | 11.7 ms | 1.625 ms"))
        fail_msg("no fusion row:\n%s", text);
    if (!strstr(text, "pytorch sdpa_flash fp16 attention, by sequence: 512: "))
        fail_msg("no sequence trajectory:\n%s", text);
    free(text);
    rt_findings_free(f);
    rt_analysis_free(a);
    rt_machine_free(m);
    free(mpath);
    for (size_t i = 0; i < n; i++)
        rt_profile_free(ps[i]);
    free(ps);
    rt_profile_free(trace);
    rt_profile_free(counters);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plans),
                                       cmocka_unit_test(test_join_and_findings)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
