/* CUPTI activity records into the collector's CSV rows (kernels.PID.csv); the raw images'
 * manifest rows (images.PID.csv) and range names. */
#include "cupti-records.h"

#include <cupti.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (C linkage; the collector links libstdc++ for cupti-host.cpp). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

char *rtc_demangle(const char *name)
{
    int status = -1;
    char *d =
        name && name[0] == '_' && name[1] == 'Z' ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
    if (d && status == 0)
        return d;
    free(d);
    return strdup(name ? name : "");
}

void rtc_csv_field(FILE *f, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int rtc_write_kernel(FILE *f, const CUpti_Activity *rec)
{
    if (rec->kind != CUPTI_ACTIVITY_KIND_KERNEL &&
        rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        return 0;
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
    fprintf(f, "%" PRIu32 ",", k->correlationId);
    char *name = rtc_demangle(k->name);
    rtc_csv_field(f, name);
    free(name);
    fprintf(f,
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRId32
            ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%u,%" PRId32 ",%" PRId32
            "\n",
            k->start, k->end, k->deviceId, k->contextId, k->streamId, k->graphId, k->gridX,
            k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, (unsigned)k->registersPerThread,
            k->staticSharedMemory, k->dynamicSharedMemory);
    return 1;
}

long rtc_write_buffer(FILE *f, uint8_t *buf, size_t valid)
{
    CUpti_Activity *rec = NULL;
    long n = 0;
    for (;;) {
        CUptiResult r = cuptiActivityGetNextRecord(buf, valid, &rec);
        if (r == CUPTI_ERROR_MAX_LIMIT_REACHED)
            return n;
        if (r != CUPTI_SUCCESS)
            return -1;
        n += rtc_write_kernel(f, rec);
    }
}

uint64_t rtc_fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void rtc_write_image_row(FILE *f, const char *file, const char *kind, unsigned context,
                         const char *chip, size_t bytes, uint64_t hash)
{
    fprintf(f, "%s,%s,%u,%s,%zu,%016" PRIx64 "\n", file, kind, context, chip, bytes, hash);
    fflush(f);
}

int rtc_write_names(const char *path, char *const *names, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++) {
        for (const char *s = names[i] ? names[i] : ""; *s; s++)
            fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}
