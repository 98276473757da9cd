/* What CUPTI calls: the launch callbacks (launches.PID.csv, each launch's correlation ID, and in
 * counters mode the name of each launch's range), the context's destruction, and the Activity
 * API's buffers of kernel records (kernels.PID.csv, trace mode). */
#define _GNU_SOURCE
#include <cupti_target.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cupti-collector.h"
#include "cupti-records.h"

/* Launch calls nest: a runtime launch calls the driver's (cudaLaunchKernel -> cuLaunchKernel),
 * and CUDA 13's <<<>>> entry point __cudaLaunchKernel may call another runtime launch. A launch is
 * counted once, at the outermost call of its thread; the calls inside it only advance the
 * correlation IDs that bound the marks. Per thread: the runtime launch calls entered and not yet
 * left, and the counter range the outermost opened without a kernel name (its callback carried
 * none), which the first call inside it that knows the name gives it. */
static __thread int tl_depth;
static __thread rtc_ctx *tl_unnamed_ctx;
static __thread uint64_t tl_unnamed_range;

/* The device, once: name, chip, compute capability. */
static void say_device(void)
{
    if (rtc_g.device_said)
        return;
    rtc_g.device_said = 1;
    CUdevice dev;
    if (rtc_drv.ctx_get_device(&dev) != CUDA_SUCCESS)
        return;
    char name[256] = "";
    int major = 0, minor = 0;
    rtc_drv.device_get_name(name, sizeof name, dev);
    rtc_drv.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    rtc_drv.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    rtc_say("device", "%s", name);
    rtc_say("cc", "%d%d", major, minor);
    CUpti_Device_GetChipName_Params cp = {.structSize =
                                              CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cp.deviceIndex = (size_t)dev;
    if (cuptiDeviceGetChipName(&cp) == CUPTI_SUCCESS && cp.pChipName)
        rtc_say("chip", "%s", cp.pChipName);
}

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
            rtc_drv.func_get_name(&n, ((const cuLaunchKernel_params *)cb->functionParams)->f);
        else if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                 id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
            rtc_drv.func_get_name(&n, ((const cuLaunchKernelEx_params *)cb->functionParams)->f);
    }
    return n ? n : "";
}

/* Under the lock: the range the outermost launch call left unnamed gets the name this call
 * inside it knows. */
static void name_unnamed(CUpti_CallbackDomain d, CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    const char *n = launch_name(d, id, cb);
    if (!tl_unnamed_ctx || !n[0])
        return;
    rtc_rp_rename(tl_unnamed_ctx, tl_unnamed_range, rtc_demangle(n));
    tl_unnamed_ctx = NULL;
}

/* Entering a launch call: its start time, its correlation ID, and for the outermost call of the
 * thread in counters mode its kernel's range. */
static void launch_enter(CUpti_CallbackDomain d, CUpti_CallbackId id, const CUpti_CallbackData *cb,
                         int outer)
{
    *cb->correlationData = now_ns();
    pthread_mutex_lock(&rtc_g.lock);
    if (!rtc_g.active) {
        pthread_mutex_unlock(&rtc_g.lock);
        return;
    }
    if (cb->correlationId > rtc_g.last_correlation)
        rtc_g.last_correlation = cb->correlationId;
    if (!outer) {
        if (rtc_g.counters)
            name_unnamed(d, id, cb);
        pthread_mutex_unlock(&rtc_g.lock);
        return;
    }
    tl_unnamed_ctx = NULL;
    say_device();
    if (rtc_g.counters && !is_graph(d, id)) {
        rtc_ctx *c = rtc_find_ctx(cb->context, cb->contextUid);
        const char *n = launch_name(d, id, cb);
        int64_t range = c ? rtc_rp_launch(c, rtc_demangle(n)) : -1;
        if (!c)
            rtc_say("error", "more than %d CUDA contexts", RTC_MAX_CTX);
        else if (range >= 0 && !n[0]) {
            tl_unnamed_ctx = c;
            tl_unnamed_range = (uint64_t)range;
        }
    } else if (rtc_g.counters) {
        static int said;
        if (!said++)
            rtc_say("warning", "graph launches under counters: their kernels are not named, so "
                               "the ranges from the first graph launch on may carry wrong names");
    }
    pthread_mutex_unlock(&rtc_g.lock);
}

/* Leaving a launch call: its row of launches.PID.csv (every runtime call, each with its own
 * correlation ID, so that the kernel record finds whichever it carries; a driver call only
 * outside a runtime launch); after the outermost, a range still unnamed is said once. */
static void launch_exit(CUpti_CallbackDomain d, CUpti_CallbackId id, const CUpti_CallbackData *cb,
                        int outer)
{
    uint64_t end = now_ns();
    pthread_mutex_lock(&rtc_g.lock);
    if (rtc_g.launches) {
        fprintf(rtc_g.launches, "%" PRIu32 ",", cb->correlationId);
        rtc_csv_field(rtc_g.launches, cb->functionName);
        fprintf(rtc_g.launches, ",%" PRIu64 ",%" PRIu64 ",%ld,", *cb->correlationData, end,
                (long)syscall(SYS_gettid));
        char *name = rtc_demangle(launch_name(d, id, cb));
        rtc_csv_field(rtc_g.launches, name);
        free(name);
        fputc('\n', rtc_g.launches);
    }
    if (outer && tl_unnamed_ctx) {
        static int said;
        if (rtc_g.active && !said++)
            rtc_say("warning",
                    "%s named no kernel, nor did a call inside it: its counter range "
                    "has an empty name",
                    cb->functionName ? cb->functionName : "a launch call");
        tl_unnamed_ctx = NULL;
    }
    pthread_mutex_unlock(&rtc_g.lock);
}

static void on_launch(CUpti_CallbackDomain d, CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    int runtime = d == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        int outer = tl_depth == 0;
        if (runtime)
            tl_depth++;
        launch_enter(d, id, cb, outer);
        return;
    }
    if (runtime) {
        if (tl_depth > 0)
            tl_depth--;
    } else if (tl_depth > 0) {
        return; /* the driver call inside a runtime launch: its row is the runtime call's */
    }
    launch_exit(d, id, cb, tl_depth == 0);
}

void CUPTIAPI rtc_on_callback(void *udata, CUpti_CallbackDomain d, CUpti_CallbackId id,
                              const void *data)
{
    (void)udata;
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API || d == CUPTI_CB_DOMAIN_DRIVER_API) {
        on_launch(d, id, data);
        return;
    }
    if (d == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        const CUpti_ResourceData *rd = data;
        pthread_mutex_lock(&rtc_g.lock);
        for (size_t i = 0; i < rtc_g.n_ctx; i++)
            if (rtc_g.ctx[i].ctx == rd->context)
                rtc_rp_finish(&rtc_g.ctx[i]);
        int trace = rtc_g.active && !rtc_g.counters;
        pthread_mutex_unlock(&rtc_g.lock);
        if (trace)
            cuptiActivityFlushAll(0);
    }
}

void CUPTIAPI rtc_buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(8, RTC_BUF_SIZE);
    *size = *buf ? RTC_BUF_SIZE : 0;
    *max_records = 0;
}

void CUPTIAPI rtc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                   size_t valid)
{
    (void)size;
    pthread_mutex_lock(&rtc_g.lock);
    if (rtc_g.kernels && valid > 0) {
        long n = rtc_write_buffer(rtc_g.kernels, buf, valid);
        if (n < 0)
            rtc_say("warning", "an activity buffer could not be read");
        else
            rtc_g.kernels_written += (unsigned long)n;
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
            rtc_g.dropped += dropped;
            rtc_say("records_dropped", "%lu", rtc_g.dropped);
        }
    }
    pthread_mutex_unlock(&rtc_g.lock);
    free(buf);
}

int rtc_enable_callbacks(void)
{
    static const CUpti_CallbackId rt[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
#if CUPTI_API_VERSION >= 130000
        /* CUDA 13's <<<>>>: nvcc's launch stub calls __cudaLaunchKernel(_ptsz) */
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
#endif
    };
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
        if ((r = cuptiEnableCallback(1, rtc_g.sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i])) !=
            CUPTI_SUCCESS)
            goto fail;
    for (size_t i = 0; i < sizeof drv / sizeof drv[0]; i++)
        if ((r = cuptiEnableCallback(1, rtc_g.sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i])) !=
            CUPTI_SUCCESS)
            goto fail;
    if ((r = cuptiEnableCallback(1, rtc_g.sub, CUPTI_CB_DOMAIN_RESOURCE,
                                 CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)) != CUPTI_SUCCESS)
        goto fail;
    return 0;
fail:
    rtc_say("error", "cuptiEnableCallback: %s", rtc_cupti_msg(r));
    return -1;
}
