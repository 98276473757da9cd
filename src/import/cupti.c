/* Import the CUPTI collector's directory: trace rows for times, range rows for counters (through
 * the formulas of `import ncu`), joined by kernel name and launch order. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* One process the collector ran in: what collector.PID.txt says. */
typedef struct proc {
    long pid;
    long long started;
    int counters;
    int sm;
    char *device, *version;
} proc;

/* One kernel execution of a trace run. */
typedef struct launch {
    uint32_t proc, name, corr, stream, graph;
    uint64_t start, end;
    int32_t grid[3], block[3];
    double api; /* CPU-side launch call, seconds; < 0 when unknown */
    long range; /* joined counter range, or -1 */
} launch;

/* One range (kernel launch, replayed) of a counter run. */
typedef struct range {
    uint32_t proc, name;
    double *v; /* one per mapping slot */
} range;

typedef struct api_time {
    uint32_t corr;
    double seconds;
} api_time;

typedef struct cupti_import {
    const char *dir;
    rt_error *err;
    rt_warnings *w;
    ncu_map map;
    proc *p;
    size_t np;
    rt_name_index names;
    launch *l;
    size_t nl, capl;
    range *r;
    size_t nr, capr;
    uint64_t avail; /* mapping slots every ranges file holds */
    int any_ranges_file;
} cupti_import;

static int by_started(const void *a, const void *b)
{
    const proc *x = a, *y = b;
    if (x->started != y->started)
        return x->started < y->started ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* A whole unsigned number in [0, max]; -1 otherwise. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
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

static int read_collector(cupti_import *im, const char *file, long pid, proc *p)
{
    char *path = rt_asprintf("%s/%s", im->dir, file), *text = NULL;
    size_t len;
    int rc = -1, have_format = 0, have_mode = 0;
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->sm = -1;
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
            if (parse_u64(v, LLONG_MAX, &t) != 0) {
                rt_error_set(im->err, "%s: line %lu: started_ns '%.40s' is not a time", path, line,
                             v);
                goto out;
            }
            p->started = (long long)t;
        } else if (strcmp(k, "cc") == 0) {
            uint64_t cc;
            if (parse_u64(v, 999, &cc) != 0) {
                rt_error_set(im->err, "%s: line %lu: cc '%.40s' is not a compute capability", path,
                             line, v);
                goto out;
            }
            p->sm = (int)cc;
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

/* Open DIR/WHAT.PID.csv and check its header starts with want's columns; NULL with *absent set
 * when the file does not exist. */
static rt_csv *open_csv(cupti_import *im, const char *what, long pid, const char *want,
                        rt_csv_row *hdr, int *absent, char **path_out)
{
    char *path = rt_asprintf("%s/%s.%ld.csv", im->dir, what, pid);
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
    rt_csv *c = open_csv(im, "launches", pid, RT_CUPTI_LAUNCH_HEADER, &row, &absent, &path);
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
        if (parse_u64(row.field[0], UINT32_MAX, &corr) || parse_u64(row.field[2], UINT64_MAX, &s) ||
            parse_u64(row.field[3], UINT64_MAX, &e) || e < s) {
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
static int read_kernels(cupti_import *im, uint32_t pi)
{
    const proc *p = &im->p[pi];
    rt_csv_row row;
    int absent;
    char *path;
    api_time *api = NULL;
    size_t napi = 0, first = im->nl;
    if (read_api(im, p->pid, &api, &napi) != 0)
        return -1;
    rt_csv *c = open_csv(im, "kernels", p->pid, RT_CUPTI_KERNEL_HEADER, &row, &absent, &path);
    if (!c) {
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
            if (parse_u64(row.field[ucol[i]],
                          ucol[i] == 2 || ucol[i] == 3 ? UINT64_MAX : UINT32_MAX, &u[i]) != 0) {
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
static int read_ranges(cupti_import *im, uint32_t pi)
{
    const proc *p = &im->p[pi];
    rt_csv_row row;
    int absent;
    char *path;
    rt_csv *c = open_csv(im, "ranges", p->pid, "range,name", &row, &absent, &path);
    if (!c) {
        free(path);
        return absent ? 0 : -1;
    }
    int r, rc = -1;
    size_t ncol = row.n;
    int *slot = rt_xcalloc(ncol, sizeof *slot);
    uint64_t have = 0;
    for (size_t i = 2; i < ncol; i++) {
        slot[i] = ncu_map_slot(&im->map, row.field[i]);
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
        if (parse_u64(row.field[0], LONG_MAX, &idx) != 0 || (long)idx <= last) {
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
        range R = {.proc = pi, .v = rt_xcalloc(im->map.n_metric + 1, sizeof(double))};
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

/* ---- the profile ---- */

/* Per quantity, the first formula whose metrics the ranges hold (the rule of `import ncu`). */
static size_t choose(cupti_import *im, int *chosen)
{
    size_t n = 0;
    for (size_t i = 0; i < im->map.n_q; i++) {
        int seen = 0;
        for (size_t j = 0; j < n; j++)
            seen |= strcmp(im->map.q[chosen[j]].quantity, im->map.q[i].quantity) == 0;
        if (seen)
            continue;
        for (size_t j = i; j < im->map.n_q; j++) {
            const ncu_quantity *q = &im->map.q[j];
            if (strcmp(q->quantity, im->map.q[i].quantity) == 0 &&
                (q->f.metrics & im->avail) == q->f.metrics) {
                chosen[n++] = (int)j;
                break;
            }
        }
        if (n == 0 || strcmp(im->map.q[chosen[n - 1]].quantity, im->map.q[i].quantity) != 0)
            if (im->w)
                rt_warnings_add(im->w, "%s not imported: the counters lack its metrics",
                                im->map.q[i].quantity);
    }
    return n;
}

/* Join the i-th launch of each name with the i-th range of that name, in process order. */
static void join(cupti_import *im)
{
    size_t nn = im->names.n;
    size_t *next = rt_xcalloc(nn + 1, sizeof *next); /* next range position per name */
    size_t **pos = rt_xcalloc(nn + 1, sizeof *pos), *cnt = rt_xcalloc(nn + 1, sizeof *cnt);
    for (size_t i = 0; i < im->nr; i++)
        cnt[im->r[i].name]++;
    for (size_t k = 0; k < nn; k++)
        pos[k] = rt_xmalloc((cnt[k] + 1) * sizeof **pos);
    memset(cnt, 0, (nn + 1) * sizeof *cnt);
    for (size_t i = 0; i < im->nr; i++)
        pos[im->r[i].name][cnt[im->r[i].name]++] = i;
    size_t unjoined = 0;
    for (size_t i = 0; i < im->nl; i++) {
        uint32_t k = im->l[i].name;
        if (next[k] < cnt[k])
            im->l[i].range = (long)pos[k][next[k]++];
        else
            unjoined++;
    }
    size_t spare = 0;
    for (size_t k = 0; k < nn; k++)
        spare += cnt[k] - next[k];
    if (im->w && (unjoined || spare))
        rt_warnings_add(im->w,
                        "%s: %zu traced kernel launches found no counter range of the same name "
                        "and order (their FLOPs and bytes are 0), %zu counter ranges no launch",
                        im->dir, unjoined, spare);
    for (size_t k = 0; k < nn; k++)
        free(pos[k]);
    free(pos);
    free(cnt);
    free(next);
}

static void dims(char *buf, size_t n, const int32_t *d)
{
    snprintf(buf, n, "%" PRId32 ",%" PRId32 ",%" PRId32, d[0], d[1], d[2]);
}

/* FLOPs and bytes of range R into q (one per chosen formula); its cycles / rate time. */
static int eval_range(cupti_import *im, const range *R, const int *chosen, size_t nq,
                      double launch_time, double *q, double *own_time)
{
    const double *cst = ncu_map_constants(&im->map, im->p[R->proc].sm);
    double cycles = ncu_formula_eval(&im->map.cycles, R->v, cst, 0);
    double rate = ncu_formula_eval(&im->map.rate, R->v, cst, 0);
    *own_time = rate > 0 ? cycles / rate : 0;
    if (launch_time < 0)
        launch_time = *own_time;
    for (size_t i = 0; i < nq; i++) {
        double x = ncu_formula_eval(&im->map.q[chosen[i]].f, R->v, cst, launch_time);
        if (isnan(x))
            x = 0; /* a constant the mapping lacks for this architecture */
        if (!isfinite(x) || x < 0) {
            rt_error_set(im->err, "%s: range of kernel '%.200s': %s = %g is not a finite count",
                         im->dir, im->names.key[R->name], im->map.q[chosen[i]].quantity, x);
            return -1;
        }
        q[i] = x;
    }
    return 0;
}

static void set_quantities(cupti_import *im, rt_kernel *k, const int *chosen, size_t nq,
                           const double *q)
{
    for (size_t i = 0; i < nq; i++) {
        const char *name = im->map.q[chosen[i]].quantity;
        rt_values_add(name[0] == 'f' ? &k->flops : &k->bytes, name + 6, q[i]);
    }
}

/* Per launch (or per range, without a trace) one kernel, or aggregated per name. */
static int build(cupti_import *im, const rt_cupti_options *opt, rt_profile *prof)
{
    int *chosen = rt_xcalloc(im->map.n_q + 1, sizeof *chosen);
    size_t nq = im->nr ? choose(im, chosen) : 0;
    double *q = rt_xcalloc(nq + 1, sizeof *q);
    size_t nn = im->names.n;
    long *kid = rt_xmalloc((nn + 1) * sizeof *kid); /* kernel of each name, aggregated */
    int32_t(*grid)[6] = rt_xcalloc(nn + 1, sizeof *grid);
    unsigned char *mixed = rt_xcalloc(nn + 1, 1);
    double *api_sum = rt_xcalloc(nn + 1, sizeof *api_sum), *api_n = rt_xcalloc(nn + 1, 8);
    for (size_t k = 0; k < nn; k++)
        kid[k] = -1;
    int rc = -1;
    char buf[64];
    size_t n_units = im->nl ? im->nl : im->nr;
    for (size_t i = 0; i < n_units; i++) {
        const launch *L = im->nl ? &im->l[i] : NULL;
        const range *R = L ? (L->range >= 0 ? &im->r[L->range] : NULL) : &im->r[i];
        uint32_t name = L ? L->name : R->name;
        double t = L ? (double)(L->end - L->start) * 1e-9 : -1, own = 0;
        memset(q, 0, (nq + 1) * sizeof *q);
        if (R && eval_range(im, R, chosen, nq, t, q, &own) != 0)
            goto out;
        if (t < 0)
            t = own;
        const char *kname = im->names.key[name];
        if (!kname[0])
            kname = "(unnamed range: a graph launch)";
        rt_kernel *k;
        if (opt->per_launch || kid[name] < 0) {
            if (!opt->per_launch)
                kid[name] = (long)prof->n_kernels;
            k = rt_profile_add_kernel(prof, kname);
            if (L) {
                memcpy(grid[name], L->grid, sizeof L->grid);
                memcpy(grid[name] + 3, L->block, sizeof L->block);
            }
        } else {
            k = &prof->kernels[kid[name]];
            if (L && (memcmp(grid[name], L->grid, sizeof L->grid) != 0 ||
                      memcmp(grid[name] + 3, L->block, sizeof L->block) != 0))
                mixed[name] = 1;
        }
        k->invocations += 1;
        k->time += t;
        set_quantities(im, k, chosen, nq, q);
        if (L && L->api >= 0) {
            api_sum[name] += L->api;
            api_n[name] += 1;
        }
        if (opt->per_launch) {
            snprintf(buf, sizeof buf, "%ld", im->p[L ? L->proc : R->proc].pid);
            rt_tags_set(&k->tags, "process", buf);
            if (L) {
                snprintf(buf, sizeof buf, "%" PRIu32, L->corr);
                rt_tags_set(&k->tags, "launch", buf);
                snprintf(buf, sizeof buf, "%" PRIu32, L->stream);
                rt_tags_set(&k->tags, "stream", buf);
                if (L->graph) {
                    snprintf(buf, sizeof buf, "%" PRIu32, L->graph);
                    rt_tags_set(&k->tags, "graph", buf);
                }
                dims(buf, sizeof buf, L->grid);
                rt_tags_set(&k->tags, "grid", buf);
                dims(buf, sizeof buf, L->block);
                rt_tags_set(&k->tags, "block", buf);
                if (L->api >= 0) {
                    snprintf(buf, sizeof buf, "%.3f", L->api * 1e6);
                    rt_tags_set(&k->tags, "launch_call_us", buf);
                }
            } else {
                snprintf(buf, sizeof buf, "%zu", i);
                rt_tags_set(&k->tags, "range", buf);
            }
        }
    }
    if (!opt->per_launch && im->nl)
        for (size_t k = 0; k < nn; k++) {
            if (kid[k] < 0)
                continue;
            rt_kernel *K = &prof->kernels[kid[k]];
            if (!mixed[k]) {
                dims(buf, sizeof buf, grid[k]);
                rt_tags_set(&K->tags, "grid", buf);
                dims(buf, sizeof buf, grid[k] + 3);
                rt_tags_set(&K->tags, "block", buf);
            }
            if (api_n[k] > 0) {
                snprintf(buf, sizeof buf, "%.3f", api_sum[k] / api_n[k] * 1e6);
                rt_tags_set(&K->tags, "launch_call_us", buf);
            }
        }
    rc = 0;
out:
    free(chosen);
    free(q);
    free(kid);
    free(grid);
    free(mixed);
    free(api_sum);
    free(api_n);
    return rc;
}

static void release(cupti_import *im)
{
    for (size_t i = 0; i < im->np; i++) {
        free(im->p[i].device);
        free(im->p[i].version);
    }
    free(im->p);
    for (size_t i = 0; i < im->nr; i++)
        free(im->r[i].v);
    free(im->r);
    free(im->l);
    rt_name_index_release(&im->names);
    ncu_map_release(&im->map);
}

int rt_import_cupti(const char *dir, const rt_cupti_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err)
{
    rt_cupti_options dflt = {0};
    if (!opt)
        opt = &dflt;
    *out = NULL;
    cupti_import im = {.dir = dir, .err = err, .w = w};
    rt_profile *prof = NULL;
    int rc = -1;
    char *mpath = opt->metrics_file ? rt_strdup(opt->metrics_file)
                                    : rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    DIR *d = opendir(dir);
    if (!d) {
        rt_error_set(err, "cannot read directory '%s': %s", dir, strerror(errno));
        goto done;
    }
    struct dirent *e;
    size_t cap = 0;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        if (sscanf(e->d_name, "collector.%ld.txt%n", &pid, &used) != 1 || e->d_name[used] != '\0' ||
            pid <= 0)
            continue;
        if (im.np == RT_CUPTI_MAX_PROCESSES) {
            rt_error_set(err, "%s: more than %d collector files", dir, RT_CUPTI_MAX_PROCESSES);
            closedir(d);
            goto done;
        }
        if (im.np == cap) {
            cap = cap ? 2 * cap : 8;
            im.p = rt_xrealloc(im.p, cap * sizeof *im.p);
        }
        if (read_collector(&im, e->d_name, pid, &im.p[im.np]) != 0) {
            closedir(d);
            goto done;
        }
        im.np++;
    }
    closedir(d);
    if (im.np == 0) {
        rt_error_set(err,
                     "no kernel was captured: %s holds no collector output (the command never "
                     "initialised CUDA, or librooftime-cupti.so was not loaded)",
                     dir);
        goto done;
    }
    qsort(im.p, im.np, sizeof *im.p, by_started);
    if (ncu_map_load(mpath, &im.map, err) != 0)
        goto done;
    for (uint32_t i = 0; i < im.np; i++)
        if ((im.p[i].counters ? read_ranges(&im, i) : read_kernels(&im, i)) != 0)
            goto done;
    if (im.nl == 0 && im.nr == 0) {
        rt_error_set(err,
                     "no kernel was captured: %s holds collector output from %zu "
                     "process%s but no kernel (did the command launch any?)",
                     dir, im.np, im.np == 1 ? "" : "es");
        goto done;
    }
    if (im.nr) {
        uint64_t tmask = im.map.cycles.metrics | im.map.rate.metrics;
        if ((im.avail & tmask) != tmask) {
            rt_error_set(err, "%s: the counters lack the time metrics (%s, %s)", dir,
                         im.map.cycles.text, im.map.rate.text);
            goto done;
        }
    }
    if (im.nl && im.nr)
        join(&im);
    prof = rt_profile_new();
    if (build(&im, opt, prof) != 0)
        goto done;
    prof->tool = rt_strdup("cupti");
    for (size_t i = 0; i < im.np && !prof->version; i++)
        if (im.p[i].version)
            prof->version = rt_strdup(im.p[i].version);
    for (size_t i = 0; i < im.np && !prof->machine; i++)
        if (im.p[i].device)
            prof->machine = rt_strdup(im.p[i].device);
    prof->method = rt_asprintf(
        "CUPTI (librooftime-cupti.so): %s%s%s; %s",
        im.nl ? "kernel times from the Activity API (end - start)" : "", im.nl && im.nr ? ", " : "",
        im.nr ? "FLOPs and bytes from Range Profiler counters (auto ranges, kernel replay) "
                "through the formulas of data/ncu/metrics.json, joined by kernel name and "
                "launch order"
              : "",
        opt->per_launch ? "one kernel per launch" : "aggregated per kernel name");
    if (!im.nl && w)
        rt_warnings_add(w, "%s: no trace: times are cycles / rate of the replayed kernels", dir);
    if (rt_profile_check(prof, err) != 0)
        goto done;
    *out = prof;
    prof = NULL;
    rc = 0;
done:
    rt_profile_free(prof);
    release(&im);
    free(mpath);
    return rc;
}
