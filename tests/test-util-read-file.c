/* Tests of the text reader: a file mapped or read gives the same bytes, limits and messages. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static void test_text_load(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *small = rt_asprintf("%s/small.txt", dir), *large = rt_asprintf("%s/large.txt", dir);
    assert_int_equal(tu_write_file(small, "{}\n"), 0);
    size_t n = (2 << 20) + 3; /* mapped */
    char *text = rt_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + i % 26);
    text[n] = '\0';
    assert_int_equal(tu_write_file(large, text), 0);
    rt_error err = {{0}};
    rt_text t;
    assert_int_equal(rt_text_load(small, RT_MAX_TEXT_INPUT, &t, &err), 0);
    assert_int_equal(t.len, 3);
    assert_int_equal(t.mapped, 0);
    assert_int_equal(memcmp(t.s, "{}\n", 3), 0);
    rt_text_release(&t);
    assert_int_equal(rt_text_load(large, RT_MAX_TEXT_INPUT, &t, &err), 0);
    assert_int_equal(t.len, n);
    assert_true(t.mapped > 0);
    assert_int_equal(memcmp(t.s, text, n), 0);
    rt_text_release(&t);
    /* the limits and messages of rt_read_text_file */
    assert_int_equal(rt_text_load(large, n - 1, &t, &err), -1);
    assert_non_null(strstr(err.msg, "larger than the limit"));
    text[n - 5] = '\0';
    FILE *fp = fopen(large, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, n, fp), n);
    fclose(fp);
    assert_int_equal(rt_text_load(large, RT_MAX_TEXT_INPUT, &t, &err), -1);
    char want[64];
    snprintf(want, sizeof want, "byte %zu is a NUL", n - 5);
    assert_non_null(strstr(err.msg, want));
    char *none = rt_asprintf("%s/none.json", dir);
    assert_int_equal(rt_text_load(none, RT_MAX_TEXT_INPUT, &t, &err), -1);
    char *msg = rt_asprintf("cannot read '%s': no such file", none);
    assert_string_equal(err.msg, msg);
    free(msg);
    tu_rmtree(dir);
    free(none);
    free(text);
    free(small);
    free(large);
    free(dir);
}

/* The writer opens as soon as a reader has (non-blocking, retried), writes and closes at once, as
 * `cat file > fifo &` does: a reader that closed and opened again would find the data gone and
 * wait for a writer forever. */
/* A UTF-8 byte order mark is dropped by every way in: read, loaded small (heap) and large
 * (mapped); the mapping is still released whole (valgrind/ASan would see a bad munmap). */
static void test_byte_order_mark(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *small = rt_asprintf("%s/small.json", dir), *large = rt_asprintf("%s/large.json", dir);
    assert_int_equal(tu_write_file(small, "\xEF\xBB\xBF{}\r\n"), 0);
    size_t n = (2 << 20) + 3; /* mapped */
    char *text = rt_xmalloc(n + 1);
    memcpy(text, "\xEF\xBB\xBF", 3);
    for (size_t i = 3; i < n; i++)
        text[i] = (char)('a' + i % 26);
    text[n] = '\0';
    assert_int_equal(tu_write_file(large, text), 0);
    rt_error err = {{0}};
    char *buf;
    size_t len;
    assert_int_equal(rt_read_text_file(small, 100, &buf, &len, &err), 0);
    assert_int_equal(len, 4);
    assert_string_equal(buf, "{}\r\n");
    free(buf);
    rt_text t;
    assert_int_equal(rt_text_load(small, RT_MAX_TEXT_INPUT, &t, &err), 0);
    assert_int_equal(t.len, 4);
    assert_int_equal(memcmp(t.s, "{}\r\n", 4), 0);
    rt_text_release(&t);
    assert_int_equal(rt_text_load(large, RT_MAX_TEXT_INPUT, &t, &err), 0);
    assert_true(t.mapped > 0);
    assert_int_equal(t.len, n - 3);
    assert_int_equal(memcmp(t.s, text + 3, n - 3), 0);
    rt_text_release(&t);
    assert_null(t.s);
    /* a mark alone is an empty file; a mark later on is text */
    assert_int_equal(tu_write_file(small, "\xEF\xBB\xBF"), 0);
    assert_int_equal(rt_read_text_file(small, 100, &buf, &len, &err), 0);
    assert_int_equal(len, 0);
    free(buf);
    assert_int_equal(tu_write_file(small, "x\xEF\xBB\xBF"), 0);
    assert_int_equal(rt_read_text_file(small, 100, &buf, &len, &err), 0);
    assert_int_equal(len, 4);
    free(buf);
    tu_rmtree(dir);
    free(text);
    free(small);
    free(large);
    free(dir);
}

/* The limit is said in the unit it was set in: a collector file's 64 KiB was "0 MiB". */
static void test_limit_message(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/big.txt", dir);
    char *text = rt_xmalloc(70001);
    memset(text, 'x', 70000);
    text[70000] = '\0';
    assert_int_equal(tu_write_file(path, text), 0);
    static const struct {
        size_t max;
        const char *says;
    } cases[] = {{(size_t)1 << 16, "larger than the limit of 64 KiB"},
                 {1000, "larger than the limit of 1000 bytes"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_error err = {{0}};
        char *buf;
        size_t len;
        assert_int_equal(rt_read_text_file(path, cases[i].max, &buf, &len, &err), -1);
        if (!strstr(err.msg, cases[i].says))
            fail_msg("'%s' does not say '%s'", err.msg, cases[i].says);
    }
    tu_rmtree(dir);
    free(text);
    free(path);
    free(dir);
}

static void *write_fifo(void *path)
{
    int fd = -1;
    for (int i = 0; i < 30000000 && fd < 0; i++)
        fd = open(path, O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
        const char *s = "{\"schema\": \"fifo\"}\n";
        ssize_t w = write(fd, s, strlen(s));
        (void)w;
        close(fd);
    }
    return NULL;
}

/* A FIFO is opened once: its data goes to that reader (`rooftime analyze FIFO` opened it twice and
 * hung). alarm() fails the test rather than letting it hang. */
static void test_text_load_fifo(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *fifo = rt_asprintf("%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, write_fifo, fifo), 0);
    alarm(60);
    rt_error err = {{0}};
    rt_text t;
    assert_int_equal(rt_text_load(fifo, RT_MAX_TEXT_INPUT, &t, &err), 0);
    alarm(0);
    assert_int_equal(t.mapped, 0);
    const char *want = "{\"schema\": \"fifo\"}\n";
    assert_int_equal(t.len, strlen(want));
    assert_int_equal(memcmp(t.s, want, t.len), 0);
    rt_text_release(&t);
    pthread_join(th, NULL);
    tu_rmtree(dir);
    free(fifo);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_load),
        cmocka_unit_test(test_text_load_fifo),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_limit_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
