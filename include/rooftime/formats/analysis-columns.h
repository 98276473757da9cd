/* The columns of an analysis's config and kernel tables, described once (analysis-columns.c):
 * `analyze --format csv` writes them and the C API hands them out as arrays (rt_api_table), so
 * the two cannot disagree on a name, an order or a value. */
#ifndef ROOFTIME_FORMATS_ANALYSIS_COLUMNS_H
#define ROOFTIME_FORMATS_ANALYSIS_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"

/* Which rows: the configs or the kernels, each longest first. */
typedef enum rt_table_kind { RT_TABLE_CONFIGS, RT_TABLE_KERNELS } rt_table_kind;

/* One row of a table: a config (its label as name and config) or a kernel. */
typedef struct rt_table_row {
    const rt_analysis *a;
    const char *kind; /* "config" or "kernel": the CSV's first column */
    size_t rank;      /* 1 for the longest */
    const char *name, *config;
    const rt_verdict *v;
    double time;
} rt_table_row;

/* What a column holds: text (the CSV quotes it where needed), a whole number (printed as
 * such), a real number (NAN: an empty CSV field; else "%.9g"), or a count: a real number that
 * counts something (launches), whole in the profiles rooftime writes, printed as a real. */
typedef enum rt_column_type {
    RT_COLUMN_TEXT,
    RT_COLUMN_INT,
    RT_COLUMN_REAL,
    RT_COLUMN_COUNT
} rt_column_type;

/* One column, or one per machine level (per_level: named prefix + level name, bytes_DRAM). The
 * getter of its type gives a row's value; level is the machine level (0 otherwise). */
typedef struct rt_table_column {
    const char *name;
    rt_column_type type;
    bool per_level;
    const char *(*text)(const rt_table_row *r);
    int64_t (*integer)(const rt_table_row *r);
    double (*real)(const rt_table_row *r, size_t level); /* real and count */
} rt_table_column;

/* The columns in the CSV's order; rt_table_n_columns of them. */
extern const rt_table_column rt_table_columns[];
extern const size_t rt_table_n_columns;

/* How many columns a table of a has with the per-level ones spelled out (the CSV's fields). */
size_t rt_table_width(const rt_analysis *a);
/* A column's name at level (its own name when not per level: "time_s", "bytes_DRAM"); the
 * caller frees it. */
char *rt_table_column_name(const rt_analysis *a, const rt_table_column *c, size_t level);
/* How many levels column c spans on a's machine: 1, or the machine's levels. */
size_t rt_table_column_levels(const rt_analysis *a, const rt_table_column *c);

/* The rows of one kind in order (longest first), one at a time; what the later rows will read
 * is fetched ahead (a million rows visit the items and names at random places in memory). */
typedef struct rt_table_rows {
    const rt_analysis *a;
    rt_table_kind kind;
    size_t *order; /* owned */
    size_t n, next;
} rt_table_rows;
void rt_table_rows_init(rt_table_rows *it, const rt_analysis *a, rt_table_kind kind);
/* The next row into *row; false after the last. */
bool rt_table_rows_next(rt_table_rows *it, rt_table_row *row);
/* Row r (0: the longest) into *row, r < it->n; it is not moved, so several threads may read
 * rows of one it at once. */
void rt_table_rows_at(const rt_table_rows *it, size_t r, rt_table_row *row);
void rt_table_rows_release(rt_table_rows *it);

#endif
