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
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* At most this many tag columns (tag.<key>): a table of a million kernels that each carry a key
 * of their own (a per-layer tag named for the layer) would otherwise be a million columns wide.
 * Keys beyond it get no column (a warning counts them); they stay in the config label and in the
 * JSON's tags. */
#define RT_TABLE_MAX_TAGS 64

/* The columns of one analysis's tables: the tag columns are the analysis's own. Tag keys in
 * order of first appearance over the configs' tags in the configs' stored order, then over the
 * kernels' tags (profile tags, then kernel tags) in the kernels' stored order; the first
 * RT_TABLE_MAX_TAGS of them are columns. */
typedef struct rt_table_layout {
    const rt_analysis *a;
    rt_name_index keys;     /* every distinct tag key -> its id (0, 1 ... in order of appearance) */
    size_t n_tags;          /* tag columns: keys 0 .. n_tags - 1 */
    size_t n_tags_left_out; /* distinct keys beyond RT_TABLE_MAX_TAGS: no column */
} rt_table_layout;
/* The columns of a's tables, in time and memory linear in a's kernels and their tags; a warning
 * into warn (NULL: none) when keys are left out. Released by rt_table_layout_release. */
void rt_table_layout_init(rt_table_layout *t, const rt_analysis *a, rt_warnings *warn);
void rt_table_layout_release(rt_table_layout *t);
/* The key of tag column k (< t->n_tags). */
static inline const char *rt_table_tag_key(const rt_table_layout *t, size_t k)
{
    return rt_name_index_key(&t->keys, k);
}

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
    /* The row's value of each tag column (NULL: the row has no such tag): a config's tags (the
     * grouping tags), a kernel's (profile tags, then its own), as the JSON's "tags" of each. */
    const char *tag[RT_TABLE_MAX_TAGS];
} rt_table_row;

/* What a column holds: text (the CSV quotes it where needed), a whole number (printed as
 * such), a real number (NAN: an empty CSV field; else "%.9g"), a count: a real number that
 * counts something (launches), whole in the profiles rooftime writes, printed as a real; or text
 * a row may lack (a tag's value; none: an empty CSV field). */
typedef enum rt_column_type {
    RT_COLUMN_TEXT,
    RT_COLUMN_INT,
    RT_COLUMN_REAL,
    RT_COLUMN_COUNT,
    RT_COLUMN_OPT_TEXT
} rt_column_type;

/* How many columns a descriptor stands for: one; one per machine level (named prefix + level
 * name, bytes_DRAM); one per tag column of the analysis (prefix + key, tag.batch); or one where
 * the analysis's kernels name the overhead their own calls pay (a->own_paths), else none. */
typedef enum rt_column_span {
    RT_SPAN_ONE,
    RT_SPAN_LEVELS,
    RT_SPAN_TAGS,
    RT_SPAN_PAID
} rt_column_span;

/* One column, or several (span). The getter of its type gives a row's value; index is the
 * machine level or the tag column (0 otherwise). */
typedef struct rt_table_column {
    const char *name;
    rt_column_type type;
    rt_column_span span;
    const char *(*text)(const rt_table_row *r);
    int64_t (*integer)(const rt_table_row *r);
    double (*real)(const rt_table_row *r, size_t index);          /* real and count */
    const char *(*opt_text)(const rt_table_row *r, size_t index); /* NULL: none */
} rt_table_column;

/* The columns in the CSV's order; rt_table_n_columns of them. */
extern const rt_table_column rt_table_columns[];
extern const size_t rt_table_n_columns;

/* How many columns a table of t has with the spans spelled out (the CSV's fields). */
size_t rt_table_width(const rt_table_layout *t);
/* A column's name at index (its own name when it spans one: "time_s", "bytes_DRAM",
 * "tag.batch"); the caller frees it. */
char *rt_table_column_name(const rt_table_layout *t, const rt_table_column *c, size_t index);
/* How many columns descriptor c stands for in t: 1, the machine's levels, t's tag columns, or
 * for the overhead paid 1 or 0. */
size_t rt_table_column_span(const rt_table_layout *t, const rt_table_column *c);

/* The rows of one kind in order (longest first), one at a time; what the later rows will read
 * is fetched ahead (a million rows visit the items and names at random places in memory). */
typedef struct rt_table_rows {
    const rt_analysis *a;
    const rt_table_layout *t;
    rt_table_kind kind;
    size_t *order; /* owned */
    size_t n, next;
} rt_table_rows;
void rt_table_rows_init(rt_table_rows *it, const rt_table_layout *t, rt_table_kind kind);
/* The next row into *row; false after the last. */
bool rt_table_rows_next(rt_table_rows *it, rt_table_row *row);
/* Row r (0: the longest) into *row, r < it->n; it is not moved, so several threads may read
 * rows of one it at once. */
void rt_table_rows_at(const rt_table_rows *it, size_t r, rt_table_row *row);
void rt_table_rows_release(rt_table_rows *it);

#endif
