/* Private to the Nsight Compute importer: the state shared by reading (ncu-read.c) and joining
 * launches across files (ncu.c). */
#ifndef ROOFTIME_IMPORT_NCU_INTERNAL_H
#define ROOFTIME_IMPORT_NCU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* Launch state is keyed by file index bits: one launch may come from at most this many files. */
#define NCU_MAX_FILES 64
/* Warnings of one kind beyond this many are counted, not listed. */
#define NCU_MAX_WARN 10

/* ---- one input file ---- */

/* Columns from COL_CC on are optional: the CC, the grid, the first of ncu 2025's rule columns
 * (rows of its analysis rules, not metrics) and the section pages' item label. */
enum {
    COL_ID,
    COL_PID,
    COL_NAME,
    COL_MNAME,
    COL_MUNIT,
    COL_MVALUE,
    COL_CC,
    COL_GRID,
    COL_RULE,
    COL_LABEL,
    COL_N
};

/* One launch as one file sees it. */
typedef struct group {
    uint64_t key; /* process ordinal << 40 | launch ID */
    long pid, id;
    uint32_t kname;
    int sm;
    unsigned long line;
    uint64_t present;
    uint64_t na; /* slots whose value is n/a: not collected, absent (never 0) */
    int failed;  /* every metric nan and grid (0, 0, 0) (or no Grid Size column): a failed launch */
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
    int nan;       /* the value is nan or n/a (read for every metric, mapped or not) */
    int na;        /* the value is n/a: the metric was not collected on this GPU */
    int grid_zero; /* grid (0, 0, 0), or the file has no Grid Size column */
    double value;
} rowrec;

typedef struct ncu_file {
    const char *path;
    rt_csv *csv;
    int col[COL_N];
    size_t ncols;
    const char *layout;
    size_t min_fields; /* a data row may stop here: the rule columns after Metric Value omitted */
    unsigned long rule_rows; /* ncu 2025's rule rows (an empty metric name), skipped */
    char first_mname[96];    /* the first row's metric name, for the section page's message */
    const char *scaled_unit; /* the first unit ncu scaled for display (NULL: none), its line */
    unsigned long scaled_line;
    long *pid; /* process IDs in order of appearance: a launch's process is its ordinal */
    size_t npid;
    int done;
    int have_next; /* the first row of the next launch, read ahead */
    rowrec next;
    uint64_t metrics; /* slots in the file's first launch */
    uint32_t last_kname;
    char last_unit[NCU_MAX_METRICS][24];
    const rt_ncu_unit *last_u[NCU_MAX_METRICS];
    char *last_raw; /* the last row's kernel name as written (mangled or not), its interned id */
    size_t last_raw_len, last_raw_cap;
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
    uint64_t na;
    double value[NCU_MAX_METRICS];
} pending;

typedef struct ktotal {
    double n, cycles, rate, time_sum;
    double *q;
    uint64_t applied;             /* bit i: chosen[i] applied to one of its launches at least */
    uint64_t unknown;             /* bit i: chosen[i] read a metric n/a on one of its launches */
    unsigned long na_launches;    /* its launches with such a metric */
    rt_time_samples launch_times; /* each launch's cycles / rate, for the kernel's spread */
} ktotal;

/* A quantity in scope that no input could give, for the profile's note. */
typedef struct rt_ncu_lack {
    const char *quantity; /* the mapping's */
    int slot;             /* the first metric it lacked */
    int na;               /* that metric was n/a (not collected), not absent */
} rt_ncu_lack;

typedef struct ncu_import {
    const rt_ncu_options *opt;
    rt_warnings *warnings; /* may be NULL */
    rt_ncu_map map;
    rt_ncu_units units;
    rt_name_index mangled; /* kernel names as written in mangled form; kname_of[id] their name */
    uint32_t *kname_of;
    size_t nkname_of;
    int by_duration;      /* time from the mapping's duration (the inputs lack cycles or rate) */
    uint64_t tmask;       /* the metrics of the time */
    uint64_t na_seen;     /* slots n/a in some launch */
    rt_ncu_lack *lacking; /* the quantities not imported, in mapping order */
    size_t n_lacking;
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
    unsigned long launches, nan_values, missing, failed, na_values, na_kernels;
    int default_sm;
    rt_error *err;
} ncu_import;

/* ---- ncu-read.c: one file's rows, grouped by launch ---- */

/* Count a warning of one kind; list it only while the count is small. */
int rt_ncu_warn_limited(ncu_import *im, unsigned long *count, const char *msg);
/* Find the table header ("ID","Process ID",...) after the program's own output. */
int rt_ncu_find_header(ncu_import *im, ncu_file *f);
/* A section page whose first launch (on sm) carries no metric the mapping reads: the error naming
 * the command line that gives a metrics page. */
void rt_ncu_section_error(ncu_import *im, const ncu_file *f, int sm);
/* The next launch of file f (all its metric rows) into g: 1, 0 at the end, -1 on error. */
int rt_ncu_next_group(ncu_import *im, ncu_file *f, group *g);

/* ---- ncu-finish.c: a launch every file has given ---- */

/* Check its metrics, evaluate its time and formulas into its kernel's totals (or, with
 * --per-launch, a kernel of its own). 0, or -1 with the error. */
int rt_ncu_finish(ncu_import *im, pending *p);
/* name, or its first n - 4 bytes and "..." in buf. */
const char *rt_ncu_short(const char *name, char *buf, size_t n);

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
