/* Import raw `ncu --csv` output: stream rows, join launches across files, aggregate per kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* Launch state is keyed by file index bits: one launch may come from at most this many files. */
#define NCU_MAX_FILES 64
/* Warnings of one kind beyond this many are counted, not listed. */
#define NCU_MAX_WARN 10

/* ---- one input file ---- */

enum { COL_ID, COL_PID, COL_NAME, COL_MNAME, COL_MUNIT, COL_MVALUE, COL_CC, COL_N };
static const char *const col_names[COL_N] = {
    "ID", "Process ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value", "CC"};

/* One launch as one file sees it. */
typedef struct group {
    uint64_t key; /* process ordinal << 40 | launch ID */
    long pid, id;
    uint32_t kname;
    int sm;
    unsigned long line;
    uint64_t present;
    double value[NCU_MAX_METRICS];
} group;

/* One parsed row: a metric value of a launch (slot -1: a metric the mapping does not use). */
typedef struct rowrec {
    uint64_t key;
    long pid, id;
    uint32_t kname;
    int sm;
    unsigned long line;
    int slot;
    double value;
} rowrec;

typedef struct ncu_file {
    const char *path;
    rt_csv *csv;
    int col[COL_N];
    size_t ncols;
    const char *layout;
    long *pid; /* process IDs in order of appearance: a launch's process is its ordinal */
    size_t npid;
    int done;
    int have_next; /* the first row of the next launch, read ahead */
    rowrec next;
    uint64_t metrics; /* slots in the file's first launch */
    uint32_t last_kname;
    int have_last;
    char last_unit[NCU_MAX_METRICS][24];
    double last_scale[NCU_MAX_METRICS];
    char last_cc[8];
    int last_sm;
    unsigned long rows;
} ncu_file;

/* ---- launches being joined across files ---- */

typedef struct pending {
    uint64_t key;
    long pid, id;
    uint32_t kname;
    int sm;
    int first_file;
    unsigned long first_line;
    uint64_t files;
    uint64_t present;
    double value[NCU_MAX_METRICS];
} pending;

typedef struct ktotal {
    double n, cycles, rate, time_sum;
    double *q;
} ktotal;

typedef struct ncu_import {
    const rt_ncu_options *opt;
    rt_warnings *warnings; /* may be NULL */
    ncu_map map;
    ncu_file *f;
    size_t nf;
    uint64_t all_files;
    rt_name_index names;  /* kernel names, interned: launch state holds an id, not a string */
    rt_name_index mnames; /* every metric name seen; mslot[id] is its slot in the mapping or -1 */
    int *mslot;
    size_t nmslot;
    /* pending launches: open addressing over indices into pool, backward-shift deletion */
    pending *pool;
    size_t npool, cappool;
    size_t *free_list;
    size_t nfree;
    int64_t *table; /* pool index, -1 empty */
    size_t ntable, nlive;
    /* chosen formulas: index into map.q per quantity, -1 when not computable */
    int *chosen;
    size_t nchosen;
    double *launch_q; /* --per-launch: one launch's quantities */
    uint64_t needed;
    ktotal *k;
    size_t nk;
    rt_profile *per_launch; /* with --per-launch: kernels added as launches complete */
    unsigned long launches, nan_values, missing;
    int default_sm;
    rt_error *err;
} ncu_import;

static int ncu_warn_limited(ncu_import *im, unsigned long *count, const char *msg)
{
    (*count)++;
    if (im->warnings && *count <= NCU_MAX_WARN)
        rt_warnings_add(im->warnings, "%s", msg);
    return 0;
}

/* Find the table header ("ID","Process ID",...) after the program's own output. */
static int ncu_find_header(ncu_import *im, ncu_file *f)
{
    static const char sig[] = "\"ID\",\"Process ID\"";
    rt_error *err = im->err;
    const char *line;
    size_t len;
    for (;;) {
        int r = rt_csv_peek_line(f->csv, &line, &len, err);
        if (r < 0)
            return -1;
        if (r == 0) {
            rt_error_set(err,
                         "%s: line %lu: no Nsight Compute table header (\"ID\",\"Process ID\",...) "
                         "found; is this the output of `ncu --csv`?",
                         f->path, rt_csv_line(f->csv));
            return -1;
        }
        if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3;
            len -= 3;
        }
        if (len >= sizeof sig - 1 && memcmp(line, sig, sizeof sig - 1) == 0)
            break;
        if (rt_csv_skip_line(f->csv, err) < 0)
            return -1;
    }
    rt_csv_row row;
    if (rt_csv_next(f->csv, &row, err) != 1) {
        if (err && !err->msg[0])
            rt_error_set(err, "%s: cannot read the header", f->path);
        return -1;
    }
    for (int c = 0; c < COL_N; c++)
        f->col[c] = -1;
    int kernel_time = 0, block = 0;
    for (size_t i = 0; i < row.n; i++) {
        const char *h = row.field[i];
        if (i == 0 && strncmp(h, "\xEF\xBB\xBF", 3) == 0)
            h += 3;
        for (int c = 0; c < COL_N; c++)
            if (strcmp(h, col_names[c]) == 0 && f->col[c] < 0)
                f->col[c] = (int)i;
        if (strcmp(h, "Kernel Time") == 0)
            kernel_time = 1;
        if (strcmp(h, "Block Size") == 0)
            block = 1;
    }
    for (int c = 0; c < COL_CC; c++)
        if (f->col[c] < 0) {
            rt_error_set(err, "%s: line %lu: the header has no column '%s'", f->path, row.line,
                         col_names[c]);
            return -1;
        }
    f->ncols = row.n;
    f->layout = kernel_time ? "2019.5/2020.1 (Kernel Time)"
                            : (block ? "2020.2+ (Block Size, Grid Size, Device, CC)" : "unknown");
    return 0;
}

static int parse_long(const char *s, long *out)
{
    if (!*s)
        return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s == ',')
            continue;
        if (*s < '0' || *s > '9' || v > (LONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* A metric value: thousands separators stripped into a small buffer; nan and n/a are NAN. */
static int parse_value(const char *s, size_t n, double *out)
{
    char buf[64];
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ',')
            continue;
        if (w == sizeof buf - 1)
            return -1;
        buf[w++] = s[i];
    }
    buf[w] = '\0';
    if (w == 0)
        return -1;
    if (strcmp(buf, "nan") == 0 || strcmp(buf, "-nan") == 0 || strcmp(buf, "n/a") == 0 ||
        strcmp(buf, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + w || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Parse the next data row into *rr: 1 = a row, 0 = the end, -1 = error. */
static int ncu_read_row(ncu_import *im, ncu_file *f, rowrec *rr)
{
    rt_error *err = im->err;
    rt_csv_row row;
    for (;;) {
        int r = rt_csv_next(f->csv, &row, err);
        if (r <= 0)
            return r;
        if ((row.n == 1 && row.len[0] == 0) ||
            (!row.quoted[0] && strncmp(row.field[0], "==", 2) == 0))
            continue; /* a blank line or a profiler message (==PROF==, ==WARNING==) in the table */
        break;
    }
    if (row.n != f->ncols) {
        rt_error_set(err, "%s: line %lu: expected %zu fields as in the header, found %zu%s",
                     f->path, row.line, f->ncols, row.n,
                     row.n < f->ncols ? " (truncated file or missing fields?)" : "");
        return -1;
    }
    f->rows++;
    long pid, id;
    if (parse_long(row.field[f->col[COL_ID]], &id) != 0) {
        rt_error_set(err, "%s: line %lu: field 'ID': '%.40s' is not a launch number", f->path,
                     row.line, row.field[f->col[COL_ID]]);
        return -1;
    }
    if (parse_long(row.field[f->col[COL_PID]], &pid) != 0) {
        rt_error_set(err, "%s: line %lu: field 'Process ID': '%.40s' is not a number", f->path,
                     row.line, row.field[f->col[COL_PID]]);
        return -1;
    }
    size_t ord;
    for (ord = 0; ord < f->npid; ord++)
        if (f->pid[ord] == pid)
            break;
    if (ord == f->npid) {
        f->pid = rt_xrealloc(f->pid, (f->npid + 1) * sizeof *f->pid);
        f->pid[f->npid++] = pid;
    }
    uint64_t key = ((uint64_t)ord << 40) | ((uint64_t)id & ((1ull << 40) - 1));

    /* Kernel name: the previous row's name in the common case, else the intern table. */
    const char *kn = row.field[f->col[COL_NAME]];
    size_t kl = row.len[f->col[COL_NAME]];
    uint32_t kname;
    if (f->have_last && im->names.len[f->last_kname] == kl &&
        memcmp(im->names.key[f->last_kname], kn, kl) == 0) {
        kname = f->last_kname;
    } else {
        kname = (uint32_t)rt_name_index_intern(&im->names, kn, kl);
        f->last_kname = kname;
        f->have_last = 1;
    }

    int sm = im->default_sm;
    if (f->col[COL_CC] >= 0) {
        const char *cc = row.field[f->col[COL_CC]];
        if (strncmp(cc, f->last_cc, sizeof f->last_cc) == 0 && f->last_cc[0]) {
            sm = f->last_sm;
        } else {
            int v = ncu_parse_arch(cc);
            if (v < 0) {
                rt_error_set(err,
                             "%s: line %lu: field 'CC': '%.20s' is not a compute capability "
                             "like 7.0",
                             f->path, row.line, cc);
                return -1;
            }
            snprintf(f->last_cc, sizeof f->last_cc, "%s", cc);
            f->last_sm = sm = v;
        }
        if (im->opt->arch)
            sm = im->default_sm; /* --arch wins over the file */
    }

    rr->key = key;
    rr->pid = pid;
    rr->id = id;
    rr->kname = kname;
    rr->sm = sm;
    rr->line = row.line;
    rr->slot = -1;
    rr->value = 0;

    const char *mname = row.field[f->col[COL_MNAME]];
    uint32_t mid = (uint32_t)rt_name_index_intern(&im->mnames, mname, row.len[f->col[COL_MNAME]]);
    if (mid >= im->nmslot) {
        im->mslot = rt_xrealloc(im->mslot, (mid + 1) * sizeof *im->mslot);
        for (size_t i = im->nmslot; i <= mid; i++)
            im->mslot[i] = ncu_map_slot(&im->map, im->mnames.key[i]);
        im->nmslot = mid + 1;
    }
    int slot = im->mslot[mid];
    if (slot < 0)
        return 1; /* a metric the mapping does not use: its unit and value are not read */
    const char *unit = row.field[f->col[COL_MUNIT]];
    double scale;
    if (strncmp(unit, f->last_unit[slot], sizeof f->last_unit[slot]) == 0 &&
        f->last_unit[slot][0]) {
        scale = f->last_scale[slot];
    } else {
        scale = rt_ncu_unit_scale(unit);
        if (scale == 0) {
            rt_error_set(err,
                         "%s: line %lu: field 'Metric Unit': unknown unit '%.40s' of metric '%s'",
                         f->path, row.line, unit, mname);
            return -1;
        }
        if (strlen(unit) < sizeof f->last_unit[slot]) {
            strcpy(f->last_unit[slot], unit);
            f->last_scale[slot] = scale;
        }
    }
    double v;
    const char *vs = row.field[f->col[COL_MVALUE]];
    if (parse_value(vs, row.len[f->col[COL_MVALUE]], &v) != 0) {
        rt_error_set(err,
                     "%s: line %lu: field 'Metric Value': '%.40s' is not a number (metric '%s')",
                     f->path, row.line, vs, mname);
        return -1;
    }
    rr->slot = slot;
    rr->value = v * scale;
    return 1;
}

/* The next launch of a file: its consecutive rows with one key (one row is read ahead). */
static int ncu_next_group(ncu_import *im, ncu_file *f, group *g)
{
    if (!f->have_next) {
        if (f->done)
            return 0;
        int r = ncu_read_row(im, f, &f->next);
        if (r < 0)
            return -1;
        if (r == 0) {
            f->done = 1;
            return 0;
        }
    }
    f->have_next = 0;
    const rowrec *rr = &f->next;
    g->key = rr->key;
    g->pid = rr->pid;
    g->id = rr->id;
    g->kname = rr->kname;
    g->sm = rr->sm;
    g->line = rr->line;
    g->present = 0;
    for (;;) {
        if (rr->slot >= 0) {
            g->value[rr->slot] = rr->value;
            g->present |= (uint64_t)1 << rr->slot;
        }
        int r = ncu_read_row(im, f, &f->next);
        if (r < 0)
            return -1;
        if (r == 0) {
            f->done = 1;
            return 1;
        }
        if (rr->key != g->key) {
            f->have_next = 1;
            return 1;
        }
        if (rr->kname != g->kname) {
            rt_error_set(im->err,
                         "%s: line %lu: launch %ld of process %ld has kernel '%.200s' here "
                         "but '%.200s' on line %lu",
                         f->path, rr->line, rr->id, rr->pid, im->names.key[rr->kname],
                         im->names.key[g->kname], g->line);
            return -1;
        }
    }
}

/* ---- pending launch table ---- */

static void pend_grow(ncu_import *im)
{
    size_t ns = im->ntable ? 2 * im->ntable : 64;
    int64_t *t = rt_xmalloc(ns * sizeof *t);
    for (size_t i = 0; i < ns; i++)
        t[i] = -1;
    for (size_t i = 0; i < im->ntable; i++) {
        int64_t e = im->table[i];
        if (e < 0)
            continue;
        size_t j = (im->pool[e].key * 0x9E3779B97F4A7C15ull >> 20) & (ns - 1);
        while (t[j] >= 0)
            j = (j + 1) & (ns - 1);
        t[j] = e;
    }
    free(im->table);
    im->table = t;
    im->ntable = ns;
}

static size_t pend_home(const ncu_import *im, uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull >> 20) & (im->ntable - 1);
}

/* The pending launch with this key, creating it when create is set; NULL if absent. */
static pending *pend_get(ncu_import *im, uint64_t key, int create)
{
    if (create && 2 * (im->nlive + 1) > im->ntable)
        pend_grow(im);
    if (im->ntable == 0)
        return NULL;
    size_t j = pend_home(im, key);
    while (im->table[j] >= 0) {
        if (im->pool[im->table[j]].key == key)
            return &im->pool[im->table[j]];
        j = (j + 1) & (im->ntable - 1);
    }
    if (!create)
        return NULL;
    size_t e;
    if (im->nfree) {
        e = im->free_list[--im->nfree];
    } else {
        if (im->npool == im->cappool) {
            im->cappool = im->cappool ? 2 * im->cappool : 16;
            im->pool = rt_xrealloc(im->pool, im->cappool * sizeof *im->pool);
            im->free_list = rt_xrealloc(im->free_list, im->cappool * sizeof *im->free_list);
        }
        e = im->npool++;
    }
    memset(&im->pool[e], 0, sizeof im->pool[e]);
    im->pool[e].key = key;
    im->table[j] = (int64_t)e;
    im->nlive++;
    return &im->pool[e];
}

static void pend_remove(ncu_import *im, uint64_t key)
{
    size_t j = pend_home(im, key);
    while (im->pool[im->table[j]].key != key)
        j = (j + 1) & (im->ntable - 1);
    im->free_list[im->nfree++] = (size_t)im->table[j];
    im->table[j] = -1;
    im->nlive--;
    /* Backward-shift deletion keeps probe chains whole without tombstones. */
    size_t i = j;
    for (;;) {
        i = (i + 1) & (im->ntable - 1);
        if (im->table[i] < 0)
            break;
        size_t h = pend_home(im, im->pool[im->table[i]].key);
        if ((i > j && (h <= j || h > i)) || (i < j && (h <= j && h > i))) {
            im->table[j] = im->table[i];
            im->table[i] = -1;
            j = i;
        }
    }
}

/* ---- finishing a launch ---- */

static ktotal *ncu_total(ncu_import *im, uint32_t kname)
{
    if (kname >= im->nk) {
        size_t nn = im->nk ? im->nk : 64;
        while (nn <= kname)
            nn *= 2;
        im->k = rt_xrealloc(im->k, nn * sizeof *im->k);
        for (size_t i = im->nk; i < nn; i++) {
            memset(&im->k[i], 0, sizeof im->k[i]);
            im->k[i].q = NULL;
        }
        im->nk = nn;
    }
    ktotal *t = &im->k[kname];
    if (!t->q)
        t->q = rt_xcalloc(im->nchosen ? im->nchosen : 1, sizeof(double));
    return t;
}

static const char *ncu_short(const char *name, char *buf, size_t n)
{
    size_t l = strlen(name);
    if (l < n)
        return name;
    snprintf(buf, n, "%.*s...", (int)(n - 4), name);
    return buf;
}

static int ncu_finish(ncu_import *im, pending *p)
{
    rt_error *err = im->err;
    char sbuf[160];
    /* Every metric a file had in its first launch must be there for this launch too. */
    for (size_t fi = 0; fi < im->nf; fi++) {
        uint64_t want = im->f[fi].metrics & im->needed;
        uint64_t miss = want & ~p->present;
        if (!miss)
            continue;
        int slot = __builtin_ctzll(miss);
        int in_file = (p->files >> fi) & 1;
        char msg[1200];
        if (in_file)
            snprintf(msg, sizeof msg,
                     "launch %ld of process %ld (kernel '%s', %s line %lu): metric '%s' missing "
                     "from %s",
                     p->id, p->pid, ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf),
                     im->f[p->first_file].path, p->first_line, im->map.metric[slot],
                     im->f[fi].path);
        else
            snprintf(msg, sizeof msg,
                     "launch %ld of process %ld (kernel '%s') is in %s (line %lu) but missing "
                     "from %s (metric '%s')",
                     p->id, p->pid, ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf),
                     im->f[p->first_file].path, p->first_line, im->f[fi].path,
                     im->map.metric[slot]);
        if (!im->opt->allow_missing) {
            rt_error_set(err, "%s (--allow-missing counts it as 0)", msg);
            return -1;
        }
        ncu_warn_limited(im, &im->missing, msg);
        break;
    }
    double v[NCU_MAX_METRICS];
    for (size_t s = 0; s < im->map.n_metric; s++) {
        double x = ((p->present >> s) & 1) ? p->value[s] : 0;
        if (isnan(x)) {
            if ((im->needed >> s) & 1) {
                char msg[1200];
                snprintf(msg, sizeof msg,
                         "launch %ld (kernel '%s'): metric '%s' is nan, counted as 0", p->id,
                         ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf), im->map.metric[s]);
                ncu_warn_limited(im, &im->nan_values, msg);
            }
            x = 0;
        }
        v[s] = x;
    }
    /* --tensor-factor was written into every architecture's constants at the start. */
    const double *cst = ncu_map_constants(&im->map, p->sm);
    double cycles = ncu_formula_eval(&im->map.cycles, v, cst, 0);
    double rate = ncu_formula_eval(&im->map.rate, v, cst, 0);
    double lt = rate > 0 ? cycles / rate : 0;
    ktotal *t;
    ktotal one = {0};
    if (im->per_launch) {
        t = &one;
        one.q = im->launch_q;
        memset(one.q, 0, (im->nchosen ? im->nchosen : 1) * sizeof *one.q);
    } else {
        t = ncu_total(im, p->kname);
    }
    t->n += 1;
    t->cycles += cycles;
    t->rate += rate;
    t->time_sum += lt;
    for (size_t i = 0; i < im->nchosen; i++) {
        double x = ncu_formula_eval(&im->map.q[im->chosen[i]].f, v, cst, lt);
        if (isnan(x)) {
            /* A constant the mapping lacks for this architecture. */
            char msg[512];
            snprintf(msg, sizeof msg,
                     "%s of launch %ld is undefined on sm_%d (a constant the mapping "
                     "lacks?), counted as 0",
                     im->map.q[im->chosen[i]].quantity, p->id, p->sm);
            ncu_warn_limited(im, &im->nan_values, msg);
            x = 0;
        }
        t->q[i] += x;
    }
    if (im->per_launch) {
        rt_kernel *k = rt_profile_add_kernel(im->per_launch, im->names.key[p->kname]);
        k->invocations = 1;
        k->time = lt;
        for (size_t i = 0; i < im->nchosen; i++) {
            if (im->chosen[i] < 0)
                continue;
            const char *q = im->map.q[im->chosen[i]].quantity;
            rt_values_set(q[0] == 'f' ? &k->flops : &k->bytes, q + 6, t->q[i]);
        }
        char num[32];
        snprintf(num, sizeof num, "%ld", p->id);
        rt_tags_set(&k->tags, "launch", num);
        snprintf(num, sizeof num, "%ld", p->pid);
        rt_tags_set(&k->tags, "process", num);
    }
    im->launches++;
    return 0;
}

/* Merge one file's view of a launch into the pending table; finish it once every file has it. */
static int ncu_merge(ncu_import *im, size_t fi, const group *g)
{
    rt_error *err = im->err;
    pending *p = pend_get(im, g->key, 1);
    if (p->files == 0) {
        p->pid = g->pid;
        p->id = g->id;
        p->kname = g->kname;
        p->sm = g->sm;
        p->first_file = (int)fi;
        p->first_line = g->line;
    } else if (p->kname != g->kname) {
        char a[160], b[160];
        rt_error_set(err, "launch %ld: kernel '%s' in %s (line %lu) but '%s' in %s (line %lu)",
                     g->id, ncu_short(im->names.key[p->kname], a, sizeof a),
                     im->f[p->first_file].path, p->first_line,
                     ncu_short(im->names.key[g->kname], b, sizeof b), im->f[fi].path, g->line);
        return -1;
    } else if ((p->files >> fi) & 1) {
        rt_error_set(err,
                     "%s: line %lu: launch %ld of process %ld appears twice (rows not "
                     "together)",
                     im->f[fi].path, g->line, g->id, g->pid);
        return -1;
    }
    uint64_t add = g->present & ~p->present;
    for (uint64_t m = add; m; m &= m - 1) {
        int s = __builtin_ctzll(m);
        p->value[s] = g->value[s];
    }
    p->present |= add;
    p->files |= (uint64_t)1 << fi;
    if (p->files == im->all_files) {
        if (ncu_finish(im, p) != 0)
            return -1;
        pend_remove(im, g->key);
    }
    return 0;
}

/* Choose, per quantity, the first formula whose metrics the files hold. */
static int ncu_choose(ncu_import *im, uint64_t avail)
{
    rt_error *err = im->err;
    uint64_t tmask = im->map.cycles.metrics | im->map.rate.metrics;
    if ((tmask & avail) != tmask) {
        int s = __builtin_ctzll(tmask & ~avail);
        rt_error_set(err,
                     "no time: metric '%s' is in none of the inputs (collect it with "
                     "`rooftime ncu-metrics`)",
                     im->map.metric[s]);
        if (im->nf == 1)
            rt_error_prefix(err, "%s", im->f[0].path);
        return -1;
    }
    im->needed = tmask;
    im->chosen = rt_xcalloc(im->map.n_q + 1, sizeof *im->chosen);
    for (size_t i = 0; i < im->map.n_q; i++) {
        const char *qn = im->map.q[i].quantity;
        int seen = 0;
        for (size_t j = 0; j < im->nchosen; j++)
            if (strcmp(im->map.q[im->chosen[j]].quantity, qn) == 0)
                seen = 1;
        if (seen)
            continue;
        int pick = -1;
        for (size_t j = i; j < im->map.n_q && pick < 0; j++) {
            const ncu_quantity *q = &im->map.q[j];
            if (strcmp(q->quantity, qn) == 0 && (q->f.metrics & avail) == q->f.metrics)
                pick = (int)j;
        }
        if (pick < 0) {
            uint64_t miss = im->map.q[i].f.metrics & ~avail;
            if (im->warnings)
                rt_warnings_add(im->warnings,
                                "%s not imported: metric '%s' is in none of the "
                                "inputs",
                                qn, im->map.metric[__builtin_ctzll(miss)]);
            continue;
        }
        im->chosen[im->nchosen++] = pick;
        im->needed |= im->map.q[pick].f.metrics;
    }
    return 0;
}

static void ncu_import_release(ncu_import *im)
{
    for (size_t i = 0; i < im->nf; i++) {
        rt_csv_free(im->f[i].csv);
        free(im->f[i].pid);
    }
    free(im->f);
    for (size_t i = 0; i < im->nk; i++)
        free(im->k[i].q);
    free(im->k);
    rt_name_index_release(&im->names);
    rt_name_index_release(&im->mnames);
    free(im->mslot);
    free(im->pool);
    free(im->free_list);
    free(im->table);
    free(im->chosen);
    free(im->launch_q);
    ncu_map_release(&im->map);
}

int rt_import_ncu(const char *const *paths, size_t n, const rt_ncu_options *opt, rt_profile **out,
                  rt_warnings *w, rt_error *err)
{
    rt_ncu_options dflt = {0};
    if (!opt)
        opt = &dflt;
    *out = NULL;
    if (n == 0) {
        rt_error_set(err, "no input files");
        return -1;
    }
    if (n > NCU_MAX_FILES) {
        rt_error_set(err, "at most %d input files (one per metric is about 15)", NCU_MAX_FILES);
        return -1;
    }
    ncu_import im = {.opt = opt, .warnings = w, .err = err, .per_launch = NULL};
    int rc = -1;
    rt_profile *prof = NULL;
    group *g = rt_xmalloc(sizeof *g);
    char *mpath = opt->metrics_file ? rt_strdup(opt->metrics_file)
                                    : rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    if (ncu_map_load(mpath, &im.map, err) != 0)
        goto done;
    im.default_sm = im.map.default_sm;
    if (opt->arch) {
        im.default_sm = ncu_parse_arch(opt->arch);
        if (im.default_sm < 0) {
            rt_error_set(err, "'%s' is not an architecture like sm_70", opt->arch);
            goto done;
        }
    }
    if (opt->tensor_factor > 0 && im.map.tensor_factor_const < 0) {
        rt_error_set(err, "%s: the mapping has no tensor_factor constant to override", mpath);
        goto done;
    }
    prof = rt_profile_new();
    if (opt->per_launch)
        im.per_launch = prof;
    im.f = rt_xcalloc(n, sizeof *im.f);
    im.nf = n;
    im.all_files = n == 64 ? ~0ull : (((uint64_t)1 << n) - 1);
    for (size_t i = 0; i < n; i++) {
        ncu_file *f = &im.f[i];
        f->path = paths[i];
        f->csv = rt_csv_open(paths[i], err);
        if (!f->csv || ncu_find_header(&im, f) != 0)
            goto done;
    }
    /* First launch of each file: which metrics it holds decides the formulas. */
    uint64_t avail = 0;
    group *first = rt_xcalloc(n, sizeof *first);
    for (size_t i = 0; i < n; i++) {
        int r = ncu_next_group(&im, &im.f[i], &first[i]);
        if (r < 0) {
            free(first);
            goto done;
        }
        if (r == 0) {
            rt_error_set(err, "%s: line %lu: no data rows after the header", im.f[i].path,
                         rt_csv_line(im.f[i].csv));
            free(first);
            goto done;
        }
        im.f[i].metrics = first[i].present;
        avail |= first[i].present;
    }
    if (ncu_choose(&im, avail) != 0) {
        free(first);
        goto done;
    }
    im.launch_q = rt_xcalloc(im.nchosen + 1, sizeof *im.launch_q);
    if (opt->tensor_factor > 0)
        for (size_t a = 0; a < im.map.n_arch; a++)
            im.map.arch[a].value[im.map.tensor_factor_const] = opt->tensor_factor;
    /* Say what a file without a CC column was taken to be when it matters (tensor FLOPs). */
    int no_cc = -1;
    for (size_t i = 0; i < n; i++)
        if (im.f[i].col[COL_CC] < 0 && no_cc < 0)
            no_cc = (int)i;
    if (no_cc >= 0 && !opt->arch && opt->tensor_factor <= 0 && im.warnings &&
        im.map.tensor_factor_const >= 0)
        for (size_t i = 0; i < im.nchosen; i++)
            if (strcmp(im.map.q[im.chosen[i]].quantity, "flops.tensor") == 0) {
                const double *cst = ncu_map_constants(&im.map, im.default_sm);
                rt_warnings_add(im.warnings,
                                "%s: no CC column: sm_%d assumed, %g FLOPs per tensor instruction "
                                "(--arch or --tensor-factor to change)",
                                im.f[no_cc].path, im.default_sm,
                                cst ? cst[im.map.tensor_factor_const] : NAN);
                break;
            }
    for (size_t i = 0; i < n; i++)
        if (ncu_merge(&im, i, &first[i]) != 0) {
            free(first);
            goto done;
        }
    free(first);
    /* One launch from each file in turn: launches in the same order in every file join at once. */
    for (;;) {
        int progress = 0;
        for (size_t i = 0; i < n; i++) {
            int r = ncu_next_group(&im, &im.f[i], g);
            if (r < 0)
                goto done;
            if (r == 0)
                continue;
            progress = 1;
            if (ncu_merge(&im, i, g) != 0)
                goto done;
        }
        if (!progress)
            break;
    }
    /* Launches some file never had. */
    while (im.nlive > 0) {
        pending *p = NULL;
        for (size_t j = 0; j < im.ntable; j++)
            if (im.table[j] >= 0 && (!p || im.pool[im.table[j]].key < p->key))
                p = &im.pool[im.table[j]];
        if (ncu_finish(&im, p) != 0)
            goto done;
        pend_remove(&im, p->key);
    }

    /* The profile. */
    prof->tool = rt_strdup("ncu");
    json_t *files = json_array(), *layouts = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(files, json_string(paths[i]));
        json_array_append_new(layouts, json_string(im.f[i].layout));
    }
    json_t *chosen = json_object();
    for (size_t i = 0; i < im.nchosen; i++)
        json_object_set_new(chosen, im.map.q[im.chosen[i]].quantity,
                            json_string(im.map.q[im.chosen[i]].f.text));
    json_t *tsum = json_object();
    if (!opt->per_launch) {
        for (size_t id = 0; id < im.names.n; id++) {
            ktotal *t = &im.k[id];
            if (id >= im.nk || t->n == 0)
                continue;
            rt_kernel *k = rt_profile_add_kernel(prof, im.names.key[id]);
            k->invocations = t->n;
            /* The authors' aggregation: total cycles at the mean clock rate. */
            k->time = t->rate > 0 ? t->cycles / (t->rate / t->n) : 0;
            for (size_t i = 0; i < im.nchosen; i++) {
                const char *q = im.map.q[im.chosen[i]].quantity;
                rt_values_set(q[0] == 'f' ? &k->flops : &k->bytes, q + 6, t->q[i]);
            }
            json_object_set_new(tsum, im.names.key[id], json_real(t->time_sum));
        }
    }
    prof->method = rt_strdup(
        opt->per_launch
            ? "Nsight Compute metrics, one kernel per launch; time = cycles / rate of the launch"
            : "Nsight Compute metrics aggregated per kernel name; time = sum of cycles / (sum of "
              "rates / launches), the authors' aggregation (the sum of per-launch cycles / rate is "
              "in extra.ncu.time_sum_of_launches)");
    json_t *x = json_object();
    json_object_set_new(x, "files", files);
    json_object_set_new(x, "layouts", layouts);
    json_object_set_new(x, "mapping", json_string(mpath));
    json_object_set_new(x, "formulas", chosen);
    json_object_set_new(
        x, "time",
        json_string(opt->per_launch ? "cycles / rate per launch" : "sum of cycles / mean rate"));
    json_object_set_new(x, "launches", json_integer((json_int_t)im.launches));
    if (opt->tensor_factor > 0)
        json_object_set_new(x, "tensor_factor", json_real(opt->tensor_factor));
    if (opt->per_launch)
        json_decref(tsum);
    else
        json_object_set_new(x, "time_sum_of_launches", tsum);
    if (!prof->extra)
        prof->extra = json_object();
    json_object_set_new(prof->extra, "ncu", x);
    if (im.warnings) {
        if (im.missing > NCU_MAX_WARN)
            rt_warnings_add(im.warnings, "%lu launches lacked a metric in all (counted as 0)",
                            im.missing);
        if (im.nan_values > NCU_MAX_WARN)
            rt_warnings_add(im.warnings, "%lu metric values were nan in all (counted as 0)",
                            im.nan_values);
    }
    *out = prof;
    prof = NULL;
    rc = 0;
done:
    rt_profile_free(prof);
    ncu_import_release(&im);
    free(g);
    free(mpath);
    return rc;
}
