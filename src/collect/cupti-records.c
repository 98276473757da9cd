/* CUPTI activity records into the collector's CSV rows (kernels.PID.csv). */
#include "cupti-records.h"

#include <cupti.h>
#include <inttypes.h>
#include <string.h>

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
    rtc_csv_field(f, k->name);
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
