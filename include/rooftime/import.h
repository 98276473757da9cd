/* Importers: profiler output and processed tables into rooftime profiles, one section per importer.
 */
#ifndef ROOFTIME_IMPORT_H
#define ROOFTIME_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/error.h"
#include "rooftime/profile.h"

/* ======================================================================== */
/* Nsight Compute: raw `ncu --csv` output                                   */
/* ======================================================================== */

typedef struct rt_ncu_options {
    const char *metrics_file; /* metric-to-quantity mapping; NULL: <datadir>/ncu/metrics.json */
    double tensor_factor;     /* FLOPs per tensor instruction; 0: from the mapping, per CC */
    const char *arch; /* "sm_70" ...: for files without a CC column; NULL: the mapping's default */
    bool allow_missing;    /* a launch lacking a metric: warning (and counted as 0), not error */
    bool per_launch;       /* one kernel per launch (tags launch, process) instead of per name */
    rt_warnings *warnings; /* where warnings go; may be NULL */
} rt_ncu_options;

/*
 * Read n raw `ncu --csv` outputs (each one metric or many; the program's own
 * output and ==PROF== lines before the header are skipped), join launches
 * across files by process and launch ID (checking the kernel name), and
 * aggregate per kernel name. Streams: memory grows with the number of kernel
 * names and with how far the files' launch orders drift apart, not with
 * their size. *out is a new profile owned by the caller.
 */
int rt_import_ncu(const char *const *paths, size_t n, const rt_ncu_options *opt, rt_profile **out,
                  rt_error *err);

/* The mapping file's quantities, set names and metric names, for `rooftime ncu-metrics`. */
typedef struct rt_ncu_metric_list {
    char **metric; /* distinct metric names, in the order the mapping names them */
    size_t n;
} rt_ncu_metric_list;

/* Metric names used by set `set` (NULL: every set), or -1 if the mapping cannot be read. */
int rt_ncu_metric_list_load(const char *metrics_file, const char *set, rt_ncu_metric_list *out,
                            rt_error *err);
void rt_ncu_metric_list_release(rt_ncu_metric_list *l);
/* A per-architecture constant of the mapping (tensor_factor, tensor_peak) for arch ("sm_80";
 * NULL: the mapping's default), from the nearest architecture at or below it. */
int rt_ncu_constant(const char *metrics_file, const char *arch, const char *name, double *value,
                    rt_error *err);

/* Scale of an ncu unit to the base unit (byte, cycle, second, cycle/second, 1), or 0 if unknown. */
double rt_ncu_unit_scale(const char *unit);

/* ======================================================================== */
/* Processed result tables (one row per kernel or config)                   */
/* ======================================================================== */

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
    rt_warnings *warnings;
} rt_table_options;

/*
 * Read a CSV table where each row is a kernel or a config: one header row or
 * the two-row header of the paper's notebooks (metric names over tag names),
 * "..." columns ignored. Bytes per level come from bytes.<level> columns or
 * from FLOPs / ai.<level>. Columns that are not mapped and whose header sits
 * in the tag part (or whose values are not numbers) become kernel tags. A
 * "Kernel Shape" of HxWxCxF also gives the tags "Kernel Size" (H, or HxW) and
 * "Filters" (F) so that the filter and kernel-size sweeps form two families.
 */
int rt_import_table(const char *path, const rt_table_options *opt, rt_profile **out, rt_error *err);

#endif
