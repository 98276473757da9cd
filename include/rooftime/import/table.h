/* Processed result tables (one row per kernel or config) into a profile (table.c). */
#ifndef ROOFTIME_IMPORT_TAB_H
#define ROOFTIME_IMPORT_TAB_H

#include <stdbool.h>
#include <stddef.h>
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* What a table's cells may take in memory (docs/limits.md): their text and 8 bytes each, line
 * numbers 8 bytes a row (the default of the options' max_bytes; rows and columns: the table
 * reader's limits, src/import/table/table-read.h). */
#define RT_TABLE_MAX_BYTES ((size_t)256 << 20)

/* One "quantity=column" mapping: time, invocations, name, flops.<unit>, bytes.<level>, ai.<level>,
 * flops.total (the FLOPs that AI divides; default: the sum of flops.*), tag.<name> (a tag column).
 */
typedef struct rt_table_map {
    const char *quantity;
    const char *column;
} rt_table_map;

typedef struct rt_table_options {
    const char *ai_file; /* second table with more AI columns, joined by the tag columns; NULL */
    const rt_table_map *map; /* user mappings; they replace the default for the same quantity */
    size_t n_map;
    bool no_defaults; /* use only map (no built-in column names of the paper tables) */
    const char *const *name_columns; /* tag columns that go into the kernel name, not the tags;
                                        NULL: "Input Shape" and "Kernel Shape" */
    size_t n_name_columns;
    /* What the time column measures; unknown: device time when it is the paper's "CUDA Time"
     * (Nsight Compute's kernel time), else left unknown. */
    rt_time_kind time_kind;
    size_t max_bytes; /* what each table may hold in memory; 0: RT_TABLE_MAX_BYTES */
} rt_table_options;

/*
 * Read a CSV table where each row is a kernel or a config: one header row or
 * the two-row header of the paper's notebooks (metric names over tag names),
 * "..." columns ignored. Bytes per level come from bytes.<level> columns or
 * from FLOPs / ai.<level>. Columns that are not mapped become kernel tags,
 * except numeric measurement columns (the metric part of a two-row header;
 * in a one-row header, names such as "... FLOPs", "... Avg", "... Time"),
 * which are listed in provenance.notes ("unused columns"). Rows whose tags
 * are all equal (and names, when a name column is mapped) are an error. A
 * "Kernel Shape" of HxWxCxF also gives the tags "Kernel Size" (H, or HxW) and
 * "Filters" (F) so that the filter and kernel-size sweeps form two families.
 */
/* Warnings go to w (may be NULL), as for every importer. */
int rt_import_table(const char *path, const rt_table_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err);

#endif
