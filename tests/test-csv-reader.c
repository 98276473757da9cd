/* Tests of the streaming CSV reader: quoting, line numbers, long fields, block boundaries, errors.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/csv-reader.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static rt_csv *from_string(const char *s)
{
    return rt_csv_from_memory(s, strlen(s), "t.csv");
}

static void test_quoting_and_lines(void **state)
{
    (void)state;
    rt_csv *c = from_string("a,\"b,c\",\"say \"\"hi\"\"\"\r\n"
                            "\"multi\nline\",,x\n"
                            "last,\"\"\n"
                            "tail");
    rt_csv_row r;
    rt_error err = {{0}};
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.line, 1);
    assert_string_equal(r.field[0], "a");
    assert_string_equal(r.field[1], "b,c");
    assert_string_equal(r.field[2], "say \"hi\"");
    assert_int_equal(r.len[2], 8);
    assert_true(r.quoted[1]);
    assert_false(r.quoted[0]);
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 2);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.field[0], "multi\nline");
    assert_string_equal(r.field[1], "");
    assert_string_equal(r.field[2], "x");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 4);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.field[1], "");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 5);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.field[0], "tail");
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    rt_csv_free(c);
}

static void test_trailing_comma_at_end(void **state)
{
    (void)state;
    rt_csv *c = from_string("1,2,");
    rt_csv_row r;
    rt_error err = {{0}};
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.n, 3);
    assert_string_equal(r.field[2], "");
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    rt_csv_free(c);
}

static void test_errors(void **state)
{
    (void)state;
    rt_csv_row r;
    rt_error err = {{0}};
    rt_csv *c = from_string("a,b\n\"open,c\nd\n");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(rt_csv_next(c, &r, &err), -1);
    assert_non_null(strstr(err.msg, "t.csv: line 2"));
    assert_non_null(strstr(err.msg, "not closed"));
    rt_csv_free(c);

    c = from_string("\"a\"b,c\n");
    assert_int_equal(rt_csv_next(c, &r, &err), -1);
    assert_non_null(strstr(err.msg, "line 1"));
    assert_non_null(strstr(err.msg, "after a closing quote"));
    rt_csv_free(c);

    assert_null(rt_csv_open("/nonexistent/x.csv", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/x.csv"));
}

static void test_peek_and_skip(void **state)
{
    (void)state;
    rt_csv *c = from_string("app says \"hi\r\n==PROF== x\n\"ID\",\"v\"\n\"1\",\"2\"\n");
    const char *line;
    size_t len;
    rt_error err = {{0}};
    assert_int_equal(rt_csv_peek_line(c, &line, &len, &err), 1);
    assert_int_equal(len, 12);
    assert_memory_equal(line, "app says \"hi", 12);
    assert_int_equal(rt_csv_skip_line(c, &err), 1);
    assert_int_equal(rt_csv_skip_line(c, &err), 1);
    assert_int_equal(rt_csv_line(c), 3);
    rt_csv_row r;
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 3);
    assert_string_equal(r.field[0], "ID");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_string_equal(r.field[1], "2");
    assert_int_equal(r.line, 4);
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    assert_int_equal(rt_csv_peek_line(c, &line, &len, &err), 0);
    rt_csv_free(c);
}

/* Rows that straddle the reader's 1 MiB blocks, a field of 3 MiB with quotes and newlines in it. */
static void test_long_fields_across_blocks(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    char *path = rt_asprintf("%s/long.csv", dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    const size_t big = 3u << 20;
    const int rows = 20000;
    for (int i = 0; i < rows; i++) {
        fprintf(fp, "\"%d\",\"kernel<%d, \"\"q\"\">(int, float)\",%d.5\n", i, i % 97, i);
        if (i == rows / 2) {
            fputc('"', fp);
            for (size_t k = 0; k < big; k++)
                fputc(k % 1000 == 999 ? '\n' : (k % 500 == 0 ? ',' : 'x'), fp);
            fputs("\"\"end\",x\n", fp);
        }
    }
    fclose(fp);
    rt_error err = {{0}};
    rt_csv *c = rt_csv_open(path, &err);
    assert_non_null(c);
    rt_csv_row r;
    unsigned long expect_line = 1;
    char want[128];
    for (int i = 0; i < rows; i++) {
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(r.n, 3);
        assert_int_equal(r.line, expect_line);
        assert_int_equal(atoi(r.field[0]), i);
        snprintf(want, sizeof want, "kernel<%d, \"q\">(int, float)", i % 97);
        assert_string_equal(r.field[1], want);
        expect_line++;
        if (i == rows / 2) {
            assert_int_equal(rt_csv_next(c, &r, &err), 1);
            assert_int_equal(r.n, 2);
            assert_int_equal(r.len[0], big + 4);
            assert_string_equal(r.field[0] + big, "\"end");
            assert_string_equal(r.field[1], "x");
            expect_line += 1 + big / 1000;
        }
    }
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    rt_csv_free(c);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoting_and_lines),
        cmocka_unit_test(test_trailing_comma_at_end),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_peek_and_skip),
        cmocka_unit_test(test_long_fields_across_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
