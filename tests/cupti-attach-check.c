/* librooftime-cupti.so's in-process entry points as a program calls them (tests/CMakeLists:
 * cupti-attach, built only with the collector, unsanitized as the collector is):
 *   cupti-attach-check LIB
 * dlopens LIB and checks rooftime_cupti_mark when not collecting (-1, nothing written), bad tags
 * and modes, detach when not collecting, and rooftime_cupti_attach: without a driver (this
 * machine) -1 and one line "no CUDA driver: libcuda.so.1 not found (...)", nothing written; with
 * a driver and no device, one line; with a GPU, a mark and a detach that finish marks.PID.csv.
 * Exit 0 when every check passes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plain-check.h"
#include "rooftime/import/cupti.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int one_line(const char *s)
{
    return s[0] && !strchr(s, '\n') && !strchr(s, '\r');
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cupti-attach-check LIB\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("FAIL cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    int (*attach)(const char *, const char *, char *, size_t) =
        (int (*)(const char *, const char *, char *, size_t))dlsym(h, "rooftime_cupti_attach");
    int (*detach)(char *, size_t) = (int (*)(char *, size_t))dlsym(h, "rooftime_cupti_detach");
    int (*mark)(const char *) = (int (*)(const char *))dlsym(h, "rooftime_cupti_mark");
    CHECK("the library exports attach, detach and mark", attach && detach && mark);
    if (!attach || !detach || !mark)
        return 1;

    char tmp[] = "/tmp/cupti-attach-XXXXXX", dir[256], marks[512], err[512];
    if (!mkdtemp(tmp))
        return 1;
    snprintf(dir, sizeof dir, "%s/run", tmp);
    snprintf(marks, sizeof marks, "%s/marks.%ld.csv", dir, (long)getpid());

    CHECK("mark when not collecting: -1", mark("pass=forward;batch=16") == -1);
    CHECK("mark \"\" when not collecting: -1", mark("") == -1);
    CHECK("mark NULL when not collecting: -1", mark(NULL) == -1);
    CHECK("a bad key is refused: -1", mark("bad key=1") == -1);
    CHECK("a line break in a value is refused: -1", mark("a=1\n") == -1);
    CHECK("detach when not collecting: -1", detach(err, sizeof err) == -1);
    CHECK("  ... says so in one line", strcmp(err, "not collecting") == 0);
    CHECK("detach with no error buffer: -1, no crash", detach(NULL, 0) == -1);
    CHECK("attach with mode 'bogus': -1", attach(dir, "bogus", err, sizeof err) == -1);
    CHECK("  ... names the modes", strstr(err, "trace or counters") != NULL);
    CHECK("attach without a directory: -1", attach("", "trace", err, sizeof err) == -1);

    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int rc = attach(dir, "trace", err, sizeof err);
    printf("     attach: %d '%s'\n", rc, err);
    if (!drv) {
        CHECK("no driver: attach -1", rc == -1);
        CHECK("no driver: the line names libcuda.so.1",
              strncmp(err, "no CUDA driver: libcuda.so.1 not found", 38) == 0);
        CHECK("no driver: one line", one_line(err));
        CHECK("no driver: nothing written (no directory)", !exists(dir));
        CHECK("no driver: attach with no error buffer: -1, no crash",
              attach(dir, "counters", NULL, 0) == -1);
    } else if (rc != 0) {
        CHECK("a driver, no device: one line", one_line(err));
        CHECK("a driver, no device: nothing written", !exists(marks));
    } else {
        CHECK("with a GPU: attach again is refused", attach(dir, "trace", err, sizeof err) == -1);
        CHECK("  ... 'already collecting'", strstr(err, "already collecting") != NULL);
        CHECK("with a GPU: mark 0", mark("pass=forward;batch=16;") == 0);
        CHECK("with a GPU: mark \"\" 0", mark("") == 0);
        CHECK("with a GPU: detach 0", detach(err, sizeof err) == 0);
        FILE *f = fopen(marks, "r");
        char line[256] = "";
        CHECK("with a GPU: marks.PID.csv written", f && fgets(line, sizeof line, f));
        CHECK("  ... with its header", strncmp(line, RT_CUPTI_MARK_HEADER, 35) == 0);
        if (f)
            fclose(f);
    }
    CHECK("mark after it all: -1", mark("a=1") == -1);
    { /* remove what a GPU run wrote */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fails++;
    }
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
