/* Lines from a file descriptor in bounded memory (line-reader.c): a line longer than the limit
 * comes in pieces, so a newline-less stream costs constant memory and linear time. */
#ifndef ROOFTIME_UTIL_LINE_READER_H
#define ROOFTIME_UTIL_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/util/error.h"

/* The longest line a log reader keeps whole: 1 MiB (a oneDNN verbose record is a few KiB). */
#define RT_MAX_LINE ((size_t)1 << 20)

typedef struct rt_line_reader {
    int fd;
    const char *name; /* for messages */
    size_t max;       /* the longest piece returned */
    bool refuse_nul;  /* a NUL byte is an error (text logs), or passed on (a program's output) */
    char *buf;
    size_t cap, beg, end, scanned;
    bool eof;
    unsigned long line;        /* the number of the line the next piece belongs to (from 1) */
    unsigned long long offset; /* bytes consumed before buf[beg] */
    bool newline;              /* the last piece returned was followed by a newline */
} rt_line_reader;

void rt_line_reader_init(rt_line_reader *r, int fd, const char *name, size_t max, bool refuse_nul);
void rt_line_reader_release(rt_line_reader *r);

/*
 * The next piece of input: 1 with *s, *n (without the newline; valid until the next call) and
 * *ends_line (true when the piece ends its line: a newline or the end of input followed it);
 * 0 at the end; -1 on a read error or a refused NUL (err: "line N: ..."). A line longer
 * than max arrives as several pieces, all but the last with *ends_line false.
 */
int rt_line_reader_next(rt_line_reader *r, const char **s, size_t *n, bool *ends_line,
                        rt_error *err);

#endif
