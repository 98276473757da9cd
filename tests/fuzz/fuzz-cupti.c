/* libFuzzer target: a CUPTI collector directory (import cupti). Byte 0 bit 0 picks --per-launch;
 * the rest is cut at each "\n=====\n" into collector.1.txt, kernels.1.csv, launches.1.csv (a trace
 * process), collector.2.txt and ranges.2.csv (a counter process), then marks.1.csv and marks.2.csv
 * (their marks); missing parts are absent files.
 */
#include <string.h>
#include <sys/stat.h>

#include "fuzz-common.h"
#include "rooftime/import/cupti.h"

static const char *const files[] = {"collector.1.txt", "kernels.1.csv", "launches.1.csv",
                                    "collector.2.txt", "ranges.2.csv",  "marks.1.csv",
                                    "marks.2.csv"};
#define N_FILES (sizeof files / sizeof *files)
static char dir[256];

static void clear(void)
{
    char path[512];
    for (size_t i = 0; i < N_FILES; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
}

static void cleanup(void)
{
    clear();
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/fuzz-cupti-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            abort();
        atexit(cleanup);
    }
    clear();
    static const char sep[] = "\n=====\n";
    const uint8_t *p = data + 1, *end = data + size;
    for (size_t i = 0; i < N_FILES && p <= end; i++) {
        const uint8_t *cut = memmem(p, (size_t)(end - p), sep, sizeof sep - 1);
        const uint8_t *stop = cut ? cut : end;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "wb");
        if (!f)
            abort();
        if (stop > p)
            fwrite(p, 1, (size_t)(stop - p), f);
        fclose(f);
        if (!cut)
            break;
        p = cut + sizeof sep - 1;
    }
    rt_cupti_options o = {.per_launch = data[0] & 1};
    rt_profile *prof = NULL;
    rt_warnings w = {0};
    rt_error err;
    if (rt_import_cupti(dir, &o, &prof, &w, &err) == 0)
        fuzz_roundtrip(prof);
    rt_profile_free(prof);
    rt_warnings_release(&w);
    return 0;
}
