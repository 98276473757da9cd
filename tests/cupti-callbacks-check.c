/* The collector's launch callbacks (src/collect/cupti-callbacks.c) without a GPU or a driver:
 * linked with stand-ins for CUPTI's calls and for the rest of the collector (the Range Profiler
 * records the names it is given, the driver names a CUfunction), and driven with the callback
 * sequences CUDA makes (test cupti-callbacks, built only with the collector):
 *
 *   cupti-callbacks-check RUNTIME_CBID_H DRIVER_CBID_H
 *
 * - every launch entry point CUPTI's headers list (runtime: cudaLaunchKernel*, __cudaLaunchKernel*,
 *   cudaLaunchCooperativeKernel*, cudaGraphLaunch*; driver: cuLaunchKernel*,
 *   cuLaunchCooperativeKernel*, cuGraphLaunch*; each with its _ptsz twin; the multi-device launch
 *   CUDA 13 removed aside) has its callback enabled, CUDA 13's __cudaLaunchKernel and
 *   __cudaLaunchKernel_ptsz among them;
 * - a launch is counted once, at its outermost call, however the calls nest (CUDA 13's <<<>>>:
 *   __cudaLaunchKernel then cuLaunchKernel; __cudaLaunchKernel around cudaLaunchKernel; a driver
 *   launch alone, as Triton makes): one counter range each, named for its kernel, in launch
 *   order; one launches row per runtime call;
 * - an outermost call without a symbol name takes the name of the first call inside it that knows
 *   it (the driver's function name), and one that nothing names says so once.
 * Exit 0 when every check passes. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_target.h>

#include "cupti-collector.h"
#include "cupti-records.h"
#include "plain-check.h"

/* ---- stand-ins for the rest of the collector ---- */
rtc_state rtc_g = {.lock = PTHREAD_MUTEX_INITIALIZER};
rtc_driver rtc_drv;
static rtc_ctx the_ctx;
static char said[4096];
static char *ranges[64];
static size_t n_ranges;

void rtc_say(const char *key, const char *fmt, ...)
{
    size_t l = strlen(said);
    va_list ap;
    va_start(ap, fmt);
    snprintf(said + l, sizeof said - l, "%s=", key);
    l = strlen(said);
    vsnprintf(said + l, sizeof said - l, fmt, ap);
    va_end(ap);
    l = strlen(said);
    snprintf(said + l, sizeof said - l, "\n");
}
const char *rtc_cupti_msg(CUptiResult r)
{
    (void)r;
    return "stand-in";
}
rtc_ctx *rtc_find_ctx(CUcontext ctx, uint32_t id)
{
    (void)ctx;
    (void)id;
    return &the_ctx;
}
int64_t rtc_rp_launch(rtc_ctx *c, char *name)
{
    (void)c;
    if (n_ranges == sizeof ranges / sizeof ranges[0]) {
        free(name);
        return -1;
    }
    ranges[n_ranges] = name;
    return (int64_t)n_ranges++;
}
int rtc_rp_rename(rtc_ctx *c, uint64_t range, char *name)
{
    (void)c;
    if (range >= n_ranges) {
        free(name);
        return -1;
    }
    free(ranges[range]);
    ranges[range] = name;
    return 0;
}
void rtc_rp_finish(rtc_ctx *c)
{
    (void)c;
}

/* the driver: a CUfunction is its mangled name */
static CUresult func_get_name(const char **name, CUfunction f)
{
    *name = (const char *)f;
    return CUDA_SUCCESS;
}
static CUresult ctx_get_device(CUdevice *dev)
{
    (void)dev;
    return CUDA_ERROR_NO_DEVICE;
}

/* ---- stand-ins for CUPTI ---- */
static struct {
    CUpti_CallbackDomain d;
    CUpti_CallbackId id;
} enabled[64];
static size_t n_enabled;

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain d,
                                CUpti_CallbackId id)
{
    (void)sub;
    if (enable && n_enabled < sizeof enabled / sizeof enabled[0])
        enabled[n_enabled++].d = d, enabled[n_enabled - 1].id = id;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetTimestamp(uint64_t *t)
{
    static uint64_t now = 1000;
    *t = now += 10;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
    (void)p;
    return CUPTI_ERROR_NOT_SUPPORTED;
}
CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c;
    (void)s;
    *n = 0;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    (void)buf;
    (void)valid;
    (void)rec;
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
}

static int is_enabled(CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    for (size_t i = 0; i < n_enabled; i++)
        if (enabled[i].d == d && enabled[i].id == id)
            return 1;
    return 0;
}

/* Every "PREFIXNAME = N," of a CUPTI cbid header whose NAME begins with one of stems (and holds
 * no "MultiDevice") is enabled in domain d; returns how many it found. */
static int header_ids(const char *path, const char *prefix, const char *const *stems,
                      CUpti_CallbackDomain d)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot read %s\n", path);
        fails++;
        return 0;
    }
    char line[512], name[256];
    unsigned id;
    int found = 0;
    size_t pl = strlen(prefix);
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, " %255[A-Za-z0-9_] = %u", name, &id) != 2 ||
            strncmp(name, prefix, pl) != 0)
            continue;
        const char *n = name + pl;
        int launch = 0;
        for (const char *const *s = stems; *s; s++)
            launch |= strncmp(n, *s, strlen(*s)) == 0;
        if (!launch || strstr(n, "MultiDevice"))
            continue;
        found++;
        char what[400];
        snprintf(what, sizeof what, "%s (%u) is enabled", n, id);
        CHECK(what, is_enabled(d, (CUpti_CallbackId)id));
    }
    fclose(f);
    return found;
}

/* ---- driving the callbacks ---- */
typedef struct call {
    CUpti_CallbackDomain d;
    CUpti_CallbackId id;
    const char *api;    /* functionName */
    const char *symbol; /* symbolName */
    uint32_t corr;
    CUpti_CallbackData cb;
    cuLaunchKernel_params params;
    uint64_t slot;
} call;

static void enter(call *c)
{
    memset(&c->cb, 0, sizeof c->cb);
    c->cb.callbackSite = CUPTI_API_ENTER;
    c->cb.functionName = c->api;
    c->cb.symbolName = c->symbol;
    c->cb.correlationId = c->corr;
    c->cb.correlationData = &c->slot;
    c->cb.functionParams = &c->params;
    rtc_on_callback(NULL, c->d, c->id, &c->cb);
}

static void leave(call *c)
{
    c->cb.callbackSite = CUPTI_API_EXIT;
    rtc_on_callback(NULL, c->d, c->id, &c->cb);
}

static call rt(CUpti_CallbackId id, const char *api, const char *symbol, uint32_t corr)
{
    return (call){
        .d = CUPTI_CB_DOMAIN_RUNTIME_API, .id = id, .api = api, .symbol = symbol, .corr = corr};
}

static call drv(const char *mangled, uint32_t corr)
{
    call c = {.d = CUPTI_CB_DOMAIN_DRIVER_API,
              .id = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
              .api = "cuLaunchKernel",
              .symbol = "",
              .corr = corr};
    c.params.f = (CUfunction)(void *)mangled;
    return c;
}

/* a runtime call around a driver call */
static void rt_launch(call r, const char *mangled, uint32_t drv_corr)
{
    call k = drv(mangled, drv_corr);
    enter(&r);
    enter(&k);
    leave(&k);
    leave(&r);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cupti-callbacks-check RUNTIME_CBID_H DRIVER_CBID_H\n");
        return 2;
    }
    rtc_drv.func_get_name = func_get_name;
    rtc_drv.ctx_get_device = ctx_get_device;

    CHECK("rtc_enable_callbacks: 0", rtc_enable_callbacks() == 0);
#if CUPTI_API_VERSION >= 130000
    CHECK("CUDA 13's __cudaLaunchKernel is enabled",
          is_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
                     CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000));
    CHECK("  ... and __cudaLaunchKernel_ptsz",
          is_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
                     CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000));
#endif
    static const char *const rt_stems[] = {"cudaLaunchKernel", "__cudaLaunchKernel",
                                           "cudaLaunchCooperativeKernel", "cudaGraphLaunch", NULL};
    static const char *const drv_stems[] = {"cuLaunchKernel", "cuLaunchCooperativeKernel",
                                            "cuGraphLaunch", NULL};
    int nr =
        header_ids(argv[1], "CUPTI_RUNTIME_TRACE_CBID_", rt_stems, CUPTI_CB_DOMAIN_RUNTIME_API);
    int nd = header_ids(argv[2], "CUPTI_DRIVER_TRACE_CBID_", drv_stems, CUPTI_CB_DOMAIN_DRIVER_API);
    printf("     %d runtime and %d driver launch entry points in the headers\n", nr, nd);
    CHECK("the headers list the runtime launches", nr >= 8);
    CHECK("the headers list the driver launches", nd >= 8);

    /* counters mode, collecting into a launches file in memory */
    char *rows = NULL;
    size_t rows_len = 0;
    rtc_g.launches = open_memstream(&rows, &rows_len);
    rtc_g.active = 1;
    rtc_g.counters = 1;

    /* 1. CUDA 13's <<<>>>: __cudaLaunchKernel, the driver's launch inside it */
    rt_launch(rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel",
                 "_Z4axpyfPf", 1),
              "_Z4axpyfPf", 2);
    /* 2. __cudaLaunchKernel around cudaLaunchKernel around the driver's */
    {
        call outer = rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
                        "__cudaLaunchKernel_ptsz", "_Z3fooi", 3);
        call inner =
            rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", "_Z3fooi", 4);
        enter(&outer);
        rt_launch(inner, "_Z3fooi", 5);
        leave(&outer);
    }
    /* 3. no symbol name on the outermost call: the driver's call inside names it */
    rt_launch(rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel", NULL, 6),
              "_Z3barv", 7);
    /* 4. a driver launch alone (Triton's) */
    {
        call k = drv("triton_kernel", 8);
        enter(&k);
        leave(&k);
    }
    /* 5. the launch of CUDA 12 and before */
    rt_launch(rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", "_Z3bazd", 9),
              "_Z3bazd", 10);
    /* 6. nothing names it: an empty name, said once */
    {
        call r =
            rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel", "", 11);
        enter(&r);
        leave(&r);
    }
    /* 7. after all that, a driver launch alone is still counted */
    {
        call k = drv("_Z4lastv", 12);
        enter(&k);
        leave(&k);
    }
    fclose(rtc_g.launches);
    rtc_g.launches = NULL;

    static const char *const want[] = {"axpy(float, float*)", "foo(int)", "bar()", "triton_kernel",
                                       "baz(double)",         "",         "last()"};
    size_t n_want = sizeof want / sizeof want[0];
    char what[256];
    snprintf(what, sizeof what, "one counter range per launch: %zu ranges, expected %zu", n_ranges,
             n_want);
    CHECK(what, n_ranges == n_want);
    for (size_t i = 0; i < n_want && i < n_ranges; i++) {
        snprintf(what, sizeof what, "range %zu named '%s' (got '%s')", i, want[i], ranges[i]);
        CHECK(what, strcmp(ranges[i], want[i]) == 0);
    }
    CHECK("the correlation bound of the marks: 12", rtc_g.last_correlation == 12);

    /* launches rows: the correlation IDs, in the order the calls ended */
    char got[256] = "";
    for (char *line = rows, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%u", got[0] ? " " : "",
                 (unsigned)strtoul(line, NULL, 10));
    }
    snprintf(what, sizeof what, "launches rows: every runtime call, a driver call alone (%s)", got);
    CHECK(what, strcmp(got, "1 4 3 6 8 9 11 12") == 0);
    CHECK("a row names its API and kernel",
          strstr(rows, "\n3,__cudaLaunchKernel_ptsz,") && strstr(rows, ",foo(int)\n"));
    static const char unnamed[] = "warning=__cudaLaunchKernel named no kernel";
    const char *w = strstr(said, unnamed);
    CHECK("the unnamed range is said, once", w && !strstr(w + sizeof unnamed, "named no kernel"));
    free(rows);
    for (size_t i = 0; i < n_ranges; i++)
        free(ranges[i]);
    printf("%s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
}
