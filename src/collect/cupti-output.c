/* The collector's output files in its directory: collector.PID.txt's key=value lines, the CSV
 * files opened with their headers, and the raw images kept for `import cupti --reevaluate`. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-collector.h"
#include "cupti-records.h"

void rtc_say(const char *key, const char *fmt, ...)
{
    if (!rtc_g.collector)
        return;
    char v[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    for (char *p = v; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(rtc_g.collector, "%s=%s\n", key, v);
    fflush(rtc_g.collector);
}

const char *rtc_cupti_msg(CUptiResult r)
{
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    return s ? s : "unknown CUPTI error";
}

FILE *rtc_open_out(const char *what, const char *header)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s.%ld.csv", rtc_g.dir, what, (long)rtc_g.pid) < 0)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        rtc_say("error", "cannot write %s: %s", path, strerror(errno));
    else if (header)
        fprintf(f, "%s\n", header);
    free(path);
    return f;
}

static int write_blob(const char *name, const uint8_t *data, size_t n)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", rtc_g.dir, name) < 0)
        return -1;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        rtc_say("warning", "cannot write %s: %s", path, strerror(errno));
    free(path);
    return ok ? 0 : -1;
}

/* The image's row in images.PID.csv is written last: a listed image is whole. */
void rtc_keep_image(rtc_ctx *c, const char *name, const char *kind, const uint8_t *data, size_t n,
                    char *const *names, size_t n_names)
{
    if (!rtc_g.images || write_blob(name, data, n) != 0)
        return;
    if (names) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s.names", rtc_g.dir, name) < 0)
            return;
        int bad = rtc_write_names(path, names, n_names) != 0;
        if (bad)
            rtc_say("warning", "cannot write %s: %s", path, strerror(errno));
        free(path);
        if (bad)
            return;
    }
    rtc_write_image_row(rtc_g.images, name, kind, c->id, c->chip, n, rtc_fnv1a64(data, n));
}
