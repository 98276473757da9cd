/* The spread of per-invocation times: exact quartiles of known samples, the sketch beyond 256 in
 * bounded memory, merging, what rt_kernel_accumulate keeps, the noise test of a ratio, and the
 * profile file's "time_spread" (round trip, old files, bad values). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/core/time-spread.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static void test_exact_quartiles(void **state)
{
    (void)state;
    rt_time_spread s;
    /* numpy.percentile([9, 1, 8, 2, 7, 3, 6, 4, 5], [25, 50, 75]) = 3, 5, 7 */
    double v[] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
    rt_time_spread_of(v, 9, &s);
    assert_true(s.n == 9 && s.q1 == 3 && s.median == 5 && s.q3 == 7);
    /* [4, 1, 3, 2]: 1.75, 2.5, 3.25 (linear interpolation) */
    double w[] = {4, 1, 3, 2};
    rt_time_spread_of(w, 4, &s);
    assert_true(s.n == 4 && s.q1 == 1.75 && s.median == 2.5 && s.q3 == 3.25);
    double one[] = {0.25};
    rt_time_spread_of(one, 1, &s);
    assert_true(s.n == 1 && s.q1 == 0.25 && s.median == 0.25 && s.q3 == 0.25);
    rt_time_spread_of(NULL, 0, &s);
    assert_true(s.n == 0 && s.median == 0);
    /* Known from 5 invocations on; relative half-IQR (7 - 3) / (2 x 5) = 0.4. */
    rt_time_spread_of(v, 9, &s);
    assert_true(rt_time_spread_known(&s));
    assert_close(rt_time_spread_rel(&s), 0.4, 1e-12);
    rt_time_spread_of(w, 4, &s);
    assert_false(rt_time_spread_known(&s));
    assert_true(isnan(rt_time_spread_rel(&s)));

    /* The accumulator: exact up to 256 samples, the same answer as rt_time_spread_of. */
    rt_time_samples a = {0};
    for (int i = 0; i < 9; i++)
        rt_time_samples_add(&a, (double)(9 - i));
    rt_time_samples_result(&a, &s);
    assert_true(s.n == 9 && s.q1 == 3 && s.median == 5 && s.q3 == 7);
    rt_time_samples_release(&a);
}

/* 100000 samples 1..100000 us: a sketch within 1% of the exact quartiles, memory bounded. */
static void test_sketch_and_merge(void **state)
{
    (void)state;
    rt_time_samples a = {0}, b = {0}, half = {0};
    for (int i = 1; i <= 100000; i++) {
        rt_time_samples_add(&a, i * 1e-6);
        rt_time_samples_add(i % 2 ? &b : &half, i * 1e-6);
    }
    assert_true(a.sketched);
    assert_int_equal(rt_time_samples_count(&a), 100000);
    assert_true(rt_sketch_bytes(&a.sketch) <= RT_SKETCH_MAX_BUCKETS * sizeof(uint32_t));
    rt_time_spread s;
    rt_time_samples_result(&a, &s);
    assert_true(s.n == 100000);
    assert_close(s.q1, 25000.75e-6, 0.011);
    assert_close(s.median, 50000.5e-6, 0.011);
    assert_close(s.q3, 75000.25e-6, 0.011);
    /* Two halves merged give the whole (the sketches hold the same buckets). */
    rt_time_samples_merge(&b, &half);
    rt_time_spread m;
    rt_time_samples_result(&b, &m);
    assert_true(m.n == s.n && m.q1 == s.q1 && m.median == s.median && m.q3 == s.q3);
    /* A few exact samples merged into a sketch, and a sketch into a few exact ones. */
    rt_time_samples few = {0};
    rt_time_samples_add(&few, 1e-3);
    rt_time_samples_merge(&few, &a);
    assert_int_equal(rt_time_samples_count(&few), 100001);
    rt_time_samples_release(&few);
    rt_time_samples_add(&few, 1e-3);
    rt_time_samples_add(&few, 3e-3);
    rt_time_samples small = {0};
    rt_time_samples_add(&small, 2e-3);
    rt_time_samples_merge(&few, &small);
    rt_time_samples_result(&few, &s);
    assert_true(!few.sketched && s.n == 3 && s.median == 2e-3 && s.q1 == 1.5e-3);
    rt_time_samples_release(&few);
    rt_time_samples_release(&small);
    rt_time_samples_release(&a);
    rt_time_samples_release(&b);
    rt_time_samples_release(&half);
}

static void test_check(void **state)
{
    (void)state;
    const char *field, *why;
    rt_time_spread s = {0};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), 0); /* unknown */
    s = (rt_time_spread){5, 2, 1, 3};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), 0);
    s = (rt_time_spread){5, 2, 2.5, 3};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), -1);
    assert_string_equal(field, "q1");
    s = (rt_time_spread){5, 2, 1, 1.5};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), -1);
    assert_string_equal(field, "q3");
    s = (rt_time_spread){5, NAN, 1, 3};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), -1);
    assert_string_equal(field, "median");
    s = (rt_time_spread){0, 2, 1, 3};
    assert_int_equal(rt_time_spread_check(&s, &field, &why), -1);
    assert_string_equal(field, "n");
    /* rt_profile_check names the kernel and the field. */
    rt_profile *p = rt_profile_new();
    rt_kernel *k = rt_profile_add_kernel(p, "gemm");
    k->invocations = 5;
    k->time = 1;
    k->spread = (rt_time_spread){5, 0.2, 0.3, 0.4};
    rt_error err;
    assert_int_equal(rt_profile_check(p, &err), -1);
    assert_non_null(strstr(err.msg, "'gemm'"));
    assert_non_null(strstr(err.msg, "time_spread.q1"));
    rt_profile_free(p);
}

/* What accumulating kernels does to their spread: exact, or unknown. */
static void test_accumulate(void **state)
{
    (void)state;
    rt_kernel a, b, c;
    rt_kernel_init(&a, "k");
    rt_kernel_init(&b, "k");
    rt_kernel_init(&c, "k");
    b.invocations = 5;
    b.time = 15;
    b.spread = (rt_time_spread){5, 3, 2, 4};
    rt_kernel_accumulate(&a, &b); /* into an empty kernel: copied */
    assert_true(a.spread.n == 5 && a.spread.median == 3);
    rt_kernel_accumulate(&a, &c); /* an empty one changes nothing */
    assert_true(a.spread.n == 5);
    rt_kernel_accumulate(&a, &b); /* two settled spreads: unknown */
    assert_true(a.spread.n == 0 && a.spread.median == 0 && a.invocations == 10);
    rt_kernel_release(&a);
    /* Samples on both sides merge; the spread comes at the finish. */
    rt_profile *p = rt_profile_new();
    rt_kernel *x = rt_profile_add_kernel(p, "x");
    rt_kernel_init(&a, "y");
    for (int i = 1; i <= 4; i++) {
        x->invocations++;
        x->time += i;
        rt_kernel_add_sample(x, i);
        a.invocations++;
        a.time += 4 + i;
        rt_kernel_add_sample(&a, 4 + i);
    }
    rt_kernel_accumulate(x, &a);
    rt_profile_finish_spreads(p);
    assert_null(p->kernels[0].samples);
    assert_true(p->kernels[0].spread.n == 8 && p->kernels[0].spread.median == 4.5);
    /* Samples on one side only: unknown, the samples dropped. */
    rt_kernel_accumulate(&p->kernels[0], &a);
    assert_true(p->kernels[0].spread.n == 0);
    rt_kernel_release(&a);
    rt_kernel_release(&b);
    rt_kernel_release(&c);
    rt_profile_free(p);
}

static rt_noise noise_of(double time, double n, double q1, double median, double q3)
{
    rt_noise z = {0};
    rt_time_spread s = {n, median, q1, q3};
    rt_noise_add(&z, time, &s);
    return z;
}

static void test_noise(void **state)
{
    (void)state;
    /* Relative half-IQRs 0.1 and 0.1: combined 0.141. */
    rt_noise a = noise_of(1.0, 20, 0.9e-3, 1e-3, 1.1e-3),
             b = noise_of(1.05, 20, 0.9e-3, 1e-3, 1.1e-3);
    double c;
    assert_int_equal(rt_noise_compare(&a, &b, 1.05, &c), RT_RATIO_WITHIN_NOISE);
    assert_close(c, sqrt(0.02), 1e-12);
    assert_int_equal(rt_noise_compare(&a, &b, 1.2, NULL), RT_RATIO_BEYOND_NOISE);
    assert_int_equal(rt_noise_compare(&a, &b, 1 / 1.2, NULL), RT_RATIO_BEYOND_NOISE);
    char buf[128];
    rt_noise_ratio_text(buf, sizeof buf, 1.05, 2, &a, &b);
    assert_string_equal(buf, "within noise (IQR \u00b114%)");
    rt_noise_ratio_text(buf, sizeof buf, 2, 2, &a, &b);
    assert_string_equal(buf, "x2.00 (IQR \u00b114%)");
    /* Too few invocations on one side, none timed one by one on the other. */
    rt_noise few = noise_of(1.0, 3, 0.9e-3, 1e-3, 1.1e-3), none = noise_of(1.0, 0, 0, 0, 0);
    assert_int_equal(rt_noise_compare(&a, &few, 1.05, NULL), RT_RATIO_SPREAD_UNKNOWN);
    rt_noise_ratio_text(buf, sizeof buf, 76.531, 2, &few, &a);
    assert_string_equal(buf, "x76.53 (from 3 invocations, spread unknown)");
    rt_noise_ratio_text(buf, sizeof buf, 2, 2, &a, &none);
    assert_string_equal(buf, "x2.00 (no per-invocation times, spread unknown)");
    /* Time-weighted: 3 s at 0.1 and 1 s at 0.5 give 0.2; a config needs half its time known. */
    rt_noise z = {0};
    rt_time_spread s1 = {10, 1, 0.9, 1.1}, s2 = {10, 1, 0.5, 1.5}, s3 = {2, 1, 1, 1};
    rt_noise_add(&z, 3, &s1);
    rt_noise_add(&z, 1, &s2);
    assert_close(rt_noise_rel(&z), 0.2, 1e-12);
    rt_noise_add(&z, 3.9, &s3);
    assert_close(rt_noise_rel(&z), 0.2, 1e-12);
    rt_noise_add(&z, 0.2, &s3);
    assert_true(isnan(rt_noise_rel(&z)));
    assert_true(z.few_n == 2);
}

/* "time_spread" in a profile file: written, read back identical; absent is unknown; bad values
 * are errors naming the kernel and the field. */
static void test_profile_json(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/p.json", dir);
    rt_profile *p = rt_profile_new();
    rt_kernel *k = rt_profile_add_kernel(p, "gemm");
    for (int i = 0; i < 7; i++) {
        k->invocations++;
        k->time += 1e-3 * (1 + 0.1 * i);
        rt_kernel_add_sample(k, 1e-3 * (1 + 0.1 * i));
    }
    rt_kernel *u = rt_profile_add_kernel(p, "unknown");
    u->invocations = 3;
    u->time = 1;
    rt_profile_finish_spreads(p);
    assert_true(k->spread.n == 7);
    assert_close(k->spread.median, 1.3e-3, 1e-12);
    assert_close(k->spread.q1, 1.15e-3, 1e-12);
    rt_error err;
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    char *text = tu_read_file(path, NULL);
    assert_non_null(strstr(text, "\"time_spread\""));
    free(text);
    rt_profile *q;
    assert_int_equal(rt_profile_load(path, &q, &err), 0);
    assert_true(rt_profile_equal(p, q, &err));
    assert_true(q->kernels[0].spread.n == 7 && q->kernels[0].spread.q1 == k->spread.q1);
    assert_true(q->kernels[1].spread.n == 0);
    /* A different spread is a difference. */
    q->kernels[0].spread.q3 *= 2;
    assert_false(rt_profile_equal(p, q, &err));
    assert_non_null(strstr(err.msg, "time spread"));
    rt_profile_free(q);
    rt_profile_free(p);

    /* Old files: no time_spread, unknown. */
    tu_write_file(path, "{\"schema\": \"rooftime.profile/1\", \"kernels\": [{\"name\": \"a\", "
                        "\"invocations\": 2, \"time\": 1}]}");
    assert_int_equal(rt_profile_load(path, &q, &err), 0);
    assert_true(q->kernels[0].spread.n == 0);
    rt_profile_free(q);
    static const struct {
        const char *spread, *want;
    } bad[] = {
        {"{\"n\": 5, \"median\": 1, \"q1\": 2, \"q3\": 3}", "kernels[1].time_spread.q1"},
        {"{\"n\": 5, \"median\": 1, \"q1\": 0.5, \"q3\": 0.7}", "kernels[1].time_spread.q3"},
        {"{\"n\": -1, \"median\": 1, \"q1\": 0.5, \"q3\": 2}", "kernels[1].time_spread.n"},
        {"{\"n\": 5, \"median\": \"fast\", \"q1\": 0.5, \"q3\": 2}",
         "kernels[1].time_spread.median"},
        {"{\"n\": 5, \"median\": 1, \"q3\": 2}", "kernels[1].time_spread.q1"},
        {"[1, 2, 3]", "kernels[1].time_spread"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *json = rt_asprintf("{\"schema\": \"rooftime.profile/1\", \"kernels\": [{\"name\": "
                                 "\"a\", \"invocations\": 2, \"time\": 1}, {\"name\": \"conv\", "
                                 "\"invocations\": 5, \"time\": 5, \"time_spread\": %s}]}",
                                 bad[i].spread);
        tu_write_file(path, json);
        free(json);
        q = NULL;
        assert_int_equal(rt_profile_load(path, &q, &err), -1);
        assert_null(q);
        print_message("%s\n", err.msg);
        assert_non_null(strstr(err.msg, bad[i].want));
        if (i < 2)
            assert_non_null(strstr(err.msg, "kernel 'conv'"));
    }
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_quartiles), cmocka_unit_test(test_sketch_and_merge),
        cmocka_unit_test(test_check),           cmocka_unit_test(test_accumulate),
        cmocka_unit_test(test_noise),           cmocka_unit_test(test_profile_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
