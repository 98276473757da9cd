/* The one formula evaluator: grammar, precedence, banks, division by zero, and its limits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rooftime/util/formula.h"
#include "testutil.h"

/* Names x, y, z are bank 0 slots 0..2; k is bank 1 slot 0; anything else is unknown. */
static int resolve(void *ctx, const char *name, size_t len, int *bank, int *index, const char **why)
{
    (void)ctx;
    if (len == 1 && name[0] >= 'x' && name[0] <= 'z') {
        *bank = 0;
        *index = name[0] - 'x';
        return 0;
    }
    if (len == 1 && name[0] == 'k') {
        *bank = 1;
        *index = 0;
        return 0;
    }
    *why = "unknown name";
    return -1;
}

static double eval(const char *text)
{
    static const double vars[] = {2, 3, 5}, k[] = {10};
    const double *bank[] = {vars, k};
    rt_formula f;
    rt_error err = {{0}};
    if (rt_formula_compile(&f, text, resolve, NULL, &err) != 0)
        fail_msg("'%s' did not compile: %s", text, err.msg);
    double v = rt_formula_eval(&f, bank);
    rt_formula_release(&f);
    return v;
}

static void test_arithmetic(void **state)
{
    (void)state;
    assert_float_equal(eval("1 + 2 * 3"), 7, 0);
    assert_float_equal(eval("(1 + 2) * 3"), 9, 0);
    assert_float_equal(eval("x * y + z"), 11, 0);
    assert_float_equal(eval("k / x - -y"), 8, 0);
    assert_float_equal(eval("2e3 / 4"), 500, 0);
    assert_float_equal(eval("10 - 4 - 3"), 3, 0);  /* left to right */
    assert_float_equal(eval("x / (y - 3)"), 0, 0); /* division by zero reads as 0 */
}

static void fails_with(const char *text, const char *want)
{
    rt_formula f;
    rt_error err = {{0}};
    if (rt_formula_compile(&f, text, resolve, NULL, &err) == 0)
        fail_msg("'%s' compiled", text);
    rt_formula_release(&f);
    if (!strstr(err.msg, want))
        fail_msg("'%s': '%s' lacks '%s'", text, err.msg, want);
}

static void test_errors(void **state)
{
    (void)state;
    fails_with("x +", "unexpected end at character 4");
    fails_with("(x", "expected ')'");
    fails_with("x y", "unexpected character at character 3");
    fails_with("x + qq", "unknown name at character 5");
    fails_with("x # y", "unexpected character");
    char deep[200];
    memset(deep, '(', 100);
    strcpy(deep + 100, "x");
    fails_with(deep, "nested deeper than the limit of 64");
    /* 65 values waiting for their operator: refused at compile time */
    char wide[4096] = "";
    for (int i = 0; i < 66; i++)
        strcat(wide, "x*(");
    strcat(wide, "1");
    for (int i = 0; i < 66; i++)
        strcat(wide, ")");
    fails_with(wide, "limit");
}

static void test_malformed_eval(void **state)
{
    (void)state;
    rt_formula_op ops[] = {{.kind = RT_F_ADD}};
    rt_formula f = {.op = ops, .n = 1};
    const double *bank[] = {NULL};
    assert_true(isnan(rt_formula_eval(&f, bank)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_malformed_eval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
