/* The closed-form window counter against counting every (position, tap) pair, and its limits. */
#include <stdint.h>

#include "rooftime/util/sliding-window.h"
#include "testutil.h"

static int64_t brute(int64_t O, int64_t I, int64_t K, int64_t S, int64_t D, int64_t P)
{
    int64_t n = 0;
    for (int64_t o = 0; o < O; o++)
        for (int64_t k = 0; k < K; k++) {
            int64_t i = o * S - P + k * D;
            n += i >= 0 && i < I;
        }
    return n;
}

static void test_against_brute_force(void **state)
{
    (void)state;
    long cases = 0;
    for (int64_t I = 1; I <= 9; I++)
        for (int64_t K = 1; K <= 6; K++)
            for (int64_t S = 1; S <= 4; S++)
                for (int64_t D = 1; D <= 3; D++)
                    for (int64_t P = -2; P <= 5; P++)
                        for (int64_t O = 0; O <= 9; O++) {
                            int64_t want = brute(O, I, K, S, D, P);
                            int64_t got = rt_window_taps(O, I, K, S, D, P);
                            if (got != want)
                                fail_msg("O%lld I%lld K%lld S%lld D%lld P%lld: %lld, expected "
                                         "%lld",
                                         (long long)O, (long long)I, (long long)K, (long long)S,
                                         (long long)D, (long long)P, (long long)got,
                                         (long long)want);
                            cases++;
                        }
    assert_true(cases > 50000);
}

static void test_huge_is_fast_and_exact(void **state)
{
    (void)state;
    /* no padding, stride 1, dense: every output sees every tap */
    int64_t n = 1000000000, k = 1000;
    assert_int_equal(rt_window_taps(n - k + 1, n, k, 1, 1, 0), (n - k + 1) * k);
    /* the bad-inputs line: ow999999999 kw999999999 pads that keep every tap in range */
    int64_t big = 999999999;
    int64_t t = rt_window_taps(big, big, big, 1, 1, big / 2);
    assert_true(t > 0 && t <= big * big);
    /* out of range or nonsense: refused, never a loop */
    assert_int_equal(rt_window_taps(RT_WINDOW_MAX_DIM + 1, 1, 1, 1, 1, 0), -1);
    assert_int_equal(rt_window_taps(1, 1, 1, 0, 1, 0), -1);
    assert_int_equal(rt_window_taps(1, 1, 1, 1, 0, 0), -1);
    assert_int_equal(rt_window_taps(0, 5, 3, 1, 1, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_brute_force),
        cmocka_unit_test(test_huge_is_fast_and_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
