/* Tests of the table importer: the paper's V100 tables, their families, and plain one-header
 * tables. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/import/table.h"
#include "rooftime/util/error.h"

static rt_profile *import_paper(const char *name, int with_ai)
{
    char main_rel[256], ai_rel[256];
    snprintf(main_rel, sizeof main_rel, "paper-tables/%s.main.csv", name);
    snprintf(ai_rel, sizeof ai_rel, "paper-tables/%s.l2-l1-ai.csv", name);
    const char *p = tu_fixture(main_rel);
    if (!p)
        return NULL;
    char *mp = strdup(p);
    char *ap = strdup(tu_fixture(ai_rel));
    rt_table_options o = {.ai_file = with_ai ? ap : NULL};
    rt_profile *prof = NULL;
    rt_error err = {{0}};
    if (rt_import_table(mp, &o, &prof, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    free(mp);
    free(ap);
    return prof;
}

/* The first row of conv2d-pt, as printed: bytes per level = FLOPs / AI. */
static void test_conv2d_pt_first_row(void **state)
{
    (void)state;
    if (!tu_fixtures())
        skip();
    rt_profile *p = import_paper("conv2d-pt", 1);
    assert_int_equal(p->n_kernels, 40);
    const rt_kernel *k = &p->kernels[0];
    assert_close(k->time, 0.000791, 1e-12);
    assert_close(k->invocations, 15, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp32", 0), 8.844767e+07, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp16", 0), 70222336.0, 1e-12);
    assert_close(rt_values_get(&k->flops, "tensor", 0), 2.166777e+10, 1e-12);
    assert_close(rt_values_get(&k->bytes, "HBM", 0), 2.182644e+10 / 75.351610, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L2", 0), 2.182644e+10 / 44.461537, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L1", 0), 2.182644e+10 / 20.485758, 1e-12);
    assert_string_equal(rt_tags_get(&k->tags, "Precision"), "FP16");
    assert_string_equal(rt_tags_get(&k->tags, "Pass"), "backward");
    assert_string_equal(rt_tags_get(&k->tags, "Batch Size"), "16");
    assert_string_equal(rt_tags_get(&k->tags, "Framework"), "PT");
    assert_string_equal(rt_tags_get(&k->tags, "Filters"), "128");
    assert_string_equal(rt_tags_get(&k->tags, "Kernel Size"), "3");
    assert_null(
        rt_tags_get(&k->tags, "Kernel Shape")); /* in the name: it splits into the two above */
    assert_null(rt_tags_get(&k->tags, "Input Shape"));
    assert_non_null(strstr(k->name, "3x3x64x128"));
    rt_profile_free(p);

    /* Without the AI file the main table's elided L1 AI is simply absent. */
    p = import_paper("conv2d-pt", 0);
    assert_false(rt_values_has(&p->kernels[0].bytes, "L1"));
    assert_true(rt_values_has(&p->kernels[0].bytes, "L2"));
    rt_profile_free(p);
}

static int family_is(const rt_analysis *a, const rt_family *f, const char *const *want, size_t n)
{
    if (f->n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rt_tags_get(&a->configs[f->configs[i]].tags, f->param), want[i]) != 0)
            return 0;
    return 1;
}

/* Each (precision, pass) must have exactly one family per swept parameter, with the paper's values.
 */
static void check_families(const char *table, const char *const *params,
                           const char *const *const *values, const size_t *nvalues, size_t nparams)
{
    rt_profile *p = import_paper(table, 1);
    rt_machine *m = NULL;
    rt_error err = {{0}};
    if (rt_machine_resolve("v100", &m, &err) != 0)
        fail_msg("%s", err.msg);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    if (!a)
        fail_msg("%s", err.msg);
    assert_int_equal(a->n_configs, p->n_kernels);
    assert_int_equal(a->n_families, 4 * nparams);
    static const char *const prec[] = {"FP16", "FP32"}, *const pass[] = {"forward", "backward"};
    for (size_t pr = 0; pr < 2; pr++)
        for (size_t ps = 0; ps < 2; ps++)
            for (size_t q = 0; q < nparams; q++) {
                int found = 0;
                for (size_t f = 0; f < a->n_families; f++) {
                    const rt_family *fam = &a->families[f];
                    const rt_tags *t = &a->configs[fam->configs[0]].tags;
                    if (strcmp(fam->param, params[q]) != 0 ||
                        strcmp(rt_tags_get(t, "Precision"), prec[pr]) != 0 ||
                        strcmp(rt_tags_get(t, "Pass"), pass[ps]) != 0)
                        continue;
                    if (!family_is(a, fam, values[q], nvalues[q]))
                        fail_msg("%s: family %s of %s %s has %zu configs", table, params[q],
                                 prec[pr], pass[ps], fam->n);
                    found++;
                }
                if (found != 1)
                    fail_msg("%s: %d families of %s for %s %s", table, found, params[q], prec[pr],
                             pass[ps]);
            }
    rt_analysis_free(a);
    rt_machine_free(m);
    rt_profile_free(p);
}

static void test_conv2d_families(void **state)
{
    (void)state;
    if (!tu_fixtures())
        skip();
    static const char *const params[] = {"Batch Size", "Filters", "Kernel Size", "Stride Size"};
    static const char *const batch[] = {"16", "32", "64"},
                             *const filters[] = {"64", "128", "256", "512"},
                             *const ksize[] = {"3", "7", "9"}, *const stride[] = {"1", "2", "3"};
    static const char *const *const values[] = {batch, filters, ksize, stride};
    static const size_t n[] = {3, 4, 3, 3};
    check_families("conv2d-pt", params, values, n, 4);
    check_families("conv2d-tf1-noxla", params, values, n, 4);
    check_families("conv2d-tf2-noxla", params, values, n, 4);
}

static void test_lstm_families(void **state)
{
    (void)state;
    if (!tu_fixtures())
        skip();
    static const char *const params[] = {"Batch Size", "Time Steps", "Features", "Hidden Size"};
    static const char *const batch[] = {"16", "32", "64", "128"},
                             *const steps[] = {"16", "32", "64", "128"},
                             *const feat[] = {"32", "64", "128"},
                             *const hidden[] = {"16", "32", "64", "128"};
    static const char *const *const values[] = {batch, steps, feat, hidden};
    static const size_t n[] = {4, 4, 3, 4};
    check_families("rnn1d-pt", params, values, n, 4);
}

/* A plain table with one header row, explicit mappings, a tag column and bytes given directly. */
static void test_plain_table_with_map(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    assert_int_equal(tu_write_file(path, "kernel,secs,calls,flop32,dram_bytes,l2ai,batch\n"
                                         "\"gemm<1,2>\",0.5,10,1e9,2e8,4,16\n"
                                         "relu,0.25,5,0,1e6,0,32\n"),
                     0);
    rt_table_map map[] = {{"name", "kernel"},          {"time", "secs"},
                          {"invocations", "calls"},    {"flops.fp32", "flop32"},
                          {"bytes.HBM", "dram_bytes"}, {"ai.L2", "l2ai"},
                          {"tag.batch", "batch"}};
    rt_warnings w = {0};
    rt_table_options o = {.map = map, .n_map = 7, .no_defaults = true};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_table(path, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 2);
    assert_non_null(strstr(p->kernels[0].name, "gemm<1,2>"));
    assert_close(p->kernels[0].time, 0.5, 1e-15);
    assert_close(p->kernels[0].invocations, 10, 1e-15);
    assert_close(rt_values_get(&p->kernels[0].bytes, "HBM", 0), 2e8, 1e-15);
    assert_close(rt_values_get(&p->kernels[0].bytes, "L2", 0), 2.5e8, 1e-15);
    assert_string_equal(rt_tags_get(&p->kernels[1].tags, "batch"), "32");
    /* A zero-FLOP row with AI 0: its L2 bytes are unknown, said in a warning. */
    assert_false(rt_values_has(&p->kernels[1].bytes, "L2"));
    assert_int_equal(w.n, 1);
    rt_warnings_release(&w);
    rt_profile_free(p);

    rt_table_map bad[] = {{"time", "no such column"}};
    rt_table_options o2 = {.map = bad, .n_map = 1};
    assert_int_equal(rt_import_table(path, &o2, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "no such column"));
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d_pt_first_row),
        cmocka_unit_test(test_conv2d_families),
        cmocka_unit_test(test_lstm_families),
        cmocka_unit_test(test_plain_table_with_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
