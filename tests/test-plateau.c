/* Tests of plateau detection: synthetic, noisy, missing-level and recorded bandwidth curves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/error.h"
#include "testutil.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024)

static const char *const names3[] = {"L1", "L2", "L3"};
static const double zen_limits[] = {48 * KiB, 1 * MiB, 32 * MiB};

/* A curve with a smooth step (logistic in log x) at each limit. */
static size_t synth(double *x, double *y, size_t max, double from, double to, double step,
                    const double *levels, const double *limits, size_t k)
{
    size_t n = 0;
    for (double b = from; b <= to * 1.0001 && n < max; b *= step, n++) {
        double v = levels[0];
        for (size_t j = 0; j < k; j++) {
            double s = 1 / (1 + exp(-(log(b) - log(limits[j] * 1.3)) / 0.15));
            v += (levels[j + 1] - levels[j]) * s;
        }
        x[n] = b;
        y[n] = v;
    }
    return n;
}

/* Deterministic noise: +-amp, from a linear congruential generator. */
static void add_noise(double *y, size_t n, double amp, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double u = ((seed >> 8) & 0xffff) / 65535.0; /* [0,1] */
        y[i] *= 1 + amp * (2 * u - 1);
    }
}

static void test_clean(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {400e9, 180e9, 100e9, 30e9};
    size_t n = synth(x, y, 128, 3 * KiB, 1024 * MiB, sqrt(2), lv, zen_limits, 3);
    rt_plateau p[4];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, zen_limits, names3, 3, p, &w, &err), 0);
    assert_int_equal(w.n, 0);
    for (int j = 0; j < 4; j++) {
        assert_true(p[j].found);
        assert_close(p[j].bw, lv[j], 0.03);
        assert_true(p[j].min <= p[j].bw && p[j].bw <= p[j].max);
        assert_true(p[j].n_points >= 2);
    }
    assert_string_equal(p[0].name, "L1");
    assert_string_equal(p[3].name, "DRAM");
    assert_close(p[1].size_bytes, 1 * MiB, 1e-12);
    rt_warnings_release(&w);
}

static void test_noisy(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {450e9, 170e9, 95e9, 25e9};
    for (unsigned seed = 1; seed <= 20; seed++) {
        size_t n = synth(x, y, 128, 3 * KiB, 1024 * MiB, pow(2, 1.0 / 3), lv, zen_limits, 3);
        add_noise(y, n, 0.10, seed);
        y[20] *= 3;   /* one wild point inside L2 (a timer hiccup) */
        y[40] *= 0.2; /* and one inside L3 (a preempted run) */
        rt_plateau p[4];
        rt_warnings w = {0};
        rt_error err;
        assert_int_equal(rt_plateau_detect(x, y, n, zen_limits, names3, 3, p, &w, &err), 0);
        for (int j = 0; j < 4; j++) {
            if (!p[j].found)
                fail_msg("seed %u: %s not found: %s", seed, p[j].name, p[j].note);
            if (!tu_close(p[j].bw, lv[j], 0.10))
                fail_msg("seed %u: %s = %g, expected %g", seed, p[j].name, p[j].bw, lv[j]);
        }
        rt_warnings_release(&w);
    }
}

/* L3 no faster than L2: both read one run; the note says so. */
static void test_no_step(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {400e9, 150e9, 150e9, 30e9};
    size_t n = synth(x, y, 128, 3 * KiB, 1024 * MiB, sqrt(2), lv, zen_limits, 3);
    rt_plateau p[4];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, zen_limits, names3, 3, p, &w, &err), 0);
    assert_true(p[2].found);
    assert_close(p[2].bw, 150e9, 0.03);
    assert_non_null(strstr(p[2].note, "no step"));
    assert_close(p[3].bw, 30e9, 0.03);
    rt_warnings_release(&w);
}

/* A curve that stops inside L3: DRAM is missing, with a warning, the rest is right. */
static void test_missing_dram(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {400e9, 180e9, 100e9, 30e9};
    size_t n = synth(x, y, 128, 3 * KiB, 16 * MiB, sqrt(2), lv, zen_limits, 3);
    rt_plateau p[4];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, zen_limits, names3, 3, p, &w, &err), 0);
    assert_true(p[0].found && p[1].found && p[2].found);
    assert_false(p[3].found);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "DRAM"));
    assert_close(p[2].bw, 100e9, 0.03);
    rt_warnings_release(&w);
}

/* A machine without L3 (two cache levels reported): L2 then DRAM. */
static void test_two_levels(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {300e9, 120e9, 20e9}, lim[] = {32 * KiB, 512 * KiB};
    size_t n = synth(x, y, 128, 3 * KiB, 256 * MiB, sqrt(2), lv, lim, 2);
    add_noise(y, n, 0.05, 7);
    rt_plateau p[3];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, lim, names3, 2, p, &w, &err), 0);
    assert_string_equal(p[2].name, "DRAM");
    for (int j = 0; j < 3; j++)
        assert_close(p[j].bw, lv[j], 0.06);
    rt_warnings_release(&w);
}

/* The first level takes its fastest run: the host slowed four of its six points (a stretch at
 * 0.66 of the rate, as on AMD Zen 3 under a busy SMT sibling), and the run of two fast points is
 * L1 all the same; L2 still takes the run with the most points. */
static void test_first_level_fastest(void **state)
{
    (void)state;
    double x[] = {3 * KiB,  4.5 * KiB, 6 * KiB,   9 * KiB,   12 * KiB,  16.5 * KiB,
                  48 * KiB, 96 * KiB,  192 * KiB, 384 * KiB, 256 * MiB, 512 * MiB};
    double y[] = {400e9, 396e9, 265e9, 262e9, 268e9, 260e9, 100e9, 103e9, 101e9, 99e9, 20e9, 21e9};
    double lim[] = {32 * KiB, 512 * KiB};
    rt_plateau p[3];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, 12, lim, names3, 2, p, &w, &err), 0);
    assert_true(p[0].found && p[1].found && p[2].found);
    assert_close(p[0].bw, 398e9, 1e-9);
    assert_int_equal(p[0].n_points, 2);
    assert_close(p[1].bw, 100.5e9, 1e-9);
    rt_warnings_release(&w);
}

/* Sizes claim an L3 step that the curve does not reach with two points: missing, not invented. */
static void test_level_without_points(void **state)
{
    (void)state;
    double x[] = {4 * KiB, 16 * KiB, 256 * KiB, 512 * KiB, 256 * MiB, 512 * MiB};
    double y[] = {400e9, 410e9, 150e9, 155e9, 20e9, 21e9};
    rt_plateau p[4];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, 6, zen_limits, names3, 3, p, &w, &err), 0);
    assert_true(p[0].found && p[1].found && p[3].found);
    assert_false(p[2].found);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "L3"));
    rt_warnings_release(&w);
}

static void test_unknown_sizes(void **state)
{
    (void)state;
    double x[128], y[128], lv[] = {400e9, 180e9, 100e9, 30e9};
    size_t n = synth(x, y, 128, 3 * KiB, 1024 * MiB, sqrt(2), lv, zen_limits, 3);
    rt_plateau p[1];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, NULL, NULL, 0, p, &w, &err), 0);
    assert_string_equal(p[0].name, "DRAM");
    assert_true(p[0].found);
    assert_close(p[0].bw, 30e9, 0.03);
    assert_int_equal(w.n, 1);
    rt_warnings_release(&w);
}

static void test_bad_input(void **state)
{
    (void)state;
    double x[] = {1, 3, 2}, y[] = {1, 1, 1}, y0[] = {1, 0, 1};
    rt_plateau p[4];
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, 3, zen_limits, names3, 3, p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "point 3"));
    double xs[] = {1, 2, 3};
    assert_int_equal(rt_plateau_detect(xs, y0, 3, zen_limits, names3, 3, p, NULL, &err), -1);
    assert_int_equal(rt_plateau_detect(xs, y, 0, zen_limits, names3, 3, p, NULL, &err), -1);
    double bad_lim[] = {1 * MiB, 48 * KiB, 32 * MiB};
    assert_int_equal(rt_plateau_detect(xs, y, 3, bad_lim, names3, 3, p, NULL, &err), -1);
}

/*
 * A read curve recorded on the development machine (AMD EPYC Zen 5 VM, one
 * thread, AVX-512 loads): "# caches: SIZE..." then "bytes bytes_per_s" lines.
 */
static void test_recorded(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/measure-read-zen5-1thread.txt", tu_src());
    char *text = tu_read_file(path, NULL);
    assert_non_null(text);
    double x[256], y[256], lim[8];
    size_t n = 0, k = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# caches:", 9) == 0) {
            char *s = line + 9, *end;
            for (double v; k < 8 && (v = strtod(s, &end), end != s); s = end)
                lim[k++] = v;
        } else if (line[0] != '#' && n < 256) {
            assert_int_equal(sscanf(line, "%lf %lf", &x[n], &y[n]), 2);
            n++;
        }
    }
    free(text);
    assert_int_equal(k, 3);
    assert_true(n > 20);
    rt_plateau p[4];
    rt_warnings w = {0};
    rt_error err;
    assert_int_equal(rt_plateau_detect(x, y, n, lim, names3, 3, p, &w, &err), 0);
    for (int j = 0; j < 4; j++)
        if (!p[j].found)
            fail_msg("%s: %s", p[j].name, p[j].note);
    /* Each level slower than the one above, and inside the curve's range. */
    for (int j = 1; j < 4; j++)
        assert_true(p[j].bw < p[j - 1].bw);
    /*
     * The levels the measurement reported for this curve (likwid-bench load_avx512 in the same
     * session: 444, 169, 104, 36.5 GB/s at 24 KiB, 221 KiB, 5.7 MiB, 256 MiB).
     */
    assert_close(p[0].bw, 426.0e9, 0.01);
    assert_close(p[1].bw, 177.0e9, 0.01);
    assert_close(p[2].bw, 110.7e9, 0.01);
    assert_close(p[3].bw, 36.4e9, 0.01);
    assert_true(p[2].from_bytes >= lim[1] && p[2].to_bytes <= lim[2]);
    rt_warnings_release(&w);
}

static void test_cache_detect(void **state)
{
    (void)state;
    rt_cache_info c[8];
    const char *src = NULL;
    int n = rt_cache_detect(c, 8, &src);
    if (n == 0)
        skip();
    assert_non_null(src);
    for (int i = 0; i < n; i++) {
        assert_true(c[i].size > 0);
        assert_true(c[i].shared_by >= 1);
        if (i > 0)
            assert_true(c[i].level > c[i - 1].level);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_noisy),
        cmocka_unit_test(test_no_step),
        cmocka_unit_test(test_missing_dram),
        cmocka_unit_test(test_two_levels),
        cmocka_unit_test(test_level_without_points),
        cmocka_unit_test(test_unknown_sizes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_cache_detect),
        cmocka_unit_test(test_first_level_fastest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
