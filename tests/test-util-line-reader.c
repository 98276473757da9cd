/* The bounded line reader: lines, a last line without a newline, long lines in pieces, NULs. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/util/line-reader.h"
#include "testutil.h"

/* A pipe holding text (written by a child so any size works). */
static int pipe_of(const char *text, size_t len)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd[1], text + off, len - off);
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    return fd[0];
}

static void test_lines_and_pieces(void **state)
{
    (void)state;
    const char *text = "one\ntwo-long-line\n\nlast";
    int fd = pipe_of(text, strlen(text));
    rt_line_reader r;
    rt_line_reader_init(&r, fd, "pipe", 5, true);
    const char *s;
    size_t n;
    bool ends;
    rt_error err;
    const char *want[] = {"one", "two-l", "ong-l", "ine", "", "last"};
    const bool want_end[] = {true, false, false, true, true, true};
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(rt_line_reader_next(&r, &s, &n, &ends, &err), 1);
        assert_int_equal(n, strlen(want[i]));
        assert_memory_equal(s, want[i], n);
        assert_int_equal(ends, want_end[i]);
    }
    assert_int_equal(rt_line_reader_next(&r, &s, &n, &ends, &err), 0);
    assert_int_equal(r.line, 5);
    rt_line_reader_release(&r);
    close(fd);
}

static void test_long_newline_less_stream(void **state)
{
    (void)state;
    size_t len = 8u << 20; /* 8 MiB without a newline: pieces of at most 1 MiB */
    char *big = malloc(len);
    memset(big, 'x', len);
    int fd = pipe_of(big, len);
    rt_line_reader r;
    rt_line_reader_init(&r, fd, "pipe", 0, true);
    const char *s;
    size_t n, total = 0, pieces = 0;
    bool ends;
    rt_error err;
    while (rt_line_reader_next(&r, &s, &n, &ends, &err) == 1) {
        assert_true(n <= RT_MAX_LINE);
        total += n;
        pieces++;
    }
    assert_int_equal(total, len);
    assert_true(pieces >= 8);
    assert_true(r.cap <= RT_MAX_LINE + (1 << 17)); /* the buffer never grew */
    rt_line_reader_release(&r);
    close(fd);
    free(big);
}

static void test_nul_refused(void **state)
{
    (void)state;
    int fd = open("/dev/zero", O_RDONLY);
    assert_true(fd >= 0);
    rt_line_reader r;
    rt_line_reader_init(&r, fd, "/dev/zero", 0, true);
    const char *s;
    size_t n;
    bool ends;
    rt_error err;
    assert_int_equal(rt_line_reader_next(&r, &s, &n, &ends, &err), -1);
    assert_non_null(strstr(err.msg, "line 1: byte 0 is a NUL"));
    rt_line_reader_release(&r);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_and_pieces),
        cmocka_unit_test(test_long_newline_less_stream),
        cmocka_unit_test(test_nul_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
