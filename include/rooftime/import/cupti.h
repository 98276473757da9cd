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
 *   config.PID.CTX.bin, counterdata.PID.CTX.N.bin   counter mode, with
 *                       ROOFTIME_CUPTI_KEEP_IMAGES=1 (`profile --gpu --counters` keeps them in
 *                       run.cupti/ or --keep-dir): the raw images of context CTX (its
 *                       configuration, and its counter data in chunks N = 0, 1 ... of up to 256
 *                       ranges), for `import cupti --reevaluate` on any machine
 *                       (cuptiProfilerHostEvaluateToGpuValues); about 240 KB per kernel on GH100
 *   counterdata.PID.CTX.N.bin.names   the kernel each range of that image ran, one name per
 *                       line in launch order, as ranges.PID.csv names them (line breaks become
 *                       spaces)
 *   marks.PID.csv       one row per rooftime_cupti_mark call (RT_CUPTI_MARK_HEADER): seq from
 *                       0; correlation, the highest launch correlation ID issued in the process
 *                       before the mark (kernels whose launch correlation is greater belong to
 *                       this mark or a later one); ranges, the counter ranges named so far
 *                       (counters mode; 0 in trace mode); time_ns (cuptiGetTimestamp); tags as
 *                       given, "key=value;key=value" (CSV-quoted), "" ending the tagging
 *   images.PID.csv      the images' manifest (RT_CUPTI_IMAGE_HEADER), one row per image written:
 *                       kind config|counterdata, the context, the chip (cuptiDeviceGetChipName),
 *                       the size and the FNV-1a 64-bit hash, checked before CUPTI reads an image
 *                       (CUPTI does not check them: a damaged image can crash it)
 * Everything in it is untrusted input: sizes are bounded and every error names file and field.
 */
#define RT_CUPTI_FORMAT "rooftime.cupti/1"
#define RT_CUPTI_KERNEL_HEADER                                                                     \
    "correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,"   \
    "block_y,block_z,registers,shared_static,shared_dynamic"
#define RT_CUPTI_LAUNCH_HEADER "correlation,api,start_ns,end_ns,thread,name"
#define RT_CUPTI_IMAGE_HEADER "file,kind,context,chip,bytes,fnv1a64"
#define RT_CUPTI_MARK_HEADER "seq,correlation,ranges,time_ns,tags"

/* Bounds on what the importer accepts. */
#define RT_CUPTI_MAX_PROCESSES 1024
#define RT_CUPTI_MAX_COLLECTOR_FILE ((size_t)1 << 16)
#define RT_CUPTI_MAX_LAUNCHES ((size_t)1 << 26)
#define RT_CUPTI_MAX_IMAGE ((size_t)1 << 30) /* one raw image, read whole by --reevaluate */
#define RT_CUPTI_MAX_IMAGES 65536            /* rows of one images.PID.csv */
#define RT_CUPTI_MAX_MARKS ((size_t)1 << 20) /* rows of one marks.PID.csv */
#define RT_CUPTI_MAX_MARK_TAGS 4096          /* bytes of one mark's tags */
#define RT_CUPTI_MAX_MARK_PAIRS 32           /* key=value pairs of one mark */

/*
 * In-process collection: librooftime-cupti.so exports these (C linkage, default visibility). A
 * process started under the injection (CUDA_INJECTION64_PATH) is already collecting: it finds the
 * loaded library through $ROOFTIME_CUPTI_LIB (set by `profile --gpu` and the GPU study to the
 * path they injected) and only marks.
 *
 * Start collecting in this process into DIR (created if missing), as CUDA_INJECTION64_PATH
 * injection does. mode: "trace" or "counters" (the metrics then come from
 * $ROOFTIME_CUPTI_METRICS, raw images are kept with $ROOFTIME_CUPTI_KEEP_IMAGES=1). 0, or -1 with
 * one line in err (e.g. "no CUDA driver: libcuda.so.1 not found (...)", "no CUDA device (...)",
 * "already collecting (into DIR)"). Safe to call where no GPU or driver exists: then nothing is
 * written.
 */
int rooftime_cupti_attach(const char *dir, const char *mode, char *err, size_t errlen);
/* Flush everything and finish the directory's files (as at process exit), and give CUPTI back.
 * 0, or -1 with one line in err ("not collecting"). */
int rooftime_cupti_detach(char *err, size_t errlen);
/* Tag what follows: every kernel launched after this call (until the next mark) gets these tags.
 * tags: "key=value;key=value" (at most RT_CUPTI_MAX_MARK_PAIRS pairs and RT_CUPTI_MAX_MARK_TAGS
 * bytes; keys [A-Za-z0-9_.-]+, values without ';' or line breaks; empty pairs, as from a trailing
 * ';', are skipped); "" ends tagging. 0, or -1 when not collecting or the tags break these rules
 * (then nothing is written). One row of marks.PID.csv. */
int rooftime_cupti_mark(const char *tags);

/*
 * `import cupti --reevaluate`: the entry point librooftime-cupti.so exports (the CLI loads it with
 * dlopen, as the import wing cannot link the collector). It evaluates every counter data image
 * that dir's images.PID.csv files list, with the chip they name and the metrics of
 * collector.PID.txt, and writes out_dir/ranges.PID.csv afresh (ranges.PID.csv's columns; ranges
 * numbered per process). Each image is checked against its manifest row before CUPTI reads it, and
 * CUPTI runs in a child process, so an image it cannot read is an error, not a crash. warn (may be
 * NULL) gets each warning. Returns the number of ranges written, or -1 with the reason (naming the
 * file) in err: no images, an image damaged or missing, a chip or metric this CUPTI does not know,
 * an image that does not match its configuration, no ranges at all, or a process under a
 * sanitizer (libnvperf_host.so is loaded with RTLD_DEEPBIND, which they refuse).
 */
#define RT_CUPTI_REEVALUATE_SYMBOL "rooftime_cupti_reevaluate"
typedef long (*rt_cupti_reevaluate_fn)(const char *dir, const char *out_dir,
                                       void (*warn)(void *ctx, const char *msg), void *ctx,
                                       char *err, size_t errn);

typedef struct rt_cupti_options {
    const char *metrics_file; /* metric-to-quantity mapping; NULL: <datadir>/ncu/metrics.json */
    bool per_launch;          /* one kernel per launch (tags launch, process, stream, grid ...) */
    /* Read the counter runs' ranges.PID.csv from here instead of dir: the rows `--reevaluate`
     * evaluated afresh from dir's images (provenance then names dir's images.PID.csv). NULL: dir */
    const char *ranges_dir;
} rt_cupti_options;

/*
 * Read a collector directory: kernel times from the trace runs' kernels.*.csv, FLOPs and bytes
 * from the counter runs' ranges.*.csv through the formulas of data/ncu/metrics.json (those of
 * `import ncu`), joined by kernel name and launch order; without a trace, times are cycles /
 * rate of the counters. Aggregated per kernel name unless per_launch. *out is new, the caller's.
 * Fails with "no kernel was captured" when the directory holds no kernel. Where raw images are
 * kept (images.PID.csv), the provenance's note counter_images says so.
 */
int rt_import_cupti(const char *dir, const rt_cupti_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err);

/* The comma list of metrics counters mode collects on devices of compute capabilities sms (70
 * for 7.0; n_sms 0: every architecture's): set "throughput" of data/ncu/metrics.json for sms[0],
 * less those another architecture's list lacks (cupti-metrics.c). Heap; NULL with err. */
char *rt_cupti_metrics_for(const int *sms, size_t n_sms, rt_error *err);

/* The number of image manifests (images.PID.csv, raw counter images kept) in dir; 0 when none or
 * dir cannot be read. */
size_t rt_cupti_image_manifests(const char *dir);

/* `import cupti --reevaluate`, for the command and the API alike (cupti-collector-call.c): dir's
 * raw counter images evaluated again through the entry point of the collector at lib (loaded with
 * dlopen and left loaded: libcupti is not made to be unloaded), into a new scratch directory
 * (*scratch, heap; remove it with rt_cupti_remove_dir, rooftime/import/cupti-dir.h). Warnings go to
 * w. Returns the number of ranges evaluated, or -1 with err set. */
long rt_cupti_reevaluate(const char *lib, const char *dir, char **scratch, rt_warnings *w,
                         rt_error *err);
#endif
