/* Helpers shared by the cmocka tests. */
#define _GNU_SOURCE
#include "testutil.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tu_fixtures(void)
{
    const char *d = getenv("ROOFTIME_FIXTURES");
    struct stat st;
    if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "note: fixtures directory %s absent: fixture tests skipped\n",
                d ? d : "(unset)");
        return NULL;
    }
    return d;
}

const char *tu_fixture(const char *rel)
{
    static char buf[4096];
    const char *d = tu_fixtures();
    if (!d)
        return NULL;
    snprintf(buf, sizeof buf, "%s/%s", d, rel);
    return buf;
}

const char *tu_bin(void)
{
    const char *b = getenv("ROOFTIME_BIN");
    return b ? b : "./rooftime";
}

const char *tu_src(void)
{
    const char *s = getenv("ROOFTIME_SRC");
    return s ? s : "..";
}

char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/rooftime-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void tu_rmtree(const char *dir)
{
    if (dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(fp);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int tu_write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fputs(text, fp);
    return fclose(fp);
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int tu_run(const char *cmd, char **out, char **err)
{
    char *dir = tu_tmpdir();
    char *full = NULL;
    if (asprintf(&full, "(%s) >%s/out 2>%s/err </dev/null", cmd, dir, dir) < 0)
        abort();
    int st = system(full);
    free(full);
    char path[4200];
    if (out) {
        snprintf(path, sizeof path, "%s/out", dir);
        *out = tu_read_file(path, NULL);
    }
    if (err) {
        snprintf(path, sizeof path, "%s/err", dir);
        *err = tu_read_file(path, NULL);
    }
    tu_rmtree(dir);
    free(dir);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int tu_close(double a, double b, double rel)
{
    if (a == b)
        return 1;
    if (isnan(a) || isnan(b))
        return 0;
    double d = fabs(a - b), s = fmax(fabs(a), fabs(b));
    return d <= rel * s;
}

const char *tu_place(const char *text, const char *at)
{
    static char buf[64];
    const char *p = strstr(text, at);
    if (!p)
        fail_msg("'%s' is not in the text", at);
    size_t line = 1, col = 1;
    for (const char *c = text; c < p; c++) {
        if (*c == '\n')
            line++, col = 1;
        else if (((unsigned char)*c & 0xC0) != 0x80) /* a character's first byte */
            col++;
    }
    snprintf(buf, sizeof buf, "line %zu, column %zu: ", line, col);
    return buf;
}
