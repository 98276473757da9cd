/* Whatever an importer writes loads back identically: every importer on every real input and on
 * every bad input of ../shared/fixtures/bad-inputs either fails with a message or yields a profile
 * that survives save -> load unchanged. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/table.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "testutil.h"

static char *tmp;
static int n_imported, n_refused;

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Save p, load it back and compare; p is freed. */
static void check_roundtrip(rt_profile *p, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/p.json", tmp);
    rt_error err;
    if (rt_profile_save(p, path, &err) != 0)
        fail_msg("%s: imported, but the profile cannot be saved: %s", what, err.msg);
    rt_profile *q = NULL;
    if (rt_profile_load(path, &q, &err) != 0)
        fail_msg("%s: imported and saved, but the profile does not load: %s", what, err.msg);
    if (!rt_profile_equal(p, q, &err))
        fail_msg("%s: the profile changed on save -> load: %s", what, err.msg);
    rt_profile_free(p);
    rt_profile_free(q);
    n_imported++;
}

/* Run one importer on one file; a refusal must say why. */
static void import_one(const char *kind, const char *path, const char *what)
{
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    int rc;
    if (strcmp(kind, "ncu") == 0)
        rc = rt_import_ncu(&path, 1, NULL, &p, &w, &err);
    else if (strcmp(kind, "table") == 0)
        rc = rt_import_table(path, NULL, &p, &w, &err);
    else if (strcmp(kind, "onednn") == 0)
        rc = rt_import_onednn(path, &p, &w, &err);
    else
        rc = rt_import_torch(path, NULL, &p, &w, &err);
    rt_warnings_release(&w);
    if (rc != 0) {
        if (err.msg[0] == '\0')
            fail_msg("%s: %s import failed without a message", what, kind);
        n_refused++;
        return;
    }
    check_roundtrip(p, what);
}

/* The kind of importer a bad input was written for, from its name; NULL for other commands. */
static const char *kind_of(const char *name)
{
    static const char *const kinds[] = {"ncu", "onednn", "table", "torch"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(name, kinds[i]) && !strstr(name, "ncumap"))
            return kinds[i];
    return NULL;
}

static void test_real_inputs(void **state)
{
    (void)state;
    char path[4096];
    const char *src = tu_src();
    static const char *const onednn[] = {"onednn-2.6-primitives.log", "onednn-2.6-timestamps.log",
                                         "onednn-2.6-torch-conv2d-backward.log",
                                         "onednn-2.6-torch-conv2d-forward.log",
                                         "onednn-2.6-torch-lstm-bf16.log"};
    for (size_t i = 0; i < sizeof onednn / sizeof *onednn; i++) {
        snprintf(path, sizeof path, "%s/tests/data/%s", src, onednn[i]);
        import_one("onednn", path, onednn[i]);
    }
    static const char *const torch[] = {"torch-1.13-conv2d-backward.json",
                                        "torch-1.13-lstm-forward-legacy.json",
                                        "torch-1.13-lstm-forward.json"};
    for (size_t i = 0; i < sizeof torch / sizeof *torch; i++) {
        snprintf(path, sizeof path, "%s/tests/data/%s", src, torch[i]);
        import_one("torch", path, torch[i]);
    }
    assert_int_equal(n_refused, 0); /* these are real, good inputs */
    if (!tu_fixtures())
        return;
    import_one("ncu", tu_fixture("ncu/gpp-ncu2021/raw.csv"), "gpp raw.csv");
    static const char *const tables[] = {"conv2d-pt.main.csv", "conv2d-tf1-noxla.main.csv",
                                         "conv2d-tf2-noxla.main.csv", "rnn1d-pt.main.csv"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(path, sizeof path, "paper-tables/%s", tables[i]);
        import_one("table", tu_fixture(path), tables[i]);
    }
    /* DeepCAM: twelve one-metric files joined */
    char *dir = strdup(tu_fixture("ncu/deepcam-pytorch-fp32-fw"));
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *paths[64];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (strncmp(e->d_name, "out.", 4) == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            paths[n++] = strdup(path);
        }
    closedir(d);
    rt_profile *p = NULL;
    rt_error err;
    assert_true(n >= 12);
    if (rt_import_ncu((const char *const *)paths, n, NULL, &p, NULL, &err) != 0)
        fail_msg("deepcam: %s", err.msg);
    check_roundtrip(p, "deepcam");
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(dir);
    assert_int_equal(n_refused, 0);
}

/* Found by fuzz-onednn: a version with invalid UTF-8 went into the profile as it was, and the saved
 * file lost it. */
static void test_onednn_version_not_utf8(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/v.log", tmp);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("onednn_verbose,info,oneDNN v2.\xff\xfe (commit x)\n", f);
    fputs("onednn_verbose,exec,cpu,reorder,simple:any,undef,src_f32::blocked:abcd:f0 "
          "dst_f32::blocked:acdb:f0,,,2x3x4x5,0.01\n",
          f);
    fclose(f);
    int before = n_imported;
    import_one("onednn", path, "version not UTF-8");
    assert_int_equal(n_imported, before + 1);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    const char *dir = tu_fixture("bad-inputs");
    if (!dir) {
        skip();
        return;
    }
    char *bad = strdup(dir);
    DIR *d = opendir(bad);
    assert_non_null(d);
    struct dirent *e;
    int tried = 0;
    while ((e = readdir(d))) {
        const char *kind = kind_of(e->d_name);
        if (!kind || has_suffix(e->d_name, ".md"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", bad, e->d_name);
        if (has_suffix(e->d_name, ".bin")) {
            /* the first byte picked the fuzz harness's options: the input is the rest */
            size_t len;
            char *data = tu_read_file(path, &len);
            assert_non_null(data);
            snprintf(path, sizeof path, "%s/input", tmp);
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            if (len > 1)
                fwrite(data + 1, 1, len - 1, f);
            fclose(f);
            free(data);
        }
        import_one(kind, path, e->d_name);
        tried++;
    }
    closedir(d);
    free(bad);
    printf("bad inputs: %d tried, %d imported and round-tripped, the rest refused\n", tried,
           n_imported);
    assert_true(tried >= 10);
}

static int setup(void **state)
{
    (void)state;
    tmp = tu_tmpdir();
    return tmp ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(tmp);
    free(tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_inputs),
        cmocka_unit_test(test_onednn_version_not_utf8),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
