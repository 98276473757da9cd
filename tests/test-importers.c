/* The importers' table (rooftime/import/importers.h), which `rooftime import`, the C API and
 * Python read: every row complete, its names and letters unique and clear of -o/-t, each default
 * an option states found in its help, and an option's bad value reported through rt_error with
 * the message the command and the API print after their prefixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/import/importers.h"
#include "rooftime/util/error.h"

static void test_rows_complete(void **state)
{
    (void)state;
    assert_true(rt_n_importers >= 5);
    for (size_t i = 0; i < rt_n_importers; i++) {
        const rt_importer *im = rt_importers[i];
        assert_non_null(im->name);
        assert_ptr_equal(rt_importer_find(im->name), im);
        assert_non_null(im->summary);
        assert_non_null(im->synopsis);
        assert_non_null(im->help);
        assert_non_null(im->no_input);
        assert_true(im->max_inputs == 0 || im->too_many);
        assert_non_null(im->apply);
        assert_non_null(im->read);
        assert_non_null(im->report);
        /* the synopsis and the paragraph end their lines; the usage joins them as they are */
        assert_int_equal(im->synopsis[strlen(im->synopsis) - 1], '\n');
        assert_int_equal(im->help[strlen(im->help) - 1], '\n');
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(rt_importers[j]->name, im->name);
    }
    assert_null(rt_importer_find("nvprof"));
    assert_null(rt_importer_find(NULL));
}

static void test_options_unique_and_documented(void **state)
{
    (void)state;
    for (size_t i = 0; i < rt_n_importers; i++) {
        const rt_importer *im = rt_importers[i];
        for (size_t k = 0; k < im->n_options; k++) {
            const rt_import_option *o = &im->options[k];
            assert_ptr_equal(rt_import_option_find(im, o->name), o);
            assert_true(strcmp(o->name, "output") != 0 && strcmp(o->name, "tag") != 0);
            assert_true(o->letter != 'o' && o->letter != 't');
            assert_true((o->arg == RT_IMPORT_FLAG) == (o->label == NULL));
            for (size_t j = 0; j < k; j++)
                assert_true(!o->letter || im->options[j].letter != o->letter);
            /* an option without help of its own is described in the synopsis or the paragraph */
            char *dashed = malloc(strlen(o->name) + 3);
            sprintf(dashed, "--%s", o->name);
            if (!o->help)
                assert_true(strstr(im->synopsis, dashed) || strstr(im->help, dashed));
            free(dashed);
            /* the default the row states is one its help gives */
            if (o->def && !(o->help && strstr(o->help, o->def)) && !strstr(im->help, o->def) &&
                !strstr(im->synopsis, o->def))
                fail_msg("import %s --%s: default '%s' not in its help", im->name, o->name, o->def);
        }
        assert_null(rt_import_option_find(im, "no-such-option"));
    }
}

/* A bad value: -1, and the message as `rooftime import` prints it after "rooftime: error: ". */
static void expect_bad(const char *kind, const char *name, const char *value, const char *msg)
{
    const rt_importer *im = rt_importer_find(kind);
    assert_non_null(im);
    const rt_import_option *o = rt_import_option_find(im, name);
    assert_non_null(o);
    void *st = calloc(1, im->state_size);
    rt_error err = {{0}};
    assert_int_equal(im->apply(st, o, value, &err), -1);
    if (!strstr(err.msg, msg))
        fail_msg("import %s --%s %s: '%s' lacks '%s'", kind, name, value, err.msg, msg);
    if (im->release)
        im->release(st);
    free(st);
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_bad("ncu", "tensor-factor", "0", "--tensor-factor takes a number > 0, not '0'");
    expect_bad("ncu", "tensor-factor", "", "--tensor-factor takes a number > 0, not ''");
    expect_bad("ncu", "arch", "sm_1", "sm_1");
    expect_bad("table", "map", "time", "--map takes quantity=column, not 'time'");
    expect_bad("table", "map", "=x", "--map takes quantity=column, not '=x'");
    expect_bad("table", "time", "cpu", "--time: ");
    expect_bad("onednn", "conv-flops", "all", "--conv-flops: ");
    expect_bad("torch", "threads", "0", "--threads: '0' is not a thread count (1 to ");
    expect_bad("torch", "threads", "2x", "--threads: '2x' is not a thread count");
}

/* --map's value is copied: the caller's string may go once the option is applied. */
static void test_map_copies(void **state)
{
    (void)state;
    const rt_importer *im = rt_importer_find("table");
    void *st = calloc(1, im->state_size);
    char v[] = "time=CUDA Time";
    rt_error err = {{0}};
    assert_int_equal(im->apply(st, rt_import_option_find(im, "map"), v, &err), 0);
    assert_string_equal(v, "time=CUDA Time");
    im->release(st);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_options_unique_and_documented),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_map_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
