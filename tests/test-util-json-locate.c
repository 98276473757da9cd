/* Where a field lies in a document's text: the line and column of the value a JSON path names,
 * the object a missing field is missing from, and nothing read past the text. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/json-locate.h"
#include "testutil.h"

/* text's place for path, or fail: expect line 0 for "not found". */
static void expect_at(const char *text, const char *path, size_t line, size_t col)
{
    size_t l = 0, c = 0;
    int rc = rt_json_locate(text, strlen(text), path, &l, &c);
    if (line == 0) {
        if (rc != -1)
            fail_msg("'%s' in '%s': found at %zu:%zu, expected nothing", path, text, l, c);
        return;
    }
    if (rc != 0 || l != line || c != col)
        fail_msg("'%s' in '%s': rc %d at %zu:%zu, expected %zu:%zu", path, text, rc, l, c, line,
                 col);
}

static const char pretty[] = "{\n"
                             "  \"schema\": \"rooftime.profile/1\",\n"
                             "  \"kernels\": [\n"
                             "    {\"name\": \"a\", \"time\": 1, \"flops\": {\"fp32\": 2}},\n"
                             "    {\"name\": \"b\",\n"
                             "     \"time\": \"slow\", \"tags\": {\"x\": [1, {\"y\": 2}]}}\n"
                             "  ]\n"
                             "}\n";

static void test_paths(void **state)
{
    (void)state;
    expect_at(pretty, "", 1, 1);
    expect_at(pretty, "schema", 2, 13);
    expect_at(pretty, "kernels", 3, 14);
    expect_at(pretty, "kernels[0]", 4, 5);
    expect_at(pretty, "kernels[0].flops.fp32", 4, 48);
    expect_at(pretty, "kernels[1].time", 6, 14);
    expect_at(pretty, "kernels[1].tags.x[1].y", 6, 46);
}

static void test_missing(void **state)
{
    (void)state;
    /* The deepest value there: the object or array the field is missing from. */
    expect_at(pretty, "kernels[1].invocations", 5, 5);
    expect_at(pretty, "kernels[0].flops.fp16", 4, 39);
    expect_at(pretty, "kernels[2].time", 3, 14);
    expect_at(pretty, "kernels[99999999999999999999999].time", 3, 14);
    expect_at(pretty, "nosuch", 1, 1);
    expect_at(pretty, "schema.deeper", 2, 13);   /* a string has no members */
    expect_at(pretty, "kernels.time", 3, 14);    /* an array has no members */
    expect_at(pretty, "schema[0]", 2, 13);       /* a string has no elements */
    expect_at(pretty, "kernels[x].time", 3, 14); /* not an index */
    expect_at("", "a", 0, 0);
    expect_at("   \n  ", "a", 0, 0);
}

static void test_keys(void **state)
{
    (void)state;
    /* A key with '.' is one member, matched whole; the longest key that fits wins. */
    const char *dots = "{\"torch\": {\"op\": 1},\n \"torch.op\": 2}";
    expect_at(dots, "torch.op", 2, 14);
    expect_at(dots, "torch", 1, 11);
    /* Escapes in keys: the path holds the decoded key. */
    const char *esc = "{\"a\\\"b\": 1, \"caf\\u00e9\": 2, \"\\ud83d\\ude00\": 3, \"t\\tab\": 4}";
    expect_at(esc, "a\"b", 1, 10);
    expect_at(esc, "caf\xc3\xa9", 1, 26);
    expect_at(esc, "\xf0\x9f\x98\x80", 1, 45);
    expect_at(esc, "t\tab", 1, 57);
    /* Columns count characters, not bytes, as jansson's do. */
    expect_at("{\"n\": \"\xc3\xa9\xc3\xa9\", \"m\": 1}", "m", 1, 18);
    /* A key longer than the locator keeps is stepped over, never matched. */
    size_t n = 5000;
    char *big = malloc(n + 32);
    assert_non_null(big);
    strcpy(big, "{\"");
    memset(big + 2, 'k', n);
    strcpy(big + 2 + n, "\": 1, \"z\": 2}");
    char *key = malloc(n + 1);
    assert_non_null(key);
    memset(key, 'k', n);
    key[n] = '\0';
    expect_at(big, key, 1, 1);
    expect_at(big, "z", 1, n + 14);
    free(big);
    free(key);
}

static void test_bad_text(void **state)
{
    (void)state;
    /* Text that is not JSON past some point: the walk stops where it can go no further. */
    expect_at("{\"a\": [1, 2", "a[5]", 1, 7);
    expect_at("{\"a\": {\"b\": \"unterminated", "a.b", 1, 13);
    expect_at("{\"a\" 1}", "a", 1, 1);
    expect_at("{\"a\": \"x\\", "b", 1, 1);
    expect_at("{\"a\": \"\\uZZZZ\", \"b\": 1}", "b", 1, 22);
    /* Within len only: the byte after the text is never read. */
    const char text[] = "{\"a\": 1, \"b\": 2}";
    size_t l, c;
    assert_int_equal(rt_json_locate(text, 9, "b", &l, &c), 0);
    assert_int_equal(c, 1);
    assert_int_equal(rt_json_locate(NULL, 0, "b", &l, &c), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_bad_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
