/* Tests of the streaming CSV reader: quoting, line numbers, long fields, block boundaries, errors.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Write s in pieces of `piece` bytes (a pipe then hands the reader small reads). */
static void write_pieces(int fd, const char *s, size_t n, size_t piece)
{
    for (size_t at = 0; at < n;) {
        size_t k = n - at < piece ? n - at : piece;
        ssize_t w = write(fd, s + at, k);
        if (w <= 0)
            _exit(1);
        at += (size_t)w;
    }
}

/* A row of several MiB read from a pipe written in 4093-byte pieces: a line that is not CSV,
 * skipped whole; a 3 MiB unquoted field, a 1 MiB quoted one with "" pairs, commas and newlines, a
 * \r\n line end; then a short row. (The reader used to scan the row again after each small read
 * of the pipe: quadratic in its length.) */
static void test_long_row_from_pipe(void **state)
{
    (void)state;
    const size_t pre = 2u << 20, unq = 3u << 20, quo = 1u << 20;
    size_t cap = pre + unq + 2 * quo + 64, n = 0;
    char *s = rt_xmalloc(cap);
    for (size_t k = 0; k < pre; k++)
        s[n++] = "pre,\"amble"[k % 10];
    s[n++] = '\n';
    for (size_t k = 0; k < unq; k++)
        s[n++] = (char)('a' + k % 26);
    s[n++] = ',';
    s[n++] = '"';
    size_t qlen = 0, qlines = 0;
    for (size_t k = 0; k < quo; k++, qlen++) {
        char ch = k % 1000 == 999 ? '\n' : k % 300 == 0 ? ',' : k % 77 == 0 ? '"' : 'q';
        qlines += ch == '\n';
        s[n++] = ch;
        if (ch == '"')
            s[n++] = '"';
    }
    memcpy(s + n, "\",7\r\nshort,1\n", 13);
    n += 13;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        write_pieces(fds[1], s, n, 4093);
        _exit(0);
    }
    close(fds[1]);
    char *path = rt_asprintf("/dev/fd/%d", fds[0]);
    rt_error err = {{0}};
    rt_csv *c = rt_csv_open(path, &err);
    assert_non_null(c);
    const char *line;
    size_t len;
    assert_int_equal(rt_csv_peek_line(c, &line, &len, &err), 1);
    assert_int_equal(len, pre);
    assert_memory_equal(line, s, pre);
    assert_int_equal(rt_csv_skip_line(c, &err), 1);
    rt_csv_row r;
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 2);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.len[0], unq);
    assert_memory_equal(r.field[0], s + pre + 1, unq);
    assert_false(r.quoted[0]);
    assert_int_equal(r.len[1], qlen);
    assert_true(r.quoted[1]);
    for (size_t k = 0; k < quo; k++) {
        char ch = k % 1000 == 999 ? '\n' : k % 300 == 0 ? ',' : k % 77 == 0 ? '"' : 'q';
        if (r.field[1][k] != ch)
            fail_msg("quoted field: byte %zu is '%c', expected '%c'", k, r.field[1][k], ch);
    }
    assert_string_equal(r.field[2], "7");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 3 + qlines);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.field[0], "short");
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    rt_csv_free(c);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(path);
    free(s);
}

/* A UTF-8 byte order mark (Excel's "CSV UTF-8") is skipped, from memory and from a file, before
 * rows and before lines; only at the start: elsewhere it is data. */
static void test_byte_order_mark(void **state)
{
    (void)state;
    rt_csv_row r;
    rt_error err = {{0}};
    rt_csv *c = from_string("\xEF\xBB\xBF\"ID\",name\r\n1,\xEF\xBB\xBFk\r\n");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.line, 1);
    assert_true(r.quoted[0]);
    assert_string_equal(r.field[0], "ID");
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_string_equal(r.field[1], "\xEF\xBB\xBFk");
    assert_int_equal(rt_csv_offset(c), 22);
    rt_csv_free(c);

    c = from_string("\xEF\xBB\xBF"
                    "app output\n\"ID\"\n");
    const char *line;
    size_t len;
    assert_int_equal(rt_csv_peek_line(c, &line, &len, &err), 1);
    assert_int_equal(len, 10);
    assert_memory_equal(line, "app output", 10);
    rt_csv_free(c);

    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/bom.csv", dir);
    assert_int_equal(tu_write_file(path, "\xEF\xBB\xBF"), 0); /* a mark and nothing else */
    c = rt_csv_open(path, &err);
    assert_non_null(c);
    assert_int_equal(rt_csv_next(c, &r, &err), 0);
    rt_csv_free(c);
    assert_int_equal(tu_write_file(path, "\xEF\xBB\xBF"
                                         "a,b\n"),
                     0);
    c = rt_csv_open(path, &err);
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.field[0], "a");
    rt_csv_free(c);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* A writer that ends every row with a newline: a last row without one was cut ("131072" to "13")
 * and is an error naming its line; without the requirement it is a row, as before. */
static void test_require_line_ends(void **state)
{
    (void)state;
    rt_csv_row r;
    rt_error err = {{0}};
    static const char *const cut[] = {"a,b\n1,131072\n3,13", "a,b\n1,131072\n3,",
                                      "a,b\n1,131072\n3,\"x\""};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        rt_csv *c = from_string(cut[i]);
        rt_csv_require_line_ends(c);
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(rt_csv_next(c, &r, &err), -1);
        assert_string_equal(err.msg,
                            "t.csv: line 3: the file ends inside this row, with no newline "
                            "after it (a truncated file?)");
        rt_csv_free(c);
        c = from_string(cut[i]);
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(rt_csv_next(c, &r, &err), 1);
        assert_int_equal(rt_csv_next(c, &r, &err), 0);
        rt_csv_free(c);
    }
    static const char *const whole[] = {"a,b\n1,2\n", "a,b\r\n1,2\r\n", ""};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        rt_csv *c = from_string(whole[i]);
        rt_csv_require_line_ends(c);
        int got;
        while ((got = rt_csv_next(c, &r, &err)) == 1)
            ;
        assert_int_equal(got, 0);
        rt_csv_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoting_and_lines),
        cmocka_unit_test(test_trailing_comma_at_end),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_peek_and_skip),
        cmocka_unit_test(test_long_fields_across_blocks),
        cmocka_unit_test(test_long_row_from_pipe),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_require_line_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
