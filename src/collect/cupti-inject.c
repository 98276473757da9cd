/* librooftime-cupti.so's start and end: loaded by the CUDA driver through CUDA_INJECTION64_PATH
 * (InitializeInjection, configured by $ROOFTIME_CUPTI_DIR and friends) or attached in-process
 * (cupti-attach.c), it writes each kernel (Activity API trace) or each kernel's counters (Range
 * Profiler, auto ranges and kernel replay) into a directory in the format of
 * include/rooftime/import/cupti.h. Both ways start with rtc_start and end with rtc_finish. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti-collector.h"
#include "rooftime/import/cupti.h"

#define RTC_EXPORT __attribute__((visibility("default")))

rtc_state rtc_g = {.lock = PTHREAD_MUTEX_INITIALIZER};
rtc_driver rtc_drv;

void *rtc_open_libcuda(char *err, size_t errlen)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "no CUDA driver: libcuda.so.1 not found (%s)",
                 why ? why : "dlopen failed");
    }
    return h;
}

int rtc_load_driver(char *err, size_t errlen)
{
    void *h = rtc_open_libcuda(err, errlen);
    if (!h)
        return -1;
    rtc_drv.ctx_get_device = (CUresult(*)(CUdevice *))dlsym(h, "cuCtxGetDevice");
    rtc_drv.device_get_name = (CUresult(*)(char *, int, CUdevice))dlsym(h, "cuDeviceGetName");
    rtc_drv.device_get_attribute =
        (CUresult(*)(int *, CUdevice_attribute, CUdevice))dlsym(h, "cuDeviceGetAttribute");
    rtc_drv.func_get_name = (CUresult(*)(const char **, CUfunction))dlsym(h, "cuFuncGetName");
    if (rtc_drv.ctx_get_device && rtc_drv.device_get_name && rtc_drv.device_get_attribute &&
        rtc_drv.func_get_name)
        return 0;
    const char *why = dlerror();
    snprintf(err, errlen,
             "the driver's cuCtxGetDevice, cuDeviceGetName, cuDeviceGetAttribute or "
             "cuFuncGetName cannot be found in libcuda.so.1: %s",
             why ? why : "not exported");
    return -1;
}

/* Close every output file; the state back to "not collecting" (lock held). */
static void close_files(void)
{
    FILE *fs[] = {rtc_g.kernels, rtc_g.launches, rtc_g.ranges,
                  rtc_g.images,  rtc_g.marks,    rtc_g.collector};
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        if (fs[i])
            fclose(fs[i]);
    rtc_g.kernels = rtc_g.launches = rtc_g.ranges = rtc_g.images = rtc_g.marks = rtc_g.collector =
        NULL;
    free(rtc_g.dir);
    free(rtc_g.metric_list);
    rtc_g.dir = rtc_g.metric_list = NULL;
    rtc_g.n_metric = 0;
    rtc_g.active = 0;
}

/* A failed start (lock held): error= in collector.PID.txt, the line in err, CUPTI given back. */
static int start_fail(int subscribed, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int start_fail(int subscribed, char *err, size_t errlen, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rtc_say("error", "%s", line);
    snprintf(err, errlen, "%s", line);
    if (subscribed) {
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiUnsubscribe(rtc_g.sub);
    }
    close_files();
    return -1;
}

/* collector.PID.txt and its first lines (lock held). */
static int open_collector(const char *dir, int counters, char *err, size_t errlen)
{
    rtc_g.dir = strdup(dir);
    rtc_g.pid = getpid();
    char *path = NULL;
    if (!rtc_g.dir || asprintf(&path, "%s/collector.%ld.txt", dir, (long)rtc_g.pid) < 0) {
        close_files();
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rtc_g.collector = fopen(path, "w");
    if (!rtc_g.collector) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(path);
        close_files();
        return -1;
    }
    free(path);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rtc_say("format", "%s", RT_CUPTI_FORMAT);
    rtc_say("mode", "%s", counters ? "counters" : "trace");
    rtc_say("pid", "%ld", (long)rtc_g.pid);
    rtc_say("started_ns", "%lld", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    uint32_t version = 0;
    cuptiGetVersion(&version);
    rtc_say("cupti_version", "%u", version);
    return 0;
}

/* The CSV files of the mode, and in trace mode the Activity API; 0 or -1 (lock held). */
static int open_outputs(char *err, size_t errlen)
{
    rtc_g.launches = rtc_open_out("launches", RT_CUPTI_LAUNCH_HEADER);
    if (!rtc_g.counters) {
        rtc_g.kernels = rtc_open_out("kernels", RT_CUPTI_KERNEL_HEADER);
        CUptiResult r = CUPTI_SUCCESS;
        static int registered; /* once per process: an attach after a detach reuses them */
        if (!registered && (r = cuptiActivityRegisterCallbacks(
                                rtc_buffer_requested, rtc_buffer_completed)) == CUPTI_SUCCESS)
            registered = 1;
        if (r != CUPTI_SUCCESS ||
            (r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS)
            return start_fail(1, err, errlen, "the Activity API: %s", rtc_cupti_msg(r));
        return 0;
    }
    rtc_g.ranges = rtc_open_out("ranges", NULL);
    if (rtc_g.ranges) {
        fputs("range,name", rtc_g.ranges);
        for (size_t m = 0; m < rtc_g.n_metric; m++)
            fprintf(rtc_g.ranges, ",%s", rtc_g.metric[m]);
        fputc('\n', rtc_g.ranges);
    }
    if (rtc_g.keep_images)
        rtc_g.images = rtc_open_out("images", RT_CUPTI_IMAGE_HEADER);
    return 0;
}

static void at_exit(void)
{
    char err[256];
    rtc_finish(0, err, sizeof err);
}

int rtc_start(const char *dir, int counters, const char *metrics, int keep_images, char *err,
              size_t errlen)
{
    pthread_mutex_lock(&rtc_g.lock);
    if (rtc_g.active) {
        snprintf(err, errlen, "already collecting (into %s)", rtc_g.dir);
        pthread_mutex_unlock(&rtc_g.lock);
        return -1;
    }
    int rc = -1;
    if (open_collector(dir, counters, err, errlen) != 0)
        goto out;
    rtc_g.counters = counters;
    rtc_g.keep_images = keep_images;
    rtc_g.n_ctx = 0;
    rtc_g.device_said = 0;
    rtc_g.kernels_written = rtc_g.dropped = rtc_g.marks_written = 0;
    rtc_g.last_correlation = 0;
    rtc_g.ranges_named = 0;
    char why[1024];
    if (rtc_load_driver(why, sizeof why) != 0) {
        start_fail(0, err, errlen, "%s", why);
        goto out;
    }
    if (counters) {
        rtc_g.metric_list = strdup(metrics ? metrics : "");
        for (char *s = rtc_g.metric_list, *tok; s && (tok = strsep(&s, ",")) != NULL;)
            if (*tok && rtc_g.n_metric < RTC_MAX_METRICS)
                rtc_g.metric[rtc_g.n_metric++] = tok;
        if (rtc_g.n_metric == 0) {
            start_fail(0, err, errlen,
                       "counter mode without metrics (ROOFTIME_CUPTI_METRICS is empty)");
            goto out;
        }
        rtc_say("metrics", "%s", metrics);
    }
    CUptiResult r = cuptiSubscribe(&rtc_g.sub, rtc_on_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        start_fail(0, err, errlen,
                   "another CUPTI client already holds this process (a profiler: Nsight, the "
                   "PyTorch profiler, Kineto); only one may subscribe. Profile with that tool and "
                   "use `rooftime import torch` or `rooftime import ncu` instead");
        goto out;
    }
    if (r != CUPTI_SUCCESS) {
        start_fail(0, err, errlen, "cuptiSubscribe: %s", rtc_cupti_msg(r));
        goto out;
    }
    if (rtc_enable_callbacks() != 0) {
        start_fail(1, err, errlen, "cuptiEnableCallback failed (collector.%ld.txt says why)",
                   (long)rtc_g.pid);
        goto out;
    }
    rtc_g.active = 1;
    if (open_outputs(err, errlen) != 0)
        goto out;
    static int exit_hook;
    if (!exit_hook++)
        atexit(at_exit);
    rc = 0;
out:
    pthread_mutex_unlock(&rtc_g.lock);
    return rc;
}

int rtc_finish(int unsubscribe, char *err, size_t errlen)
{
    pthread_mutex_lock(&rtc_g.lock);
    int active = rtc_g.active, trace = !rtc_g.counters;
    pthread_mutex_unlock(&rtc_g.lock);
    if (!active) {
        snprintf(err, errlen, "not collecting");
        return -1;
    }
    if (trace) /* outside the lock: the buffers come back through rtc_buffer_completed */
        cuptiActivityFlushAll(1);
    pthread_mutex_lock(&rtc_g.lock);
    if (!rtc_g.active) { /* another thread finished first */
        pthread_mutex_unlock(&rtc_g.lock);
        snprintf(err, errlen, "not collecting");
        return -1;
    }
    for (size_t i = 0; i < rtc_g.n_ctx; i++)
        rtc_rp_finish(&rtc_g.ctx[i]);
    if (rtc_g.counters && rtc_g.profiler_ready) {
        CUpti_Profiler_DeInitialize_Params pd = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&pd);
        rtc_g.profiler_ready = 0;
    }
    rtc_say("kernels", "%lu", rtc_g.kernels_written);
    rtc_say("end", "ok");
    CUpti_SubscriberHandle sub = rtc_g.sub;
    close_files();
    pthread_mutex_unlock(&rtc_g.lock);
    if (unsubscribe) {
        if (trace)
            cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiUnsubscribe(sub);
    }
    return 0;
}

RTC_EXPORT int InitializeInjection(void)
{
    static int once;
    if (once++)
        return 1;
    const char *dir = getenv("ROOFTIME_CUPTI_DIR");
    const char *mode = getenv("ROOFTIME_CUPTI_MODE");
    if (!dir || !*dir)
        return 1; /* loaded without `rooftime profile --gpu`: do nothing */
    const char *keep = getenv("ROOFTIME_CUPTI_KEEP_IMAGES");
    char err[1024];
    /* A failure is said in collector.PID.txt, which the import reports. */
    (void)rtc_start(dir, mode && strcmp(mode, "counters") == 0, getenv("ROOFTIME_CUPTI_METRICS"),
                    keep && strcmp(keep, "1") == 0, err, sizeof err);
    return 1;
}
