/* Tests of the string map: byte-string keys (NULs inside), ids in order, values, growth. */
#include <stdio.h>
#include <string.h>

#include "rooftime/util/name-index.h"
#include "testutil.h"

static void test_intern_and_values(void **state)
{
    (void)state;
    rt_name_index ix = {0};
    assert_int_equal(rt_name_index_get(&ix, "a", 1), (size_t)-1);
    assert_int_equal(rt_name_index_intern(&ix, "alpha", 5), 0);
    assert_int_equal(rt_name_index_intern(&ix, "beta", 4), 1);
    assert_int_equal(rt_name_index_intern(&ix, "alpha", 5), 0);
    assert_string_equal(rt_name_index_key(&ix, 1), "beta");
    rt_name_index_put(&ix, "beta", 4, 42);
    assert_int_equal(rt_name_index_get(&ix, "beta", 4), 42);
    assert_int_equal(rt_name_index_get(&ix, "bet", 3), (size_t)-1);
    /* a key need not be NUL-terminated: only len bytes count */
    assert_int_equal(rt_name_index_get(&ix, "alphabet", 5), 0);
    rt_name_index_release(&ix);
    assert_int_equal(ix.n, 0);
}

static void test_nul_inside_key(void **state)
{
    (void)state;
    rt_name_index ix = {0};
    size_t a = rt_name_index_intern(&ix, "k\0x", 3);
    size_t b = rt_name_index_intern(&ix, "k\0y", 3);
    size_t c = rt_name_index_intern(&ix, "k", 1);
    assert_true(a != b && b != c && a != c);
    assert_int_equal(ix.len[a], 3);
    assert_int_equal(memcmp(ix.key[b], "k\0y", 3), 0);
    rt_name_index_release(&ix);
}

static void test_growth(void **state)
{
    (void)state;
    rt_name_index ix = {0};
    char k[32];
    for (size_t i = 0; i < 100000; i++) {
        int n = snprintf(k, sizeof k, "kernel_%zu", i);
        assert_int_equal(rt_name_index_intern(&ix, k, (size_t)n), i);
    }
    for (size_t i = 0; i < 100000; i += 997) {
        int n = snprintf(k, sizeof k, "kernel_%zu", i);
        assert_int_equal(rt_name_index_get(&ix, k, (size_t)n), i);
    }
    assert_int_equal(ix.n, 100000);
    rt_name_index_release(&ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern_and_values),
        cmocka_unit_test(test_nul_inside_key),
        cmocka_unit_test(test_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
