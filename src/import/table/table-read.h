/* Private to the table importer: a result table in memory, read by table-read.c (the header
 * before the rows, within the limits of docs/limits.md) for table.c (the mapping and the profile).
 */
#ifndef ROOFTIME_IMPORT_TABLE_READ_H
#define ROOFTIME_IMPORT_TABLE_READ_H

#include <stddef.h>

#include "rooftime/import/csv-reader.h"
#include "rooftime/util/error.h"

/* The widest table read (docs/limits.md): every unmapped column becomes a tag. */
#define RT_TABLE_MAX_COLUMNS 1024
/* The rows a table may hold (docs/limits.md), one per kernel or config. */
#define RT_TABLE_MAX_ROWS ((size_t)1 << 20)

/* A table in memory: column names, which are in the tag part of the header, and the cells. The
 * cells' text lies in one buffer, each NUL-terminated, so that a row costs its text and 8 bytes a
 * cell; what a table holds is bounded (RT_TABLE_MAX_ROWS, the options' max_bytes). */
typedef struct table {
    const char *path;
    rt_csv *csv; /* open from the header until the rows are read */
    char **col;
    unsigned char *tagpart; /* the column's name is in the second header row only */
    size_t ncol;
    char *text; /* the cells' text */
    size_t ntext, textcap;
    size_t *off; /* off[r * ncol + c]: where cell (r, c) starts in text */
    unsigned long *line;
    size_t nrow, rowcap;
    size_t max_bytes;
} table;

/* The text of cell (r, c). */
static inline const char *table_cell(const table *t, size_t r, size_t c)
{
    return t->text + t->off[r * t->ncol + c];
}

/* A cell or a header field that reads as a number. */
int rt_table_is_number(const char *s);

/*
 * Open a table and read its header: one header row, or two (metric names over tag names) as the
 * notebooks wrote. The rows are read later (rt_table_read_rows), once the columns the import needs
 * are known to be there: a table without them fails at its header, whatever its size. max_bytes
 * bounds what the table holds (its cells' text and 8 bytes each, 8 bytes a row).
 */
int rt_table_open(const char *path, size_t max_bytes, table *t, rt_error *err);
/* The rest of the rows, after rt_table_open; closes the input. */
int rt_table_read_rows(table *t, rt_error *err);
void rt_table_release(table *t);

/* The column with this name, or -1. */
int rt_table_find(const table *t, const char *name);
/* The values of the columns cols[0..n) of row r, each as its length and its bytes (so that no
 * value can run into the next) in *buf (grown as needed): a key for the string map; returns its
 * length. */
size_t rt_table_join_key(const table *t, size_t r, const size_t *cols, size_t n, char **buf,
                         size_t *cap);

#endif
