/* Lines from a file descriptor in bounded memory: scan each byte once, hand out long lines in
 * pieces. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/util/line-reader.h"
#include "rooftime/util/strings.h"

#define BLOCK ((size_t)1 << 16)

void rt_line_reader_init(rt_line_reader *r, int fd, const char *name, size_t max, bool refuse_nul)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->name = name;
    r->max = max ? max : RT_MAX_LINE;
    r->refuse_nul = refuse_nul;
    r->cap = r->max + BLOCK + 1;
    r->buf = rt_xmalloc(r->cap);
    r->line = 1;
}

void rt_line_reader_release(rt_line_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Read one more block after the unread bytes (moved to the front). 0, or -1 on error. */
static int fill(rt_line_reader *r, rt_error *err)
{
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->scanned -= r->beg;
        r->end -= r->beg;
        r->beg = 0;
    }
    for (;;) {
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - 1 - r->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rt_error_set(err, "line %lu: read error: %s", r->line, strerror(errno));
            return -1;
        }
        if (got == 0) {
            r->eof = true;
            return 0;
        }
        const char *kind = r->refuse_nul && r->offset == 0 && r->end == 0
                               ? rt_not_text_kind(r->buf, (size_t)got)
                               : NULL;
        if (kind) {
            rt_error_set(err, "line 1: %s", kind);
            return -1;
        }
        if (r->refuse_nul) {
            const char *nul = memchr(r->buf + r->end, '\0', (size_t)got);
            if (nul) {
                rt_error_set(err, "line %lu: byte %llu is a NUL: not a text log", r->line,
                             r->offset + (unsigned long long)(nul - r->buf - r->beg));
                return -1;
            }
        }
        r->end += (size_t)got;
        return 0;
    }
}

int rt_line_reader_next(rt_line_reader *r, const char **s, size_t *n, bool *ends_line,
                        rt_error *err)
{
    for (;;) {
        char *nl =
            r->scanned < r->end ? memchr(r->buf + r->scanned, '\n', r->end - r->scanned) : NULL;
        size_t avail = r->end - r->beg;
        r->scanned = nl ? (size_t)(nl - r->buf) : r->end; /* never scan a byte twice */
        if (nl && (size_t)(nl - (r->buf + r->beg)) <= r->max) {
            *s = r->buf + r->beg;
            *n = (size_t)(nl - *s);
            *ends_line = true;
            r->newline = true;
            r->offset += *n + 1;
            r->beg += *n + 1;
            r->scanned = r->beg;
            r->line++;
            return 1;
        }
        if (avail >= r->max || (r->eof && avail > 0)) {
            /* a piece of a long line, or the last line without a newline */
            *s = r->buf + r->beg;
            *n = avail >= r->max ? r->max : avail;
            *ends_line = r->eof && *n == avail;
            r->newline = false;
            r->offset += *n;
            r->beg += *n;
            if (r->scanned < r->beg)
                r->scanned = r->beg;
            if (*ends_line)
                r->line++;
            return 1;
        }
        if (r->eof)
            return 0;
        if (fill(r, err) != 0)
            return -1;
    }
}
