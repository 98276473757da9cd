/* Tests of the C API of librooftime.so (src/api): every bad argument is an error with a message,
 * never a crash; a call clears the last call's error; the data directory can be set. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/api/api.h"
#include "rooftime/util/datadir.h"
#include "testutil.h"

static void test_bad_arguments_fail_with_a_message(void **state)
{
    (void)state;
    assert_null(rt_api_machine_load(NULL));
    assert_true(strstr(rt_api_error(), "no machine given") != NULL);
    assert_null(rt_api_machine_load("no-such-preset"));
    assert_true(strstr(rt_api_error(), "no-such-preset") != NULL);
    assert_null(rt_api_profile_load(NULL));
    assert_null(rt_api_profile_load("/nonexistent/p.json"));
    assert_true(strstr(rt_api_error(), "/nonexistent/p.json") != NULL);
    const char *none[] = {NULL};
    assert_null(rt_api_import("ncu", none, 1, NULL, NULL));
    assert_null(rt_api_import(NULL, NULL, 0, NULL, NULL));
    assert_null(rt_api_import("table", NULL, 0, NULL, NULL));
    assert_true(strstr(rt_api_error(), "no input") != NULL);
    const char *two[] = {"a", "b"};
    assert_null(rt_api_import("torch", two, 2, NULL, NULL));
    assert_true(strstr(rt_api_error(), "one input at a time") != NULL);
    assert_null(rt_api_import("torch", two, 1, NULL, "diagonal"));
    assert_true(strstr(rt_api_error(), "import torch: --conv-flops: ") != NULL);
    /* the options of `import KIND` as name/value pairs: checked before anything is read */
    rt_api_option bad[][1] = {{{"within", "x"}}, {{"per-launch", "1"}},    {{"arch", NULL}},
                              {{NULL, "x"}},     {{"tensor-factor", "0"}}, {{"tag", "=v"}}};
    const char *const msgs[] = {"import ncu: unknown option 'within' (it takes metrics, "
                                "tensor-factor, arch, recipe, allow-missing, per-launch, tag)",
                                "import ncu: --per-launch takes no value, not '1'",
                                "import ncu: --arch needs a value",
                                "import ncu: unknown option '(none)'",
                                "import ncu: --tensor-factor takes a number > 0, not '0'",
                                "import ncu: --tag takes key=value, not '=v'"};
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
        assert_null(rt_api_import_opts("ncu", two, 1, bad[i], 1));
        assert_true(strstr(rt_api_error(), msgs[i]) == rt_api_error());
    }
    assert_null(rt_api_import_opts("ncu", two, 1, NULL, 1));
    assert_null(rt_api_import_opts("nvprof", two, 1, NULL, 0));
    assert_true(strstr(rt_api_error(), "unknown kind 'nvprof'") != NULL);
    assert_null(rt_api_import_options(NULL));
    assert_string_equal(rt_api_import_options("onednn"), "conv-flops=\nthreads=\ntag=*\n");
    assert_null(rt_api_machine_measure_opts(1, "0", NULL));
    assert_true(strstr(rt_api_error(), "--threads: expected a positive whole number") != NULL);
    assert_null(rt_api_machine_measure_opts(1, NULL, "avx9"));
    assert_true(strstr(rt_api_error(), "--max-isa: ") != NULL);
    assert_null(rt_api_analyze(NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL));
    assert_null(rt_api_analysis_text(NULL, "csv", 0));
    assert_null(rt_api_analysis_svg(NULL, NULL));
    assert_int_equal(rt_api_analysis_plot(NULL, NULL, "x.svg"), -1);
    assert_int_equal(rt_api_analysis_report(NULL, NULL, "dir"), -1);
    assert_null(rt_api_machine_json(NULL));
    assert_null(rt_api_profile_json(NULL));
    assert_null(rt_api_across_new(NULL, 0, 0, 0));
    assert_null(rt_api_across_text(NULL, "text", 0));
    assert_null(rt_api_analysis_table(NULL, "kernel"));
    rt_api_analysis_free(NULL);
    rt_api_table_free(NULL);
    rt_api_across_free(NULL);
    rt_api_free(NULL);
}

/* The V100 preset and the example profile of the checkout ($ROOFTIME_SRC; skips without it). */
static void load_example(rt_machine **m, rt_profile **p)
{
    const char *src = getenv("ROOFTIME_SRC");
    if (!src)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/data/examples/conv2d-pt-fp16.json", src);
    *m = rt_api_machine_load("v100");
    *p = rt_api_profile_load(path);
    assert_non_null(*m);
    assert_non_null(*p);
}

static void test_analysis_and_its_outputs(void **state)
{
    (void)state;
    rt_machine *m;
    rt_profile *p;
    load_example(&m, &p);
    assert_int_equal(rt_api_profile_kernels(p), 6);
    assert_null(rt_api_analyze(m, &p, 1, "fast", NULL, NULL, NULL, NULL));
    assert_null(rt_api_analyze(m, &p, 1, NULL, "soon", NULL, NULL, NULL));
    assert_true(strstr(rt_api_error(), "tau takes") != NULL);
    rt_api_analysis *a = rt_api_analyze(m, &p, 1, NULL, "10us", NULL, "pass", NULL);
    assert_non_null(a);
    assert_string_equal(rt_api_error(), ""); /* a call that succeeds clears the error */
    char *csv = rt_api_analysis_text(a, "csv", 0);
    assert_non_null(csv);
    assert_true(strncmp(csv, "kind,rank,name,config,", 22) == 0);
    rt_api_free(csv);
    char *f = rt_api_analysis_text(a, "findings", 0);
    assert_non_null(f);
    assert_true(f[0] == '[' && strstr(f, "\"source\"") != NULL);
    rt_api_free(f);
    assert_null(rt_api_analysis_text(a, "yaml", 0));
    rt_api_plot_opts o = {.view = "time", .where = "pass=forward\nbad"};
    assert_null(rt_api_analysis_svg(a, &o));
    assert_true(strstr(rt_api_error(), "'bad'") != NULL);
    o.where = "pass=forward";
    char *svg = rt_api_analysis_svg(a, &o);
    assert_non_null(svg);
    assert_true(strstr(svg, "</svg>") != NULL);
    rt_api_free(svg);
    o.width = 50;
    assert_null(rt_api_analysis_svg(a, &o));
    rt_api_analysis_free(a);
    rt_api_profile_free(p);
    rt_api_machine_free(m);
}

/* Field j of a CSV line without quotes (the example's), into buf. */
static void csv_field_at(const char *line, size_t j, char *buf, size_t n)
{
    for (; j > 0; j--)
        line = strchr(line, ',') + 1;
    size_t len = strcspn(line, ",\n");
    assert_true(len < n);
    memcpy(buf, line, len);
    buf[len] = '\0';
}

/* The columns of a table are the CSV's rows of its kind, field for field once printed as the
 * CSV prints them. */
static void check_table_is_csv(rt_api_analysis *a, const char *kind, const char *csv)
{
    rt_api_table *t = rt_api_analysis_table(a, kind);
    assert_non_null(t);
    const char *line = csv;
    char want[256], got[256];
    for (size_t j = 0; j < t->n_columns; j++) { /* the header */
        csv_field_at(line, j, want, sizeof want);
        assert_string_equal(t->columns[j].name, want);
    }
    size_t commas = 0; /* and no more */
    for (const char *c = line; *c != '\n'; c++)
        commas += *c == ',';
    assert_int_equal(commas + 1, t->n_columns);
    size_t r = 0;
    const char **text = calloc(t->n_columns, sizeof *text);
    size_t n_opt = 0;
    for (size_t j = 0; j < t->n_columns; j++) { /* an optional text's strings follow its flags */
        text[j] = t->columns[j].data;
        if (t->columns[j].type == RT_API_OPT_TEXT) {
            text[j] += t->n_rows;
            n_opt++;
        }
    }
    assert_true(n_opt > 0); /* the example's tags: tag.framework ... tag.batch */
    while ((line = strchr(line, '\n')) && *++line) {
        if (strncmp(line, kind, strlen(kind)) != 0 || line[strlen(kind)] != ',')
            continue;
        assert_true(r < t->n_rows);
        for (size_t j = 0; j < t->n_columns; j++) {
            const rt_api_column *c = &t->columns[j];
            if (c->type == RT_API_TEXT || c->type == RT_API_OPT_TEXT) {
                bool has = c->type == RT_API_TEXT || ((const char *)c->data)[r];
                assert_true(has || !*text[j]); /* none: "" */
                snprintf(got, sizeof got, "%s", text[j]);
                text[j] += strlen(text[j]) + 1;
            } else if (c->type == RT_API_INT) {
                snprintf(got, sizeof got, "%lld", (long long)((const int64_t *)c->data)[r]);
            } else {
                double v = ((const double *)c->data)[r];
                snprintf(got, sizeof got, v == v ? "%.9g" : "", v);
            }
            csv_field_at(line, j, want, sizeof want);
            assert_string_equal(got, want);
        }
        r++;
    }
    assert_int_equal(r, t->n_rows);
    for (size_t j = 0; j < t->n_columns; j++)
        if (t->columns[j].type == RT_API_TEXT || t->columns[j].type == RT_API_OPT_TEXT)
            assert_ptr_equal(text[j], (const char *)t->columns[j].data + t->columns[j].size);
    free(text);
    rt_api_table_free(t);
}

static void test_tables_as_columns(void **state)
{
    (void)state;
    rt_machine *m;
    rt_profile *p;
    load_example(&m, &p);
    for (int single = 0; single < 2; single++) {
        rt_api_analysis *a =
            rt_api_analyze(m, &p, 1, single ? "single" : NULL, NULL, NULL, "pass", NULL);
        assert_non_null(a);
        char *csv = rt_api_analysis_text(a, "csv", 0);
        assert_non_null(csv);
        check_table_is_csv(a, "config", csv);
        check_table_is_csv(a, "kernel", csv);
        rt_api_free(csv);
        assert_null(rt_api_analysis_table(a, "kernels"));
        assert_string_equal(rt_api_error(), "unknown table 'kernels' (config or kernel)");
        assert_null(rt_api_analysis_table(a, NULL));
        rt_api_analysis_free(a);
    }
    rt_api_profile_free(p);
    rt_api_machine_free(m);
}

static void test_datadir_set(void **state)
{
    (void)state;
    const char *env = getenv("ROOFTIME_DATADIR");
    char *saved = env ? strdup(env) : NULL;
    unsetenv("ROOFTIME_DATADIR");
    rt_api_set_datadir("/nonexistent-data");
    assert_string_equal(rt_api_datadir(), "/nonexistent-data");
    assert_null(rt_api_machine_load("v100")); /* the presets are looked for there */
    rt_api_set_datadir(NULL);
    if (saved) {
        setenv("ROOFTIME_DATADIR", saved, 1);
        assert_string_equal(rt_datadir(), saved);
    }
    free(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments_fail_with_a_message),
        cmocka_unit_test(test_analysis_and_its_outputs),
        cmocka_unit_test(test_tables_as_columns),
        cmocka_unit_test(test_datadir_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
