/* `import cupti --reevaluate` inside librooftime-cupti.so: the raw counter images a counter run
 * kept (images.PID.csv lists them) evaluated again with this machine's CUPTI host library into rows
 * of ranges.PID.csv (RT_CUPTI_REEVALUATE_SYMBOL in include/rooftime/import/cupti.h). The CLI loads
 * it with dlopen; CUPTI runs in a child process, as it does not check the images it reads: this
 * file walks the directory and reports back, cupti-images.c checks and evaluates the images. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cupti-images.h"
#include "cupti-reevaluate-run.h"
#include "rooftime/import/cupti.h"

#define RTC_EXPORT __attribute__((visibility("default")))

/* Copy dir/ranges.PID.csv of a counter run that kept no images into out_dir. */
static int copy_ranges(re_run *r, long pid)
{
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/ranges.%ld.csv", r->dir, pid);
    snprintf(to, sizeof to, "%s/ranges.%ld.csv", r->out_dir, pid);
    FILE *in = fopen(from, "rb");
    if (!in)
        return errno == ENOENT ? 0 : (re_fail(r, "cannot read %s: %s", from, strerror(errno)), -1);
    FILE *out = fopen(to, "wb");
    if (!out) {
        re_fail(r, "cannot write %s: %s", to, strerror(errno));
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            break;
    int bad = ferror(in) || ferror(out);
    fclose(in);
    if (fclose(out) != 0 || bad) {
        re_fail(r, "cannot copy %s to %s", from, to);
        return -1;
    }
    re_warn(r,
            "%s: process %ld kept no raw images (images.%ld.csv): its ranges are the values the "
            "collector evaluated",
            from, pid, pid);
    return 0;
}

/* In the child: every process of the directory. Returns the ranges written, or -1. */
static long reevaluate(re_run *r)
{
    DIR *d = opendir(r->dir);
    if (!d) {
        re_fail(r, "cannot read directory '%s': %s", r->dir, strerror(errno));
        return -1;
    }
    long *with = NULL, *without = NULL; /* counter-run PIDs with a manifest, and without */
    size_t n_with = 0, n_without = 0, loose = 0, listed = 0;
    struct dirent *e;
    long rc = -1;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        if (sscanf(e->d_name, "images.%ld.csv%n", &pid, &used) == 1 && !e->d_name[used] &&
            pid > 0) {
            if (n_with == RT_CUPTI_MAX_PROCESSES)
                break;
            long *grown = realloc(with, (n_with + 1) * sizeof *with);
            if (!grown)
                break;
            with = grown;
            with[n_with++] = pid;
        } else if (sscanf(e->d_name, "ranges.%ld.csv%n", &pid, &used) == 1 && !e->d_name[used] &&
                   pid > 0) {
            if (n_without == RT_CUPTI_MAX_PROCESSES)
                break;
            long *grown = realloc(without, (n_without + 1) * sizeof *without);
            if (!grown)
                break;
            without = grown;
            without[n_without++] = pid;
        } else if (strncmp(e->d_name, "counterdata.", 12) == 0 && strlen(e->d_name) > 4 + 12 &&
                   strcmp(e->d_name + strlen(e->d_name) - 4, ".bin") == 0) {
            loose++;
        }
    }
    closedir(d);
    if (n_with == 0) {
        if (loose)
            re_fail(r,
                    "%s: %zu counter data images but no images.PID.csv listing them (written by an "
                    "older collector?): they cannot be checked, so they are not read",
                    r->dir, loose);
        else
            re_fail(
                r,
                "%s: no raw counter images (images.PID.csv): `profile --gpu --counters` keeps "
                "them in run.cupti/ beside run.json, or in --keep-dir, not with --no-keep-images",
                r->dir);
        goto out;
    }
    for (size_t i = 0; i < n_with; i++) {
        size_t before = r->images;
        if (re_process(r, with[i]) != 0)
            goto out;
        listed += r->images - before;
    }
    /* Counter runs that kept no images: their own ranges, with a warning. */
    for (size_t i = 0; i < n_without; i++) {
        int has = 0;
        for (size_t j = 0; j < n_with && !has; j++)
            has = with[j] == without[i];
        if (!has && copy_ranges(r, without[i]) != 0)
            goto out;
    }
    if (loose > listed)
        re_warn(r,
                "%s: %zu counter data images are not listed in an images.PID.csv (the collector "
                "did not finish writing them?): not read",
                r->dir, loose - listed);
    if (r->ranges == 0) {
        re_fail(r,
                "%s: no ranges: the %zu counter data images hold none (the counter run launched "
                "no kernel?)",
                r->dir, r->images);
        goto out;
    }
    rc = (long)r->ranges;
out:
    free(with);
    free(without);
    free(r->metric_list);
    r->metric_list = NULL;
    return rc;
}

/* The sanitizers refuse a dlopen with RTLD_DEEPBIND, which CUPTI uses for libnvperf_host.so:
 * the process would die. */
static const char *sanitizer(void)
{
    static const char *const rt[][2] = {{"__asan_init", "AddressSanitizer"},
                                        {"__tsan_init", "ThreadSanitizer"},
                                        {"__msan_init", "MemorySanitizer"},
                                        {"__hwasan_init", "HWAddressSanitizer"}};
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
        if (dlsym(RTLD_DEFAULT, rt[i][0]))
            return rt[i][1];
    return NULL;
}

RTC_EXPORT long rooftime_cupti_reevaluate(const char *dir, const char *out_dir,
                                          void (*warn_fn)(void *ctx, const char *msg), void *ctx,
                                          char *err, size_t errn)
{
    const char *san = sanitizer();
    if (san) {
        snprintf(err, errn,
                 "this program runs under %s, which refuses libnvperf_host.so (CUPTI loads it with "
                 "RTLD_DEEPBIND): re-evaluating counter images needs a rooftime built without "
                 "sanitizers",
                 san);
        return -1;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errn, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        snprintf(err, errn, "cannot start a process: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (child == 0) {
        close(fds[0]);
        struct rlimit no_core = {0, 0}; /* a crash is reported, not dumped */
        setrlimit(RLIMIT_CORE, &no_core);
        static re_run r; /* large: the contexts */
        char cerr[2048] = "";
        r.dir = dir;
        r.out_dir = out_dir;
        r.fd = fds[1];
        r.err = cerr;
        r.errn = sizeof cerr;
        long n = reevaluate(&r);
        char num[32];
        snprintf(num, sizeof num, "%ld", n);
        re_send(fds[1], n < 0 ? 'E' : 'N', n < 0 ? cerr : num);
        _exit(n < 0 ? 1 : 0);
    }
    close(fds[1]);
    /* The child's messages, one per line: W warning, F the file CUPTI reads, E error, N count. */
    char *buf = NULL, cur[4096] = "(no image yet)";
    size_t len = 0, cap = 0;
    long count = -1;
    err[0] = '\0';
    for (;;) {
        if (len + 4096 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 8192;
            char *grown = realloc(buf, ncap);
            if (!grown)
                break;
            buf = grown;
            cap = ncap;
        }
        ssize_t got = read(fds[0], buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', len - (size_t)(start - buf))) != NULL) {
            *nl = '\0';
            if (start[0] == 'W' && warn_fn)
                warn_fn(ctx, start + 1);
            else if (start[0] == 'F')
                snprintf(cur, sizeof cur, "%s", start + 1);
            else if (start[0] == 'E')
                snprintf(err, errn, "%s", start + 1);
            else if (start[0] == 'N')
                count = strtol(start + 1, NULL, 10);
            start = nl + 1;
        }
        len -= (size_t)(start - buf);
        memmove(buf, start, len);
    }
    free(buf);
    close(fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        snprintf(err, errn,
                 "CUPTI crashed (signal %d, %s) reading %s: not an image this CUPTI can read "
                 "(damaged, or written by another CUPTI version)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)), cur);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || count < 0) {
        if (!err[0])
            snprintf(err, errn, "re-evaluating %s failed (exit status %d)", dir,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return count;
}
