/* Private to the CUPTI importer: the state shared by reading the collector's files (cupti-read.c)
 * and joining them into a profile (cupti.c). */
#ifndef ROOFTIME_IMPORT_CUPTI_INTERNAL_H
#define ROOFTIME_IMPORT_CUPTI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/tag-map.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* One row of marks.PID.csv: the kernels after it (launch correlation > corr, trace; range index
 * >= ranges, counters) get tag set `set` (an id of cupti_import.sets; 0: no tags). */
typedef struct cupti_mark {
    uint32_t corr;
    uint64_t ranges;
    uint32_t set;
} cupti_mark;

/* One process the collector ran in: what collector.PID.txt says, and its marks. */
typedef struct proc {
    long pid;
    long long started;
    int counters;
    int sm;
    char *device, *version;
    int ended;         /* the collector wrote its end line: the process finished collecting */
    long long kernels; /* the kernels it said it wrote (trace), or -1 */
    cupti_mark *marks;
    size_t n_marks;
} proc;

/* One kernel execution of a trace run. */
typedef struct launch {
    uint32_t proc, name, corr, stream, graph;
    uint64_t start, end;
    int32_t grid[3], block[3];
    double api;   /* CPU-side launch call, seconds; < 0 when unknown */
    long range;   /* joined counter range, or -1 */
    uint32_t set; /* its mark's tag set (0: none) */
} launch;

/* One range (kernel launch, replayed) of a counter run. */
typedef struct range {
    uint32_t proc, name;
    uint32_t set; /* its mark's tag set (0: none) */
    uint64_t idx; /* the range column: its number in the process, in launch order */
    double *v;    /* one per mapping slot */
} range;

typedef struct api_time {
    uint32_t corr;
    double seconds;
} api_time;

typedef struct cupti_import {
    const char *dir;
    const char *ranges_dir; /* where ranges.PID.csv are read: dir, or --reevaluate's rows */
    rt_error *err;
    rt_warnings *w;
    rt_ncu_map map;
    proc *p;
    size_t np;
    rt_name_index names;
    launch *l;
    size_t nl, capl;
    range *r;
    size_t nr, capr;
    rt_name_index sets; /* the marks' tag sets, canonical "k=v;k=v" text; id 0 is "" (none) */
    size_t n_marks;     /* over all processes */
    uint64_t avail;     /* mapping slots every ranges file holds */
    int any_ranges_file;
} cupti_import;

/* A whole unsigned number in [0, max] into *out; -1 otherwise. */
int rt_cupti_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Open DIR/WHAT.PID.csv and check its header starts with want's columns (reads the header into
 * *hdr); NULL with *absent set when the file does not exist. *path_out is the path (heap). */
rt_csv *rt_cupti_open_csv(cupti_import *im, const char *dir, const char *what, long pid,
                          const char *want, rt_csv_row *hdr, int *absent, char **path_out);

/* collector.PID.txt (file is its name in im->dir) into *p; -1 with the file and line in im->err. */
int rt_cupti_read_collector(cupti_import *im, const char *file, long pid, proc *p);
/* Process pi's trace: kernels.PID.csv, with launches.PID.csv's call times when present. */
int rt_cupti_read_kernels(cupti_import *im, uint32_t pi);
/* Process pi's counters: ranges.PID.csv through the mapping's metric slots. */
int rt_cupti_read_ranges(cupti_import *im, uint32_t pi);

/* cupti-marks.c: process pi's marks.PID.csv (in im->dir) into its marks; 0 when absent. */
int rt_cupti_read_marks(cupti_import *im, uint32_t pi);
/* Each launch and range gets the tag set of the last mark of its process before it. */
void rt_cupti_apply_marks(cupti_import *im);
/* The tags of set (an id of im->sets) onto tags. */
void rt_cupti_set_tags(const cupti_import *im, uint32_t set, rt_tags *tags);

#endif
