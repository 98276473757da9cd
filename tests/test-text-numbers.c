/* Tests of the text tables' numbers written by hand (formats/text-numbers.c): byte for byte what
 * rt_fmt_value, rt_fmt_seconds and printf write, over edge values and 400,000 random ones. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../src/formats/text-numbers.h"
#include "rooftime/util/format.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Every way the text writes v agrees with the reference formatter. */
static void same(double v)
{
    char a[64], b[64];
    rt_fmt_value(a, sizeof a, v);
    rt_text_value(b, sizeof b, v);
    if (strcmp(a, b) != 0)
        fail_msg("value %.17g: '%s' (rt_fmt_value), '%s' by hand", v, a, b);
    rt_fmt_seconds(a, sizeof a, v);
    rt_text_seconds(b, sizeof b, v);
    if (strcmp(a, b) != 0)
        fail_msg("seconds %.17g: '%s' (rt_fmt_seconds), '%s' by hand", v, a, b);
    snprintf(a, sizeof a, "%.9g", v);
    rt_text_g9(b, sizeof b, v);
    if (strcmp(a, b) != 0)
        fail_msg("csv %.17g: '%s' (%%.9g), '%s' by hand", v, a, b);
    for (int prec = 1; prec <= 10; prec++) /* the JSON's reals: 10 digits */
        if (rt_text_fast_g(b, v, prec)) {
            snprintf(a, sizeof a, "%.*g", prec, v);
            if (strcmp(a, b) != 0)
                fail_msg("%%.%dg of %.17g: '%s' (snprintf), '%s' by hand", prec, v, a, b);
        }
    snprintf(a, sizeof a, "%.0f", v);
    rt_text_launches(b, sizeof b, v);
    if (strcmp(a, b) != 0)
        fail_msg("launches %.17g: '%s' (%%.0f), '%s' by hand", v, a, b);
    if (!(fabs(v) < 1e50)) /* the share column's numbers: percentages */
        return;
    snprintf(a, sizeof a, "%6.1f", v);
    *rt_text_fixed1(b, v, 6) = '\0';
    if (strcmp(a, b) != 0)
        fail_msg("share %.17g: '%s' (%%6.1f), '%s' by hand", v, a, b);
}

static void test_edges(void **state)
{
    (void)state;
    /* Decades, ties in decimal, rounding up into the next decade, the %g switch to exponents. */
    static const double v[] = {0,
                               -0.0,
                               1,
                               10,
                               100,
                               1000,
                               9999.5,
                               99995,
                               9.9995,
                               99.995,
                               999.95,
                               0.5,
                               1.5,
                               2.5,
                               0.125,
                               0.00099995,
                               1e-4,
                               9.99999e-5,
                               1e-5,
                               1e15,
                               1e16,
                               123456,
                               99999.5,
                               1e22,
                               1e23,
                               123.456,
                               0.1,
                               0.3,
                               1e-300,
                               5e-324,
                               1.7976931348623157e308,
                               -1.2345e-7,
                               4.2e-6,
                               6.23e-3,
                               796.2,
                               NAN,
                               INFINITY,
                               -INFINITY,
                               3e-9,
                               0.9995,
                               0.99995,
                               1e-3,
                               1e-6,
                               1e-9,
                               999.5e-3,
                               999.5e-6,
                               0.25,
                               0.05,
                               0.15,
                               99.95,
                               100,
                               12.25,
                               999999.95,
                               1e6};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        double x = v[i];
        same(x);
        same(-x);
        for (int k = 0; k < 3 && isfinite(x); k++) { /* the neighbours of each */
            same(nextafter(x, INFINITY));
            same(nextafter(x, -INFINITY));
            x = nextafter(x, INFINITY);
        }
    }
    char b[16];
    *rt_text_count(b, 7, 4) = '\0';
    assert_string_equal(b, "   7");
    *rt_text_count(b, 123456, 4) = '\0';
    assert_string_equal(b, "123456");
}

static void test_random(void **state)
{
    (void)state;
    for (long i = 0; i < 400000; i++) {
        double v;
        uint64_t u = next();
        switch (i % 4) {
        case 0: /* any bit pattern */
            memcpy(&v, &u, sizeof v);
            break;
        case 1: /* short decimals: ties in decimal are common */
            v = (double)(u % 2000000) / pow(10, (double)(next() % 12));
            break;
        case 2: /* whole numbers scaled by powers of two */
            v = ldexp((double)(u % 100000), (int)(next() % 80) - 60);
            break;
        case 3: /* shares: percentages with ties in the tenths */
            if (i % 8 == 3) {
                v = (double)(u % 2000001) / 20000.0;
                break;
            }
            /* fall through */
        default: /* log-uniform over 40 decades */
            v = pow(10.0, (double)(u % 400000) / 10000.0 - 20);
        }
        same(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
