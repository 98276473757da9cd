/* Streaming RFC 4180 CSV reader: scans large read() blocks in place, with line numbers for
 * messages. */
#define _GNU_SOURCE
#include "rooftime/import/csv-reader.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 MiB blocks: large enough that read() and the memmove of a partial row cost nothing per byte. */
#define CSV_BLOCK ((size_t)1 << 20)

enum { SCAN_DONE = 1, SCAN_EOF = 0, SCAN_ERROR = -1, SCAN_MORE = 2 };

struct rt_csv {
    char *name;
    int fd; /* -1 for memory input */
    int own_fd;
    int eof;   /* no more bytes will come */
    char *buf; /* data lies in [beg, end); buf[end] is always writable */
    size_t cap, beg, end;
    unsigned long line;
    unsigned long long consumed;
    /* The current row: field start offsets and lengths while scanning, pointers once complete. */
    size_t *off;
    size_t *len;
    unsigned char *quoted, *escaped;
    char **ptr;
    size_t n, fcap;
    int started;        /* the byte order mark, if any, has been skipped */
    int need_line_ends; /* a last row without a newline is an error */
};

static rt_csv *csv_alloc(const char *name)
{
    rt_csv *c = rt_xcalloc(1, sizeof *c);
    c->name = rt_strdup(name);
    c->fd = -1;
    c->line = 1;
    return c;
}

rt_csv *rt_csv_open(const char *path, rt_error *err)
{
    int fd;
    int own = 1;
    if (strcmp(path, "-") == 0) {
        fd = 0;
        own = 0;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            rt_open_error(path, err);
            return NULL;
        }
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            rt_error_set(err, "cannot read '%s': is a directory", path);
            close(fd);
            return NULL;
        }
    }
    rt_csv *c = csv_alloc(strcmp(path, "-") == 0 ? "standard input" : path);
    c->fd = fd;
    c->own_fd = own;
    c->cap = CSV_BLOCK;
    c->buf = rt_xmalloc(c->cap);
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return c;
}

rt_csv *rt_csv_from_memory(const char *data, size_t n, const char *name)
{
    rt_csv *c = csv_alloc(name ? name : "(memory)");
    c->cap = n + 1;
    c->buf = rt_xmalloc(c->cap);
    memcpy(c->buf, data, n);
    c->end = n;
    c->eof = 1;
    return c;
}

void rt_csv_free(rt_csv *c)
{
    if (!c)
        return;
    if (c->own_fd && c->fd >= 0)
        close(c->fd);
    free(c->name);
    free(c->buf);
    free(c->off);
    free(c->len);
    free(c->quoted);
    free(c->escaped);
    free(c->ptr);
    free(c);
}

void rt_csv_require_line_ends(rt_csv *c)
{
    c->need_line_ends = 1;
}

const char *rt_csv_name(const rt_csv *c)
{
    return c->name;
}
unsigned long rt_csv_line(const rt_csv *c)
{
    return c->line;
}
unsigned long long rt_csv_offset(const rt_csv *c)
{
    return c->consumed;
}

/*
 * Move the unread bytes to the front, grow if the buffer is full, and read until it is full again
 * or the input ends. A row cut short by the end of the buffer is scanned again from its start
 * after a fill, so a fill must at least double what the buffer holds: one read() of a pipe gives
 * 64 KiB, and rescanning a long row after each one was quadratic in its length.
 */
static int csv_fill(rt_csv *c, rt_error *err)
{
    if (c->eof)
        return 0;
    if (c->beg > 0) {
        memmove(c->buf, c->buf + c->beg, c->end - c->beg);
        c->end -= c->beg;
        c->beg = 0;
    }
    if (c->cap - c->end <= 1) {
        if (c->cap >= RT_CSV_MAX_ROW) {
            rt_error_set(err,
                         "%s: line %lu: a row or line longer than %zu MiB (unterminated quote or "
                         "not a text file?)",
                         c->name, c->line, RT_CSV_MAX_ROW >> 20);
            return -1;
        }
        c->cap *= 2;
        c->buf = rt_xrealloc(c->buf, c->cap);
    }
    while (c->end + 1 < c->cap) {
        ssize_t r = read(c->fd, c->buf + c->end, c->cap - c->end - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rt_error_set(err, "%s: read error: %s", c->name, strerror(errno));
            return -1;
        }
        if (r == 0) {
            c->eof = 1;
            break;
        }
        const char *kind =
            c->consumed == 0 && c->end == 0 ? rt_not_text_kind(c->buf, (size_t)r) : NULL;
        if (kind) {
            rt_error_set(err, "%s: line 1: %s", c->name, kind);
            return -1;
        }
        /* Text has no NUL: a binary file stops at its first block, not at the row limit. */
        const char *nul = memchr(c->buf + c->end, '\0', (size_t)r);
        if (nul) {
            unsigned long line = c->line; /* the line of buf[beg], and beg is 0 here */
            for (const char *x = c->buf; (x = memchr(x, '\n', (size_t)(nul - x))) != NULL; x++)
                line++;
            rt_error_set(err, "%s: line %lu: byte %llu is a NUL: not a text file", c->name, line,
                         c->consumed + (unsigned long long)(nul - c->buf));
            return -1;
        }
        c->end += (size_t)r;
    }
    return 0;
}

static void csv_add_field(rt_csv *c, size_t off, size_t len, int quoted, int escaped)
{
    if (c->n == c->fcap) {
        c->fcap = c->fcap ? 2 * c->fcap : 32;
        c->off = rt_xrealloc(c->off, c->fcap * sizeof *c->off);
        c->len = rt_xrealloc(c->len, c->fcap * sizeof *c->len);
        c->quoted = rt_xrealloc(c->quoted, c->fcap);
        c->escaped = rt_xrealloc(c->escaped, c->fcap);
        c->ptr = rt_xrealloc(c->ptr, c->fcap * sizeof *c->ptr);
    }
    c->off[c->n] = off;
    c->len[c->n] = len;
    c->quoted[c->n] = (unsigned char)quoted;
    c->escaped[c->n] = (unsigned char)escaped;
    c->n++;
}

/* Bytes that end an unquoted field. */
static const unsigned char csv_stop[256] = {[','] = 1, ['\n'] = 1, ['\r'] = 1};

/*
 * Scan one row starting at c->beg without changing the buffer (so a scan cut
 * short by the end of the block can simply start again after a refill).
 * On SCAN_DONE, *row_end is the offset just past the row's line end.
 */
static int csv_scan(rt_csv *c, size_t *row_end, rt_error *err)
{
    const char *b = c->buf;
    size_t p = c->beg, end = c->end;
    c->n = 0;
    for (;;) {
        if (p >= end) {
            if (!c->eof)
                return SCAN_MORE;
            if (p == c->beg)
                return SCAN_EOF;
            csv_add_field(c, p, 0, 0, 0); /* a comma right before the end */
            *row_end = p;
            return SCAN_DONE;
        }
        if (b[p] == '"') {
            size_t q = p + 1;
            int esc = 0;
            for (;;) {
                const char *x = q < end ? memchr(b + q, '"', end - q) : NULL;
                if (!x) {
                    if (!c->eof)
                        return SCAN_MORE;
                    rt_error_set(err,
                                 "%s: line %lu: field %zu: quoted field not closed before the end "
                                 "of the file (truncated file?)",
                                 c->name, c->line, c->n + 1);
                    return SCAN_ERROR;
                }
                size_t k = (size_t)(x - b);
                if (k + 1 >= end) {
                    if (!c->eof)
                        return SCAN_MORE;
                    csv_add_field(c, p + 1, k - p - 1, 1, esc);
                    *row_end = k + 1;
                    return SCAN_DONE;
                }
                if (b[k + 1] == '"') {
                    esc = 1;
                    q = k + 2;
                    continue;
                }
                csv_add_field(c, p + 1, k - p - 1, 1, esc);
                p = k + 1;
                break;
            }
            char ch = b[p];
            if (ch == ',') {
                p++;
                continue;
            }
            if (ch == '\n') {
                *row_end = p + 1;
                return SCAN_DONE;
            }
            if (ch == '\r') {
                if (p + 1 >= end && !c->eof)
                    return SCAN_MORE;
                *row_end = (p + 1 < end && b[p + 1] == '\n') ? p + 2 : p + 1;
                return SCAN_DONE;
            }
            rt_error_set(err, "%s: line %lu: field %zu: unexpected character after a closing quote",
                         c->name, c->line, c->n);
            return SCAN_ERROR;
        }
        size_t q = p;
        while (q < end && !csv_stop[(unsigned char)b[q]])
            q++;
        if (q >= end) {
            if (!c->eof)
                return SCAN_MORE;
            csv_add_field(c, p, q - p, 0, 0);
            *row_end = q;
            return SCAN_DONE;
        }
        csv_add_field(c, p, q - p, 0, 0);
        if (b[q] == ',') {
            p = q + 1;
            continue;
        }
        if (b[q] == '\r') {
            if (q + 1 >= end && !c->eof)
                return SCAN_MORE;
            *row_end = (q + 1 < end && b[q + 1] == '\n') ? q + 2 : q + 1;
            return SCAN_DONE;
        }
        *row_end = q + 1;
        return SCAN_DONE;
    }
}

/* A UTF-8 byte order mark at the start (Excel's "CSV UTF-8", Windows tools) is no part of the
 * first field: skipped once, before the first row or line is read. */
static int csv_start(rt_csv *c, rt_error *err)
{
    if (c->started)
        return 0;
    while (c->end - c->beg < 3 && !c->eof)
        if (csv_fill(c, err) != 0)
            return -1;
    c->started = 1;
    if (c->end - c->beg >= 3 && memcmp(c->buf + c->beg, "\xEF\xBB\xBF", 3) == 0) {
        c->beg += 3;
        c->consumed += 3;
    }
    return 0;
}

int rt_csv_next(rt_csv *c, rt_csv_row *row, rt_error *err)
{
    size_t row_end = 0;
    if (csv_start(c, err) != 0)
        return -1;
    for (;;) {
        int r = csv_scan(c, &row_end, err);
        if (r == SCAN_ERROR)
            return -1;
        if (r == SCAN_EOF)
            return 0;
        if (r == SCAN_DONE)
            break;
        if (csv_fill(c, err) != 0)
            return -1;
    }
    if (c->need_line_ends && row_end == c->end &&
        (row_end == c->beg || (c->buf[row_end - 1] != '\n' && c->buf[row_end - 1] != '\r'))) {
        rt_error_set(err,
                     "%s: line %lu: the file ends inside this row, with no newline after it "
                     "(a truncated file?)",
                     c->name, c->line);
        return -1;
    }
    /* The row is complete: count its lines, unquote and terminate its fields in place. */
    unsigned long lines =
        (row_end > c->beg && (c->buf[row_end - 1] == '\n' || c->buf[row_end - 1] == '\r'));
    for (size_t i = 0; i < c->n; i++) {
        char *s = c->buf + c->off[i];
        size_t n = c->len[i];
        if (c->quoted[i]) {
            const char *x = s, *e = s + n;
            while ((x = memchr(x, '\n', (size_t)(e - x))) != NULL) {
                lines++;
                x++;
            }
        }
        if (c->escaped[i]) {
            size_t w = 0;
            for (size_t r = 0; r < n; r++) {
                s[w++] = s[r];
                if (s[r] == '"')
                    r++; /* the second quote of a "" pair */
            }
            n = w;
            c->len[i] = n;
        }
        s[n] = '\0';
        c->ptr[i] = s;
    }
    row->field = c->ptr;
    row->len = c->len;
    row->quoted = c->quoted;
    row->n = c->n;
    row->line = c->line;
    c->line += lines;
    c->consumed += row_end - c->beg;
    c->beg = row_end;
    return 1;
}

/* Find the next physical line; *nl is the offset of its \n, or c->end at the end of the input. */
static int csv_find_line(rt_csv *c, size_t *nl, rt_error *err)
{
    if (csv_start(c, err) != 0)
        return -1;
    size_t from = c->beg;
    for (;;) {
        const char *x = memchr(c->buf + from, '\n', c->end - from);
        if (x) {
            *nl = (size_t)(x - c->buf);
            return 1;
        }
        if (c->eof) {
            if (c->beg == c->end)
                return 0;
            *nl = c->end;
            return 1;
        }
        size_t scanned = c->end - c->beg;
        if (csv_fill(c, err) != 0)
            return -1;
        from = c->beg + scanned;
    }
}

int rt_csv_peek_line(rt_csv *c, const char **line, size_t *len, rt_error *err)
{
    size_t nl;
    int r = csv_find_line(c, &nl, err);
    if (r <= 0)
        return r;
    size_t n = nl - c->beg;
    if (n > 0 && c->buf[c->beg + n - 1] == '\r')
        n--;
    *line = c->buf + c->beg;
    *len = n;
    return 1;
}

int rt_csv_skip_line(rt_csv *c, rt_error *err)
{
    size_t nl;
    int r = csv_find_line(c, &nl, err);
    if (r <= 0)
        return r;
    size_t next = nl < c->end ? nl + 1 : nl;
    c->consumed += next - c->beg;
    c->beg = next;
    c->line++;
    return 1;
}
