/* Private to librooftime-cupti.so: the collector's state, shared by its start and end
 * (cupti-inject.c, and cupti-attach.c in-process), the launch callbacks and activity buffers
 * (cupti-callbacks.c), the Range Profiler per context (cupti-range-profiler.c), the output files
 * (cupti-output.c) and the marks (cupti-marks.c). Every field of rtc_g is guarded by rtc_g.lock. */
#ifndef ROOFTIME_COLLECT_CUPTI_COLLECTOR_H
#define ROOFTIME_COLLECT_CUPTI_COLLECTOR_H

#include <cuda.h>
#include <cupti.h>
#include <cupti_range_profiler.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cupti-host.h"

#define RTC_BUF_SIZE ((size_t)8 << 20)
/* kernels per counter data image (~240 KB each on GH100), then reset */
#define RTC_MAX_RANGES 256
#define RTC_MAX_METRICS 64
#define RTC_MAX_CTX 64

/* One CUDA context under the Range Profiler (counters mode). */
typedef struct rtc_ctx {
    CUcontext ctx;
    uint32_t id;
    CUpti_RangeProfiler_Object *obj;
    rtc_host *host;
    uint8_t *config, *data;
    size_t config_size, data_size;
    char chip[64];   /* cuptiDeviceGetChipName of its device, for the images' manifest */
    char **names;    /* kernel names of the ranges in the current image, in launch order */
    uint64_t *index; /* their range numbers in the process (ranges.PID.csv's range column) */
    size_t n_names;
    unsigned chunk;
    int failed, done;
} rtc_ctx;

typedef struct rtc_state {
    pthread_mutex_t lock;
    int active; /* collecting: between the start and the end */
    int counters;
    char *dir;
    pid_t pid;
    FILE *collector, *kernels, *launches, *ranges;
    FILE *images; /* images.PID.csv, the manifest of the raw images kept */
    FILE *marks;  /* marks.PID.csv, opened at the first mark */
    CUpti_SubscriberHandle sub;
    char *metric_list;
    const char *metric[RTC_MAX_METRICS];
    size_t n_metric;
    rtc_ctx ctx[RTC_MAX_CTX];
    size_t n_ctx;
    int device_said;
    unsigned long kernels_written, dropped;
    uint32_t last_correlation; /* the highest launch correlation ID seen */
    uint64_t ranges_named;     /* counter ranges named so far in the process */
    unsigned long marks_written;
    int keep_images;    /* write the raw images too (ROOFTIME_CUPTI_KEEP_IMAGES=1) */
    int profiler_ready; /* cuptiProfilerInitialize done (counters) */
} rtc_state;

extern rtc_state rtc_g;

/* The driver's entry points, taken from libcuda.so.1 (cupti-inject.c): not linked, so that
 * `import cupti --reevaluate` can load this library where no driver is installed. */
typedef struct rtc_driver {
    CUresult (*ctx_get_device)(CUdevice *dev);
    CUresult (*device_get_name)(char *name, int len, CUdevice dev);
    CUresult (*device_get_attribute)(int *v, CUdevice_attribute a, CUdevice dev);
    CUresult (*func_get_name)(const char **name, CUfunction f);
} rtc_driver;

extern rtc_driver rtc_drv;

/* ---- cupti-output.c: the directory's files ---- */
/* key=value into collector.PID.txt (newlines in the value become spaces). */
void rtc_say(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *rtc_cupti_msg(CUptiResult r);
/* DIR/WHAT.PID.csv opened for writing with its header line (none when header is NULL). */
FILE *rtc_open_out(const char *what, const char *header);
/* A raw image of context c kept for `import cupti --reevaluate`: the file, the names of its
 * ranges (counter data only), then its row in images.PID.csv. */
void rtc_keep_image(rtc_ctx *c, const char *name, const char *kind, const uint8_t *data, size_t n,
                    char *const *names, size_t n_names);

/* ---- cupti-range-profiler.c: counters mode, one Range Profiler per context ---- */
/* The context's entry (a new one at its first launch); NULL when there are too many. */
rtc_ctx *rtc_find_ctx(CUcontext ctx, uint32_t id);
/* At a kernel launch in c: set the profiler up at the first, flush a full image, then name the
 * launch's range (name is taken over). Returns the range's number in the process, or -1 when the
 * profiler of c failed (the name is then freed). */
int64_t rtc_rp_launch(rtc_ctx *c, char *name);
/* Give range number `range` of c another name (taken over), while it is in the image being
 * collected: 0, or -1 when that image was flushed already (the name is then freed). */
int rtc_rp_rename(rtc_ctx *c, uint64_t range, char *name);
/* Flush what is left and release the context's profiler. */
void rtc_rp_finish(rtc_ctx *c);

/* ---- cupti-callbacks.c: launch callbacks and activity buffers ---- */
void CUPTIAPI rtc_on_callback(void *udata, CUpti_CallbackDomain d, CUpti_CallbackId id,
                              const void *data);
void CUPTIAPI rtc_buffer_requested(uint8_t **buf, size_t *size, size_t *max_records);
void CUPTIAPI rtc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                   size_t valid);
/* Enable the launch and context-destruction callbacks on rtc_g.sub; 0, or -1 after saying why. */
int rtc_enable_callbacks(void);

/* ---- cupti-inject.c: start and end, shared by the injection and by attach ---- */
/* libcuda.so.1, already loaded or opened now (left loaded); NULL with the line in err. */
void *rtc_open_libcuda(char *err, size_t errlen);
/* The driver's entry points into rtc_drv from libcuda.so.1 (the loaded copy if any); 0, or -1
 * with the reason in err. */
int rtc_load_driver(char *err, size_t errlen);
/* Start collecting in this process into dir (which exists) in mode counters (0: trace), with the
 * comma list of metrics (counters); the output files open, the callbacks and the Activity API
 * enabled. 0, or -1 with one line in err (also said as error= in collector.PID.txt when that file
 * could be written). */
int rtc_start(const char *dir, int counters, const char *metrics, int keep_images, char *err,
              size_t errlen);
/* Flush everything and finish the directory's files; with unsubscribe, also give CUPTI back (an
 * in-process detach; at process exit it is left). 0, or -1 with one line in err when not
 * collecting. */
int rtc_finish(int unsubscribe, char *err, size_t errlen);

#endif
