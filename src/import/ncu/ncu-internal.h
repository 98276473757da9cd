/* Private to the Nsight Compute importer: the state shared by reading (ncu-read.c) and joining
 * launches across files (ncu.c). */
#ifndef ROOFTIME_IMPORT_NCU_INTERNAL_H
#define ROOFTIME_IMPORT_NCU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* Launch state is keyed by file index bits: one launch may come from at most this many files. */
#define NCU_MAX_FILES 64
/* Warnings of one kind beyond this many are counted, not listed. */
#define NCU_MAX_WARN 10

/* ---- one input file ---- */

/* Columns from COL_CC on are optional. */
enum { COL_ID, COL_PID, COL_NAME, COL_MNAME, COL_MUNIT, COL_MVALUE, COL_CC, COL_GRID, COL_N };

/* One launch as one file sees it. */
typedef struct group {
    uint64_t key; /* process ordinal << 40 | launch ID */
    long pid, id;
    uint32_t kname;
    int sm;
    unsigned long line;
    uint64_t present;
    int failed; /* every metric nan and grid (0, 0, 0) (or no Grid Size column): a failed launch */
    double value[NCU_MAX_METRICS];
} group;

/* One parsed row: a metric value of a launch (slot -1: a metric the mapping does not use). */
typedef struct rowrec {
    uint64_t key;
    long pid, id;
    uint32_t kname;
    int sm;
    unsigned long line;
    int slot;
    int nan;       /* the value is nan (read for every metric, mapped or not) */
    int grid_zero; /* grid (0, 0, 0), or the file has no Grid Size column */
    double value;
} rowrec;

typedef struct ncu_file {
    const char *path;
    rt_csv *csv;
    int col[COL_N];
    size_t ncols;
    const char *layout;
    long *pid; /* process IDs in order of appearance: a launch's process is its ordinal */
    size_t npid;
    int done;
    int have_next; /* the first row of the next launch, read ahead */
    rowrec next;
    uint64_t metrics; /* slots in the file's first launch */
    uint32_t last_kname;
    int have_last;
    char last_unit[NCU_MAX_METRICS][24];
    double last_scale[NCU_MAX_METRICS];
    char last_cc[8];
    int last_sm;
    unsigned long rows;
} ncu_file;

/* ---- launches being joined across files ---- */

typedef struct pending {
    uint64_t key;
    long pid, id;
    uint32_t kname;
    int sm;
    int first_file;
    unsigned long first_line;
    uint64_t files;
    uint64_t failed_files; /* the files whose view of it is a failed launch */
    uint64_t present;
    double value[NCU_MAX_METRICS];
} pending;

typedef struct ktotal {
    double n, cycles, rate, time_sum;
    double *q;
    uint64_t applied;             /* bit i: chosen[i] applied to one of its launches at least */
    rt_time_samples launch_times; /* each launch's cycles / rate, for the kernel's spread */
} ktotal;

typedef struct ncu_import {
    const rt_ncu_options *opt;
    rt_warnings *warnings; /* may be NULL */
    rt_ncu_map map;
    ncu_file *f;
    size_t nf;
    uint64_t all_files;
    rt_name_index names;  /* kernel names, interned: launch state holds an id, not a string */
    rt_name_index mnames; /* every metric name seen; mslot[id] is its slot in the mapping or -1 */
    int *mslot;
    size_t nmslot;
    /* pending launches: open addressing over indices into pool, backward-shift deletion */
    pending *pool;
    size_t npool, cappool;
    size_t *free_list;
    size_t nfree;
    int64_t *table; /* pool index, -1 empty */
    size_t ntable, nlive;
    /* chosen formulas: index into map.q per quantity, -1 when not computable */
    int *chosen;
    size_t nchosen;
    double *launch_q; /* --per-launch: one launch's quantities */
    int on_sm;        /* the compute capability on_mask was computed for, or -1 */
    uint64_t on_mask; /* the chosen formulas a launch on on_sm evaluates */
    uint64_t used;    /* the chosen formulas some launch evaluated */
    uint64_t needed;
    ktotal *k;
    size_t nk;
    rt_profile *per_launch; /* with --per-launch: kernels added as launches complete */
    /* Join per kernel name (the files' launch orders differ): a launch's key is its kernel name
     * and its ordinal among that name's launches in its file; occ[file][name] counts them. */
    int by_name;
    unsigned long **occ;
    size_t nocc;
    /* The first launch whose kernel differs between files (join by ID): the reason to join by
     * name, said in the warning. */
    char order_msg[600];
    int reorder; /* set with the error that order_msg describes */
    unsigned long launches, nan_values, missing, failed;
    int default_sm;
    rt_error *err;
} ncu_import;

/* ---- ncu-read.c: one file's rows, grouped by launch ---- */

/* Count a warning of one kind; list it only while the count is small. */
int rt_ncu_warn_limited(ncu_import *im, unsigned long *count, const char *msg);
/* Find the table header ("ID","Process ID",...) after the program's own output. */
int rt_ncu_find_header(ncu_import *im, ncu_file *f);
/* The next launch of file f (all its metric rows) into g: 1, 0 at the end, -1 on error. */
int rt_ncu_next_group(ncu_import *im, ncu_file *f, group *g);

/* ---- ncu-pending.c: launches in flight ---- */

/* The pending launch with this key, creating it when create is set; NULL if absent. */
pending *rt_ncu_pend_get(ncu_import *im, uint64_t key, int create);
void rt_ncu_pend_remove(ncu_import *im, uint64_t key);

/* ---- ncu-profile.c: the joined launches into the profile ---- */

/* One kernel per name from the totals (nothing with per_launch: those were added as they
 * joined); time_in_one: a launch's own time is known (kernel_time_sum, the launch times). */
void rt_ncu_profile_kernels(ncu_import *im, rt_profile *prof, int time_in_one);
/* Tool, time kind, inputs, formulas, method and notes, and the warnings counted past their
 * limit. */
void rt_ncu_profile_describe(ncu_import *im, rt_profile *prof, const char *const *paths);

#endif
