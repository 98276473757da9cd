/* Taps of a sliding window in closed form: sums of floors of linear functions, no loop over
 * positions (a log line with a billion-wide window must not take a billion steps). */
#include <stdint.h>
#include <stdlib.h>

#include "rooftime/util/sliding-window.h"

static int64_t floordiv(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t ceildiv(int64_t a, int64_t b) /* b > 0 */
{
    return -floordiv(-a, b);
}

/* sum_{i=0}^{n-1} floor((a*i + b) / m) for a, b >= 0, m >= 1 (Euclid-like reduction). The
 * callers keep every partial sum below 2^63. */
static uint64_t floor_sum(uint64_t n, uint64_t m, uint64_t a, uint64_t b)
{
    uint64_t ans = 0;
    for (;;) {
        if (a >= m) {
            ans += (n * (n - 1) / 2) * (a / m);
            a %= m;
        }
        if (b >= m) {
            ans += n * (b / m);
            b %= m;
        }
        uint64_t y = a * n + b;
        if (y < m)
            return ans;
        n = y / m;
        b = y % m;
        uint64_t t = m;
        m = a;
        a = t;
    }
}

/* sum over k in [p, q] of floor((c0 - k*D) / S), where c0 - q*D >= 0. */
static int64_t sum_floor_down(int64_t p, int64_t q, int64_t c0, int64_t D, int64_t S)
{
    if (q < p)
        return 0;
    /* j = q - k runs 0 .. q - p: floor((c0 - q*D + j*D) / S) */
    return (int64_t)floor_sum((uint64_t)(q - p + 1), (uint64_t)S, (uint64_t)D,
                              (uint64_t)(c0 - q * D));
}

static int in_range(int64_t x)
{
    return x >= -RT_WINDOW_MAX_DIM && x <= RT_WINDOW_MAX_DIM;
}

int64_t rt_window_taps(int64_t out, int64_t in, int64_t kern, int64_t stride, int64_t step,
                       int64_t pad)
{
    if (!in_range(out) || !in_range(in) || !in_range(kern) || !in_range(stride) ||
        !in_range(step) || !in_range(pad) || stride < 1 || step < 1)
        return -1;
    if (out < 1 || in < 1 || kern < 1)
        return 0;
    const int64_t O = out, S = stride, D = step;
    /* Tap k reads inputs for the o with v - k*D <= o*S <= u - k*D, 0 <= o < O. */
    const int64_t u = pad + in - 1, v = pad;
    /* f(k) = floor((u - kD)/S) and g(k) = ceil((v - kD)/S) fall as k grows; the count of tap k is
     * min(O-1, f) - max(0, g) + 1, positive exactly for k in [a, b]. */
    int64_t a = ceildiv(v - (O - 1) * S, D), b = floordiv(u, D);
    if (a < 0)
        a = 0;
    if (b > kern - 1)
        b = kern - 1;
    if (b < a)
        return 0;
    int64_t k1 = floordiv(u - (O - 1) * S, D); /* f(k) >= O-1 for k <= k1 */
    int64_t k2 = ceildiv(v, D);                /* g(k) <= 0 for k >= k2 */
    int64_t clamped_hi_end = k1 < b ? k1 : b;
    int64_t total = 0;
    if (clamped_hi_end >= a)
        total += (O - 1) * (clamped_hi_end - a + 1);
    int64_t from = k1 + 1 > a ? k1 + 1 : a;
    total += sum_floor_down(from, b, u, D, S);
    total += b - a + 1; /* the +1 of every tap */
    /* minus max(0, g(k)) for k in [a, min(b, k2-1)]: g(k) = floor((v + S - 1 - kD)/S) > 0 */
    int64_t g_end = k2 - 1 < b ? k2 - 1 : b;
    total -= sum_floor_down(a, g_end, v + S - 1, D, S);
    return total;
}
