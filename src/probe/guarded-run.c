/* Runs a function once in a child process and says how it ended: returned, raised a fatal signal
 * (SIGILL, SIGSEGV, SIGBUS, SIGFPE) or ran past its time; the compute and bandwidth kernels' trial
 * runs. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A forked child, not a handler on the calling thread (sigaction + sigsetjmp), because:
 * - whatever the faulting code left behind (a tile configuration half loaded, a wild store) dies
 *   with the child; a siglongjmp out of a SIGSEGV leaves the process in a state C does not define;
 * - the process's handlers stay as they are: a handler is process-wide, so one of ours would also
 *   take another thread's fault (an OpenMP worker's, the embedding program's) and jump on the wrong
 *   stack; AddressSanitizer's (SIGSEGV, SIGBUS, SIGFPE) and cmocka's (all four) in the tests, and
 * an embedding program's, are never replaced in the caller;
 * - a run that never ends can be stopped (SIGKILL after the time allowed).
 * The child has what a trial needs: a copy of the memory and of the calling thread, and Linux's AMX
 * permission (arch_prctl ARCH_REQ_XCOMP_PERM), which "is valid per process. Permissions are
 * inherited on fork(2) and cleared on exec(3)" (Documentation/arch/x86/xstate.rst; in the source,
 * fpu_clone calls fpu_inherit_perms, which copies the group leader's permission to the child,
 * arch/x86/kernel/fpu/core.c). The price is one fork, a fraction of a millisecond for this process.
 *
 * The child makes only async-signal-safe calls: after a fork in a process with threads, the other
 * threads' locks (malloc's, OpenMP's) stay held for ever in the child. It catches the four fatal
 * signals itself and exits with RT_GUARD_FAULT + the signal: no core dump, no "trap invalid opcode"
 * line in the kernel log, and under AddressSanitizer, which handles SIGSEGV, SIGBUS and SIGFPE with
 * its own report and exit (allow_user_segv_handler, on by default, lets the child replace them),
 * the same answer as without it. A signal the child does not catch is read from the wait status.
 */
#define RT_GUARD_WRONG 2  /* the child's exit status when fn returned non-zero */
#define RT_GUARD_FAULT 64 /* ... + the signal when it raised one of the four */

static const int fatal_signals[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};

static void child_fault(int sig)
{
    _exit(RT_GUARD_FAULT + sig);
}

/* In the child: catch the four signals, no core file, run fn, exit with what it returned. */
static void run_child(int (*fn)(long), long arg)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = child_fault;
    sigemptyset(&sa.sa_mask);
    sigset_t unblock;
    sigemptyset(&unblock);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        sigaction(fatal_signals[i], &sa, NULL);
        sigaddset(&unblock, fatal_signals[i]);
    }
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    _exit(fn(arg) == 0 ? 0 : RT_GUARD_WRONG);
}

/* Wait for the child up to timeout seconds (SIGKILL after it); 0 with its wait status, 1 when it
 * was killed for its time, -1 when it cannot be waited for. */
static int wait_child(pid_t pid, double timeout, int *status)
{
    double t0 = rt_now();
    long nap_ns = 20000; /* a trial takes well under a millisecond: poll often, then less */
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return -1;
        if (rt_now() - t0 > timeout) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            return 1;
        }
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        if (nap_ns < 10000000)
            nap_ns *= 2;
    }
}

int rt_guarded_run(int (*fn)(long), long arg, double timeout, rt_guarded *out, rt_error *err)
{
    pid_t pid = fork();
    if (pid < 0) {
        rt_error_set(err, "cannot start a trial process: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        run_child(fn, arg);
    int status = 0;
    int w = wait_child(pid, timeout, &status);
    if (w < 0) {
        rt_error_set(err, "cannot wait for the trial process %d: %s", (int)pid, strerror(errno));
        return -1;
    }
    if (w > 0)
        *out = (rt_guarded){RT_GUARD_TIMEOUT, 0};
    else if (WIFSIGNALED(status))
        *out = (rt_guarded){RT_GUARD_SIGNAL, WTERMSIG(status)};
    else if (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == RT_GUARD_WRONG)
        *out = (rt_guarded){RT_GUARD_RETURNED, WEXITSTATUS(status) != 0};
    else
        *out = (rt_guarded){RT_GUARD_EXIT, WEXITSTATUS(status)};
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (out->end == RT_GUARD_EXIT && out->value == RT_GUARD_FAULT + fatal_signals[i])
            *out = (rt_guarded){RT_GUARD_SIGNAL, fatal_signals[i]};
    return 0;
}

const char *rt_signal_name(int sig)
{
    switch (sig) {
    case SIGILL:
        return "SIGILL";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGABRT:
        return "SIGABRT";
    case SIGTRAP:
        return "SIGTRAP";
    case SIGKILL:
        return "SIGKILL";
    default:
        return NULL;
    }
}

void rt_guarded_describe(const rt_guarded *g, double timeout, char *buf, size_t n)
{
    switch (g->end) {
    case RT_GUARD_RETURNED:
        snprintf(buf, n, "%s",
                 g->value ? "computed a wrong result" : "ran and computed the right result");
        break;
    case RT_GUARD_SIGNAL:
        if (rt_signal_name(g->value))
            snprintf(buf, n, "raised %s", rt_signal_name(g->value));
        else
            snprintf(buf, n, "raised signal %d (%s)", g->value, strsignal(g->value));
        break;
    case RT_GUARD_TIMEOUT:
        snprintf(buf, n, "did not end within %g s", timeout);
        break;
    case RT_GUARD_EXIT:
        snprintf(buf, n, "ended with exit status %d", g->value);
        break;
    }
}

int rt_guarded_trial(int (*fn)(long), long arg, const char *what, bool *unguarded,
                     rt_warnings *skipped, char *how, size_t n)
{
    rt_guarded g;
    rt_error gerr;
    if (!*unguarded && rt_guarded_run(fn, arg, RT_TRIAL_TIMEOUT, &g, &gerr) != 0) {
        rt_warnings_add(skipped,
                        "%s' trial runs: %s: the kernels run unguarded (one that faults ends the "
                        "measurement)",
                        what, gerr.msg);
        *unguarded = true;
    }
    if (*unguarded)
        g = (rt_guarded){RT_GUARD_RETURNED, fn(arg) != 0};
    if (g.end == RT_GUARD_RETURNED && g.value == 0)
        return 0;
    rt_guarded_describe(&g, RT_TRIAL_TIMEOUT, how, n);
    if (g.end == RT_GUARD_SIGNAL && g.value == SIGILL) {
        size_t len = strlen(how);
        snprintf(how + len, n - len, " although CPUID lists the instruction set");
    }
    return 1;
}
