/* Tests of the analysis across ranks: the quantile sketch's accuracy, stragglers named, ranks read
 * once, and a merge of two halves equal to one fold of all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/across.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/quantile-sketch.h"
#include "testutil.h"

static void test_sketch_accuracy(void **state)
{
    (void)state;
    rt_sketch s;
    rt_sketch_init(&s, 0.01);
    /* 1 .. 10000 in a scrambled order: the q-quantile is about 1 + q * 9999. */
    for (long i = 0; i < 10000; i++)
        rt_sketch_add(&s, (double)((i * 7919) % 10000 + 1));
    const double qs[] = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 1};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double want = floor(qs[i] * 9999 + 0.5) + 1, got = rt_sketch_quantile(&s, qs[i]);
        assert_true(fabs(got - want) <= 0.0101 * want);
    }
    assert_true(rt_sketch_count_above(&s, 5000) >= 4900 && rt_sketch_count_above(&s, 5000) <= 5000);
    /* Bounded: 10000 values spanning 4 decades need ~460 buckets at 1%, not 10000. */
    assert_true(rt_sketch_bytes(&s) < 2000 * sizeof(uint32_t));
    /* Zeros and merging. */
    rt_sketch z;
    rt_sketch_init(&z, 0.01);
    for (int i = 0; i < 20000; i++)
        rt_sketch_add(&z, 0);
    rt_sketch_merge(&z, &s);
    assert_true(z.n == 30000);
    assert_true(rt_sketch_quantile(&z, 0.5) == 0);
    assert_true(fabs(rt_sketch_quantile(&z, 1) - 10000) <= 101);
    rt_sketch_release(&s);
    rt_sketch_release(&z);
    /* Values far apart collapse the lowest buckets but keep the top. */
    rt_sketch w;
    rt_sketch_init(&w, 0.01);
    rt_sketch_add(&w, 1e-300);
    rt_sketch_add(&w, 1e300);
    assert_true(w.n_counts <= RT_SKETCH_MAX_BUCKETS);
    assert_true(fabs(rt_sketch_quantile(&w, 1) / 1e300 - 1) < 0.011);
    rt_sketch_release(&w);
}

/* A profile of rank r: kernels k0..k<n-1> in two configs; rank slow_rank is 30% slower on k<slow>.
 */
static rt_profile *rank_profile(long r, int n, long slow_rank, int slow)
{
    rt_profile *p = rt_profile_new();
    char name[32];
    for (int k = 0; k < n; k++) {
        snprintf(name, sizeof name, "k%d", k);
        rt_kernel *kn = rt_profile_add_kernel(p, name);
        rt_tags_set(&kn->tags, "pass", k % 2 ? "backward" : "forward");
        kn->time = 1e-3 * (k + 1) * (1 + 0.01 * (double)((r * 31 + k * 17) % 5) / 5);
        if (r == slow_rank && k == slow)
            kn->time *= 1.3;
        kn->invocations = 1;
        rt_values_set(&kn->flops, "fp32", 1e6 * (k + 1));
    }
    return p;
}

static rt_across *fold(long from, long to, long slow_rank, int slow)
{
    rt_across *a = rt_across_new(NULL);
    for (long r = from; r < to; r++) {
        rt_profile *p = rank_profile(r, 8, slow_rank, slow);
        assert_int_equal(rt_across_add(a, p, r, "test", NULL), 0);
        rt_profile_free(p);
    }
    return a;
}

static void test_straggler_named(void **state)
{
    (void)state;
    rt_across *a = fold(0, 40, 17, 5);
    rt_across_finish(a);
    assert_int_equal(a->n_profiles, 40);
    assert_int_equal(a->n_kernels, 8);
    assert_int_equal(a->n_configs, 2);
    assert_true(a->n_stragglers >= 1);
    const rt_straggler *s = &a->stragglers[0];
    assert_int_equal(s->kind, 0);
    assert_int_equal(s->rank, 17);
    assert_string_equal(a->kernels[s->entry].name, "k5");
    assert_true(fabs(s->time / s->median - 1.3) < 0.03);
    /* Only that one: 1% jitter is far below the 20% threshold. */
    for (size_t i = 0; i < a->n_stragglers; i++)
        assert_int_equal(a->stragglers[i].rank, 17);
    const rt_across_entry *k5 = &a->kernels[a->stragglers[0].entry];
    assert_int_equal(k5->max_rank, 17);
    assert_int_equal(k5->slow[0].rank, 17);
    assert_int_equal(k5->n_above, 1);
    assert_int_equal(k5->n_ranks, 40);
    rt_across_free(a);
}

static void test_rank_once(void **state)
{
    (void)state;
    rt_across *a = rt_across_new(NULL);
    rt_profile *p = rank_profile(3, 2, -1, 0);
    rt_error err;
    assert_int_equal(rt_across_add(a, p, 3, "a.json", &err), 0);
    assert_int_equal(rt_across_add(a, p, 3, "b.json", &err), -1);
    assert_non_null(strstr(err.msg, "'b.json': rank 3 was already read"));
    assert_int_equal(rt_across_add(a, p, -1, "c.json", &err), -1);
    rt_profile_free(p);
    rt_across_free(a);
}

static void test_merge_equals_fold(void **state)
{
    (void)state;
    rt_across *all = fold(0, 30, 7, 2), *lo = fold(0, 13, 7, 2), *hi = fold(13, 30, 7, 2);
    assert_int_equal(rt_across_merge(lo, hi, NULL), 0);
    rt_across_finish(all);
    rt_across_finish(lo);
    assert_int_equal(lo->n_profiles, all->n_profiles);
    assert_int_equal(lo->n_kernels, all->n_kernels);
    for (size_t i = 0; i < all->n_kernels; i++) {
        const rt_across_entry *x = &all->kernels[i], *y = &lo->kernels[i];
        assert_string_equal(x->name, y->name);
        assert_true(x->median == y->median && x->min == y->min && x->max == y->max);
        assert_int_equal(x->max_rank, y->max_rank);
        assert_int_equal(x->n_slow, y->n_slow);
        for (size_t s = 0; s < x->n_slow; s++)
            assert_int_equal(x->slow[s].rank, y->slow[s].rank);
    }
    assert_int_equal(lo->n_stragglers, all->n_stragglers);
    assert_int_equal(lo->stragglers[0].rank, 7);
    /* Two sets that share a rank do not merge. */
    rt_across *again = fold(29, 31, -1, 0);
    assert_int_equal(rt_across_merge(lo, again, NULL), -1);
    rt_across_free(again);
    rt_across_free(all);
    rt_across_free(lo);
    rt_across_free(hi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sketch_accuracy),
        cmocka_unit_test(test_straggler_named),
        cmocka_unit_test(test_rank_once),
        cmocka_unit_test(test_merge_equals_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
