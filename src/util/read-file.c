/* Whole inputs into memory: files, FIFOs and standard input, bounded, NUL bytes refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rooftime/util/gzip-text.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* A UTF-8 byte order mark (Windows tools write one): no part of the text, 3 bytes or 0. */
static size_t bom_length(const char *s, size_t n)
{
    return n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

int rt_open_error(const char *shown, rt_error *err)
{
    rt_error_set(err, "cannot read '%s': %s", shown,
                 errno == ENOENT ? "no such file" : strerror(errno));
    return -1;
}

/* The limit in the unit it was set in: a collector file's 64 KiB is not "0 MiB". */
static void too_large(const char *shown, size_t max, rt_error *err)
{
    if (max >= ((size_t)1 << 20))
        rt_error_set(err, "cannot read '%s': larger than the limit of %zu MiB", shown, max >> 20);
    else if (max >= 1024)
        rt_error_set(err, "cannot read '%s': larger than the limit of %zu KiB", shown, max >> 10);
    else
        rt_error_set(err, "cannot read '%s': larger than the limit of %zu bytes", shown, max);
}

/* All of fd (st its fstat) into *buf; fd is closed unless it is standard input. With gz, an input
 * that starts as gzip does is read as bytes and decompressed (gzip-text.c). */
static int read_fd(int fd, int is_stdin, const struct stat *st, const char *shown, size_t max,
                   int gz, char **buf, size_t *len, rt_error *err)
{
    *buf = NULL;
    *len = 0;
    if (S_ISDIR(st->st_mode)) {
        rt_error_set(err, "cannot read '%s': is a directory", shown);
        if (!is_stdin)
            close(fd);
        return -1;
    }
    /* The first 64 KiB first: a binary file (a NUL in them) is refused before the buffer for
     * all of it is made or filled (a 2 GB file of NULs costs 64 KiB, not 2 GB). A regular file
     * then gets its size in one step. */
    size_t cap = 1 << 16, n = 0, whole = 0;
    if (S_ISREG(st->st_mode) && st->st_size > 0 && (size_t)st->st_size < max)
        whole = (size_t)st->st_size + 1;
    char *b = rt_xmalloc(cap);
    int rc = -1, raw = 0;
    for (;;) {
        if (cap - n < 2) {
            if (cap > max) {
                too_large(shown, max, err);
                goto done;
            }
            cap *= 2;
            b = rt_xrealloc(b, cap);
        }
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rt_error_set(err, "cannot read '%s': %s", shown, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        if (n == 0 && gz && rt_is_gzip(b, (size_t)r))
            raw = 1;
        const char *kind = n == 0 && !raw ? rt_not_text_kind(b, (size_t)r) : NULL;
        if (kind) {
            rt_error_set(err, "cannot read '%s': %s", shown, kind);
            goto done;
        }
        const char *nul = raw ? NULL : memchr(b + n, '\0', (size_t)r);
        if (nul) {
            rt_error_set(err, "cannot read '%s': byte %zu is a NUL: not a text file", shown,
                         (size_t)(nul - b));
            goto done;
        }
        n += (size_t)r;
        if (whole > cap) {
            cap = whole;
            b = rt_xrealloc(b, cap);
        }
        whole = 0;
        if (n > max) {
            too_large(shown, max, err);
            goto done;
        }
    }
    if (raw) {
        rc = rt_gunzip_text(b, n, shown, max, buf, len, err);
        goto done;
    }
    b[n] = '\0';
    size_t bom = bom_length(b, n);
    memmove(b, b + bom, n - bom + 1);
    *buf = b;
    *len = n - bom;
    b = NULL;
    rc = 0;
done:
    free(b);
    if (!is_stdin)
        close(fd);
    return rc;
}

/* path ("-": standard input) opened, its fstat in *st (zeroed where fstat fails). */
static int open_input(const char *path, int *fd, int *is_stdin, struct stat *st, rt_error *err)
{
    *is_stdin = strcmp(path, "-") == 0;
    *fd = *is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (*fd < 0)
        return rt_open_error(path, err);
    if (fstat(*fd, st) != 0)
        memset(st, 0, sizeof *st);
    return 0;
}

static int read_path(const char *path, size_t max, int gz, char **buf, size_t *len, rt_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd, is_stdin;
    struct stat st;
    if (open_input(path, &fd, &is_stdin, &st, err) != 0)
        return -1;
    return read_fd(fd, is_stdin, &st, is_stdin ? "standard input" : path, max, gz, buf, len, err);
}

int rt_read_text_file(const char *path, size_t max, char **buf, size_t *len, rt_error *err)
{
    return read_path(path, max, 0, buf, len, err);
}

int rt_read_text_file_gz(const char *path, size_t max, char **buf, size_t *len, rt_error *err)
{
    return read_path(path, max, 1, buf, len, err);
}

/* Below this size a file is read: a mapping's set-up costs more than the copy it saves. */
#define MAP_MIN ((size_t)1 << 20)

int rt_text_load(const char *path, size_t max, rt_text *t, rt_error *err)
{
    memset(t, 0, sizeof *t);
    /* Opened once: a FIFO's data goes to its first reader, and a second open would wait for
     * a writer that has gone. */
    int fd, is_stdin;
    struct stat st;
    if (open_input(path, &fd, &is_stdin, &st, err) != 0)
        return -1;
    /* Standard input is read: it may not start at the file's beginning, and it stays open. */
    if (!is_stdin && S_ISREG(st.st_mode) && (size_t)st.st_size >= MAP_MIN &&
        (size_t)st.st_size < max) {
        size_t n = (size_t)st.st_size;
        /* Not populated: the NUL check below stops at the first NUL, and a file of NULs costs a
         * page or two of it, not its size (the pages come in as read, 64 KiB a fault). */
        void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            close(fd);
            const char *kind = rt_not_text_kind(m, n);
            const char *nul = kind ? NULL : memchr(m, '\0', n);
            if (kind) {
                rt_error_set(err, "cannot read '%s': %s", path, kind);
                munmap(m, n);
                return -1;
            }
            if (nul) {
                rt_error_set(err, "cannot read '%s': byte %zu is a NUL: not a text file", path,
                             (size_t)(nul - (const char *)m));
                munmap(m, n);
                return -1;
            }
            /* past a byte order mark: rt_text_release finds the mapping from mapped - len */
            size_t bom = bom_length(m, n);
            t->s = (const char *)m + bom;
            t->mapped = n;
            t->len = n - bom;
            return 0;
        }
    }
    /* Everything else, and a failed mapping, read from the same descriptor. */
    char *b;
    if (read_fd(fd, is_stdin, &st, is_stdin ? "standard input" : path, max, 0, &b, &t->len, err) !=
        0)
        return -1;
    t->s = b;
    return 0;
}

void rt_text_release(rt_text *t)
{
    if (t->mapped)
        munmap((void *)(t->s - (t->mapped - t->len)), t->mapped);
    else
        free((char *)t->s);
    memset(t, 0, sizeof *t);
}
