/* The one process spawner (spawn.c): `profile`, the study's PyTorch client, and any library user
 * that runs a command. No shell: argv[0] is searched in PATH. */
#ifndef ROOFTIME_UTIL_SPAWN_H
#define ROOFTIME_UTIL_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "rooftime/util/error.h"

typedef struct rt_spawn_opts {
    const char *const *env;  /* "NAME=VALUE" set in the child, NULL-terminated (NULL: none) */
    bool capture_stdout;     /* the child's stdout into a pipe: rt_child.out_fd */
    const char *stdout_path; /* otherwise: NULL inherits, a path is opened for writing */
    const char *stderr_path; /* NULL inherits; a path is created or truncated (mode 0600) */
    int close_fd;            /* a descriptor of ours the child must not hold (-1: none) */
} rt_spawn_opts;

typedef struct rt_child {
    pid_t pid;
    int out_fd; /* read end of the child's stdout when captured, else -1 */
    int signal; /* after rt_spawn_wait: the signal that killed it, else 0 */
} rt_child;

/* Start argv. 0, or -1 with "cannot run 'ARGV0': REASON" in err (a command that is not found or
 * not executable is told apart from one that starts and fails, through a close-on-exec pipe).
 * opts may be NULL. */
int rt_spawn(char *const argv[], const rt_spawn_opts *opts, rt_child *child, rt_error *err);

/* Wait for the child (retrying on EINTR) and close its pipe: its exit code, 128 + the signal that
 * killed it, or -1 when it cannot be waited for. */
int rt_spawn_wait(rt_child *child);

/* The python3 that runs PyTorch: $ROOFTIME_PYTHON, else /usr/bin/python3 (Debian's python3-torch).
 */
const char *rt_spawn_python(void);

/* "a b 'c d'": argv as a reader would retype it in a shell (heap string). */
char *rt_spawn_command_text(int argc, char *const argv[]);

#endif
