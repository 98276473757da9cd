/* The one process spawner: exit codes, signals, a command that is not there, captured output,
 * environment, redirected standard error, and the command as a shell would take it back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/util/spawn.h"
#include "testutil.h"

static int run(char *const argv[], const rt_spawn_opts *o)
{
    rt_child c;
    rt_error err = {{0}};
    if (rt_spawn(argv, o, &c, &err) != 0)
        fail_msg("%s", err.msg);
    return rt_spawn_wait(&c);
}

static void test_exit_codes_and_signals(void **state)
{
    (void)state;
    char *t[] = {"true", NULL}, *f[] = {"false", NULL};
    assert_int_equal(run(t, NULL), 0);
    assert_int_equal(run(f, NULL), 1);
    char *k[] = {"sh", "-c", "kill -9 $$", NULL};
    rt_child c;
    assert_int_equal(rt_spawn(k, NULL, &c, NULL), 0);
    assert_int_equal(rt_spawn_wait(&c), 128 + 9);
    assert_int_equal(c.signal, 9);
    char *x[] = {"sh", "-c", "exit 130", NULL};
    assert_int_equal(rt_spawn(x, NULL, &c, NULL), 0);
    assert_int_equal(rt_spawn_wait(&c), 130);
    assert_int_equal(c.signal, 0); /* an exit code of 130 is not a signal */
}

static void test_not_found(void **state)
{
    (void)state;
    char *argv[] = {"rooftime-no-such-command-here", NULL};
    rt_child c;
    rt_error err = {{0}};
    assert_int_equal(rt_spawn(argv, NULL, &c, &err), -1);
    assert_non_null(strstr(err.msg, "cannot run 'rooftime-no-such-command-here'"));
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(c.pid, -1);
}

static void test_capture_and_env(void **state)
{
    (void)state;
    static const char *const env[] = {"RT_SPAWN_TEST=a b", NULL};
    rt_spawn_opts o = {.env = env, .capture_stdout = true, .close_fd = -1};
    char *argv[] = {"sh", "-c", "printf '%s' \"$RT_SPAWN_TEST\"", NULL};
    rt_child c;
    assert_int_equal(rt_spawn(argv, &o, &c, NULL), 0);
    char buf[64] = {0};
    size_t n = 0;
    ssize_t r;
    while ((r = read(c.out_fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    assert_string_equal(buf, "a b");
    assert_int_equal(rt_spawn_wait(&c), 0);
    assert_int_equal(c.out_fd, -1);
}

static void test_stderr_file(void **state)
{
    (void)state;
    char path[] = "/tmp/rt-spawn-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    rt_spawn_opts o = {.stdout_path = "/dev/null", .stderr_path = path, .close_fd = -1};
    char *argv[] = {"sh", "-c", "echo out; echo err >&2", NULL};
    assert_int_equal(run(argv, &o), 0);
    FILE *f = fopen(path, "r");
    char line[16] = {0};
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
    assert_string_equal(line, "err\n");
    /* an unwritable redirection is a start failure, not a child that fails */
    rt_spawn_opts bad = {.stderr_path = "/nonexistent-dir/x", .close_fd = -1};
    rt_child c;
    rt_error err = {{0}};
    assert_int_equal(rt_spawn(argv, &bad, &c, &err), -1);
    assert_non_null(strstr(err.msg, "cannot run 'sh'"));
}

static void test_command_text(void **state)
{
    (void)state;
    char *argv[] = {"python3", "train.py", "--name", "a b", "it's", "", NULL};
    char *s = rt_spawn_command_text(6, argv);
    assert_string_equal(s, "python3 train.py --name 'a b' 'it'\\''s' ''");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes_and_signals), cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_capture_and_env),        cmocka_unit_test(test_stderr_file),
        cmocka_unit_test(test_command_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
