/* Raw counter images without a GPU, for tests/cli-cupti-reevaluate.sh. Built unsanitized in
 * src/collect (libnvperf_host is loaded with RTLD_DEEPBIND, which the sanitizers refuse).
 *
 *   cupti-image-check forge CHIP METRICS DIR PID CTX CHUNK [NAME...]
 *     writes what the collector keeps of context CTX of process PID: config.PID.CTX.bin (chunk 0),
 *     counterdata.PID.CTX.CHUNK.bin with one range per NAME, its .names file and their rows in
 *     images.PID.csv. The image is built on the host alone: the configuration's raw counters
 *     (NVPW_Config_GetRawCounters) into a counter data prefix (NVPW_CounterDataBuilder), an image
 *     initialized from it (cuptiProfilerCounterDataImageInitialize) and ranges added by
 *     NVPW_CounterDataCombiner_CreateRange ("range0", "range1" ...). No counter was collected, so
 *     every metric evaluates to nan.
 *   cupti-image-check rehash DIR PID
 *     rewrites the sizes and hashes of images.PID.csv from the files as they are now: an image
 *     changed behind the manifest's back (what CUPTI itself would be handed unchecked).
 *   cupti-image-check reevaluate LIB DIR OUT
 *     loads LIB (librooftime-cupti.so) as `import cupti --reevaluate` does and calls its entry
 *     point; prints "N ranges" or the error (exit 1), warnings on stderr.
 */
#define _GNU_SOURCE
#include <cupti_profiler_target.h>
#include <dlfcn.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti-host.h"
#include "cupti-records.h"
#include "rooftime/import/cupti.h"

static int write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "cannot write %s\n", path);
    return ok ? 0 : -1;
}

static void manifest_row(const char *dir, long pid, const char *file, const char *kind,
                         unsigned ctx, const char *chip, const uint8_t *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/images.%ld.csv", dir, pid);
    int fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    if (fresh)
        fprintf(f, "%s\n", RT_CUPTI_IMAGE_HEADER);
    rtc_write_image_row(f, file, kind, ctx, chip, n, rtc_fnv1a64(data, n));
    fclose(f);
}

#define NV(call)                                                                                   \
    do {                                                                                           \
        NVPA_Status s_ = (call);                                                                   \
        if (s_ != NVPA_STATUS_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed: NVPA status %d\n", #call, (int)s_);                        \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define CU(call)                                                                                   \
    do {                                                                                           \
        CUptiResult r_ = (call);                                                                   \
        if (r_ != CUPTI_SUCCESS) {                                                                 \
            fprintf(stderr, "%s failed: CUPTI error %d\n", #call, (int)r_);                        \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int forge(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr,
                "usage: cupti-image-check forge CHIP METRICS DIR PID CTX CHUNK [NAME...]\n");
        return 2;
    }
    const char *chip = argv[2], *dir = argv[4];
    long pid = atol(argv[5]);
    unsigned ctx = (unsigned)atol(argv[6]), chunk = (unsigned)atol(argv[7]);
    char **names = argv + 8;
    size_t n_names = (size_t)(argc - 8);
    char *list = strdup(argv[3]), err[1024] = "", path[4096], file[256];
    const char *metric[64];
    size_t n_metric = 0;
    for (char *s = list, *tok; (tok = strsep(&s, ",")) != NULL;)
        if (*tok && n_metric < 64)
            metric[n_metric++] = tok;
    int rc = 1;
    uint8_t *config = NULL, *prefix = NULL, *image = NULL;
    const char **raw = NULL;
    size_t config_size = 0, passes = 0, n_raw = 0;
    NVPA_CounterDataBuilder *builder = NULL;
    NVPA_CounterDataCombiner *combiner = NULL;
    rtc_host *h = rtc_host_new(chip, NULL, err, sizeof err);
    if (!h || rtc_host_config(h, metric, n_metric, &config, &config_size, &passes, err,
                              sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        goto out;
    }
    if (chunk == 0) {
        snprintf(file, sizeof file, "config.%ld.%u.bin", pid, ctx);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (write_file(path, config, config_size) != 0)
            goto out;
        manifest_row(dir, pid, file, "config", ctx, chip, config, config_size);
    }
    NVPW_InitializeHost_Params ih = {.structSize = NVPW_InitializeHost_Params_STRUCT_SIZE};
    NV(NVPW_InitializeHost(&ih));
    /* The configuration's raw counters, pass by pass. */
    for (size_t pass = 0; pass < 64; pass++) {
        NVPW_Config_GetRawCounters_Params gr = {.structSize =
                                                    NVPW_Config_GetRawCounters_Params_STRUCT_SIZE};
        gr.pConfig = config;
        gr.configSize = config_size;
        gr.passIndex = pass;
        if (NVPW_Config_GetRawCounters(&gr) != NVPA_STATUS_SUCCESS)
            break;
        const char **grown = realloc(raw, (n_raw + gr.numRawCounters + 1) * sizeof *raw);
        if (!grown)
            goto out;
        raw = grown;
        gr.ppRawCounterNames = raw + n_raw;
        NV(NVPW_Config_GetRawCounters(&gr));
        n_raw += gr.numRawCounters;
    }
    NVPW_CUDA_CounterDataBuilder_Create_Params cb = {
        .structSize = NVPW_CUDA_CounterDataBuilder_Create_Params_STRUCT_SIZE};
    cb.pChipName = chip;
    NV(NVPW_CUDA_CounterDataBuilder_Create(&cb));
    builder = cb.pCounterDataBuilder;
    NVPW_RawCounterRequest *req = calloc(n_raw + 1, sizeof *req);
    for (size_t i = 0; i < n_raw; i++) {
        req[i].pRawCounterName = raw[i];
        req[i].keepInstances = 1;
    }
    NVPW_CounterDataBuilder_AddRawCounters_Params ar = {
        .structSize = NVPW_CounterDataBuilder_AddRawCounters_Params_STRUCT_SIZE};
    ar.pCounterDataBuilder = builder;
    ar.rawCounterRequestStructSize = NVPW_RAW_COUNTER_REQUEST_STRUCT_SIZE;
    ar.numRawCounterRequests = n_raw;
    ar.pRawCounterRequests = req;
    NVPA_Status added = NVPW_CounterDataBuilder_AddRawCounters(&ar);
    free(req);
    NV(added);
    NVPW_CounterDataBuilder_GetCounterDataPrefix_Params gp = {
        .structSize = NVPW_CounterDataBuilder_GetCounterDataPrefix_Params_STRUCT_SIZE};
    gp.pCounterDataBuilder = builder;
    NV(NVPW_CounterDataBuilder_GetCounterDataPrefix(&gp));
    prefix = aligned_alloc(8, (gp.bytesCopied + 7) & ~(size_t)7);
    gp.bytesAllocated = gp.bytesCopied;
    gp.pBuffer = prefix;
    NV(NVPW_CounterDataBuilder_GetCounterDataPrefix(&gp));
    CUpti_Profiler_CounterDataImageOptions o = {
        .structSize = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE};
    o.pCounterDataPrefix = prefix;
    o.counterDataPrefixSize = gp.bytesCopied;
    o.maxNumRanges = n_names ? (uint32_t)n_names : 1;
    o.maxNumRangeTreeNodes = o.maxNumRanges;
    o.maxRangeNameLength = 64;
    CUpti_Profiler_CounterDataImage_CalculateSize_Params cs = {
        .structSize = CUpti_Profiler_CounterDataImage_CalculateSize_Params_STRUCT_SIZE};
    cs.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
    cs.pOptions = &o;
    CU(cuptiProfilerCounterDataImageCalculateSize(&cs));
    image = calloc(1, cs.counterDataImageSize);
    CUpti_Profiler_CounterDataImage_Initialize_Params ci = {
        .structSize = CUpti_Profiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
    ci.pOptions = &o;
    ci.counterDataImageSize = cs.counterDataImageSize;
    ci.pCounterDataImage = image;
    CU(cuptiProfilerCounterDataImageInitialize(&ci));
    NVPW_CounterDataCombiner_Create_Params cc = {
        .structSize = NVPW_CounterDataCombiner_Create_Params_STRUCT_SIZE};
    cc.pCounterDataDst = image;
    NV(NVPW_CounterDataCombiner_Create(&cc));
    combiner = cc.pCounterDataCombiner;
    for (size_t i = 0; i < n_names; i++) {
        char desc[32];
        const char *d = desc;
        snprintf(desc, sizeof desc, "range%zu", i);
        NVPW_CounterDataCombiner_CreateRange_Params cr = {
            .structSize = NVPW_CounterDataCombiner_CreateRange_Params_STRUCT_SIZE};
        cr.pCounterDataCombiner = combiner;
        cr.numDescriptions = 1;
        cr.ppDescriptions = &d;
        NV(NVPW_CounterDataCombiner_CreateRange(&cr));
    }
    snprintf(file, sizeof file, "counterdata.%ld.%u.%u.bin", pid, ctx, chunk);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (write_file(path, image, cs.counterDataImageSize) != 0)
        goto out;
    char npath[4200];
    snprintf(npath, sizeof npath, "%s.names", path);
    if (rtc_write_names(npath, names, n_names) != 0)
        goto out;
    manifest_row(dir, pid, file, "counterdata", ctx, chip, image, cs.counterDataImageSize);
    printf("%s: %zu ranges, %zu bytes; config %zu bytes, %zu passes, %zu raw counters\n", file,
           n_names, cs.counterDataImageSize, config_size, passes, n_raw);
    rc = 0;
out:
    if (combiner) {
        NVPW_CounterDataCombiner_Destroy_Params cd = {
            .structSize = NVPW_CounterDataCombiner_Destroy_Params_STRUCT_SIZE};
        cd.pCounterDataCombiner = combiner;
        NVPW_CounterDataCombiner_Destroy(&cd);
    }
    if (builder) {
        NVPW_CounterDataBuilder_Destroy_Params bd = {
            .structSize = NVPW_CounterDataBuilder_Destroy_Params_STRUCT_SIZE};
        bd.pCounterDataBuilder = builder;
        NVPW_CounterDataBuilder_Destroy(&bd);
    }
    rtc_host_free(h);
    free(config);
    free(prefix);
    free(image);
    free(raw);
    free(list);
    return rc;
}

static int rehash(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: cupti-image-check rehash DIR PID\n");
        return 2;
    }
    char path[4096], tmp[4200], line[1024];
    snprintf(path, sizeof path, "%s/images.%s.csv", argv[2], argv[3]);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    if (!in || !out) {
        fprintf(stderr, "cannot rewrite %s\n", path);
        return 1;
    }
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        char file[256], kind[32], chip[64];
        unsigned ctx;
        if (first || sscanf(line, "%255[^,],%31[^,],%u,%63[^,],", file, kind, &ctx, chip) != 4) {
            fputs(line, out);
            first = 0;
            continue;
        }
        char fpath[4400];
        snprintf(fpath, sizeof fpath, "%s/%s", argv[2], file);
        FILE *f = fopen(fpath, "rb");
        uint8_t *data = NULL;
        size_t n = 0, cap = 0;
        if (f) {
            for (;;) {
                if (n == cap && !(data = realloc(data, cap = cap ? 2 * cap : 65536)))
                    return 1;
                size_t got = fread(data + n, 1, cap - n, f);
                if (got == 0)
                    break;
                n += got;
            }
            fclose(f);
        }
        rtc_write_image_row(out, file, kind, ctx, chip, n, rtc_fnv1a64(data, n));
        free(data);
    }
    fclose(in);
    fclose(out);
    return rename(tmp, path) == 0 ? 0 : 1;
}

static void print_warning(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "warning: %s\n", msg);
}

static int reevaluate(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: cupti-image-check reevaluate LIB DIR OUT\n");
        return 2;
    }
    void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "error: %s\n", dlerror());
        return 1;
    }
    rt_cupti_reevaluate_fn fn = (rt_cupti_reevaluate_fn)dlsym(lib, RT_CUPTI_REEVALUATE_SYMBOL);
    if (!fn) {
        fprintf(stderr, "error: no %s in %s\n", RT_CUPTI_REEVALUATE_SYMBOL, argv[2]);
        return 1;
    }
    char err[4096] = "";
    long n = fn(argv[3], argv[4], print_warning, NULL, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    printf("%ld ranges\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "forge") == 0)
        return forge(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "rehash") == 0)
        return rehash(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "reevaluate") == 0)
        return reevaluate(argc, argv);
    fprintf(stderr, "usage: cupti-image-check forge|reevaluate ...\n");
    return 2;
}
