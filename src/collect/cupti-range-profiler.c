/* Counters mode: one CUPTI Range Profiler per CUDA context (auto ranges, kernel replay), set up at
 * the context's first kernel launch; each full counter data image is decoded, kept (with
 * ROOFTIME_CUPTI_KEEP_IMAGES=1) and evaluated into ranges.PID.csv, one row per kernel launch. */
#define _GNU_SOURCE
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-collector.h"
#include "cupti-records.h"

rtc_ctx *rtc_find_ctx(CUcontext ctx, uint32_t id)
{
    for (size_t i = 0; i < rtc_g.n_ctx; i++)
        if (rtc_g.ctx[i].ctx == ctx && !rtc_g.ctx[i].done)
            return &rtc_g.ctx[i];
    if (rtc_g.n_ctx == RTC_MAX_CTX)
        return NULL;
    rtc_ctx *c = &rtc_g.ctx[rtc_g.n_ctx++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->id = id;
    return c;
}

static int rp_fail(rtc_ctx *c, const char *what, CUptiResult r)
{
    c->failed = 1;
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        rtc_say("error",
                "%s: %s: counters need profiling rights (run as root, or load the driver with "
                "NVreg_RestrictProfilingToAdminUsers=0)",
                what, rtc_cupti_msg(r));
    else
        rtc_say("error", "%s: %s", what, rtc_cupti_msg(r));
    return -1;
}

/* Empty the counter data image and start collecting into it. */
static int rp_arm(rtc_ctx *c)
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

/* The context's chip, its counter availability and the configuration image of the metrics. */
static int rp_configure(rtc_ctx *c)
{
    if (!rtc_g.profiler_ready) { /* not in InitializeInjection: the driver is not ready there */
        CUpti_Profiler_Initialize_Params pi = {.structSize =
                                                   CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUptiResult r = cuptiProfilerInitialize(&pi);
        if (r != CUPTI_SUCCESS)
            return rp_fail(c, "cuptiProfilerInitialize", r);
        rtc_g.profiler_ready = 1;
    }
    CUpti_Device_GetChipName_Params cp = {.structSize =
                                              CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    CUdevice dev;
    if (rtc_drv.ctx_get_device(&dev) != CUDA_SUCCESS) {
        c->failed = 1;
        rtc_say("error", "cuCtxGetDevice failed in a launch callback");
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
    if (!c->host || rtc_host_config(c->host, rtc_g.metric, rtc_g.n_metric, &c->config,
                                    &c->config_size, &passes, err, sizeof err) != 0) {
        free(avail);
        c->failed = 1;
        rtc_say("error", "%s", err);
        return -1;
    }
    free(avail);
    rtc_say("passes", "%zu", passes);
    char name[96];
    snprintf(name, sizeof name, "config.%ld.%u.bin", (long)rtc_g.pid, c->id);
    rtc_keep_image(c, name, "config", c->config, c->config_size, NULL, 0);
    return 0;
}

/* Configure, enable the profiler on the context, size the counter data image and arm it. */
static int rp_setup(rtc_ctx *c)
{
    if (rp_configure(c) != 0)
        return -1;
    CUpti_RangeProfiler_Enable_Params ep = {.structSize =
                                                CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = c->ctx;
    CUptiResult r;
    if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerEnable", r);
    c->obj = ep.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = c->obj;
    sp.pMetricNames = rtc_g.metric;
    sp.numMetrics = rtc_g.n_metric;
    sp.maxNumOfRanges = RTC_MAX_RANGES;
    sp.maxNumRangeTreeNodes = RTC_MAX_RANGES;
    if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS)
        return rp_fail(c, "cuptiRangeProfilerGetCounterDataSize", r);
    c->data_size = sp.counterDataSize;
    c->data = calloc(1, c->data_size);
    c->names = calloc(RTC_MAX_RANGES, sizeof *c->names);
    c->index = calloc(RTC_MAX_RANGES, sizeof *c->index);
    if (!c->data || !c->names || !c->index) {
        c->failed = 1;
        rtc_say("error", "out of memory for a counter data image of %zu bytes", c->data_size);
        return -1;
    }
    return rp_arm(c);
}

/* Evaluate the decoded image's nr ranges into ranges.PID.csv. */
static void rp_write_ranges(rtc_ctx *c, long nr)
{
    double v[RTC_MAX_METRICS];
    char rname[256], err[1024] = "";
    for (long i = 0; i < nr; i++) {
        if (rtc_host_evaluate(c->host, c->data, c->data_size, (size_t)i, rtc_g.metric,
                              rtc_g.n_metric, v, rname, sizeof rname, err, sizeof err) != 0) {
            rtc_say("warning", "range %ld: %s", i, err);
            continue;
        }
        /* A range beyond the launches named (none expected) gets the next number. */
        uint64_t idx = (size_t)i < c->n_names ? c->index[i] : rtc_g.ranges_named++;
        fprintf(rtc_g.ranges, "%" PRIu64 ",", idx);
        rtc_csv_field(rtc_g.ranges, (size_t)i < c->n_names ? c->names[i] : "");
        for (size_t m = 0; m < rtc_g.n_metric; m++)
            fprintf(rtc_g.ranges, ",%.17g", v[m]);
        fputc('\n', rtc_g.ranges);
    }
    fflush(rtc_g.ranges);
}

/* Stop, decode, keep the image, evaluate every range into ranges.PID.csv; re-arm if again. */
static void rp_flush(rtc_ctx *c, int again)
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
        rtc_say("ranges_dropped", "%zu", dp.numOfRangeDropped);
    char name[96], err[1024] = "";
    snprintf(name, sizeof name, "counterdata.%ld.%u.%u.bin", (long)rtc_g.pid, c->id, c->chunk++);
    rtc_keep_image(c, name, "counterdata", c->data, c->data_size, c->names, c->n_names);
    long nr = rtc_counter_data_ranges(c->data, c->data_size, err, sizeof err);
    if (nr < 0)
        rtc_say("warning", "%s", err);
    if (rtc_g.ranges)
        rp_write_ranges(c, nr);
    if ((size_t)nr != c->n_names)
        rtc_say("warning", "context %u: %ld ranges for %zu kernel launches", c->id, nr, c->n_names);
    for (size_t i = 0; i < c->n_names; i++)
        free(c->names[i]);
    c->n_names = 0;
    if (again)
        rp_arm(c);
}

int64_t rtc_rp_launch(rtc_ctx *c, char *name)
{
    if (!c->failed && (c->obj || rp_setup(c) == 0)) {
        if (c->n_names == RTC_MAX_RANGES)
            rp_flush(c, 1); /* the image is full: keep it, start a new one */
        if (!c->failed) {
            c->index[c->n_names] = rtc_g.ranges_named++;
            c->names[c->n_names++] = name;
            return (int64_t)c->index[c->n_names - 1];
        }
    }
    free(name);
    return -1;
}

int rtc_rp_rename(rtc_ctx *c, uint64_t range, char *name)
{
    for (size_t i = c->n_names; i-- > 0;)
        if (c->index[i] == range) {
            free(c->names[i]);
            c->names[i] = name;
            return 0;
        }
    free(name);
    return -1;
}

void rtc_rp_finish(rtc_ctx *c)
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
    free(c->index);
    c->done = 1;
}
