/* Read the CUPTI collector's files: collector.PID.txt (key=value), the trace's kernels.PID.csv and
 * launches.PID.csv, the counters' ranges.PID.csv. Untrusted: bounded, every error names file,
 * line and field. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-internal.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

int rt_cupti_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_i32(const char *s, int32_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* ---- collector.PID.txt ---- */

int rt_cupti_read_collector(cupti_import *im, const char *file, long pid, proc *p)
{
    char *path = rt_asprintf("%s/%s", im->dir, file), *text = NULL;
    size_t len;
    int rc = -1, have_format = 0, have_mode = 0;
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->sm = -1;
    p->kernels = -1;
    if (rt_read_text_file(path, RT_CUPTI_MAX_COLLECTOR_FILE, &text, &len, im->err) != 0)
        goto out;
    unsigned long line = 0;
    for (char *s = text, *nl; *s; s = nl) {
        nl = strchr(s, '\n');
        if (nl)
            *nl++ = '\0';
        else
            nl = s + strlen(s);
        line++;
        size_t n = strlen(s);
        if (n > 0 && s[n - 1] == '\r')
            s[n - 1] = '\0'; /* a CRLF line end (the directory went through a Windows tool) */
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rt_error_set(im->err, "%s: line %lu: not key=value", path, line);
            goto out;
        }
        *eq = '\0';
        const char *k = s, *v = eq + 1;
        if (strcmp(k, "format") == 0) {
            if (strcmp(v, RT_CUPTI_FORMAT) != 0) {
                rt_error_set(im->err, "%s: line %lu: format '%.80s', expected '%s'", path, line, v,
                             RT_CUPTI_FORMAT);
                goto out;
            }
            have_format = 1;
        } else if (strcmp(k, "mode") == 0) {
            if (strcmp(v, "trace") != 0 && strcmp(v, "counters") != 0) {
                rt_error_set(im->err, "%s: line %lu: mode '%.80s' (trace or counters)", path, line,
                             v);
                goto out;
            }
            p->counters = v[0] == 'c';
            have_mode = 1;
        } else if (strcmp(k, "error") == 0) {
            rt_error_set(im->err, "%s: the collector failed in process %ld: %s", path, pid, v);
            goto out;
        } else if (strcmp(k, "warning") == 0 || strcmp(k, "records_dropped") == 0 ||
                   strcmp(k, "ranges_dropped") == 0) {
            if (im->w)
                rt_warnings_add(im->w, "%s: %s%s%.500s", path, k[0] == 'w' ? "" : k,
                                k[0] == 'w' ? "" : " ", v);
        } else if (strcmp(k, "started_ns") == 0) {
            uint64_t t;
            if (rt_cupti_parse_u64(v, LLONG_MAX, &t) != 0) {
                rt_error_set(im->err, "%s: line %lu: started_ns '%.40s' is not a time", path, line,
                             v);
                goto out;
            }
            p->started = (long long)t;
        } else if (strcmp(k, "cc") == 0) {
            uint64_t cc;
            if (rt_cupti_parse_u64(v, 999, &cc) != 0) {
                rt_error_set(im->err, "%s: line %lu: cc '%.40s' is not a compute capability", path,
                             line, v);
                goto out;
            }
            p->sm = (int)cc;
        } else if (strcmp(k, "kernels") == 0) {
            uint64_t n;
            if (rt_cupti_parse_u64(v, LLONG_MAX, &n) != 0) {
                rt_error_set(im->err, "%s: line %lu: kernels '%.40s' is not a count", path, line,
                             v);
                goto out;
            }
            p->kernels = (long long)n;
        } else if (strcmp(k, "end") == 0) {
            p->ended = 1;
        } else if (strcmp(k, "device") == 0) {
            free(p->device);
            p->device = rt_strdup_utf8(v);
        } else if (strcmp(k, "cupti_version") == 0) {
            free(p->version);
            p->version = rt_strdup_utf8(v);
        }
    }
    if (!have_format || !have_mode) {
        rt_error_set(im->err, "%s: no %s line (not written by librooftime-cupti.so?)", path,
                     have_format ? "mode" : "format");
        goto out;
    }
    /* The collector writes its end line when the process finishes collecting (at exit or at the
     * end of its range); without it the process was killed, crashed or left through _exit. */
    if (!p->ended && im->w)
        rt_warnings_add(im->w,
                        "%s: no 'end' line: process %ld stopped before the collector finished "
                        "(killed, crashed, or left through _exit): what it recorded until then is "
                        "kept, its last kernels may be missing",
                        path, pid);
    rc = 0;
out:
    if (rc != 0) {
        free(p->device);
        free(p->version);
        p->device = p->version = NULL;
    }
    free(text);
    free(path);
    return rc;
}

/* ---- the CSV files ---- */

rt_csv *rt_cupti_open_csv(cupti_import *im, const char *dir, const char *what, long pid,
                          const char *want, rt_csv_row *hdr, int *absent, char **path_out)
{
    char *path = rt_asprintf("%s/%s.%ld.csv", dir, what, pid);
    *path_out = path;
    *absent = 0;
    FILE *probe = fopen(path, "r");
    if (!probe && errno == ENOENT) {
        *absent = 1;
        return NULL;
    }
    if (probe)
        fclose(probe);
    rt_csv *c = rt_csv_open(path, im->err);
    if (!c)
        return NULL;
    rt_csv_require_line_ends(c); /* the collector ends each row with one */
    int r = rt_csv_next(c, hdr, im->err);
    if (r <= 0) {
        if (r == 0)
            rt_error_set(im->err, "%s: empty (no header)", path);
        rt_csv_free(c);
        return NULL;
    }
    if (want) {
        char *w = rt_strdup(want), *s = w, *tok;
        size_t i = 0;
        while ((tok = strsep(&s, ",")) != NULL) {
            if (i >= hdr->n || strcmp(hdr->field[i], tok) != 0) {
                rt_error_set(im->err, "%s: line 1: column %zu is '%.60s', expected '%s'", path,
                             i + 1, i < hdr->n ? hdr->field[i] : "(none)", tok);
                free(w);
                rt_csv_free(c);
                return NULL;
            }
            i++;
        }
        free(w);
    }
    return c;
}

static int cmp_api(const void *a, const void *b)
{
    const api_time *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* launches.PID.csv: the CPU-side time of each launch call, by correlation ID. */
static int read_api(cupti_import *im, long pid, api_time **out, size_t *n)
{
    rt_csv_row row;
    int absent;
    char *path;
    *out = NULL;
    *n = 0;
    rt_csv *c = rt_cupti_open_csv(im, im->dir, "launches", pid, RT_CUPTI_LAUNCH_HEADER, &row,
                                  &absent, &path);
    if (!c) {
        free(path);
        return absent ? 0 : -1;
    }
    size_t cap = 0;
    int r, rc = -1;
    while ((r = rt_csv_next(c, &row, im->err)) == 1) {
        uint64_t corr, s, e;
        if (row.n != 6) {
            rt_error_set(im->err, "%s: line %lu: %zu fields, expected 6", path, row.line, row.n);
            goto out;
        }
        if (rt_cupti_parse_u64(row.field[0], UINT32_MAX, &corr) ||
            rt_cupti_parse_u64(row.field[2], UINT64_MAX, &s) ||
            rt_cupti_parse_u64(row.field[3], UINT64_MAX, &e) || e < s) {
            rt_error_set(im->err,
                         "%s: line %lu: correlation, start_ns or end_ns is not a whole "
                         "number, or end_ns < start_ns",
                         path, row.line);
            goto out;
        }
        if (*n >= RT_CUPTI_MAX_LAUNCHES) {
            rt_error_set(im->err, "%s: line %lu: more than %zu launches", path, row.line,
                         RT_CUPTI_MAX_LAUNCHES);
            goto out;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            *out = rt_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = (api_time){(uint32_t)corr, (double)(e - s) * 1e-9};
    }
    if (r < 0)
        goto out;
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_api);
    rc = 0;
out:
    if (rc != 0) { /* nothing half-read goes back */
        free(*out);
        *out = NULL;
        *n = 0;
    }
    rt_csv_free(c);
    free(path);
    return rc;
}

static int cmp_launch(const void *a, const void *b)
{
    const launch *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* kernels.PID.csv of a trace run. */
int rt_cupti_read_kernels(cupti_import *im, uint32_t pi)
{
    const proc *p = &im->p[pi];
    rt_csv_row row;
    int absent;
    char *path;
    api_time *api = NULL;
    size_t napi = 0, first = im->nl;
    if (read_api(im, p->pid, &api, &napi) != 0)
        return -1;
    rt_csv *c = rt_cupti_open_csv(im, im->dir, "kernels", p->pid, RT_CUPTI_KERNEL_HEADER, &row,
                                  &absent, &path);
    if (!c) {
        if (absent && p->ended && p->kernels > 0) {
            rt_error_set(im->err,
                         "%s is missing, where collector.%ld.txt says the collector wrote "
                         "%lld kernels",
                         path, p->pid, p->kernels);
            absent = 0;
        }
        free(path);
        free(api);
        return absent ? 0 : -1;
    }
    int r, rc = -1;
    static const char *const col[] = {"correlation", "name",    "start_ns", "end_ns", "device",
                                      "context",     "stream",  "graph",    "grid_x", "grid_y",
                                      "grid_z",      "block_x", "block_y",  "block_z"};
    while ((r = rt_csv_next(c, &row, im->err)) == 1) {
        if (row.n != 17) {
            rt_error_set(im->err, "%s: line %lu: %zu fields, expected 17", path, row.line, row.n);
            goto out;
        }
        launch L = {.proc = pi, .api = -1, .range = -1};
        uint64_t u[8];
        static const int ucol[] = {0, 2, 3, 6, 7};
        for (size_t i = 0; i < 5; i++)
            if (rt_cupti_parse_u64(row.field[ucol[i]],
                                   ucol[i] == 2 || ucol[i] == 3 ? UINT64_MAX : UINT32_MAX,
                                   &u[i]) != 0) {
                rt_error_set(im->err, "%s: line %lu: %s '%.40s' is not a whole number", path,
                             row.line, col[ucol[i]], row.field[ucol[i]]);
                goto out;
            }
        for (size_t i = 0; i < 6; i++)
            if (parse_i32(row.field[8 + i], i < 3 ? &L.grid[i] : &L.block[i - 3]) != 0 ||
                (i < 3 ? L.grid[i] : L.block[i - 3]) < 0) {
                rt_error_set(im->err, "%s: line %lu: %s '%.40s' is not a dimension", path, row.line,
                             col[8 + i], row.field[8 + i]);
                goto out;
            }
        if (u[2] < u[1]) {
            rt_error_set(im->err, "%s: line %lu: end_ns %" PRIu64 " < start_ns %" PRIu64, path,
                         row.line, u[2], u[1]);
            goto out;
        }
        if (row.len[1] == 0 || row.len[1] > RT_MAX_NAME) {
            rt_error_set(im->err, "%s: line %lu: name is empty or longer than %zu bytes", path,
                         row.line, RT_MAX_NAME);
            goto out;
        }
        if (im->nl >= RT_CUPTI_MAX_LAUNCHES) {
            rt_error_set(im->err, "%s: line %lu: more than %zu kernels", path, row.line,
                         RT_CUPTI_MAX_LAUNCHES);
            goto out;
        }
        L.corr = (uint32_t)u[0];
        L.start = u[1];
        L.end = u[2];
        L.stream = (uint32_t)u[3];
        L.graph = (uint32_t)u[4];
        L.name = (uint32_t)rt_name_index_intern(&im->names, row.field[1], row.len[1]);
        api_time key = {L.corr, 0},
                 *hit = napi ? bsearch(&key, api, napi, sizeof *api, cmp_api) : NULL;
        if (hit)
            L.api = hit->seconds;
        if (im->nl == im->capl) {
            im->capl = im->capl ? 2 * im->capl : 256;
            im->l = rt_xrealloc(im->l, im->capl * sizeof *im->l);
        }
        im->l[im->nl++] = L;
    }
    if (r < 0)
        goto out;
    /* The collector counted the rows it wrote: fewer here means a file cut at a line's end. */
    if (p->ended && p->kernels >= 0 && (long long)(im->nl - first) != p->kernels) {
        rt_error_set(im->err,
                     "%s: %zu kernels, where collector.%ld.txt says the collector wrote %lld (a "
                     "file cut short or edited)",
                     path, im->nl - first, p->pid, p->kernels);
        goto out;
    }
    /* Launch order within the process: correlation IDs grow with each API call. */
    if (im->nl > first)
        qsort(im->l + first, im->nl - first, sizeof *im->l, cmp_launch);
    rc = 0;
out:
    rt_csv_free(c);
    free(path);
    free(api);
    return rc;
}

/* ranges.PID.csv of a counter run: "range,name," then metric names. */
int rt_cupti_read_ranges(cupti_import *im, uint32_t pi)
{
    const proc *p = &im->p[pi];
    rt_csv_row row;
    int absent;
    char *path;
    rt_csv *c =
        rt_cupti_open_csv(im, im->ranges_dir, "ranges", p->pid, "range,name", &row, &absent, &path);
    if (!c) {
        free(path);
        return absent ? 0 : -1;
    }
    int r, rc = -1;
    size_t ncol = row.n;
    int *slot = rt_xcalloc(ncol, sizeof *slot);
    uint64_t have = 0;
    for (size_t i = 2; i < ncol; i++) {
        slot[i] = rt_ncu_map_slot(&im->map, row.field[i]);
        if (slot[i] >= 0)
            have |= (uint64_t)1 << slot[i];
    }
    im->avail = im->any_ranges_file ? (im->avail & have) : have;
    im->any_ranges_file = 1;
    long last = -1;
    while ((r = rt_csv_next(c, &row, im->err)) == 1) {
        uint64_t idx;
        if (row.n != ncol) {
            rt_error_set(im->err, "%s: line %lu: %zu fields, the header has %zu", path, row.line,
                         row.n, ncol);
            goto out;
        }
        if (rt_cupti_parse_u64(row.field[0], LONG_MAX, &idx) != 0 || (long)idx <= last) {
            rt_error_set(im->err, "%s: line %lu: range '%.40s' is not a number above the last",
                         path, row.line, row.field[0]);
            goto out;
        }
        last = (long)idx;
        if (row.len[1] > RT_MAX_NAME) {
            rt_error_set(im->err, "%s: line %lu: name longer than %zu bytes", path, row.line,
                         RT_MAX_NAME);
            goto out;
        }
        if (im->nr >= RT_CUPTI_MAX_LAUNCHES) {
            rt_error_set(im->err, "%s: line %lu: more than %zu ranges", path, row.line,
                         RT_CUPTI_MAX_LAUNCHES);
            goto out;
        }
        range R = {.proc = pi, .idx = idx, .v = rt_xcalloc(im->map.n_metric + 1, sizeof(double))};
        R.name = (uint32_t)rt_name_index_intern(&im->names, row.field[1], row.len[1]);
        if (im->nr == im->capr) {
            im->capr = im->capr ? 2 * im->capr : 256;
            im->r = rt_xrealloc(im->r, im->capr * sizeof *im->r);
        }
        im->r[im->nr++] = R;
        for (size_t i = 2; i < ncol; i++) {
            if (slot[i] < 0)
                continue;
            double v;
            if (strcmp(row.field[i], "nan") == 0 || strcmp(row.field[i], "-nan") == 0) {
                v = 0; /* a counter CUPTI could not evaluate: 0, as `import ncu` counts it */
            } else if (!rt_parse_double(row.field[i], &v) || !isfinite(v) || v < 0) {
                rt_error_set(im->err, "%s: line %lu: %s = '%.40s' is not a finite count >= 0", path,
                             row.line, im->map.metric[slot[i]], row.field[i]);
                goto out;
            }
            R.v[slot[i]] = v;
        }
    }
    if (r < 0)
        goto out;
    rc = 0;
out:
    free(slot);
    rt_csv_free(c);
    free(path);
    return rc;
}
