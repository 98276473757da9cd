/* Private to the CUPTI importer: the state shared by reading the collector's files (cupti-read.c)
 * and joining them into a profile (cupti.c). */
#ifndef ROOFTIME_IMPORT_CUPTI_INTERNAL_H
#define ROOFTIME_IMPORT_CUPTI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* One process the collector ran in: what collector.PID.txt says. */
typedef struct proc {
    long pid;
    long long started;
    int counters;
    int sm;
    char *device, *version;
} proc;

/* One kernel execution of a trace run. */
typedef struct launch {
    uint32_t proc, name, corr, stream, graph;
    uint64_t start, end;
    int32_t grid[3], block[3];
    double api; /* CPU-side launch call, seconds; < 0 when unknown */
    long range; /* joined counter range, or -1 */
} launch;

/* One range (kernel launch, replayed) of a counter run. */
typedef struct range {
    uint32_t proc, name;
    double *v; /* one per mapping slot */
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
    uint64_t avail; /* mapping slots every ranges file holds */
    int any_ranges_file;
} cupti_import;

/* collector.PID.txt (file is its name in im->dir) into *p; -1 with the file and line in im->err. */
int rt_cupti_read_collector(cupti_import *im, const char *file, long pid, proc *p);
/* Process pi's trace: kernels.PID.csv, with launches.PID.csv's call times when present. */
int rt_cupti_read_kernels(cupti_import *im, uint32_t pi);
/* Process pi's counters: ranges.PID.csv through the mapping's metric slots. */
int rt_cupti_read_ranges(cupti_import *im, uint32_t pi);

#endif
