/* The one process spawner: fork and exec with a close-on-exec pipe carrying exec's errno back,
 * optional stdout capture and redirections, and the waiting. */
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_errno(int fd, int e)
{
    ssize_t w;
    do
        w = write(fd, &e, sizeof e);
    while (w < 0 && errno == EINTR);
}

/* In the child: point fd at path (opened with flags), or report errno and leave. */
static void redirect(int fd, const char *path, int flags, int ep)
{
    int f = open(path, flags, 0600);
    if (f < 0) {
        write_errno(ep, errno);
        _exit(127);
    }
    dup2(f, fd);
    close(f);
}

int rt_spawn(char *const argv[], const rt_spawn_opts *opts, rt_child *child, rt_error *err)
{
    static const rt_spawn_opts none = {.close_fd = -1};
    const rt_spawn_opts *o = opts ? opts : &none;
    child->pid = -1;
    child->out_fd = -1;
    child->signal = 0;
    int out[2] = {-1, -1}, ep[2];
    if (pipe(ep) != 0 || (o->capture_stdout && pipe(out) != 0)) {
        rt_error_set(err, "cannot run '%s': cannot create a pipe: %s", argv[0], strerror(errno));
        return -1;
    }
    fcntl(ep[1], F_SETFD, FD_CLOEXEC);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            close(ep[i]);
            if (out[i] >= 0)
                close(out[i]);
        }
        rt_error_set(err, "cannot run '%s': cannot fork: %s", argv[0], strerror(e));
        return -1;
    }
    if (pid == 0) {
        close(ep[0]);
        if (o->close_fd >= 0)
            close(o->close_fd);
        if (o->capture_stdout) {
            close(out[0]);
            dup2(out[1], STDOUT_FILENO);
            close(out[1]);
        } else if (o->stdout_path) {
            redirect(STDOUT_FILENO, o->stdout_path, O_WRONLY, ep[1]);
        }
        if (o->stderr_path)
            redirect(STDERR_FILENO, o->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, ep[1]);
        for (size_t i = 0; o->env && o->env[i]; i++) {
            const char *eq = strchr(o->env[i], '=');
            if (!eq)
                continue;
            char *name = strndup(o->env[i], (size_t)(eq - o->env[i]));
            if (name)
                setenv(name, eq + 1, 1);
            free(name);
        }
        execvp(argv[0], argv);
        write_errno(ep[1], errno);
        _exit(127);
    }
    close(ep[1]);
    if (out[1] >= 0)
        close(out[1]);
    int e = 0;
    ssize_t got;
    do
        got = read(ep[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    close(ep[0]);
    if (got == (ssize_t)sizeof e) {
        rt_error_set(err, "cannot run '%s': %s", argv[0], strerror(e));
        if (out[0] >= 0)
            close(out[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    child->pid = pid;
    child->out_fd = out[0];
    return 0;
}

int rt_spawn_wait(rt_child *child)
{
    if (child->out_fd >= 0) {
        close(child->out_fd);
        child->out_fd = -1;
    }
    if (child->pid <= 0)
        return -1;
    int status;
    while (waitpid(child->pid, &status, 0) < 0)
        if (errno != EINTR) {
            child->pid = -1;
            return -1;
        }
    child->pid = -1;
    child->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char *rt_spawn_command_text(int argc, char *const argv[])
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) * 4 + 3;
    char *s = rt_xmalloc(n), *p = s;
    for (int i = 0; i < argc; i++) {
        int quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'\\$*?") != NULL;
        if (i)
            *p++ = ' ';
        if (quote)
            *p++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (quote && *c == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *c;
            }
        }
        if (quote)
            *p++ = '\'';
    }
    *p = '\0';
    return s;
}

const char *rt_spawn_python(void)
{
    const char *env = getenv("ROOFTIME_PYTHON");
    return env && *env ? env : "/usr/bin/python3";
}
