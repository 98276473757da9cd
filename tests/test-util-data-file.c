/* The one loader of data files: every shipped file loads through it with its schema, and a bad
 * file fails with a message naming the file and the line, column or field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/data-file.h"
#include "testutil.h"

static void test_shipped_files_load(void **state)
{
    (void)state;
    static const char *const files[][2] = {
        {"ncu/metrics.json", "rooftime.ncu-metrics/1"},
        {"ncu/units.json", "rooftime.ncu-units/1"},
        {"onednn/cost.json", "rooftime.onednn-cost/1"},
        {"onednn/verbose-formats.json", "rooftime.onednn-verbose/1"},
        {"onednn/units.json", "rooftime.onednn-units/1"},
        {"torch/ops.json", "rooftime.torch-ops/1"},
        {"torch/hints.json", "rooftime.hints/1"},
        {"verdict-hints.json", NULL},
        {"comm/kernels.json", NULL},
        {"gpu/architectures.json", NULL},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        rt_data_file f;
        rt_error err = {{0}};
        if (rt_data_file_load(&f, NULL, files[i][0], files[i][1], &err) != 0)
            fail_msg("%s: %s", files[i][0], err.msg);
        assert_non_null(f.root);
        assert_non_null(strstr(f.path, files[i][0]));
        /* a shipped file is named as data/..., never by its local path */
        assert_non_null(strstr(f.label, "data/"));
        rt_data_file_release(&f);
        rt_data_file_release(&f); /* a released one is zeroed: a no-op */
    }
}

/* Write text to a file in a temporary directory; the path is a heap string. */
static char *write_tmp(const char *name, const char *text)
{
    char *dir = tu_tmpdir();
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    free(dir);
    return path;
}

static void expect_error(const char *name, const char *text, const char *schema, const char *msg)
{
    char *path = write_tmp(name, text);
    rt_data_file f;
    rt_error err = {{0}};
    assert_int_equal(rt_data_file_load(&f, path, "unused", schema, &err), -1);
    assert_null(f.root);
    assert_null(f.path);
    if (!strstr(err.msg, msg) || !strstr(err.msg, path))
        fail_msg("'%s': got '%s', expected '%s'", name, err.msg, msg);
    free(path);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_error("dup.json", "{\"schema\": \"s/1\", \"a\": 1, \"a\": 2}", NULL,
                 "line 1, column 29: duplicate object key");
    expect_error("syntax.json", "{\n  \"a\": [1,\n}", NULL, "line 3, column 1:");
    expect_error("empty.json", "", NULL, "the file is empty");
    expect_error("array.json", "[1]", NULL,
                 "line 1, column 1: field '(top)': expected an object, got an array");
    expect_error("schema.json", "{\"schema\": \"other/1\"}", "want/1",
                 "line 1, column 12: field 'schema': expected \"want/1\", got \"other/1\"");
    expect_error("noschema.json", "{}", "want/1", "line 1, column 1: field 'schema': missing");
    expect_error("nul.json", "{\"a\":\0}", NULL, "cannot read");
    rt_data_file f;
    rt_error err = {{0}};
    assert_int_equal(rt_data_file_load(&f, "/nonexistent/x.json", NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read '/nonexistent/x.json'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_files_load),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
