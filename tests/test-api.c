/* Tests of the C API of librooftime.so (src/api): every bad argument is an error with a message,
 * never a crash; a call clears the last call's error; the data directory can be set. */
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
                                "tensor-factor, arch, allow-missing, per-launch, tag)",
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
    assert_string_equal(rt_api_import_options("onednn"), "conv-flops=\ntag=*\n");
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
    rt_api_analysis_free(NULL);
    rt_api_across_free(NULL);
    rt_api_free(NULL);
}

static void test_analysis_and_its_outputs(void **state)
{
    (void)state;
    const char *src = getenv("ROOFTIME_SRC");
    if (!src)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/data/examples/conv2d-pt-fp16.json", src);
    rt_machine *m = rt_api_machine_load("v100");
    rt_profile *p = rt_api_profile_load(path);
    assert_non_null(m);
    assert_non_null(p);
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
        cmocka_unit_test(test_datadir_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
