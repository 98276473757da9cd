/* Tests of the string map: byte-string keys (NULs inside), ids in order, values, growth; and of
 * its users, the number maps past their scan size and the profile's kernel lookup. */
#include <stdio.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/core/tag-map.h"
#include "rooftime/core/value-map.h"
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

/* A number map keeps its order and answers the same once it has an index. */
static void test_values_indexed(void **state)
{
    (void)state;
    rt_values vs = {0};
    char k[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof k, "k%d", i);
        rt_values_set(&vs, k, i);
        if (i == 3)
            assert_null(vs.ix); /* small maps are scanned */
    }
    assert_non_null(vs.ix);
    rt_values_add(&vs, "k7", 0.5);
    rt_values_set(&vs, "k999", -1);
    assert_int_equal(vs.n, 1000);
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof k, "k%d", i);
        assert_string_equal(vs.v[i].key, k);
        assert_true(rt_values_has(&vs, k));
    }
    assert_true(rt_values_get(&vs, "k7", 0) == 7.5);
    assert_true(rt_values_get(&vs, "k999", 0) == -1);
    assert_true(rt_values_get(&vs, "k1000", 42) == 42);
    assert_false(rt_values_has(&vs, "k"));
    rt_values copy = {0};
    rt_values_copy(&copy, &vs);
    assert_int_equal(copy.n, 1000);
    assert_true(rt_values_get(&copy, "k500", 0) == 500);
    rt_values_release(&copy);
    rt_values_release(&vs);
    assert_null(vs.ix);
}

/* Kernels are found by name and tag set (in any order), the last of equal ones, also when added
 * between lookups by rt_profile_add_kernel. */
static void test_find_or_add_indexed(void **state)
{
    (void)state;
    rt_profile *p = rt_profile_new();
    rt_tags ab = {0}, ba = {0}, a = {0};
    rt_tags_set(&ab, "a", "1");
    rt_tags_set(&ab, "b", "2");
    rt_tags_set(&ba, "b", "2");
    rt_tags_set(&ba, "a", "1");
    rt_tags_set(&a, "a", "1");
    rt_kernel *k = rt_profile_find_or_add(p, "mm", &ab);
    assert_int_equal(p->n_kernels, 1);
    assert_ptr_equal(rt_profile_find_or_add(p, "mm", &ba), k);
    assert_int_equal(p->n_kernels, 1);
    rt_profile_find_or_add(p, "mm", &a);
    rt_profile_find_or_add(p, "mm", NULL);
    rt_profile_find_or_add(p, "mm\x1f", &a);
    assert_int_equal(p->n_kernels, 4);
    rt_kernel *twin = rt_profile_add_kernel(p, "mm"); /* a second untagged "mm" */
    (void)twin;
    assert_ptr_equal(rt_profile_find_or_add(p, "mm", NULL), &p->kernels[4]);
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "k%d", i % 2500);
        rt_kernel *x = rt_profile_find_or_add(p, name, i % 2 ? &a : NULL);
        x->invocations += 1;
    }
    assert_int_equal(p->n_kernels, 5 + 2500); /* each name and tag set twice */
    for (size_t i = 5; i < p->n_kernels; i++)
        assert_true(p->kernels[i].invocations == 2);
    rt_profile_free(p);
    rt_tags_release(&ab);
    rt_tags_release(&ba);
    rt_tags_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern_and_values),
        cmocka_unit_test(test_nul_inside_key),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_values_indexed),
        cmocka_unit_test(test_find_or_add_indexed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
