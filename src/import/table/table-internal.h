/* What the table importer's files share (table.c, table-join.c): one import's state. */
#ifndef ROOFTIME_IMPORT_TABLE_INTERNAL_H
#define ROOFTIME_IMPORT_TABLE_INTERNAL_H

#include "table-read.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/table.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* One resolved mapping: quantity -> column of the main table (file 0) or of the AI table (file 1).
 */
typedef struct qcol {
    const char *quantity;
    const char *column;
    int file, col;
} qcol;

/* One import of a table: the tables, the columns chosen, the join, and what the rows become. */
typedef struct table_import {
    const char *path;
    const rt_table_options *opt;
    table t[2]; /* the table, and the AI table (--ai-file) */
    int nt;
    qcol *q; /* the quantities and their columns */
    size_t nq;
    int have_time, have_inv, have_name;
    size_t *join;             /* main row -> AI table row */
    size_t *keycol, *maincol; /* the AI table's join columns, and the main table's */
    size_t nk;
    rt_name_index keys;                       /* the join columns' values -> the AI table's row */
    unsigned char *is_tag, *in_name, *unused; /* per column of the main table */
    rt_name_index seen; /* a row's tags -> its row: rows that would merge into one config */
    char *base;         /* the file's name without its .csv: the kernels' names start with it */
    unsigned long zero_ai;
    rt_profile_sums sums; /* over the rows so far: refused past the profile's limits */
} table_import;

/* The AI table joins by the tag columns of its second header row (the main table has them):
 * ti->keycol, ti->maincol and ti->nk; -1 naming a column the main table lacks (table-join.c). */
int table_join_columns(table_import *ti, rt_error *err);
/* Every main row's row of the AI table by those columns, into ti->join; -1 naming a main row
 * without one (table-join.c). */
int table_join_rows(table_import *ti, rt_error *err);

#endif
