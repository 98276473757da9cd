/* Tests of util's number formatting and UTF-8 cutting: one spelling of each unit, aligned columns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static void test_seconds(void **state)
{
    (void)state;
    char b[32];
    rt_fmt_seconds(b, sizeof b, 4.2e-6);
    assert_string_equal(b, "4.2 µs");
    rt_fmt_seconds(b, sizeof b, 0.00125);
    assert_string_equal(b, "1.25 ms");
    rt_fmt_seconds(b, sizeof b, 0);
    assert_string_equal(b, "0 s");
    rt_fmt_seconds(b, sizeof b, 3e-10);
    assert_string_equal(b, "0.3 ns");
    rt_fmt_seconds(b, sizeof b, 0.0 / 0.0);
    assert_string_equal(b, "-");
    rt_fmt_time(b, sizeof b, 4.2e-6);
    assert_string_equal(b, "4.2 µs");
}

static void test_si(void **state)
{
    (void)state;
    char b[32];
    rt_fmt_si(b, sizeof b, 107.479e12, "FLOP/s");
    assert_string_equal(b, "107.5 TFLOP/s");
    rt_fmt_si(b, sizeof b, 999.996e3, "B"); /* rounds up into the next prefix */
    assert_string_equal(b, "1 MB");
    rt_fmt_si(b, sizeof b, 0, "s");
    assert_string_equal(b, "0 s");
    rt_fmt_bytes(b, sizeof b, 48 * 1024.0);
    assert_string_equal(b, "48 KiB");
    rt_fmt_decade(b, sizeof b, -5, -5, 0);
    assert_string_equal(b, "10⁻⁵");
    /* one axis, one notation: plain while every label is, powers of ten otherwise */
    rt_fmt_decade(b, sizeof b, -2, -2, 3);
    assert_string_equal(b, "0.01");
    rt_fmt_decade(b, sizeof b, 3, -2, 3);
    assert_string_equal(b, "1000");
    rt_fmt_decade(b, sizeof b, -2, -3, 3);
    assert_string_equal(b, "10⁻²");
    rt_fmt_decade(b, sizeof b, 0, -1, 4);
    assert_string_equal(b, "10⁰");
    rt_fmt_decade(b, sizeof b, 12, -1, 12);
    assert_string_equal(b, "10¹²");
    rt_fmt_value(b, sizeof b, -1.0 / 0.0);
    assert_string_equal(b, "-inf");
}

static void test_field_width(void **state)
{
    (void)state;
    char line[64];
    /* "µs" is 3 bytes, 2 columns: both rows must be 10 columns wide */
    snprintf(line, sizeof line, "%*s|", rt_fmt_field("675 µs", 10), "675 µs");
    assert_int_equal(strlen(line), 12);
    snprintf(line, sizeof line, "%*s|", rt_fmt_field("1.18 ms", 10), "1.18 ms");
    assert_int_equal(strlen(line), 11);
}

/* A share that is not zero never reads "0.0%", nor one short of all "100.0%". */
static void test_share(void **state)
{
    (void)state;
    const struct {
        double f;
        const char *want;
    } cases[] = {{0, "0.0%"},       {0.0004, "under 0.1%"}, {0.0005, "0.1%"}, {0.125, "12.5%"},
                 {0.9994, "99.9%"}, {0.9996, "over 99.9%"}, {1, "100.0%"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char b[32];
        rt_fmt_share(b, sizeof b, cases[i].f);
        assert_string_equal(b, cases[i].want);
    }
}

static void test_utf8_prefix(void **state)
{
    (void)state;
    const char *s = "abµcd";                              /* µ is bytes 2 and 3 */
    assert_int_equal(rt_utf8_prefix(s, strlen(s), 3), 2); /* would split µ: cut before it */
    assert_int_equal(rt_utf8_prefix(s, strlen(s), 4), 4);
    assert_int_equal(rt_utf8_prefix(s, strlen(s), 99), strlen(s));
    assert_int_equal(rt_utf8_prefix(s, strlen(s), 0), 0);
}

/* Long names alike up to their end (template instances, configs that differ in their last tag)
 * stay told apart when shortened, and the cut never splits a character. */
static void test_shorten_distinct(void **state)
{
    (void)state;
    const char *names[] = {
        "cutlass_tensorop_h1688gemm_256x128_32x2_nn_align8_epilogue_0",
        "cutlass_tensorop_h1688gemm_256x128_32x2_nn_align8_epilogue_1",
        "cutlass_tensorop_h1688gemm_128x128_32x2_nn_align8_epilogue_0",
        "conv_fwd {implementation=onednn,precision=fp32,filters=512,kernel=3,stride=2}",
        "conv_fwd {implementation=onednn,precision=fp32,filters=64,kernel=9,stride=2}",
        "\u5377\u79ef\u795e\u7ecf\u7f51\u7edc\u6846\u67b6\u7532\u5377\u79ef\u795e\u7ecf\u7f51\u7edc"
        "\u6846\u67b6\u7532\u4e59"};
    size_t n = sizeof names / sizeof *names;
    char out[8][31];
    for (size_t i = 0; i < n; i++) {
        rt_utf8_shorten_distinct(names[i], names, n, 30, out[i]);
        assert_true(strlen(out[i]) <= 30);
        assert_true(rt_utf8_valid(out[i]));
        assert_non_null(strstr(out[i], "..."));
        for (size_t j = 0; j < i; j++)
            if (strcmp(out[i], out[j]) == 0)
                fail_msg("'%s' and '%s' both read '%s'", names[i], names[j], out[i]);
    }
    /* Differing early: the head, as before. */
    const char *two[] = {"alpha_kernel_with_a_rather_long_name_one", "beta_kernel"};
    rt_utf8_shorten_distinct(two[0], two, 2, 30, out[0]);
    assert_string_equal(out[0], "alpha_kernel_with_a_rather_...");
    rt_utf8_shorten_distinct("short", two, 2, 30, out[1]);
    assert_string_equal(out[1], "short");
}

/* Numbers as they are written: overflow and text refused, underflow read as the value rounded. */
static void test_parse_double(void **state)
{
    (void)state;
    double v = -1;
    assert_true(rt_parse_double("1e-400", &v));
    assert_true(v == 0.0);
    assert_true(rt_parse_double("-4e-320", &v));
    assert_true(v < 0 && v > -1e-310);
    assert_true(rt_parse_double("2.5 ", &v));
    assert_true(v == 2.5);
    assert_false(rt_parse_double("1e400", &v));
    assert_false(rt_parse_double("-1e400", &v));
    assert_false(rt_parse_double("inf", &v));
    assert_false(rt_parse_double("nan", &v));
    assert_false(rt_parse_double("1,5", &v));
    assert_false(rt_parse_double("", &v));
}

static void test_parse_time(void **state)
{
    (void)state;
    double s = -1;
    assert_int_equal(rt_parse_time("4.2us", &s), 0);
    assert_true(fabs(s - 4.2e-6) < 1e-18);
    assert_int_equal(rt_parse_time("0.5 ms", &s), 0);
    assert_true(fabs(s - 5e-4) < 1e-15);
    assert_int_equal(rt_parse_time("2 µs", &s), 0);
    assert_true(fabs(s - 2e-6) < 1e-18);
    assert_int_equal(rt_parse_time("3e-6", &s), 0);
    assert_true(fabs(s - 3e-6) < 1e-18);
    assert_int_equal(rt_parse_time("7ns", &s), 0);
    assert_true(fabs(s - 7e-9) < 1e-21);
    s = 42;
    assert_int_equal(rt_parse_time("fast", &s), -1);
    assert_int_equal(rt_parse_time("4.2 min", &s), -1);
    assert_int_equal(rt_parse_time("-1us", &s), -1);
    assert_int_equal(rt_parse_time("inf", &s), -1);
    assert_int_equal(rt_parse_time("", &s), -1);
    assert_true(s == 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seconds),      cmocka_unit_test(test_si),
        cmocka_unit_test(test_field_width),  cmocka_unit_test(test_share),
        cmocka_unit_test(test_utf8_prefix),  cmocka_unit_test(test_shorten_distinct),
        cmocka_unit_test(test_parse_double), cmocka_unit_test(test_parse_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
