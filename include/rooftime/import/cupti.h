/* The CUPTI collector's output directory (librooftime-cupti.so) into a profile (import-cupti.c). */
#ifndef ROOFTIME_IMPORT_CUPTI_H
#define ROOFTIME_IMPORT_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/*
 * The directory (format "rooftime.cupti/1"), one set of files per process the collector was
 * loaded into (PID is the process ID):
 *   collector.PID.txt   key=value lines: format, mode (trace|counters), pid, started_ns,
 *                       cupti_version, device, chip, cc, metrics (comma list), passes,
 *                       records_dropped, ranges_dropped, error (why collection failed)
 *   kernels.PID.csv     trace mode, one row per kernel execution (RT_CUPTI_KERNEL_HEADER)
 *   launches.PID.csv    both modes, one row per launch API call (RT_CUPTI_LAUNCH_HEADER)
 *   ranges.PID.csv      counter mode, one row per auto range (one kernel launch, replayed):
 *                       "range,name," then the metric names; values evaluated by the collector
 *   config.PID.CTX.bin, counterdata.PID.CTX.N.bin   counter mode: the raw images, kept so they
 *                       can be evaluated again (cuptiProfilerHostEvaluateToGpuValues); written
                       only with ROOFTIME_CUPTI_KEEP_IMAGES=1 (`profile --gpu --keep-dir`), as
                       they are large (about 240 KB per kernel on GH100)
 * Everything in it is untrusted input: sizes are bounded and every error names file and field.
 */
#define RT_CUPTI_FORMAT "rooftime.cupti/1"
#define RT_CUPTI_KERNEL_HEADER                                                                     \
    "correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,"   \
    "block_y,block_z,registers,shared_static,shared_dynamic"
#define RT_CUPTI_LAUNCH_HEADER "correlation,api,start_ns,end_ns,thread,name"

/* Bounds on what the importer accepts. */
#define RT_CUPTI_MAX_PROCESSES 1024
#define RT_CUPTI_MAX_COLLECTOR_FILE ((size_t)1 << 16)
#define RT_CUPTI_MAX_LAUNCHES ((size_t)1 << 26)

typedef struct rt_cupti_options {
    const char *metrics_file; /* metric-to-quantity mapping; NULL: <datadir>/ncu/metrics.json */
    bool per_launch;          /* one kernel per launch (tags launch, process, stream, grid ...) */
} rt_cupti_options;

/*
 * Read a collector directory: kernel times from the trace runs' kernels.*.csv, FLOPs and bytes
 * from the counter runs' ranges.*.csv through the formulas of data/ncu/metrics.json (those of
 * `import ncu`), joined by kernel name and launch order; without a trace, times are cycles /
 * rate of the counters. Aggregated per kernel name unless per_launch. *out is new, the caller's.
 * Fails with "no kernel was captured" when the directory holds no kernel.
 */
int rt_import_cupti(const char *dir, const rt_cupti_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err);

#endif
