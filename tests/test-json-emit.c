/* Tests of the direct JSON writer (formats/json-emit.c): the text of random documents (objects,
 * arrays, empty ones, strings with quotes, control characters, UTF-8 and bad UTF-8, reals of every
 * size, ties in decimal, integers, booleans, null) byte for byte as jansson's json_dumpf writes the
 * same tree with JSON_INDENT(2) and JSON_REAL_PRECISION(10 or 17), at nesting levels 0 to 3. */
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/formats/json-emit.h"
#include "rooftime/util/strings.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double random_real(void)
{
    uint64_t u = next();
    double v;
    switch (u % 6) {
    case 0: /* any bit pattern (NaN and infinities are null for both) */
        memcpy(&v, &u, sizeof v);
        return v;
    case 1: /* short decimals: ties in decimal */
        return (double)(next() % 2000000) / pow(10, (double)(next() % 14));
    case 2:
        return ldexp((double)(next() % 100000), (int)(next() % 120) - 60);
    case 3: /* whole numbers: json_real prints them with ".0" */
        return (double)(next() % 100000000000ull);
    case 4: /* exponents of every width */
        return pow(10, (double)((int)(next() % 600) - 300)) * (1 + (double)(next() % 1000) / 1000);
    default:
        return -(double)(next() % 1000) / 8;
    }
}

/* A string of random pieces: ASCII, escapes, control characters, UTF-8, and bytes that are not. */
static char *random_string(void)
{
    static const char *const pieces[] = {"a",
                                         "kernel",
                                         " ",
                                         "\"",
                                         "\\",
                                         "/",
                                         "\n",
                                         "\t",
                                         "\r",
                                         "\b",
                                         "\f",
                                         "\x01",
                                         "\x1f",
                                         "\x7f",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80",
                                         "\xff",
                                         "\xc3",
                                         "[[16,64]]",
                                         "aten::mm"};
    size_t n = next() % 6;
    char *s = rt_xcalloc(64, 1);
    for (size_t i = 0; i < n; i++)
        strcat(s, pieces[next() % (sizeof pieces / sizeof *pieces)]);
    return s;
}

/* A random value, written through w and built as a jansson tree at once. */
static json_t *both(rt_jw *w, int depth)
{
    int kind = (int)(next() % (depth < 4 ? 9 : 5));
    switch (kind) {
    case 0: {
        double v = random_real();
        rt_jw_real(w, v);
        return isfinite(v) ? json_real(v) : json_null();
    }
    case 1: {
        long long v = (long long)(next() >> (next() % 64)) * (next() % 2 ? 1 : -1);
        rt_jw_integer(w, v);
        return json_integer(v);
    }
    case 2: {
        char *s = random_string();
        rt_jw_string(w, s);
        char *fixed = rt_strdup_utf8(s); /* jansson holds valid UTF-8 only */
        json_t *j = json_string(fixed);
        free(fixed);
        free(s);
        return j;
    }
    case 3: {
        bool b = next() % 2;
        rt_jw_bool(w, b);
        return json_boolean(b);
    }
    case 4:
        rt_jw_null(w);
        return json_null();
    case 5:
    case 6: {
        rt_jw_object(w);
        json_t *o = json_object();
        size_t n = next() % 5;
        for (size_t i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "k%zu%s", i, i % 3 == 1 ? "\"\xc3\xa9" : "");
            rt_jw_key(w, key);
            json_object_set_new(o, key, both(w, depth + 1));
        }
        rt_jw_close(w);
        return o;
    }
    case 8: { /* a tree built apart, dumped by jansson where it stands (rt_jw_json) */
        rt_jw *sink = rt_xmalloc(sizeof *sink);
        FILE *null = fopen("/dev/null", "w");
        rt_jw_begin(sink, null, 0, w->prec);
        json_t *sub = both(sink, depth + 1);
        rt_jw_end(sink);
        fclose(null);
        free(sink);
        rt_jw_json(w, json_incref(sub));
        return sub;
    }
    default: {
        rt_jw_array(w);
        json_t *a = json_array();
        size_t n = next() % 5;
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, both(w, depth + 1));
        rt_jw_close(w);
        return a;
    }
    }
}

/* jansson's text of j indented as a value nested `level` deep: its lines after the first shifted
 * by 2 x level spaces. */
static char *jansson_text(const json_t *j, int prec, int level)
{
    char *t = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(prec) | JSON_ENCODE_ANY);
    assert_non_null(t);
    size_t lines = 1;
    for (const char *p = t; *p; p++)
        lines += *p == '\n';
    char *out = rt_xmalloc(strlen(t) + lines * (size_t)(2 * level) + 1), *o = out;
    for (const char *p = t; *p; p++) {
        *o++ = *p;
        if (*p == '\n')
            for (int k = 0; k < 2 * level; k++)
                *o++ = ' ';
    }
    *o = '\0';
    free(t);
    return out;
}

static void test_against_jansson(void **state)
{
    (void)state;
    for (int round = 0; round < 20000; round++) {
        int prec = round % 2 ? 10 : 17, level = round % 4;
        char *text = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&text, &len);
        rt_jw *w = rt_xmalloc(sizeof *w);
        rt_jw_begin(w, fp, level, prec);
        json_t *j = both(w, 0);
        assert_int_equal(rt_jw_end(w), 0);
        fclose(fp);
        char *want = jansson_text(j, prec, level);
        if (strcmp(text, want) != 0)
            fail_msg("round %d (precision %d, level %d): the writer wrote\n%s\njansson\n%s", round,
                     prec, level, text, want);
        free(want);
        json_decref(j);
        free(w);
        free(text);
    }
}

/* A long string is written whole past the buffer; misuse is an error, not a crash. */
static void test_long_and_misuse(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    rt_jw *w = rt_xmalloc(sizeof *w);
    char *big = rt_xmalloc(100001);
    memset(big, 'x', 100000);
    big[100000] = '\0';
    big[5] = '\n';
    rt_jw_begin(w, fp, 0, 10);
    rt_jw_array(w);
    rt_jw_string(w, big);
    rt_jw_real(w, 0.1);
    rt_jw_close(w);
    assert_int_equal(rt_jw_end(w), 0);
    fclose(fp);
    json_t *j = json_pack("[s,f]", big, 0.1);
    char *want = jansson_text(j, 10, 0);
    assert_string_equal(text, want);
    free(want);
    json_decref(j);
    free(text);
    FILE *sink = fopen("/dev/null", "w");
    rt_jw_begin(w, sink, 0, 10);
    rt_jw_key(w, "no object"); /* a key outside an object */
    assert_int_equal(rt_jw_end(w), -1);
    rt_jw_begin(w, sink, 0, 10);
    rt_jw_object(w); /* left open */
    assert_int_equal(rt_jw_end(w), -1);
    rt_jw_begin(w, sink, 0, 10);
    for (int i = 0; i < RT_JW_MAX_DEPTH + 2; i++)
        rt_jw_array(w);
    for (int i = 0; i < RT_JW_MAX_DEPTH + 2; i++)
        rt_jw_close(w);
    assert_int_equal(rt_jw_end(w), -1);
    fclose(sink);
    free(big);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_jansson),
        cmocka_unit_test(test_long_and_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
