/* The raw counter images of one process for `import cupti --reevaluate`: images.PID.csv read,
 * every image checked against its row (name, size, FNV-1a hash) before CUPTI reads it, the
 * configuration's chip and metrics set up, every range of the counter data evaluated into a row of
 * ranges.PID.csv, named by the image's .names file. Runs in the child (cupti-reevaluate.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cupti-host.h"
#include "cupti-records.h"
#include "cupti-images.h"
#include "rooftime/import/cupti.h"

/* path whole into *buf (malloc'ed); at most max bytes, and want (the bytes manifest recorded)
 * unless want < 0. */
static int read_whole(re_run *r, const char *path, size_t max, long long want, const char *manifest,
                      uint8_t **buf, size_t *len)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        re_fail(r, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        re_fail(r, "cannot read %s: not a regular file", path);
        fclose(f);
        return -1;
    }
    if ((unsigned long long)st.st_size > max) {
        re_fail(r, "cannot read %s: %lld bytes, more than the limit of %zu", path,
                (long long)st.st_size, max);
        fclose(f);
        return -1;
    }
    if (want >= 0 && st.st_size != want) {
        re_fail(r, "%s: %lld bytes where %s recorded %lld: the image is damaged or cut short", path,
                (long long)st.st_size, manifest, want);
        fclose(f);
        return -1;
    }
    *len = (size_t)st.st_size;
    *buf = malloc(*len + 1);
    if (!*buf) {
        re_fail(r, "cannot read %s: out of memory for %zu bytes", path, *len);
        fclose(f);
        return -1;
    }
    if (fread(*buf, 1, *len, f) != *len) {
        re_fail(r, "cannot read %s: %s", path,
                ferror(f) ? strerror(errno) : "shorter than its size");
        free(*buf);
        *buf = NULL;
        fclose(f);
        return -1;
    }
    (*buf)[*len] = 0;
    fclose(f);
    return 0;
}

/* A text file opened for reading, refused when larger than RE_MAX_TEXT. */
static FILE *open_text(re_run *r, const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    struct stat st;
    if (!f) {
        re_fail(r, "cannot read %s: %s%s", path, strerror(errno), what);
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > RE_MAX_TEXT) {
        re_fail(r, "cannot read %s: not a regular file of at most %lld MiB", path,
                RE_MAX_TEXT >> 20);
        fclose(f);
        return NULL;
    }
    return f;
}

/* collector.PID.txt: mode (counters), metrics and passes. */
static int read_collector(re_run *r, long pid)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/collector.%ld.txt", r->dir, pid);
    uint8_t *text;
    size_t len;
    if (read_whole(r, path, RT_CUPTI_MAX_COLLECTOR_FILE, -1, NULL, &text, &len) != 0)
        return -1;
    int counters = 0, rc = -1;
    free(r->metric_list);
    r->metric_list = NULL;
    r->n_metric = 0;
    r->n_passes = 0;
    for (char *s = (char *)text, *nl; *s; s = nl) {
        nl = strchr(s, '\n');
        if (nl)
            *nl++ = '\0';
        else
            nl = s + strlen(s);
        if (strncmp(s, "mode=", 5) == 0)
            counters = strcmp(s + 5, "counters") == 0;
        else if (strncmp(s, "metrics=", 8) == 0 && !r->metric_list)
            r->metric_list = strdup(s + 8);
        else if (strncmp(s, "passes=", 7) == 0 && r->n_passes < 16)
            r->passes[r->n_passes++] = strtol(s + 7, NULL, 10);
        else if (strncmp(s, "error=", 6) == 0) {
            re_fail(r, "%s: the collector failed in process %ld: %.500s", path, pid, s + 6);
            goto out;
        }
    }
    if (!counters) {
        re_fail(r, "%s: not a counter run (mode=counters), yet images.%ld.csv lists raw images",
                path, pid);
        goto out;
    }
    if (!r->metric_list) {
        re_fail(r, "%s: no metrics= line: the metrics the images were collected for are unknown",
                path);
        goto out;
    }
    for (char *s = r->metric_list, *tok; (tok = strsep(&s, ",")) != NULL;) {
        if (!*tok)
            continue;
        if (r->n_metric == RE_MAX_METRICS) {
            re_fail(r, "%s: metrics: more than %d", path, RE_MAX_METRICS);
            goto out;
        }
        r->metric[r->n_metric++] = tok;
    }
    if (r->n_metric == 0) {
        re_fail(r, "%s: metrics= names no metric", path);
        goto out;
    }
    rc = 0;
out:
    free(text);
    return rc;
}

/* A whole number in [0, max]. */
static int parse_size(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!*s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return -1;
    *out = v;
    return 0;
}

/* One manifest row: file,kind,context,chip,bytes,fnv1a64, the file named as the collector names it
 * (no path: nothing outside the directory is read). */
typedef struct re_row {
    char file[128], kind[16], chip[64];
    unsigned context;
    unsigned long long bytes;
    uint64_t hash;
} re_row;

static int parse_row(re_run *r, const char *mpath, unsigned long line, char *s, long pid,
                     re_row *row)
{
    char *f[7];
    size_t n = 0;
    for (char *tok; n < 7 && (tok = strsep(&s, ",")) != NULL;)
        f[n++] = tok;
    if (n != 6) {
        re_fail(r, "%s: line %lu: %zu fields, expected 6 (%s)", mpath, line, n,
                RT_CUPTI_IMAGE_HEADER);
        return -1;
    }
    unsigned long long ctx, bytes;
    if (parse_size(f[2], UINT32_MAX, &ctx) != 0) {
        re_fail(r, "%s: line %lu: context '%.40s' is not a whole number", mpath, line, f[2]);
        return -1;
    }
    row->context = (unsigned)ctx;
    if (strcmp(f[1], "config") != 0 && strcmp(f[1], "counterdata") != 0) {
        re_fail(r, "%s: line %lu: kind '%.40s' (config or counterdata)", mpath, line, f[1]);
        return -1;
    }
    snprintf(row->kind, sizeof row->kind, "%s", f[1]);
    /* The file's name must be the one the collector gives this kind, process and context. */
    char want[128];
    unsigned long long chunk = 0;
    int used = 0;
    if (strcmp(row->kind, "config") == 0)
        snprintf(want, sizeof want, "config.%ld.%u.bin", pid, row->context);
    else if (sscanf(f[0], "counterdata.%*d.%*u.%llu.bin%n", &chunk, &used) == 1 && !f[0][used])
        snprintf(want, sizeof want, "counterdata.%ld.%u.%llu.bin", pid, row->context, chunk);
    else
        want[0] = '\0';
    if (strcmp(f[0], want) != 0) {
        re_fail(r,
                "%s: line %lu: file '%.100s' is not the name of a %s image of process %ld, "
                "context %u",
                mpath, line, f[0], row->kind, pid, row->context);
        return -1;
    }
    snprintf(row->file, sizeof row->file, "%s", f[0]);
    size_t cl = strlen(f[3]);
    if (cl == 0 || cl >= sizeof row->chip ||
        strspn(f[3], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "abcdefghijklmnopqrstuvwxyz0123456789_") != cl) {
        re_fail(r, "%s: line %lu: chip '%.70s' is not a chip name (GH100 ...)", mpath, line, f[3]);
        return -1;
    }
    memcpy(row->chip, f[3], cl + 1);
    if (parse_size(f[4], RT_CUPTI_MAX_IMAGE, &bytes) != 0) {
        re_fail(r, "%s: line %lu: bytes '%.40s' is not a size up to %zu", mpath, line, f[4],
                RT_CUPTI_MAX_IMAGE);
        return -1;
    }
    row->bytes = bytes;
    char *end;
    errno = 0;
    row->hash = strtoull(f[5], &end, 16);
    if (strlen(f[5]) != 16 || *end || errno || strspn(f[5], "0123456789abcdefABCDEF") != 16) {
        re_fail(r, "%s: line %lu: fnv1a64 '%.40s' is not 16 hex digits", mpath, line, f[5]);
        return -1;
    }
    return 0;
}

/* The image a row names, read whole and checked against the row's size and hash. */
static int load_image(re_run *r, const char *mpath, unsigned long line, const re_row *row,
                      uint8_t **buf, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, row->file);
    if (read_whole(r, path, RT_CUPTI_MAX_IMAGE, (long long)row->bytes, mpath, buf, len) != 0)
        return -1;
    uint64_t h = rtc_fnv1a64(*buf, *len);
    if (h != row->hash) {
        re_fail(r,
                "%s: FNV-1a hash %016" PRIx64 ", %s line %lu recorded %016" PRIx64
                ": the image is damaged (or not the one the collector wrote)",
                path, h, mpath, line, row->hash);
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

static re_ctx *find_ctx(re_run *r, unsigned id)
{
    for (size_t i = 0; i < r->n_ctx; i++)
        if (r->ctx[i].id == id)
            return &r->ctx[i];
    return NULL;
}

/* A config row: the chip's host object with the collector's metrics, the image's passes checked. */
static int take_config(re_run *r, long pid, const char *mpath, unsigned long line,
                       const re_row *row)
{
    char path[4096], cerr[1024] = "";
    snprintf(path, sizeof path, "%s/%s", r->dir, row->file);
    if (find_ctx(r, row->context)) {
        re_fail(r, "%s: line %lu: a second configuration of context %u", mpath, line, row->context);
        return -1;
    }
    if (r->n_ctx == RE_MAX_CONTEXTS) {
        re_fail(r, "%s: line %lu: more than %d contexts", mpath, line, RE_MAX_CONTEXTS);
        return -1;
    }
    uint8_t *img;
    size_t len;
    if (load_image(r, mpath, line, row, &img, &len) != 0)
        return -1;
    re_ctx *c = &r->ctx[r->n_ctx];
    memset(c, 0, sizeof *c);
    c->id = row->context;
    snprintf(c->chip, sizeof c->chip, "%s", row->chip);
    re_reading(r, path);
    c->host = rtc_host_new(row->chip, NULL, cerr, sizeof cerr);
    if (!c->host) {
        const char *const *chips = NULL;
        size_t n = rtc_host_chips(&chips);
        char known[1024] = "";
        for (size_t i = 0; i < n && strlen(known) + 20 < sizeof known; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? " " : "",
                     chips[i]);
        re_fail(r, "%s: chip '%s' (%s line %lu) is unknown to this CUPTI: %s; it knows: %s", path,
                row->chip, mpath, line, cerr, n ? known : "(none)");
        free(img);
        return -1;
    }
    r->n_ctx++;
    uint8_t *fresh = NULL;
    size_t fresh_size = 0, fresh_passes = 0, passes = 0;
    if (rtc_host_config(c->host, r->metric, r->n_metric, &fresh, &fresh_size, &fresh_passes, cerr,
                        sizeof cerr) != 0) {
        re_fail(r, "%s/collector.%ld.txt: metrics on chip %s: %s", r->dir, pid, row->chip, cerr);
        free(img);
        return -1;
    }
    free(fresh);
    int bad = rtc_config_passes(img, len, &passes, cerr, sizeof cerr) != 0;
    free(img);
    if (bad) {
        re_fail(r, "%s: not a configuration image CUPTI can read: %s", path, cerr);
        return -1;
    }
    int recorded = r->n_passes == 0;
    for (size_t i = 0; i < r->n_passes; i++)
        recorded |= r->passes[i] == (long)passes;
    if (!recorded) {
        re_fail(r,
                "%s: %zu passes where collector.%ld.txt says passes=%ld: the image does not "
                "belong to that counter run",
                path, passes, pid, r->passes[0]);
        return -1;
    }
    return 0;
}

/* A counterdata row: every range evaluated into out, named by the image's .names file. */
static int take_counterdata(re_run *r, long pid, const char *mpath, unsigned long line,
                            const re_row *row, FILE *out, unsigned long *next_range)
{
    char path[4096], npath[4200], cerr[1024] = "", rname[512];
    snprintf(path, sizeof path, "%s/%s", r->dir, row->file);
    re_ctx *c = find_ctx(r, row->context);
    if (!c) {
        re_fail(r, "%s: line %lu: counter data of context %u before its configuration (config row)",
                mpath, line, row->context);
        return -1;
    }
    if (strcmp(c->chip, row->chip) != 0) {
        re_fail(r, "%s: line %lu: chip %s, but the configuration of context %u is for %s", mpath,
                line, row->chip, row->context, c->chip);
        return -1;
    }
    uint8_t *img;
    size_t len;
    if (load_image(r, mpath, line, row, &img, &len) != 0)
        return -1;
    snprintf(npath, sizeof npath, "%s.names", path);
    FILE *names = open_text(r, npath, " (the kernel of each range of the image)");
    if (!names) {
        free(img);
        return -1;
    }
    int rc = -1;
    double v[RE_MAX_METRICS];
    int all_nan[RE_MAX_METRICS];
    for (size_t m = 0; m < r->n_metric; m++)
        all_nan[m] = 1;
    char *name = NULL;
    size_t cap = 0, unnamed = 0;
    re_reading(r, path);
    long n = rtc_counter_data_ranges(img, len, cerr, sizeof cerr);
    if (n < 0) {
        re_fail(r, "%s: not a counter data image CUPTI can read: %s", path, cerr);
        goto out;
    }
    if ((unsigned long)n > RT_CUPTI_MAX_LAUNCHES - r->ranges) {
        re_fail(r, "%s: more than %zu ranges in the directory", path, RT_CUPTI_MAX_LAUNCHES);
        goto out;
    }
    for (long i = 0; i < n; i++) {
        if (rtc_host_evaluate(c->host, img, len, (size_t)i, r->metric, r->n_metric, v, rname,
                              sizeof rname, cerr, sizeof cerr) != 0) {
            re_fail(r,
                    "%s: range %ld: %s: the image does not match chip %s and the metrics of "
                    "collector.%ld.txt (was it collected on another chip, or for other metrics?)",
                    path, i, cerr, c->chip, pid);
            goto out;
        }
        ssize_t got = getline(&name, &cap, names);
        if (got > (ssize_t)RT_MAX_NAME) {
            re_fail(r, "%s: line %ld: a name longer than %zu bytes", npath, i + 1, RT_MAX_NAME);
            goto out;
        }
        if (got > 0 && name[got - 1] == '\n')
            name[--got] = '\0';
        fprintf(out, "%lu,", (*next_range)++);
        if (got < 0)
            unnamed++;
        rtc_csv_field(out, got >= 0 ? name : rname);
        for (size_t m = 0; m < r->n_metric; m++) {
            fprintf(out, ",%.17g", v[m]);
            all_nan[m] &= isnan(v[m]) != 0;
        }
        fputc('\n', out);
    }
    size_t extra = 0;
    while (getline(&name, &cap, names) >= 0)
        extra++;
    if (unnamed || extra)
        re_warn(r,
                "%s: %ld ranges, %ld named kernel launches in %s (graph launches or dropped "
                "ranges, as the collector warned): %s",
                path, n, n - (long)unnamed + (long)extra, npath,
                unnamed ? "the last ranges carry the names the image gives them"
                        : "the last names have no range");
    size_t nan_metrics = 0, first = 0;
    for (size_t m = r->n_metric; m-- > 0;)
        if (all_nan[m]) {
            nan_metrics++;
            first = m;
        }
    if (n > 0 && nan_metrics)
        re_warn(r,
                "%s: %zu of %zu metrics are nan in all %ld ranges (first: %s): the image lacks "
                "their counters, or none were collected; they count as 0",
                path, nan_metrics, r->n_metric, n, r->metric[first]);
    r->ranges += (unsigned long)n;
    r->images++;
    rc = 0;
out:
    free(name);
    fclose(names);
    free(img);
    return rc;
}

static void release_ctx(re_run *r)
{
    for (size_t i = 0; i < r->n_ctx; i++)
        rtc_host_free(r->ctx[i].host);
    r->n_ctx = 0;
}

int re_process(re_run *r, long pid)
{
    char mpath[4096], opath[4096];
    snprintf(mpath, sizeof mpath, "%s/images.%ld.csv", r->dir, pid);
    snprintf(opath, sizeof opath, "%s/ranges.%ld.csv", r->out_dir, pid);
    if (read_collector(r, pid) != 0)
        return -1;
    FILE *m = open_text(r, mpath, "");
    if (!m)
        return -1;
    FILE *out = fopen(opath, "w");
    if (!out) {
        re_fail(r, "cannot write %s: %s", opath, strerror(errno));
        fclose(m);
        return -1;
    }
    fputs("range,name", out);
    for (size_t i = 0; i < r->n_metric; i++)
        fprintf(out, ",%s", r->metric[i]);
    fputc('\n', out);
    char *line = NULL;
    size_t cap = 0;
    unsigned long ln = 0, next_range = 0;
    ssize_t got;
    int rc = -1;
    while ((got = getline(&line, &cap, m)) >= 0) {
        ln++;
        if (got > RE_MAX_MANIFEST_LINE) {
            re_fail(r, "%s: line %lu: longer than %d bytes", mpath, ln, RE_MAX_MANIFEST_LINE);
            goto out;
        }
        if (got > 0 && line[got - 1] == '\n')
            line[--got] = '\0';
        if (ln == 1) {
            if (strcmp(line, RT_CUPTI_IMAGE_HEADER) != 0) {
                re_fail(r, "%s: line 1: header '%.100s', expected '%s'", mpath, line,
                        RT_CUPTI_IMAGE_HEADER);
                goto out;
            }
            continue;
        }
        if (ln > RT_CUPTI_MAX_IMAGES + 1) {
            re_fail(r, "%s: line %lu: more than %d images", mpath, ln, RT_CUPTI_MAX_IMAGES);
            goto out;
        }
        re_row row;
        if (parse_row(r, mpath, ln, line, pid, &row) != 0)
            goto out;
        if (strcmp(row.kind, "config") == 0
                ? take_config(r, pid, mpath, ln, &row) != 0
                : take_counterdata(r, pid, mpath, ln, &row, out, &next_range) != 0)
            goto out;
    }
    if (ln == 0) {
        re_fail(r, "%s: empty (no header)", mpath);
        goto out;
    }
    rc = 0;
out:
    free(line);
    fclose(m);
    if (fclose(out) != 0 && rc == 0) {
        re_fail(r, "cannot write %s: %s", opath, strerror(errno));
        rc = -1;
    }
    release_ctx(r);
    return rc;
}
