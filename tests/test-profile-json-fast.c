/* Tests of the direct profile reader: the same profile as the jansson reader on every text it
 * takes, and a give-up (never an error of its own) on every text it leaves to jansson. */
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/formats/profile-json-fast.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* Read text both ways: returns whether the direct reader took it; when it did, jansson must
 * agree (same profile). */
static int both(const char *text)
{
    rt_profile *fast = NULL, *slow = NULL, *halves = NULL;
    int took = rt_profile_json_fast(text, strlen(text), &fast) == 0;
    /* the kernels in two halves wherever the reader finds where to split them: the same */
    int took2 = rt_profile_json_fast_split(text, strlen(text), 1, &halves) == 0;
    if (took2 != took)
        fail_msg("read in halves, the text was %s: %.200s", took2 ? "taken" : "left", text);
    rt_error why2 = {{0}};
    if (took && !rt_profile_equal(fast, halves, &why2))
        fail_msg("read in halves, the profile differs: %s", why2.msg);
    rt_profile_free(halves);
    json_error_t je;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    rt_error err = {{0}};
    int ok = j && rt_profile_from_json(j, RT_JSON_NAMED("t"), &slow, &err) == 0;
    json_decref(j);
    if (took) {
        if (!ok)
            fail_msg("the direct reader took a text jansson refuses (%s): %.200s",
                     j ? err.msg : je.text, text);
        rt_error why = {{0}};
        if (!rt_profile_equal(fast, slow, &why))
            fail_msg("the readers differ: %s; text %.200s", why.msg, text);
        assert_true(fast->time_kind == slow->time_kind);
        for (size_t i = 0; i < fast->n_kernels; i++) {
            assert_true(fast->kernels[i].spread.q1 == slow->kernels[i].spread.q1);
            assert_true(fast->kernels[i].spread.n == slow->kernels[i].spread.n);
        }
    }
    rt_profile_free(fast);
    rt_profile_free(slow);
    return took;
}

#define HEAD "{\"schema\": \"rooftime.profile/1\", "

static void test_takes_what_rooftime_writes(void **state)
{
    (void)state;
    assert_true(both(HEAD "\"kernels\": []}"));
    assert_true(both(" \n" HEAD "\"kernels\": [ ] }\r\n\t"));
    assert_true(both(HEAD "\"kernels\": [], \"identity\": {\"launcher\": \"openmpi\", \"rank\": 3, "
                          "\"local_rank\": 1, \"size\": 4, \"host\": \"n1\", \"device\": "
                          "\"cuda:0\"}}"));
    assert_true(both(HEAD "\"identity\": {\"rank\": 7.0}, \"kernels\": []}"));
    assert_true(both(
        HEAD "\"source\": {\"tool\": \"ncu\", \"version\": \"v\", \"command\": \"c\", "
             "\"machine\": \"m\", \"method\": \"how\", \"time\": \"device\", \"overhead\": \"o\"}, "
             "\"tags\": {\"framework\": \"pt\", \"batch\": 16, \"lr\": 0.001, \"neg\": -3, "
             "\"z\": -0, \"big\": 1e300}, "
             "\"kernels\": [{\"name\": \"gemm \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 "
             "\\ud83d\\ude00 \xc3\xa9\", \"invocations\": 3, \"time\": 1.5e-3, "
             "\"flops\": {\"fp32\": 1000000, \"tensor\": 2.5E9}, \"bytes\": {\"HBM\": 0, "
             "\"L2\": 12.0}, \"tags\": {\"op\": \"mm\"}, \"time_spread\": {\"n\": 3, \"median\": "
             "0.5e-3, \"q1\": 0.4e-3, \"q3\": 0.6e-3}}, {\"time\": 0, \"invocations\": 0, "
             "\"name\": \"\"}], "
             "\"provenance\": {\"inputs\": [\"a.csv\", \"b.csv\"], \"launches\": 7, "
             "\"formulas\": {\"time\": \"cycles / rate\"}, \"notes\": {\"n\": 1}, "
             "\"kernel_time_sum\": {\"gemm\": 1e-3}}}"));
    /* many values: the indexed maps */
    char *t = rt_strdup(HEAD "\"kernels\": [], \"provenance\": {\"kernel_time_sum\": {");
    for (int i = 0; i < 100; i++) {
        char *u = rt_asprintf("%s%s\"k%d\": %d", t, i ? ", " : "", i, i);
        free(t);
        t = u;
    }
    char *u = rt_asprintf("%s}}}", t);
    assert_true(both(u));
    free(t);
    free(u);
}

/* Reals as rooftime writes them (17 digits) and in other spellings, random and near the
 * halfway points between doubles: read to the same double as jansson's strtod. */
static void test_reals(void **state)
{
    (void)state;
    static const char *const fixed[] = {"5.5000000000000007e-6",
                                        "9007199254740993.0",
                                        "9007199254740995.0",
                                        "0.1",
                                        "-0.0",
                                        "1e-27",
                                        "1e27",
                                        "1e28",
                                        "1.7976931348623157e308",
                                        "4.9406564584124654e-324",
                                        "2.2250738585072014e-308",
                                        "123456789012345678.0",
                                        "1234567890123456789.0",
                                        "12345678901234567890.0",
                                        "0.30000000000000004",
                                        "1E+2",
                                        "1e-0",
                                        "0.000001e-21",
                                        "18446744073709551615.0",
                                        "8.5e-25",
                                        "1.0000000000000002",
                                        "0.00013300000000000001",
                                        "0.000000000000000000000000012345678901234567",
                                        "0.0",
                                        "0.10000000000000000555"};
    size_t n = 4000 + sizeof fixed / sizeof *fixed;
    size_t cap = n * 160 + 128, len = 0;
    char *t = rt_xmalloc(cap);
    len += (size_t)snprintf(t, cap, HEAD "\"kernels\": [");
    uint64_t x = 88172645463325252ull; /* xorshift */
    for (size_t i = 0; i < n; i++) {
        char num[64];
        if (i < sizeof fixed / sizeof *fixed) {
            snprintf(num, sizeof num, "%s", fixed[i]);
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double d;
            uint64_t bits = (x >> 2) & 0x7FEFFFFFFFFFFFFFull;
            memcpy(&d, &bits, sizeof d);
            if (i % 2) /* the range of times and counts */
                d = (double)(x % 1000000007) * (i % 4 == 1 ? 1e-13 : 3.7e-9);
            if (i % 5 == 0) /* halfway between two doubles, or next to it */
                d = (double)((1ull << 53) + 2 * (x % 1000) + 1) * (i % 10 ? 1 : 0.5);
            snprintf(num, sizeof num, i % 5 == 0 ? "%.1f" : "%.17g", d);
        }
        /* Times stay under the profile's limits (1e150 s summed); tags take any number. */
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\": \"k\", \"invocations\": 1, \"time\": %s, "
                                "\"tags\": {\"x\": %s}}",
                                i ? ", " : "", fabs(strtod(num, NULL)) < 1e140 ? num : "0", num);
    }
    snprintf(t + len, cap - len, "]}");
    assert_true(both(t));
    free(t);
}

/* A profile as rooftime writes it, long enough to be read in halves: the same profile, and a
 * kernel the reader leaves to jansson in either half leaves it the whole text. */
static void test_halves(void **state)
{
    (void)state;
    rt_profile *p = rt_profile_new();
    rt_tags_set(&p->tags, "framework", "pt");
    for (int i = 0; i < 3000; i++) {
        char name[64], v[32];
        snprintf(name, sizeof name, i % 7 ? "k%d" : "k\"%d\" \xc3\xa9 {}, [x]", i);
        rt_kernel *k = rt_profile_add_kernel(p, name);
        k->invocations = 1 + i % 5;
        k->time = 1e-6 * (1 + i % 97) / 3;
        rt_values_set(&k->flops, i % 2 ? "tensor" : "fp32", 1e6 * (i % 13));
        rt_values_set(&k->bytes, "HBM", 1e5 * (i % 11) / 7);
        snprintf(v, sizeof v, "L%d", i / 8);
        rt_tags_set(&k->tags, "layer", v);
        snprintf(v, sizeof v, "%d", 1 << (i % 8));
        rt_tags_set(&k->tags, "batch", v);
        if (i % 5 == 0)
            k->spread = (rt_time_spread){.n = 3, .median = 2e-6, .q1 = 1e-6, .q3 = 3e-6};
    }
    char *dir = tu_tmpdir(), *path = rt_asprintf("%s/p.json", dir);
    rt_error err = {{0}};
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    assert_non_null(text);
    assert_true(both(text));
    rt_profile *halves = NULL;
    assert_int_equal(rt_profile_json_fast_split(text, len, 1, &halves), 0);
    assert_int_equal(halves->n_kernels, 3000);
    rt_error why = {{0}};
    if (!rt_profile_equal(p, halves, &why))
        fail_msg("%s", why.msg);
    rt_profile_free(halves);
    /* an unknown member in a kernel of the first half, then of the second */
    for (int h = 0; h < 2; h++) {
        char *at = strstr(text + (h ? len * 3 / 4 : len / 4), "\"invocations\"");
        assert_non_null(at);
        char *bad = rt_asprintf("%.*s\"later\": 1, %s", (int)(at - text), text, at);
        assert_false(both(bad));
        free(bad);
    }
    tu_rmtree(dir);
    free(text);
    free(path);
    free(dir);
    rt_profile_free(p);
}

/* A profile read is borrowed from its arena: its maps change and free as maps of their own. */
static void test_borrowed_maps(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    const char *text = HEAD "\"tags\": {\"framework\": \"pt\"}, \"kernels\": [{\"name\": "
                            "\"a\", \"invocations\": 1, \"time\": 1, \"flops\": {\"fp32\": 1}, "
                            "\"bytes\": {\"HBM\": 2, \"L2\": 3}, \"tags\": {\"op\": \"mm\", "
                            "\"batch\": 16}}, {\"name\": \"b\", \"invocations\": 1, \"time\": 1, "
                            "\"tags\": {\"op\": \"mm\"}}]}";
    assert_int_equal(rt_profile_json_fast(text, strlen(text), &p), 0);
    rt_kernel *a = &p->kernels[0], *b = &p->kernels[1];
    assert_int_equal(a->tags.cap, 0); /* borrowed */
    assert_string_equal(rt_tags_get(&b->tags, "op"), "mm");
    rt_tags_set(&a->tags, "op", "conv");
    rt_tags_set(&a->tags, "class", "communication");
    assert_string_equal(rt_tags_get(&a->tags, "op"), "conv");
    assert_string_equal(rt_tags_get(&a->tags, "batch"), "16");
    assert_string_equal(rt_tags_get(&b->tags, "op"), "mm");
    rt_values_add(&a->bytes, "HBM", 1);
    rt_values_set(&a->flops, "tensor", 4);
    assert_true(rt_values_get(&a->bytes, "HBM", 0) == 3);
    assert_true(rt_values_get(&a->bytes, "L2", 0) == 3);
    assert_true(rt_values_get(&a->flops, "fp32", 0) == 1);
    rt_tags_set(&p->tags, "framework", "tf");
    rt_kernel_release(b);
    rt_kernel_init(b, "b2");
    rt_profile_free(p);
}

/* Each of these goes to jansson: for the error it words, or for what only it keeps. */
static void test_gives_up(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        "[]",
        HEAD "\"kernels\": []",
        HEAD "\"kernels\": []} x",
        HEAD "\"kernels\": [],}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1},]}",
        "{\"schema\": \"rooftime.profile/2\", \"kernels\": []}",
        "{\"kernels\": []}",
        HEAD "\"source\": {}}",
        HEAD "\"kernels\": [], \"kernels\": []}",
        HEAD "\"kernels\": [], \"identity\": {\"rank\": 4, \"size\": 4}}",
        HEAD "\"kernels\": [], \"identity\": {\"rank\": 1.5}}",
        HEAD "\"kernels\": [], \"identity\": {\"size\": 0}}",
        HEAD "\"kernels\": [], \"identity\": {\"rank\": 1e9}}",
        HEAD "\"kernels\": [], \"identity\": {\"rank\": 1, \"pid\": 2}}",
        HEAD "\"kernels\": [], \"identity\": {\"host\": null}}",
        HEAD "\"kernels\": [], \"future\": 1}",
        HEAD "\"kernels\": [], \"source\": {\"tool\": null}}",
        HEAD "\"kernels\": [], \"source\": {\"time\": \"cpu\"}}",
        HEAD "\"kernels\": [], \"source\": {\"tool\": \"a\", \"tool\": \"b\"}}",
        HEAD "\"kernels\": [], \"source\": {\"later\": \"a\"}}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": -1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1e999}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1234567890123456789012, "
             "\"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 01, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1., \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1, \"x\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"name\": \"b\", \"invocations\": 1, "
             "\"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\\u0000b\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\\ud800\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\\x\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\tb\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"\xff\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"\xed\xa0\x80\", \"invocations\": 1, \"time\": 1}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1, \"flops\": "
             "{\"fp32\": 1, \"fp32\": 2}}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1, \"tags\": "
             "{\"k\": true}}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1, \"time_spread\": "
             "{\"n\": 3, \"median\": 1, \"q1\": 2, \"q3\": 3}}]}",
        HEAD "\"kernels\": [{\"name\": \"a\", \"invocations\": 1, \"time\": 1, \"time_spread\": "
             "{\"n\": 3, \"median\": 1, \"q1\": 1}}]}",
        HEAD "\"kernels\": [], \"provenance\": {\"inputs\": [1]}}",
        HEAD "\"kernels\": [], \"provenance\": {\"extra\": 1}}",
        "\xef\xbb\xbf" HEAD "\"kernels\": []}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (both(texts[i]))
            fail_msg("the direct reader took text %zu: %s", i, texts[i]);
}

/* Profiles the importers make, saved and read back both ways. */
static void test_imported_profiles(void **state)
{
    (void)state;
    static const char *const logs[] = {
        "onednn-2.6-primitives.log", "onednn-2.6-timestamps.log", "onednn-2.6-torch-lstm-bf16.log",
        "torch-1.13-conv2d-backward.json", "torch-1.13-lstm-forward.json"};
    char *dir = tu_tmpdir();
    const char *src = getenv("ROOFTIME_SRC") ? getenv("ROOFTIME_SRC") : "..";
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        char *in = rt_asprintf("%s/tests/data/%s", src, logs[i]);
        char *out = rt_asprintf("%s/p%zu.json", dir, i);
        rt_profile *p = NULL;
        rt_warnings w = {0};
        rt_error err = {{0}};
        int rc = strstr(logs[i], ".json") ? rt_import_torch(in, NULL, &p, &w, &err)
                                          : rt_import_onednn(in, &p, &w, &err);
        if (rc != 0)
            fail_msg("%s: %s", in, err.msg);
        assert_int_equal(rt_profile_save(p, out, &err), 0);
        char *text = NULL;
        size_t len = 0;
        FILE *fp = fopen(out, "rb");
        assert_non_null(fp);
        fseek(fp, 0, SEEK_END);
        len = (size_t)ftell(fp);
        rewind(fp);
        text = rt_xmalloc(len + 1);
        assert_int_equal(fread(text, 1, len, fp), len);
        text[len] = '\0';
        fclose(fp);
        if (!both(text))
            fail_msg("the direct reader left %s to jansson", logs[i]);
        rt_profile *back = NULL;
        assert_int_equal(rt_profile_load(out, &back, &err), 0);
        rt_error why = {{0}};
        if (!rt_profile_equal(p, back, &why))
            fail_msg("%s: %s", logs[i], why.msg);
        rt_profile_free(back);
        rt_profile_free(p);
        rt_warnings_release(&w);
        free(text);
        free(in);
        free(out);
    }
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_takes_what_rooftime_writes),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_borrowed_maps),
        cmocka_unit_test(test_halves),
        cmocka_unit_test(test_gives_up),
        cmocka_unit_test(test_imported_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
