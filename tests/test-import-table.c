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
#include "rooftime/util/strings.h"

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

/* A one-row-header table of per-config totals in the layout of the TF2 Conv2D notebooks: the
 * quantity columns are recognised without --map, every parameter column becomes a tag (so no two
 * rows merge and the sweeps form families), a measurement column nobody maps is left unused, and
 * rows whose tags are all equal are an error naming both lines. */
static void test_one_row_parameters(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/conv2d-tf2.csv", dir);
    char *text =
        rt_strdup("Precision,Kernel Size,Filters,Stride Size,Batch Size,Pass,CUDA Time Avg,"
                  "CUDA Time Std,Invocations,FP32 FLOPs Avg,FP16 FLOPs Avg,TC FLOPs,"
                  "L1 Bytes Avg,L2 Bytes Avg,DRAM Bytes Avg\n");
    /* Per pass: a batch sweep (16, 32, 64) at 3/64/1 and a filter sweep (64, 128, 256) at batch
     * 16: five configs that differ only in numeric columns. */
    static const int rows[][4] = {
        {3, 64, 1, 16}, {3, 64, 1, 32}, {3, 64, 1, 64}, {3, 128, 1, 16}, {3, 256, 1, 16}};
    int nrows = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 5; i++) {
            const int *r = rows[i];
            double scale = r[1] * r[3] * (pass ? 2.0 : 1.0);
            char *old = text;
            text =
                rt_asprintf("%sFP32,%d,%d,%d,%d,%s,%g,1e-6,%d,%g,%g,0,%g,%g,%g\n", old, r[0], r[1],
                            r[2], r[3], pass ? "backward" : "forward", scale * 1e-7, 4 + pass,
                            scale * 1e6, scale * 1e3, scale * 4e5, scale * 2e5, scale * 1e5);
            free(old);
            nrows++;
        }
    assert_int_equal(tu_write_file(path, text), 0);
    rt_profile *p = NULL;
    rt_error err = {{0}};
    rt_warnings w = {0};
    if (rt_import_table(path, NULL, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, nrows);
    const rt_kernel *k = &p->kernels[1]; /* FP32 3 64 1 32 forward */
    assert_close(k->time, 64 * 32 * 1e-7, 1e-12);
    assert_close(k->invocations, 4, 0);
    assert_close(rt_values_get(&k->flops, "fp32", 0), 64 * 32 * 1e6, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp16", 0), 64 * 32 * 1e3, 1e-12);
    assert_close(rt_values_get(&k->bytes, "HBM", 0), 64 * 32 * 1e5, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L2", 0), 64 * 32 * 2e5, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L1", 0), 64 * 32 * 4e5, 1e-12);
    assert_string_equal(rt_tags_get(&k->tags, "Batch Size"), "32");
    assert_string_equal(rt_tags_get(&k->tags, "Filters"), "64");
    assert_string_equal(rt_tags_get(&k->tags, "Kernel Size"), "3");
    assert_string_equal(rt_tags_get(&k->tags, "Stride Size"), "1");
    assert_null(rt_tags_get(&k->tags, "CUDA Time Std"));
    assert_string_equal(rt_tags_get(&p->provenance.formulas, "time"), "CUDA Time Avg");
    assert_string_equal(rt_tags_get(&p->provenance.formulas, "bytes.HBM"), "DRAM Bytes Avg");
    assert_string_equal(rt_tags_get(&p->provenance.notes, "unused columns"), "CUDA Time Std");
    assert_string_equal(rt_tags_get(&p->provenance.notes, "tags"),
                        "Precision, Kernel Size, Filters, Stride Size, Batch Size, Pass");
    assert_int_equal(w.n, 0);

    /* Every row its own config; per pass one batch family and one filter family. */
    rt_machine *m = NULL;
    if (rt_machine_resolve("v100", &m, &err) != 0)
        fail_msg("%s", err.msg);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    if (!a)
        fail_msg("%s", err.msg);
    assert_int_equal(a->n_configs, nrows);
    int batch = 0, filters = 0;
    for (size_t f = 0; f < a->n_families; f++) {
        batch += strcmp(a->families[f].param, "Batch Size") == 0 && a->families[f].n == 3;
        filters += strcmp(a->families[f].param, "Filters") == 0 && a->families[f].n == 3;
    }
    assert_int_equal(batch, 2);
    assert_int_equal(filters, 2);
    rt_analysis_free(a);
    rt_machine_free(m);
    rt_profile_free(p);
    p = NULL;

    /* The same parameters twice (a repeated measurement): both lines named. */
    char *dup = rt_asprintf("%sFP32,3,64,1,32,forward,1e-4,0,4,1,1,0,1,1,1\n", text);
    assert_int_equal(tu_write_file(path, dup), 0);
    assert_int_equal(rt_import_table(path, NULL, &p, NULL, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "lines 3 and 12 have the same tags"));
    assert_non_null(strstr(err.msg, "Batch Size=32"));
    assert_non_null(strstr(err.msg, "merge into one config"));

    rt_warnings_release(&w);
    free(dup);
    free(text);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* The AI table joins by its tag columns through a map, whatever its row order; a row it lacks is
 * an error naming the line. */
static void test_ai_join_any_order(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *mp = rt_asprintf("%s/m.csv", dir), *ap = rt_asprintf("%s/a.csv", dir);
    assert_int_equal(tu_write_file(mp, ",,CUDA Time,Invocations,FP32 FLOPs,DRAM AI\n"
                                       "Batch,Pass,,,,\n"
                                       "16,fwd,1e-3,1,1e9,10\n"
                                       "32,fwd,2e-3,1,2e9,10\n"
                                       "16,bwd,3e-3,1,4e9,10\n"),
                     0);
    assert_int_equal(tu_write_file(ap, ",,L2 AI,L1 AI\n"
                                       "Pass,Batch,,\n"
                                       "bwd,16,8,2\n"
                                       "fwd,32,5,1\n"
                                       "fwd,16,4,1\n"
                                       "fwd,16,99,99\n"),
                     0);
    rt_table_options o = {.ai_file = ap};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_table(mp, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 3);
    static const double l2[] = {1e9 / 4, 2e9 / 5, 4e9 / 8};
    for (size_t i = 0; i < 3; i++)
        assert_close(rt_values_get(&p->kernels[i].bytes, "L2", 0), l2[i], 1e-9);
    rt_profile_free(p);
    p = NULL;
    assert_int_equal(tu_write_file(ap, ",,L2 AI,L1 AI\nPass,Batch,,\nfwd,16,4,1\n"), 0);
    assert_int_equal(rt_import_table(mp, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "m.csv: line 4: no row with the same Pass"));
    free(mp);
    free(ap);
    tu_rmtree(dir);
    free(dir);
}

/* What a table holds is bounded: past max_bytes (cells' text and 8 bytes each, 8 a row), an error
 * names the file and the line; columns the import lacks fail at the header, before any row. */
static void test_table_limits(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/big.csv", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("name,CUDA Time,note\n", fp);
    /* 111 bytes of text and 32 of index a row: 1 MiB holds 7332 rows; line 7334 is one too many. */
    for (int i = 0; i < 10000; i++)
        fprintf(fp, "k%06d,1,%0100d\n", i, 0);
    fclose(fp);
    rt_table_options o = {.max_bytes = (size_t)1 << 20};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    assert_int_equal(rt_import_table(path, &o, &p, NULL, &err), -1);
    assert_null(p);
    if (!strstr(err.msg, "big.csv: line 7334: the table's cells take more than 1 MiB"))
        fail_msg("%s", err.msg);
    o.max_bytes = (size_t)2 << 20;
    if (rt_import_table(path, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 10000);
    rt_profile_free(p);
    p = NULL;
    /* No time column, and a broken row further down: the header answers first. */
    assert_int_equal(tu_write_file(path, "name,Invocations\nk,1\nk2\n"), 0);
    assert_int_equal(rt_import_table(path, NULL, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "no time column"));
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* Two columns of one name are an error naming both: the time was read from the first and a tag
 * from the last, the other dropped. Blank names repeat (the paper's two-row header). */
static void test_duplicate_columns(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/dup.csv", dir);
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"name,CUDA Time,CUDA Time\nk,1,2\n", "line 1: columns 2 and 3 are both named 'CUDA Time'"},
        {"name,CUDA Time,Batch Size,Batch Size\nk,1,16,32\n",
         "line 1: columns 3 and 4 are both named 'Batch Size'"},
        {",,CUDA Time\nname,CUDA Time,\nk,1,2\n",
         "line 2: columns 2 and 3 are both named 'CUDA Time'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(tu_write_file(path, cases[i].text), 0);
        rt_profile *p = NULL;
        rt_error err = {{0}};
        assert_int_equal(rt_import_table(path, NULL, &p, NULL, &err), -1);
        assert_null(p);
        if (!strstr(err.msg, cases[i].says))
            fail_msg("'%s' does not say '%s'", err.msg, cases[i].says);
    }
    assert_int_equal(tu_write_file(path, ",,CUDA Time\nname,Batch Size,\nk,1,2\n"), 0);
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_table(path, NULL, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    rt_profile_free(p);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* Excel in a decimal-comma locale separates by semicolons; other tools by tabs: one column, said
 * so at the header (it was "expected 1 fields as in the header, found 2" or "no time column"). */
static void test_other_separators(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/sep.csv", dir);
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"name;CUDA Time\nk;1,5\n", "sep.csv: line 1: one column, 'name;CUDA Time': the file is "
                                    "separated by semicolons, not commas"},
        {"name\tCUDA Time\nk\t1.5\n", "the file is separated by tabs, not commas"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(tu_write_file(path, cases[i].text), 0);
        rt_profile *p = NULL;
        rt_error err = {{0}};
        assert_int_equal(rt_import_table(path, NULL, &p, NULL, &err), -1);
        if (!strstr(err.msg, cases[i].says))
            fail_msg("'%s' does not say '%s'", err.msg, cases[i].says);
    }
    free(path);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d_pt_first_row), cmocka_unit_test(test_conv2d_families),
        cmocka_unit_test(test_lstm_families),       cmocka_unit_test(test_plain_table_with_map),
        cmocka_unit_test(test_one_row_parameters),  cmocka_unit_test(test_ai_join_any_order),
        cmocka_unit_test(test_table_limits),        cmocka_unit_test(test_duplicate_columns),
        cmocka_unit_test(test_other_separators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
