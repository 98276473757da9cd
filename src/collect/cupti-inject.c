/* librooftime-cupti.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH, it writes each
 * kernel (Activity API trace) or each kernel's counters (Range Profiler, auto ranges and kernel
 * replay) into $ROOFTIME_CUPTI_DIR in the format of include/rooftime/import/cupti.h. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti-host.h"
#include "cupti-records.h"
#include "rooftime/import/cupti.h"

#define RTC_EXPORT __attribute__((visibility("default")))
#define RTC_BUF_SIZE ((size_t)8 << 20)
#define RTC_MAX_RANGES                                                                             \
    256 /* kernels per counter data image (~240 KB each on GH100), then reset                      \
         */
#define RTC_MAX_METRICS 64
#define RTC_MAX_CTX 64

typedef struct rctx {
    CUcontext ctx;
    uint32_t id;
    CUpti_RangeProfiler_Object *obj;
    rtc_host *host;
    uint8_t *config, *data;
    size_t config_size, data_size;
    char chip[64]; /* cuptiDeviceGetChipName of its device, for the images' manifest */
    char **names;  /* kernel names of the ranges in the current image, in launch order */
    size_t n_names;
    unsigned chunk;
    unsigned long ranges; /* ranges written so far */
    int failed, done;
} rctx;

static struct {
    pthread_mutex_t lock;
    int counters;
    char *dir;
    pid_t pid;
    FILE *collector, *kernels, *launches, *ranges;
    FILE *images; /* images.PID.csv, the manifest of the raw images kept */
    CUpti_SubscriberHandle sub;
    char *metric_list;
    const char *metric[RTC_MAX_METRICS];
    size_t n_metric;
    rctx ctx[RTC_MAX_CTX];
    size_t n_ctx;
    int device_said;
    unsigned long kernels_written, dropped;
    int finished;
    int keep_images; /* write the raw images too (ROOFTIME_CUPTI_KEEP_IMAGES=1) */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread int tl_in_runtime_launch;

/* The driver's entry points, taken from the libcuda.so.1 that loaded the collector: not linked,
 * so that `import cupti --reevaluate` can load this library where no driver is installed. */
static struct {
    CUresult (*ctx_get_device)(CUdevice *dev);
    CUresult (*device_get_name)(char *name, int len, CUdevice dev);
    CUresult (*device_get_attribute)(int *v, CUdevice_attribute a, CUdevice dev);
    CUresult (*func_get_name)(const char **name, CUfunction f);
} drv;

static int load_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h)
        return -1;
    drv.ctx_get_device = (CUresult(*)(CUdevice *))dlsym(h, "cuCtxGetDevice");
    drv.device_get_name = (CUresult(*)(char *, int, CUdevice))dlsym(h, "cuDeviceGetName");
    drv.device_get_attribute =
        (CUresult(*)(int *, CUdevice_attribute, CUdevice))dlsym(h, "cuDeviceGetAttribute");
    drv.func_get_name = (CUresult(*)(const char **, CUfunction))dlsym(h, "cuFuncGetName");
    return drv.ctx_get_device && drv.device_get_name && drv.device_get_attribute &&
                   drv.func_get_name
               ? 0
               : -1;
}

/* key=value into collector.PID.txt (newlines in the value become spaces). */
static void say(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *key, const char *fmt, ...)
{
    if (!g.collector)
        return;
    char v[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    for (char *p = v; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(g.collector, "%s=%s\n", key, v);
    fflush(g.collector);
}

static const char *cupti_msg(CUptiResult r)
{
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    return s ? s : "unknown CUPTI error";
}

static FILE *open_out(const char *what, const char *header)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s.%ld.csv", g.dir, what, (long)g.pid) < 0)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        say("error", "cannot write %s: %s", path, strerror(errno));
    else if (header)
        fprintf(f, "%s\n", header);
    free(path);
    return f;
}

static int write_blob(const char *name, const uint8_t *data, size_t n)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", g.dir, name) < 0)
        return -1;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        say("warning", "cannot write %s: %s", path, strerror(errno));
    free(path);
    return ok ? 0 : -1;
}

/* A raw image of context c kept for `import cupti --reevaluate`: the file, the names of its ranges
 * (counter data only), then its row in images.PID.csv, written last: a listed image is whole. */
static void keep_image(rctx *c, const char *name, const char *kind, const uint8_t *data, size_t n,
                       char *const *names, size_t n_names)
{
    if (!g.images || write_blob(name, data, n) != 0)
        return;
    if (names) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s.names", g.dir, name) < 0)
            return;
        int bad = rtc_write_names(path, names, n_names) != 0;
        if (bad)
            say("warning", "cannot write %s: %s", path, strerror(errno));
        free(path);
        if (bad)
            return;
    }
    rtc_write_image_row(g.images, name, kind, c->id, c->chip, n, rtc_fnv1a64(data, n));
}

/* ---- the device, once: name, chip, compute capability ---- */

static void say_device(CUcontext ctx)
{
    if (g.device_said)
        return;
    g.device_said = 1;
    CUdevice dev;
    (void)ctx;
    if (drv.ctx_get_device(&dev) != CUDA_SUCCESS)
        return;
    char name[256] = "";
    int major = 0, minor = 0;
    drv.device_get_name(name, sizeof name, dev);
    drv.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    drv.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    say("device", "%s", name);
    say("cc", "%d%d", major, minor);
    CUpti_Device_GetChipName_Params cp = {.structSize =
                                              CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cp.deviceIndex = (size_t)dev;
    if (cuptiDeviceGetChipName(&cp) == CUPTI_SUCCESS && cp.pChipName)
        say("chip", "%s", cp.pChipName);
}

/* ---- counter mode: one range profiler per context ---- */

static rctx *find_ctx(CUcontext ctx, uint32_t id)
{
    for (size_t i = 0; i < g.n_ctx; i++)
        if (g.ctx[i].ctx == ctx && !g.ctx[i].done)
            return &g.ctx[i];
    if (g.n_ctx == RTC_MAX_CTX)
        return NULL;
    rctx *c = &g.ctx[g.n_ctx++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->id = id;
    return c;
}

static int rp_fail(rctx *c, const char *what, CUptiResult r)
{
    c->failed = 1;
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        say("error",
            "%s: %s: counters need profiling rights (run as root, or load the driver with "
            "NVreg_RestrictProfilingToAdminUsers=0)",
            what, cupti_msg(r));
    else
        say("error", "%s: %s", what, cupti_msg(r));
    return -1;
}

/* Empty the counter data image and start collecting into it. */
static int rp_arm(rctx *c)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = c->obj;
    ip.counterDataSize = c->data_size;
    ip.pCounterData = c->data;
    CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&ip);
    if (r != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerCounterDataImageInitialize", r);
    CUpti_RangeProfiler_SetConfig_Params sp = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->obj;
    sp.configSize = c->config_size;
    sp.pConfig = c->config;
    sp.counterDataImageSize = c->data_size;
    sp.pCounterDataImage = c->data;
    sp.range = CUPTI_AutoRange;
    sp.replayMode = CUPTI_KernelReplay;
    sp.maxRangesPerPass = RTC_MAX_RANGES;
    sp.numNestingLevels = 1;
    sp.minNestingLevel = 1;
    sp.passIndex = 0;
    sp.targetNestingLevel = 1;
    if ((r = cuptiRangeProfilerSetConfig(&sp)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerSetConfig", r);
    CUpti_RangeProfiler_Start_Params st = {.structSize =
                                               CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->obj;
    if ((r = cuptiRangeProfilerStart(&st)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerStart", r);
    return 0;
}

static int rp_setup(rctx *c)
{
    static int profiler_ready;
    if (!profiler_ready) { /* not in InitializeInjection: the driver is not ready there */
        CUpti_Profiler_Initialize_Params pi = {.structSize =
                                                   CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUptiResult r = cuptiProfilerInitialize(&pi);
        if (r != CUPTI_SUCCESS)
            return rp_fail(c, "cuptiProfilerInitialize", r);
        profiler_ready = 1;
    }
    CUpti_Device_GetChipName_Params cp = {.structSize =
                                              CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    CUdevice dev;
    if (drv.ctx_get_device(&dev) != CUDA_SUCCESS) {
        c->failed = 1;
        say("error", "cuCtxGetDevice failed in a launch callback");
        return -1;
    }
    cp.deviceIndex = (size_t)dev;
    CUptiResult r = cuptiDeviceGetChipName(&cp);
    if (r != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiDeviceGetChipName", r);
    snprintf(c->chip, sizeof c->chip, "%s", cp.pChipName ? cp.pChipName : "");
    CUpti_Profiler_GetCounterAvailability_Params ap = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ap.ctx = c->ctx;
    if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiProfilerGetCounterAvailability", r);
    uint8_t *avail = calloc(1, ap.counterAvailabilityImageSize + 1);
    ap.pCounterAvailabilityImage = avail;
    if (!avail || (r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
        free(avail);
        return rp_fail(c, "cuptiProfilerGetCounterAvailability", r);
    }
    char err[1024] = "";
    c->host = rtc_host_new(cp.pChipName, avail, err, sizeof err);
    size_t passes = 0;
    if (!c->host || rtc_host_config(c->host, g.metric, g.n_metric, &c->config, &c->config_size,
                                    &passes, err, sizeof err) != 0) {
        free(avail);
        c->failed = 1;
        say("error", "%s", err);
        return -1;
    }
    free(avail);
    say("passes", "%zu", passes);
    char name[96];
    snprintf(name, sizeof name, "config.%ld.%u.bin", (long)g.pid, c->id);
    keep_image(c, name, "config", c->config, c->config_size, NULL, 0);

    CUpti_RangeProfiler_Enable_Params ep = {.structSize =
                                                CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = c->ctx;
    if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerEnable", r);
    c->obj = ep.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->obj;
    sp.pMetricNames = g.metric;
    sp.numMetrics = g.n_metric;
    sp.maxNumOfRanges = RTC_MAX_RANGES;
    sp.maxNumRangeTreeNodes = RTC_MAX_RANGES;
    if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerGetCounterDataSize", r);
    c->data_size = sp.counterDataSize;
    c->data = calloc(1, c->data_size);
    c->names = calloc(RTC_MAX_RANGES, sizeof *c->names);
    if (!c->data || !c->names) {
        c->failed = 1;
        say("error", "out of memory for a counter data image of %zu bytes", c->data_size);
        return -1;
    }
    return rp_arm(c);
}

/* Stop, decode, keep the image, evaluate every range into ranges.PID.csv; re-arm if again. */
static void rp_flush(rctx *c, int again)
{
    if (!c->obj || c->failed)
        return;
    CUpti_RangeProfiler_Stop_Params st = {.structSize =
                                              CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = c->obj;
    CUptiResult r = cuptiRangeProfilerStop(&st);
    if (r != CUPTI_SUCCESS) {
        rp_fail(c, "cuptiRangeProfilerStop", r);
        return;
    }
    CUpti_RangeProfiler_DecodeData_Params dp = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = c->obj;
    if ((r = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS) {
        rp_fail(c, "cuptiRangeProfilerDecodeData", r);
        return;
    }
    if (dp.numOfRangeDropped)
        say("ranges_dropped", "%zu", dp.numOfRangeDropped);
    char name[96], err[1024] = "";
    snprintf(name, sizeof name, "counterdata.%ld.%u.%u.bin", (long)g.pid, c->id, c->chunk++);
    keep_image(c, name, "counterdata", c->data, c->data_size, c->names, c->n_names);
    long nr = rtc_counter_data_ranges(c->data, c->data_size, err, sizeof err);
    if (nr < 0)
        say("warning", "%s", err);
    double v[RTC_MAX_METRICS];
    char rname[256];
    for (long i = 0; i < nr; i++) {
        if (rtc_host_evaluate(c->host, c->data, c->data_size, (size_t)i, g.metric, g.n_metric, v,
                              rname, sizeof rname, err, sizeof err) != 0) {
            say("warning", "range %ld: %s", i, err);
            continue;
        }
        fprintf(g.ranges, "%lu,", c->ranges++);
        rtc_csv_field(g.ranges, (size_t)i < c->n_names ? c->names[i] : "");
        for (size_t m = 0; m < g.n_metric; m++)
            fprintf(g.ranges, ",%.17g", v[m]);
        fputc('\n', g.ranges);
    }
    if ((size_t)nr != c->n_names)
        say("warning", "context %u: %ld ranges for %zu kernel launches", c->id, nr, c->n_names);
    fflush(g.ranges);
    for (size_t i = 0; i < c->n_names; i++)
        free(c->names[i]);
    c->n_names = 0;
    if (again)
        rp_arm(c);
}

static void rp_finish(rctx *c)
{
    if (c->done)
        return;
    rp_flush(c, 0);
    if (c->obj) {
        CUpti_RangeProfiler_Disable_Params dp = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dp.pRangeProfilerObject = c->obj;
        cuptiRangeProfilerDisable(&dp);
    }
    rtc_host_free(c->host);
    free(c->config);
    free(c->data);
    for (size_t i = 0; i < c->n_names; i++)
        free(c->names[i]);
    free(c->names);
    c->done = 1;
}

/* ---- callbacks ---- */

static uint64_t now_ns(void)
{
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

static int is_graph(CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    return d == CUPTI_CB_DOMAIN_RUNTIME_API
               ? (id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
                  id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000)
               : (id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
                  id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
}

/* The kernel's name as the launch names it; for driver launches without one, the function's. */
static const char *launch_name(CUpti_CallbackDomain d, CUpti_CallbackId id,
                               const CUpti_CallbackData *cb)
{
    if (cb->symbolName && cb->symbolName[0])
        return cb->symbolName;
    const char *n = NULL;
    if (d == CUPTI_CB_DOMAIN_DRIVER_API && cb->functionParams) {
        if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
            id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)
            drv.func_get_name(&n, ((const cuLaunchKernel_params *)cb->functionParams)->f);
        else if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                 id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
            drv.func_get_name(&n, ((const cuLaunchKernelEx_params *)cb->functionParams)->f);
    }
    return n ? n : "";
}

static void on_launch(CUpti_CallbackDomain d, CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API)
        tl_in_runtime_launch = cb->callbackSite == CUPTI_API_ENTER;
    else if (tl_in_runtime_launch)
        return; /* the driver call inside a runtime launch: counted once, at the runtime */
    if (cb->callbackSite == CUPTI_API_ENTER) {
        *cb->correlationData = now_ns();
        pthread_mutex_lock(&g.lock);
        say_device(cb->context);
        if (g.counters && !is_graph(d, id)) {
            rctx *c = find_ctx(cb->context, cb->contextUid);
            if (!c) {
                say("error", "more than %d CUDA contexts", RTC_MAX_CTX);
            } else if (!c->failed && (c->obj || rp_setup(c) == 0)) {
                if (c->n_names == RTC_MAX_RANGES)
                    rp_flush(c, 1); /* the image is full: keep it, start a new one */
                if (!c->failed)
                    c->names[c->n_names++] = rtc_demangle(launch_name(d, id, cb));
            }
        } else if (g.counters) {
            static int said;
            if (!said++)
                say("warning", "graph launches under counters: their kernels are not named, so "
                               "the ranges from the first graph launch on may carry wrong names");
        }
        pthread_mutex_unlock(&g.lock);
        return;
    }
    uint64_t end = now_ns();
    pthread_mutex_lock(&g.lock);
    if (g.launches) {
        fprintf(g.launches, "%" PRIu32 ",", cb->correlationId);
        rtc_csv_field(g.launches, cb->functionName);
        fprintf(g.launches, ",%" PRIu64 ",%" PRIu64 ",%ld,", *cb->correlationData, end,
                (long)syscall(SYS_gettid));
        char *name = rtc_demangle(launch_name(d, id, cb));
        rtc_csv_field(g.launches, name);
        free(name);
        fputc('\n', g.launches);
    }
    pthread_mutex_unlock(&g.lock);
}

static void CUPTIAPI on_callback(void *udata, CUpti_CallbackDomain d, CUpti_CallbackId id,
                                 const void *data)
{
    (void)udata;
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API || d == CUPTI_CB_DOMAIN_DRIVER_API) {
        on_launch(d, id, data);
        return;
    }
    if (d == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        const CUpti_ResourceData *rd = data;
        pthread_mutex_lock(&g.lock);
        for (size_t i = 0; i < g.n_ctx; i++)
            if (g.ctx[i].ctx == rd->context)
                rp_finish(&g.ctx[i]);
        pthread_mutex_unlock(&g.lock);
        if (!g.counters)
            cuptiActivityFlushAll(0);
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(8, RTC_BUF_SIZE);
    *size = *buf ? RTC_BUF_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid)
{
    (void)size;
    pthread_mutex_lock(&g.lock);
    if (g.kernels && valid > 0) {
        long n = rtc_write_buffer(g.kernels, buf, valid);
        if (n < 0)
            say("warning", "an activity buffer could not be read");
        else
            g.kernels_written += (unsigned long)n;
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
            g.dropped += dropped;
            say("records_dropped", "%lu", g.dropped);
        }
    }
    pthread_mutex_unlock(&g.lock);
    free(buf);
}

/* ---- start and end ---- */

static void at_exit(void)
{
    if (!g.counters)
        cuptiActivityFlushAll(1);
    pthread_mutex_lock(&g.lock);
    if (g.finished) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.finished = 1;
    for (size_t i = 0; i < g.n_ctx; i++)
        rp_finish(&g.ctx[i]);
    if (g.counters) {
        CUpti_Profiler_DeInitialize_Params pd = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&pd);
    }
    say("kernels", "%lu", g.kernels_written);
    say("end", "ok");
    FILE *fs[] = {g.kernels, g.launches, g.ranges, g.images, g.collector};
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        if (fs[i])
            fclose(fs[i]);
    g.kernels = g.launches = g.ranges = g.images = g.collector = NULL;
    pthread_mutex_unlock(&g.lock);
}

static int enable_launch_callbacks(void)
{
    static const CUpti_CallbackId rt[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
    static const CUpti_CallbackId drv[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
                                           CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                                           CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
    CUptiResult r;
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
        if ((r = cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i])) !=
            CUPTI_SUCCESS)
            goto fail;
    for (size_t i = 0; i < sizeof drv / sizeof drv[0]; i++)
        if ((r = cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i])) !=
            CUPTI_SUCCESS)
            goto fail;
    if ((r = cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE,
                                 CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)) != CUPTI_SUCCESS)
        goto fail;
    return 0;
fail:
    say("error", "cuptiEnableCallback: %s", cupti_msg(r));
    return -1;
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
    g.dir = strdup(dir);
    g.pid = getpid();
    g.counters = mode && strcmp(mode, "counters") == 0;
    const char *keep = getenv("ROOFTIME_CUPTI_KEEP_IMAGES");
    g.keep_images = keep && strcmp(keep, "1") == 0;
    char *path = NULL;
    if (asprintf(&path, "%s/collector.%ld.txt", g.dir, (long)g.pid) < 0)
        return 1;
    g.collector = fopen(path, "w");
    free(path);
    if (!g.collector)
        return 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    say("format", "%s", RT_CUPTI_FORMAT);
    say("mode", "%s", g.counters ? "counters" : "trace");
    say("pid", "%ld", (long)g.pid);
    say("started_ns", "%lld", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    uint32_t version = 0;
    cuptiGetVersion(&version);
    say("cupti_version", "%u", version);
    if (load_driver() != 0) {
        const char *why = dlerror();
        say("error",
            "the driver's cuCtxGetDevice, cuDeviceGetName, cuDeviceGetAttribute or "
            "cuFuncGetName cannot be found in libcuda.so.1: %s",
            why ? why : "not exported");
        return 1;
    }

    if (g.counters) {
        const char *ml = getenv("ROOFTIME_CUPTI_METRICS");
        g.metric_list = strdup(ml ? ml : "");
        for (char *s = g.metric_list, *tok; (tok = strsep(&s, ",")) != NULL;)
            if (*tok && g.n_metric < RTC_MAX_METRICS)
                g.metric[g.n_metric++] = tok;
        if (g.n_metric == 0) {
            say("error", "counter mode without metrics (ROOFTIME_CUPTI_METRICS is empty)");
            return 1;
        }
        say("metrics", "%s", ml);
    }
    CUptiResult r;
    r = cuptiSubscribe(&g.sub, on_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        say("error", "another CUPTI client already holds this process (a profiler: Nsight, "
                     "the PyTorch profiler, Kineto); only one may subscribe. Profile with that "
                     "tool and use `rooftime import torch` or `rooftime import ncu` instead");
        return 1;
    }
    if (r != CUPTI_SUCCESS) {
        say("error", "cuptiSubscribe: %s", cupti_msg(r));
        return 1;
    }
    if (enable_launch_callbacks() != 0)
        return 1;
    g.launches = open_out("launches", RT_CUPTI_LAUNCH_HEADER);
    if (g.counters) {
        g.ranges = open_out("ranges", NULL);
        if (g.ranges) {
            fputs("range,name", g.ranges);
            for (size_t m = 0; m < g.n_metric; m++)
                fprintf(g.ranges, ",%s", g.metric[m]);
            fputc('\n', g.ranges);
        }
        if (g.keep_images)
            g.images = open_out("images", RT_CUPTI_IMAGE_HEADER);
    } else {
        g.kernels = open_out("kernels", RT_CUPTI_KERNEL_HEADER);
        if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) !=
                CUPTI_SUCCESS ||
            (r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
            say("error", "the Activity API: %s", cupti_msg(r));
            return 1;
        }
    }
    atexit(at_exit);
    return 1;
}
