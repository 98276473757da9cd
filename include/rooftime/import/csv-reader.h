/* A streaming RFC 4180 CSV reader: big read() blocks, fields in place, line numbers for messages.
 */
#ifndef ROOFTIME_IMPORT_CSV_READER_H
#define ROOFTIME_IMPORT_CSV_READER_H

#include <stddef.h>

#include "rooftime/util/error.h"

/*
 * The reader keeps one growing buffer; a row's fields point into it and stay
 * valid until the next call that reads (rt_csv_next, rt_csv_peek_line,
 * rt_csv_skip_line). Fields are unquoted ("" becomes ") and NUL-terminated in
 * place. Quoted fields may hold commas, quotes and newlines; a field may be
 * as long as RT_CSV_MAX_ROW. Lines end in \n or \r\n. No allocation per row.
 */
#define RT_CSV_MAX_ROW ((size_t)1 << 28) /* 256 MiB: beyond this a "row" is garbage */

typedef struct rt_csv rt_csv;

typedef struct rt_csv_row {
    char **field;          /* field[i] is NUL-terminated; owned by the reader */
    size_t *len;           /* length of field[i] (it may hold NUL bytes of its own) */
    unsigned char *quoted; /* quoted[i]: the field was written in quotes */
    size_t n;              /* number of fields */
    unsigned long line;    /* line of the row's first character, from 1 */
} rt_csv_row;

/* Open a file ("-" is standard input); name is used in messages. NULL on error. */
rt_csv *rt_csv_open(const char *path, rt_error *err);
/* Read from memory (copied); for tests and small inputs. */
rt_csv *rt_csv_from_memory(const char *data, size_t n, const char *name);
void rt_csv_free(rt_csv *c);

/* The name given at open, for messages. */
const char *rt_csv_name(const rt_csv *c);
/* Line number of the next unread line, from 1. */
unsigned long rt_csv_line(const rt_csv *c);
/* Bytes consumed so far. */
unsigned long long rt_csv_offset(const rt_csv *c);

/*
 * Next row into *row. Returns 1 with a row, 0 at the end of the input, -1 on
 * error (unterminated quote, a character after a closing quote, a read error,
 * a row over RT_CSV_MAX_ROW) with "FILE: line N: ..." in err.
 */
int rt_csv_next(rt_csv *c, rt_csv_row *row, rt_error *err);

/* For files whose writer ends every row with a newline (the CUPTI collector's): a last row with
 * none after it was cut short (a number in it may be cut: "131072" to "13"), and rt_csv_next fails
 * on it ("FILE: line N: the file ends inside this row ..."), where it would return it. */
void rt_csv_require_line_ends(rt_csv *c);

/*
 * The next physical line, not parsed as CSV (for preambles that are not CSV,
 * such as a program's output before a profiler's table): *line points at it
 * (without \r\n, not NUL-terminated), *len is its length. rt_csv_peek_line
 * leaves it unread; rt_csv_skip_line consumes it. Same returns as rt_csv_next.
 */
int rt_csv_peek_line(rt_csv *c, const char **line, size_t *len, rt_error *err);
int rt_csv_skip_line(rt_csv *c, rt_error *err);

#endif
