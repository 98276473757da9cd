/* Every shipped machine preset and example profile survives load -> save -> load unchanged. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "testutil.h"

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Apply fn to every .json file in datadir/sub; returns how many. */
static int each_json(const char *sub, void (*fn)(const char *path))
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", rt_datadir(), sub);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".json"))
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void machine_roundtrip(const char *path)
{
    rt_machine *a, *b;
    rt_error err;
    if (rt_machine_load(path, &a, &err) != 0)
        fail_msg("%s", err.msg);
    char *dir = tu_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/m.json", dir);
    assert_int_equal(rt_machine_save(a, out, &err), 0);
    if (rt_machine_load(out, &b, &err) != 0)
        fail_msg("%s", err.msg);
    json_t *ja = rt_machine_to_json(a), *jb = rt_machine_to_json(b);
    if (!json_equal(ja, jb))
        fail_msg("machine %s changed in a round trip", path);
    /* Nothing of the original file is lost either. */
    json_t *orig = json_load_file(path, 0, NULL);
    if (!json_equal(orig, ja))
        fail_msg("machine %s: saved JSON differs from the file", path);
    json_decref(orig);
    json_decref(ja);
    json_decref(jb);
    rt_machine_free(a);
    rt_machine_free(b);
    tu_rmtree(dir);
    free(dir);
}

static void profile_roundtrip(const char *path)
{
    rt_profile *a, *b;
    rt_error err;
    if (rt_profile_load(path, &a, &err) != 0)
        fail_msg("%s", err.msg);
    char *dir = tu_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/p.json", dir);
    assert_int_equal(rt_profile_save(a, out, &err), 0);
    if (rt_profile_load(out, &b, &err) != 0)
        fail_msg("%s", err.msg);
    json_t *ja = rt_profile_to_json(a), *jb = rt_profile_to_json(b);
    if (!json_equal(ja, jb))
        fail_msg("profile %s changed in a round trip", path);
    assert_int_equal(a->n_kernels, b->n_kernels);
    json_decref(ja);
    json_decref(jb);
    rt_profile_free(a);
    rt_profile_free(b);
    tu_rmtree(dir);
    free(dir);
}

static void test_machines(void **state)
{
    (void)state;
    assert_true(each_json("machines", machine_roundtrip) >= 4);
}

static void test_profiles(void **state)
{
    (void)state;
    assert_true(each_json("examples", profile_roundtrip) >= 1);
}

/* A profile built in code keeps every field, unknown members included. */
static void test_profile_fields_and_extra(void **state)
{
    (void)state;
    const char *text =
        "{\"schema\": \"rooftime.profile/1\", \"source\": {\"tool\": \"t\", \"version\": \"1\", "
        "\"command\": \"c\", \"machine\": \"m\", \"method\": \"x\", \"pid\": 7}, \"tags\": "
        "{\"framework\": \"pt\", \"batch\": 16}, \"kernels\": [{\"name\": \"a<b>&c\", "
        "\"invocations\": 3, \"time\": 1.5e-06, \"flops\": {\"fp16\": 1e12}, \"bytes\": {\"L1\": "
        "12345678901234}, \"tags\": {\"pass\": \"fw\"}}], \"curve\": [1, 2]}";
    json_t *j = json_loads(text, 0, NULL);
    rt_profile *p;
    rt_error err;
    assert_int_equal(rt_profile_from_json(j, RT_JSON_NAMED("inline"), &p, &err), 0);
    assert_string_equal(p->kernels[0].name, "a<b>&c");
    assert_string_equal(rt_tags_get(&p->tags, "batch"), "16");
    assert_close(rt_values_get(&p->kernels[0].bytes, "L1", 0), 12345678901234.0, 0);
    json_t *back = rt_profile_to_json(p);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(back, "source"), "pid")),
                     7);
    assert_non_null(json_object_get(back, "curve"));
    json_decref(back);
    json_decref(j);
    rt_profile_free(p);
}

/* A saved profile, written a kernel at a time, is byte for byte the dump of rt_profile_to_json's
 * tree: unknown members before and after the kernels, escapes in keys and names, an identity,
 * provenance, spreads, no kernels at all. */
/* The saved file of p is byte for byte the dump of its tree (and a newline). */
static void saved_as_tree(const rt_profile *p, const char *path, const char *what)
{
    rt_error err;
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    json_t *tree = rt_profile_to_json(p);
    char *want = json_dumps(tree, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(tree);
    char *got = tu_read_file(path, NULL);
    assert_non_null(got);
    size_t n = strlen(want);
    if (strncmp(got, want, n) != 0 || strcmp(got + n, "\n") != 0)
        fail_msg("%s: saved\n%.2000s\nexpected\n%.2000s", what, got, want);
    free(got);
    free(want);
}

/* A saved profile, written a kernel at a time (several blocks of them on several threads), is
 * byte for byte the dump of rt_profile_to_json's tree: unknown members before and after the
 * kernels, escapes in keys and names, an identity, provenance, spreads, no kernels at all, and
 * ten thousand kernels. */
static void test_profile_save_stream(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"schema\": \"rooftime.profile/1\", \"source\": {\"tool\": \"t\", \"pid\": 7}, "
        "\"zeta\": {\"x\": [1, 2.5, null]}, \"identity\": {\"rank\": 3, \"size\": 8}, "
        "\"tags\": {\"k\\\"ey\\n\": \"v\\u00e9\"}, \"kernels\": [{\"name\": \"a\\tb\\\"c\", "
        "\"invocations\": 3, \"time\": 1.5e-06, \"time_spread\": {\"n\": 3, \"median\": 5e-7, "
        "\"q1\": 4e-7, \"q3\": 6e-7}, \"flops\": {\"fp16\": 1e12}, \"bytes\": {\"L1\": "
        "12345678901234}}, {\"name\": \"b\", \"invocations\": 1, \"time\": 0.1, \"flops\": {}, "
        "\"bytes\": {}, \"tags\": {\"pass\": \"fw\"}}], \"provenance\": {\"inputs\": [\"x.csv\"], "
        "\"launches\": 4}, \"\\u00fcber\": \"\", \"empty\": {}, \"list\": []}",
        "{\"schema\": \"rooftime.profile/1\", \"kernels\": []}",
    };
    char *dir = tu_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/p.json", dir);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t je;
        json_t *j = json_loads(texts[i], JSON_REJECT_DUPLICATES, &je);
        if (!j)
            fail_msg("text %zu: %s", i, je.text);
        rt_profile *p;
        rt_error err;
        if (rt_profile_from_json(j, RT_JSON_NAMED("inline"), &p, &err) != 0)
            fail_msg("text %zu: %s", i, err.msg);
        json_decref(j);
        saved_as_tree(p, path, texts[i]);
        rt_profile_free(p);
    }
    rt_profile *p = rt_profile_new();
    for (int i = 0; i < 10000; i++) {
        char name[32];
        snprintf(name, sizeof name, "k%d", i);
        rt_kernel *k = rt_profile_add_kernel(p, name);
        k->invocations = 1 + i % 7;
        k->time = 1e-6 * (i + 1);
        rt_values_set(&k->flops, "fp32", 1e3 * i);
    }
    saved_as_tree(p, path, "ten thousand kernels");
    rt_profile_free(p);
    tu_rmtree(dir);
    free(dir);
}

/* rt_profile_copy (the Python API's analyses with --tau, diff): every field and unknown member,
 * identity, provenance and spreads as a save and a load give them, the copy its own; a profile
 * that cannot be saved is not copied either, with the reason. */
static void test_profile_copy(void **state)
{
    (void)state;
    const char *text =
        "{\"schema\": \"rooftime.profile/1\", \"source\": {\"tool\": \"t\", \"pid\": 7}, "
        "\"zeta\": [1, 2.5], \"identity\": {\"rank\": 3, \"size\": 8}, \"tags\": {\"a\": "
        "\"b\"}, \"kernels\": [{\"name\": \"k\\u00e9\", \"invocations\": 3, \"time\": "
        "1.5e-06, \"time_spread\": {\"n\": 3, \"median\": 5e-7, \"q1\": 4e-7, \"q3\": 6e-7}, "
        "\"flops\": {\"fp16\": 1e12}, \"bytes\": {\"L1\": 12345678901234}, \"tags\": "
        "{\"pass\": \"fw\"}}], \"provenance\": {\"inputs\": [\"x.csv\"], \"launches\": 4}}";
    json_t *j = json_loads(text, 0, NULL);
    rt_profile *p, *c;
    rt_error err;
    assert_int_equal(rt_profile_from_json(j, RT_JSON_NAMED("inline"), &p, &err), 0);
    json_decref(j);
    if (rt_profile_copy(p, &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(c != p && c->kernels != p->kernels);
    if (!rt_profile_equal(p, c, &err))
        fail_msg("the copy differs: %s", err.msg);
    json_t *jp = rt_profile_to_json(p), *jc = rt_profile_to_json(c);
    assert_true(json_equal(jp, jc));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(jc, "source"), "pid")), 7);
    json_decref(jp);
    json_decref(jc);
    rt_profile_free(c);
    p->kernels[0].time = NAN;
    assert_int_equal(rt_profile_copy(p, &c, &err), -1);
    assert_null(c);
    assert_non_null(strstr(err.msg, "time"));
    rt_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_machines),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_profile_fields_and_extra),
        cmocka_unit_test(test_profile_save_stream),
        cmocka_unit_test(test_profile_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
