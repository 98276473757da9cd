// The host side of the CUPTI Range Profiler behind a C interface (cupti-host.h).
#include "cupti-host.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rtc_host {
    CUpti_Profiler_Host_Object *obj;
};

static void say(char *err, size_t errn, const char *what, CUptiResult r)
{
    const char *s = nullptr;
    cuptiGetResultString(r, &s);
    if (err && errn)
        snprintf(err, errn, "%s: %s (CUPTI error %d)", what, s ? s : "unknown", (int)r);
}

extern "C" rtc_host *rtc_host_new(const char *chip, const uint8_t *avail, char *err, size_t errn)
{
    CUpti_Profiler_Host_Initialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r != CUPTI_SUCCESS) {
        char what[128];
        snprintf(what, sizeof what, "cuptiProfilerHostInitialize(chip %s)", chip);
        say(err, errn, what, r);
        return nullptr;
    }
    rtc_host *h = static_cast<rtc_host *>(calloc(1, sizeof *h));
    if (!h) {
        snprintf(err, errn, "out of memory");
        CUpti_Profiler_Host_Deinitialize_Params d{};
        d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
        d.pHostObject = p.pHostObject;
        cuptiProfilerHostDeinitialize(&d);
        return nullptr;
    }
    h->obj = p.pHostObject;
    return h;
}

extern "C" void rtc_host_free(rtc_host *h)
{
    if (!h)
        return;
    CUpti_Profiler_Host_Deinitialize_Params d{};
    d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    d.pHostObject = h->obj;
    cuptiProfilerHostDeinitialize(&d);
    free(h);
}

extern "C" int rtc_host_config(rtc_host *h, const char *const *metrics, size_t n, uint8_t **config,
                               size_t *config_size, size_t *passes, char *err, size_t errn)
{
    *config = nullptr;
    CUpti_Profiler_Host_ConfigAddMetrics_Params a{};
    a.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    a.pHostObject = h->obj;
    a.ppMetricNames = const_cast<const char **>(metrics);
    a.numMetrics = n;
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&a);
    if (r != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostConfigAddMetrics", r);
        /* Name the metric at fault: the first one the chip does not know on its own. */
        for (size_t i = 0; i < n; i++) {
            CUpti_Profiler_Host_GetMetricProperties_Params mp{};
            mp.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
            mp.pHostObject = h->obj;
            mp.pMetricName = metrics[i];
            if (cuptiProfilerHostGetMetricProperties(&mp) != CUPTI_SUCCESS) {
                size_t l = strlen(err);
                snprintf(err + l, errn - l, "; metric '%s' is unknown on this chip", metrics[i]);
                break;
            }
        }
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params s{};
    s.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    s.pHostObject = h->obj;
    if ((r = cuptiProfilerHostGetConfigImageSize(&s)) != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostGetConfigImageSize", r);
        return -1;
    }
    uint8_t *img = static_cast<uint8_t *>(malloc(s.configImageSize ? s.configImageSize : 1));
    if (!img) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImage_Params g{};
    g.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    g.pHostObject = h->obj;
    g.configImageSize = s.configImageSize;
    g.pConfigImage = img;
    if ((r = cuptiProfilerHostGetConfigImage(&g)) != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostGetConfigImage", r);
        free(img);
        return -1;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np{};
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = s.configImageSize;
    np.pConfigImage = img;
    if ((r = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostGetNumOfPasses", r);
        free(img);
        return -1;
    }
    *config = img;
    *config_size = s.configImageSize;
    *passes = np.numOfPasses;
    return 0;
}

extern "C" int rtc_config_passes(const uint8_t *config, size_t size, size_t *passes, char *err,
                                 size_t errn)
{
    CUpti_Profiler_Host_GetNumOfPasses_Params np{};
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = size;
    np.pConfigImage = const_cast<uint8_t *>(config);
    CUptiResult r = cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostGetNumOfPasses", r);
        return -1;
    }
    *passes = np.numOfPasses;
    return 0;
}

extern "C" long rtc_counter_data_ranges(const uint8_t *image, size_t size, char *err, size_t errn)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params p{};
    p.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    p.pCounterDataImage = image;
    p.counterDataImageSize = size;
    CUptiResult r = cuptiRangeProfilerGetCounterDataInfo(&p);
    if (r != CUPTI_SUCCESS) {
        say(err, errn, "cuptiRangeProfilerGetCounterDataInfo", r);
        return -1;
    }
    return (long)p.numTotalRanges;
}

extern "C" int rtc_host_evaluate(rtc_host *h, const uint8_t *image, size_t size, size_t range,
                                 const char *const *metrics, size_t n, double *values, char *name,
                                 size_t namen, char *err, size_t errn)
{
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
    ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
    ri.pCounterDataImage = image;
    ri.counterDataImageSize = size;
    ri.rangeIndex = range;
    ri.rangeDelimiter = "/";
    CUptiResult r = cuptiRangeProfilerCounterDataGetRangeInfo(&ri);
    if (r != CUPTI_SUCCESS) {
        say(err, errn, "cuptiRangeProfilerCounterDataGetRangeInfo", r);
        return -1;
    }
    snprintf(name, namen, "%s", ri.rangeName ? ri.rangeName : "");
    free(const_cast<char *>(ri.rangeName)); /* the sample frees it: CUPTI allocates the name */
    CUpti_Profiler_Host_EvaluateToGpuValues_Params e{};
    e.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    e.pHostObject = h->obj;
    e.pCounterDataImage = image;
    e.counterDataImageSize = size;
    e.rangeIndex = range;
    e.ppMetricNames = const_cast<const char **>(metrics);
    e.numMetrics = n;
    e.pMetricValues = values;
    if ((r = cuptiProfilerHostEvaluateToGpuValues(&e)) != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostEvaluateToGpuValues", r);
        return -1;
    }
    return 0;
}

extern "C" long rtc_host_base_counters(rtc_host *h, const char *const **names, char *err,
                                       size_t errn)
{
    CUpti_Profiler_Host_GetBaseMetrics_Params b{};
    b.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    b.pHostObject = h->obj;
    b.metricType = CUPTI_METRIC_TYPE_COUNTER;
    CUptiResult r = cuptiProfilerHostGetBaseMetrics(&b);
    if (r != CUPTI_SUCCESS) {
        say(err, errn, "cuptiProfilerHostGetBaseMetrics", r);
        *names = nullptr;
        return -1;
    }
    *names = b.ppMetricNames;
    return (long)b.numMetrics;
}

extern "C" size_t rtc_host_chips(const char *const **chips)
{
    CUpti_Profiler_Host_GetSupportedChips_Params p{};
    p.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
    if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS) {
        *chips = nullptr;
        return 0;
    }
    *chips = p.ppChipNames;
    return p.numChips;
}
