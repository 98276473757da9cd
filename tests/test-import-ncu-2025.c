/* Tests of the Nsight Compute importer on CSV as ncu 2025 writes it: the sm120-llm-decode
 * fixture (rule columns and rule rows, scaled units, n/a, ncu's own kernel names, CC 12.0, section
 * pages), and synthetic files in its layout for what the fixture lacks (a short row, n/a on a
 * metric a formula reads, mangled names, the recipes). The synthetic files are written here, by
 * hand: no GPU ran them. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/demangle.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* ---- the fixture ---- */

/* The value of metric in the fixture file, in base units as its row says (unit: "us", "Mbyte",
 * "byte" or ""), read here with the CSV reader alone. */
static double fixture_value(const char *path, const char *metric)
{
    rt_error err = {{0}};
    rt_csv *c = rt_csv_open(path, &err);
    assert_non_null(c);
    rt_csv_row r;
    double v = NAN;
    while (rt_csv_next(c, &r, &err) == 1)
        if (r.n >= 15 && strcmp(r.field[12], metric) == 0) {
            const char *u = r.field[13];
            double scale = strcmp(u, "us") == 0 ? 1e-6 : strcmp(u, "Mbyte") == 0 ? 1e6 : 1;
            assert_true(!strcmp(u, "us") || !strcmp(u, "Mbyte") || !strcmp(u, "byte") || !*u);
            v = atof(r.field[14]) * scale;
        }
    rt_csv_free(c);
    if (isnan(v))
        fail_msg("%s has no row of %s", path, metric);
    return v;
}

static int said(const rt_warnings *w, const char *what)
{
    int n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += strstr(w->msg[i], what) != NULL;
    return n;
}

/* Each metrics page imports with --allow-missing: time gpu__time_duration, DRAM bytes read +
 * write, tensor FLOPs from the bf16 counter, and notes of what was missing, skipped and scaled. */
static void test_fixture_metrics_pages(void **state)
{
    (void)state;
    for (int k = 1; k <= 2; k++) {
        char rel[96];
        snprintf(rel, sizeof rel, "ncu/sm120-llm-decode/kernel_%04d.metrics.csv", k);
        const char *fx = tu_fixture(rel);
        if (!fx)
            skip();
        char *path = rt_strdup(fx);
        rt_ncu_options o = {.allow_missing = true};
        rt_profile *p = NULL;
        rt_warnings w = {0};
        rt_error err = {{0}};
        const char *paths[] = {path};
        if (rt_import_ncu(paths, 1, &o, &p, &w, &err) != 0)
            fail_msg("%s: %s", path, err.msg);
        assert_int_equal(p->n_kernels, 1);
        const rt_kernel *kn = &p->kernels[0];
        assert_true(kn->invocations == 1);
        assert_non_null(strstr(kn->name, "cublasGemvParamsEx<")); /* ncu's name, as written */
        assert_close(kn->time, fixture_value(path, "gpu__time_duration.sum"), 1e-12);
        assert_close(rt_values_get(&kn->bytes, "HBM", -1),
                     fixture_value(path, "dram__bytes_read.sum") +
                         fixture_value(path, "dram__bytes_write.sum"),
                     1e-12);
        assert_true(rt_values_get(&kn->flops, "tensor_bf16", -1) ==
                    fixture_value(path, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"));
        /* what the file lacks is absent, never 0 */
        assert_false(rt_values_has(&kn->flops, "fp32"));
        assert_false(rt_values_has(&kn->bytes, "L2"));
        const rt_tags *n = &p->provenance.notes;
        const char *miss = rt_tags_get(n, "missing");
        assert_non_null(miss);
        assert_non_null(strstr(miss, "flops.fp32 (sm__sass_thread_inst_executed_op_fadd_pred_on"
                                     ".sum absent)"));
        assert_non_null(strstr(miss, "bytes.L1 (l1tex__t_bytes.sum absent)"));
        assert_non_null(strstr(miss, "bytes.L2 (lts__t_bytes.sum absent)"));
        assert_string_equal(rt_tags_get(n, "rules.1"),
                            "4 rows of ncu's analysis rules (an empty metric name) skipped");
        assert_non_null(strstr(rt_tags_get(n, "units.1"), "'Mbyte' first on line 2"));
        assert_string_equal(rt_tags_get(&p->provenance.formulas, "time"), "gpu__time_duration.sum");
        assert_string_equal(rt_tags_get(&p->provenance.formulas, "bytes.HBM"),
                            "dram__bytes_read.sum + dram__bytes_write.sum");
        assert_string_equal(rt_tags_get(&p->provenance.formulas, "flops.tensor_bf16"),
                            "tensor_op_flops * sm__ops_path_tensor_src_bf16_dst_fp32.sum");
        assert_int_equal(said(&w, "--print-units base"), 1); /* once per file */
        rt_profile_free(p);
        rt_warnings_release(&w);
        free(path);
    }
}

/* The roofline section pages carry ncu's labels, not metric names: refused, naming the command
 * line that gives a metrics page. */
static void test_fixture_section_pages(void **state)
{
    (void)state;
    const char *fx = tu_fixture("ncu/sm120-llm-decode/kernel_0002.roofline-section.csv");
    if (!fx)
        skip();
    rt_ncu_options o = {.allow_missing = true};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    const char *paths[] = {fx};
    assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
    assert_null(p);
    assert_true(strncmp(err.msg, fx, strlen(fx)) == 0);
    assert_non_null(strstr(err.msg, "a section page (column 'Body Item Label')"));
    assert_non_null(strstr(err.msg, "'Theoretical Predicated-On DFMA Thread Instructions"));
    assert_non_null(strstr(err.msg, "rooftime ncu-metrics --arch sm_120"));
    assert_non_null(strstr(err.msg, "--print-metric-name name"));
}

/* ---- synthetic files in ncu 2025's layout ---- */

static const char *const header20 =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
    "Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup "
    "Type\",\"Estimated Speedup\"\n";

/* A metric row as ncu 2025 writes it: 16 fields, the value's then an empty one. */
static void row(char **s, int id, const char *kernel, const char *m, const char *u, const char *v)
{
    char *old = *s;
    *s = rt_asprintf("%s\"%d\",\"9\",\"python3\",\"h\",\"%s\",\"1\",\"7\",\"(32, 4, 1)\","
                     "\"(224, 1, 1)\",\"0\",\"12.0\",\"Command line profiler metrics\",\"%s\","
                     "\"%s\",\"%s\",\n",
                     old, id, kernel, m, u, v);
    free(old);
}

/* A rule row: 20 fields, no metric. */
static void rule(char **s, int id, const char *kernel)
{
    char *old = *s;
    *s = rt_asprintf("%s\"%d\",\"9\",\"python3\",\"h\",\"%s\",\"1\",\"7\",\"(32, 4, 1)\","
                     "\"(224, 1, 1)\",\"0\",\"12.0\",\"Occupancy\",\"\",\"\",\"\","
                     "\"TheoreticalOccupancy\",\"OPT\",\"a rule, with a comma\",\"global\","
                     "\"80.34\"\n",
                     old, id, kernel);
    free(old);
}

/* One launch of kernel: its time, DRAM bytes and SASS half and single counts (v: "n/a" to make one
 * n/a). */
static void launch(char **s, int id, const char *kernel, const char *ffma, const char *hfma)
{
    row(s, id, kernel, "gpu__time_duration.sum", "nsecond", "2000");
    row(s, id, kernel, "dram__bytes_read.sum", "byte", "1,000");
    row(s, id, kernel, "dram__bytes_write.sum", "byte", "24");
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "1");
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "2");
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", ffma);
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst", "10");
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "inst", "20");
    row(s, id, kernel, "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", hfma);
    row(s, id, kernel, "flop_count_hp.sum", "", "n/a"); /* read by no formula: no word of it */
    rule(s, id, kernel);
}

/* Import text as one file: 0 and *p, or -1 with err. */
static int import_text(const char *text, rt_ncu_options *o, rt_profile **p, rt_warnings *w,
                       rt_error *err)
{
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/ncu.csv", dir);
    assert_int_equal(tu_write_file(path, text), 0);
    const char *paths[] = {path};
    int rc = rt_import_ncu(paths, 1, o, p, w, err);
    free(path);
    tu_rmtree(dir);
    free(dir);
    return rc;
}

/* The recipes of half-precision FLOPs: Nsight Compute's (the default) and the seed authors'. */
static void test_recipes(void **state)
{
    (void)state;
    char *s = rt_strdup(header20);
    launch(&s, 0, "k", "100", "1000");
    rt_ncu_options o = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (import_text(s, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    const rt_kernel *k = &p->kernels[0];
    assert_true(rt_values_get(&k->flops, "fp16", -1) == 2 * 10 + 2 * 20 + 4 * 1000);
    assert_true(rt_values_get(&k->flops, "fp32", -1) == 1 + 2 + 2 * 100);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "recipe"), "nsight");
    /* no cycles in the file: ncu's duration, 2000 ns, and DRAM read + write */
    assert_close(k->time, 2e-6, 1e-12);
    assert_true(rt_values_get(&k->bytes, "HBM", -1) == 1024);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "rules.1"),
                        "1 rows of ncu's analysis rules (an empty metric name) skipped");
    assert_null(rt_tags_get(&p->provenance.notes, "units.1")); /* base units: no rounding */
    rt_profile_free(p);
    o.recipe = "paper";
    if (import_text(s, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(rt_values_get(&p->kernels[0].flops, "fp16", -1) == 10 + 20 + 2 * 1000);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "recipe"), "paper");
    rt_profile_free(p);
    p = NULL;
    o.recipe = "nosuch";
    assert_int_equal(import_text(s, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "no recipe 'nosuch' (the mapping has nsight, paper)"));
    assert_null(p);
    free(s);
}

/* A row shorter than the header is a metric row when only the rule columns are missing; one
 * that stops before Metric Value is an error, and so is any short row where the header has no
 * rule columns. */
static void test_short_rows(void **state)
{
    (void)state;
    char *s = rt_strdup(header20);
    launch(&s, 0, "k", "1", "1");
    char *bad = rt_asprintf("%s\"1\",\"9\",\"python3\",\"h\",\"k\",\"1\",\"7\",\"(32, 4, 1)\","
                            "\"(224, 1, 1)\",\"0\",\"12.0\",\"S\",\"gpu__time_duration.sum\","
                            "\"nsecond\"\n",
                            s);
    rt_ncu_options o = {.allow_missing = true};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    assert_int_equal(import_text(bad, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "line 13: expected 20 fields as in the header, or at least 15 "
                                    "(a metric row may leave out the rule columns after them), "
                                    "found 14 (truncated file or missing fields?)"));
    free(bad);
    /* the same rows under a header without rule columns: 16 fields where it has 15 */
    char *h15 = rt_strndup(header20, strstr(header20, ",\"Rule Name\"") - header20);
    const char *body = strchr(s, '\n') + 1;
    char *t = rt_asprintf("%s\n%s", h15, body);
    assert_int_equal(import_text(t, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "line 2: expected 15 fields as in the header, found 16"));
    free(t);
    free(h15);
    free(s);
}

/* n/a on a metric a formula reads: the quantity is absent, never 0. In the first launch it is left
 * out of the profile; in a later one an error, or with --allow-missing the kernel's quantity left
 * out and said. The time n/a is an error either way. */
static void test_na(void **state)
{
    (void)state;
    char *s = rt_strdup(header20);
    launch(&s, 0, "first", "n/a", "1");
    launch(&s, 1, "later", "5", "1");
    launch(&s, 2, "later", "n/a", "1");
    rt_ncu_options o = {.allow_missing = true};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (import_text(s, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    /* the first launch had ffma n/a: no FP32 formula is chosen, said so */
    assert_int_equal(said(&w, "flops.fp32 not imported: metric "
                              "'sm__sass_thread_inst_executed_op_ffma_pred_on.sum' is n/a"),
                     1);
    for (size_t i = 0; i < p->n_kernels; i++)
        assert_false(rt_values_has(&p->kernels[i].flops, "fp32"));
    assert_non_null(strstr(rt_tags_get(&p->provenance.notes, "missing"),
                           "flops.fp32 (sm__sass_thread_inst_executed_op_ffma_pred_on.sum n/a)"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(s);

    /* ffma present in the first launch, n/a in a later one of 'later': an error, or with
     * --allow-missing its fp32 left out */
    s = rt_strdup(header20);
    launch(&s, 0, "first", "3", "1");
    launch(&s, 1, "later", "5", "1");
    launch(&s, 2, "later", "n/a", "1");
    o.allow_missing = false;
    assert_int_equal(import_text(s, &o, &p, &w, &err), -1);
    assert_non_null(strstr(err.msg, "launch 2 of process 9 (kernel 'later'): metric "
                                    "'sm__sass_thread_inst_executed_op_ffma_pred_on.sum' is n/a"));
    assert_non_null(strstr(err.msg, "--allow-missing leaves the quantities that read it out"));
    o.allow_missing = true;
    rt_warnings_release(&w);
    if (import_text(s, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        int later = strcmp(k->name, "later") == 0;
        assert_true(rt_values_has(&k->flops, "fp32") == !later);
        assert_true(rt_values_has(&k->flops, "fp16")); /* the other quantities stay */
    }
    assert_int_equal(said(&w, "kernel 'later': flops.fp32 left out: a metric it reads is n/a on 1 "
                              "of its 2 launches"),
                     1);
    assert_non_null(
        strstr(rt_tags_get(&p->provenance.notes, "missing"), "1 launches with a metric n/a"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(s);

    /* the time n/a: no time, whatever the options */
    s = rt_strdup(header20);
    launch(&s, 0, "first", "3", "1");
    row(&s, 1, "k", "gpu__time_duration.sum", "", "n/a");
    row(&s, 1, "k", "dram__bytes_read.sum", "byte", "1");
    assert_int_equal(import_text(s, &o, &p, &w, &err), -1);
    assert_non_null(strstr(err.msg, "metric 'gpu__time_duration.sum' is n/a"));
    assert_non_null(strstr(err.msg, "the launch has no time"));
    rt_warnings_release(&w);
    free(s);
}

/* Names ncu wrote mangled (--print-kernel-base mangled) are demangled as the collector demangles
 * them, once per name; launches of one mangled name are one kernel. The names are nvcc's, recorded
 * in tests/test-kernel-name-key.c. */
static void test_mangled_names(void **state)
{
    (void)state;
    static const char mangled[] = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFun"
                                  "ctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
    char *s = rt_strdup(header20);
    launch(&s, 0, mangled, "1", "1");
    launch(&s, 1, "plain_kernel", "1", "1");
    launch(&s, 2, mangled, "1", "1");
    launch(&s, 3, "_Znot((mangled", "1", "1");
    rt_ncu_options o = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (import_text(s, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 3);
    char *d = rt_demangle(mangled, strlen(mangled));
    assert_non_null(d);
    int found = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        if (strcmp(k->name, d) == 0) {
            assert_true(k->invocations == 2);
            found |= 1;
        }
        found |= strcmp(k->name, "plain_kernel") == 0 ? 2 : 0;
        found |= strcmp(k->name, "_Znot((mangled") == 0 ? 4 : 0; /* kept as written */
    }
    assert_int_equal(found, 7);
    free(d);
    rt_profile_free(p);
    free(s);
}

/* A section page whose rows carry metric names (ncu --print-metric-name name) is read. */
static void test_section_page_with_names(void **state)
{
    (void)state;
    const char *h = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
                    "\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
                    "\"Section Name\",\"Body Item Label\",\"Metric Name\",\"Metric Unit\","
                    "\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\","
                    "\"Estimated Speedup Type\",\"Estimated Speedup\"\n";
    const char *r = "\"0\",\"9\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\","
                    "\"12.0\",\"GPU Speed Of Light Throughput\",\"\",";
    char *s = rt_asprintf("%s%s\"gpu__time_duration.sum\",\"ns\",\"1,500\",\n"
                          "%s\"dram__bytes.sum\",\"Kbyte\",\"4.10\",\n",
                          h, r, r);
    rt_ncu_options o = {.allow_missing = true};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (import_text(s, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(p->kernels[0].time, 1.5e-6, 1e-12);
    assert_close(rt_values_get(&p->kernels[0].bytes, "HBM", -1), 4100, 1e-12);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "layout.1"),
                        "section page (Body Item Label)");
    assert_int_equal(said(&w, "('Kbyte') carry two decimals"), 1);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_metrics_pages),
        cmocka_unit_test(test_fixture_section_pages),
        cmocka_unit_test(test_recipes),
        cmocka_unit_test(test_short_rows),
        cmocka_unit_test(test_na),
        cmocka_unit_test(test_mangled_names),
        cmocka_unit_test(test_section_page_with_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
