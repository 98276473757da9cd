/* Nsight Compute import, reading: find the table, parse rows, group them by launch. */
#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/util/demangle.h"
#include "rooftime/util/strings.h"

static const char *const col_names[COL_N] = {
    "ID",           "Process ID", "Kernel Name", "Metric Name", "Metric Unit",
    "Metric Value", "CC",         "Grid Size",   "Rule Name",   "Body Item Label"};

/* ncu 2025's columns of its analysis rules, after Metric Value: a metric row leaves them out. */
static int rule_column(const char *h)
{
    return strncmp(h, "Rule ", 5) == 0 || strncmp(h, "Estimated Speedup", 17) == 0;
}

int rt_ncu_warn_limited(ncu_import *im, unsigned long *count, const char *msg)
{
    (*count)++;
    if (im->warnings && *count <= NCU_MAX_WARN)
        rt_warnings_add(im->warnings, "%s", msg);
    return 0;
}

/* Find the table header ("ID","Process ID",...) after the program's own output. */
int rt_ncu_find_header(ncu_import *im, ncu_file *f)
{
    static const char sig[] = "\"ID\",\"Process ID\"";
    rt_error *err = im->err;
    const char *line;
    size_t len;
    for (;;) {
        int r = rt_csv_peek_line(f->csv, &line, &len, err);
        if (r < 0)
            return -1;
        if (r == 0) { /* the end: one line past the last, said so */
            unsigned long n = rt_csv_line(f->csv) - 1;
            rt_error_set(err,
                         "%s: line %lu (the end, after %lu line%s of other output): no Nsight "
                         "Compute table header (\"ID\",\"Process ID\",...) found; is this the "
                         "output of `ncu --csv`?",
                         f->path, n + 1, n, n == 1 ? "" : "s");
            return -1;
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
    size_t last = 0; /* the last column that is no rule column */
    for (size_t i = 0; i < row.n; i++) {
        const char *h = row.field[i];
        for (int c = 0; c < COL_N; c++) {
            if (strcmp(h, col_names[c]) != 0)
                continue;
            if (f->col[c] >= 0) { /* which one to read would be a guess */
                rt_error_set(err, "%s: line %lu: columns %d and %zu are both named '%s'", f->path,
                             row.line, f->col[c] + 1, i + 1, col_names[c]);
                return -1;
            }
            f->col[c] = (int)i;
        }
        if (strcmp(h, "Kernel Time") == 0)
            kernel_time = 1;
        if (strcmp(h, "Block Size") == 0)
            block = 1;
        if (!rule_column(h))
            last = i;
    }
    for (int c = 0; c < COL_CC; c++)
        if (f->col[c] < 0) {
            rt_error_set(err, "%s: line %lu: the header has no column '%s'", f->path, row.line,
                         col_names[c]);
            return -1;
        }
    f->ncols = row.n;
    f->min_fields = last + 1;
    f->layout = f->col[COL_LABEL] >= 0 ? "section page (Body Item Label)"
                : kernel_time          ? "2019.5/2020.1 (Kernel Time)"
                : f->col[COL_RULE] >= 0
                    ? "2023+ (Block Size, Grid Size, Device, CC; rule columns)"
                    : (block ? "2020.2+ (Block Size, Grid Size, Device, CC)" : "unknown");
    return 0;
}

void rt_ncu_section_error(ncu_import *im, const ncu_file *f, int sm)
{
    rt_error_set(im->err,
                 "%s: a section page (column 'Body Item Label'): its rows carry ncu's labels "
                 "('%.60s' ...), none of them a metric rooftime reads. Collect a metrics page "
                 "with the `ncu --csv --print-units base --print-kernel-base mangled --metrics "
                 "...` command that `rooftime ncu-metrics --arch sm_%d` prints, or add "
                 "`--print-metric-name name` to the section's command line so that its rows "
                 "carry metric names",
                 f->path, f->first_mname, sm);
}

/* s[0..n) without its thousands separators into buf (cap bytes, NUL-terminated): Nsight writes
 * "1,288,549,677,760" and "1,619,895,602.07". A comma groups three digits of the whole part and
 * nothing else: "1,5" (a decimal comma), "1.234,5", ",5" or "1,,000" is -1, never 15 or 1.2345. */
static int ungroup(const char *s, size_t n, char *buf, size_t cap)
{
    size_t i = 0, w = 0, group = 0;
    int commas = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        buf[w++] = s[i++];
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ','); i++) {
        if (s[i] == ',') {
            if (group == 0 || group > 3 || (commas && group != 3))
                return -1;
            commas = 1;
            group = 0;
            continue;
        }
        group++;
        if (w + 1 >= cap)
            return -1;
        buf[w++] = s[i];
    }
    if (commas && group != 3)
        return -1;
    for (; i < n; i++) {
        if (s[i] == ',' || w + 1 >= cap)
            return -1;
        buf[w++] = s[i];
    }
    buf[w] = '\0';
    return w ? (int)w : -1;
}

static int parse_long(const char *s, long *out)
{
    char buf[32];
    if (ungroup(s, strlen(s), buf, sizeof buf) < 0)
        return -1;
    long v = 0;
    for (const char *p = buf; *p; p++) {
        if (*p < '0' || *p > '9' || v > (LONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return 0;
}

/* A metric value: thousands separators stripped (ungroup); nan and n/a are NAN. */
static int parse_value(const char *s, size_t n, double *out)
{
    char buf[64];
    int w = ungroup(s, n, buf, sizeof buf);
    if (w < 0)
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

/* "n/a": ncu 2025's value of a metric this GPU does not have (flop_count_hp.sum on CC 12.0). */
static int is_na_text(const char *s, size_t n)
{
    return n == 3 && memcmp(s, "n/a", 3) == 0;
}

/* A value Nsight writes for a metric it could not collect. */
static int is_nan_text(const char *s, size_t n)
{
    return (n == 3 &&
            (memcmp(s, "nan", 3) == 0 || memcmp(s, "NaN", 3) == 0 || memcmp(s, "n/a", 3) == 0)) ||
           (n == 4 && memcmp(s, "-nan", 4) == 0);
}

/* A grid of no blocks, "(0, 0, 0)": how Nsight records a launch that failed. */
static int is_zero_grid(const char *s)
{
    int zero = 0;
    for (; *s; s++) {
        if (*s == '0')
            zero = 1;
        else if (*s != '(' && *s != ')' && *s != ',' && *s != ' ')
            return 0;
    }
    return zero;
}

/* The kernel's name id: a mangled name (ncu --print-kernel-base mangled) demangled as the
 * collector demangles it, once per distinct name; the previous row's in the common case. */
static uint32_t ncu_kname(ncu_import *im, ncu_file *f, const char *kn, size_t kl)
{
    if (f->last_raw && f->last_raw_len == kl && memcmp(f->last_raw, kn, kl) == 0)
        return f->last_kname;
    uint32_t id;
    if (rt_is_mangled(kn, kl)) {
        size_t m = rt_name_index_intern(&im->mangled, kn, kl);
        if (m >= im->nkname_of) {
            im->kname_of = rt_xrealloc(im->kname_of, (m + 1) * sizeof *im->kname_of);
            im->nkname_of = m + 1;
            char *d = rt_demangle(kn, kl);
            im->kname_of[m] = (uint32_t)(d ? rt_name_index_intern(&im->names, d, strlen(d))
                                           : rt_name_index_intern(&im->names, kn, kl));
            free(d);
        }
        id = im->kname_of[m];
    } else {
        id = (uint32_t)rt_name_index_intern(&im->names, kn, kl);
    }
    if (kl + 1 > f->last_raw_cap) {
        f->last_raw_cap = kl + 1;
        f->last_raw = rt_xrealloc(f->last_raw, f->last_raw_cap);
    }
    memcpy(f->last_raw, kn, kl);
    f->last_raw_len = kl;
    f->last_kname = id;
    return id;
}

/* The next row of data (blank lines, profiler messages and rule rows skipped), its field count
 * checked: 1, 0 at the end, -1 on error. */
static int ncu_next_data_row(ncu_import *im, ncu_file *f, rt_csv_row *row)
{
    rt_error *err = im->err;
    for (;;) {
        int r = rt_csv_next(f->csv, row, err);
        if (r <= 0)
            return r;
        if ((row->n == 1 && row->len[0] == 0) ||
            (!row->quoted[0] && strncmp(row->field[0], "==", 2) == 0))
            continue; /* a blank line or a profiler message (==PROF==, ==WARNING==) in the table */
        if (row->n > f->ncols || row->n < f->min_fields) {
            if (f->min_fields < f->ncols)
                rt_error_set(err,
                             "%s: line %lu: expected %zu fields as in the header, or at least "
                             "%zu (a metric row may leave out the rule columns after them), "
                             "found %zu%s",
                             f->path, row->line, f->ncols, f->min_fields, row->n,
                             row->n < f->min_fields ? " (truncated file or missing fields?)" : "");
            else
                rt_error_set(err, "%s: line %lu: expected %zu fields as in the header, found %zu%s",
                             f->path, row->line, f->ncols, row->n,
                             row->n < f->ncols ? " (truncated file or missing fields?)" : "");
            return -1;
        }
        int rc = f->col[COL_RULE];
        if (rc >= 0 && (size_t)rc < row->n && row->len[rc] > 0 &&
            row->len[f->col[COL_MNAME]] == 0) {
            f->rule_rows++; /* one of ncu's analysis rules: guidance, no metric */
            continue;
        }
        if (!f->first_mname[0])
            snprintf(f->first_mname, sizeof f->first_mname, "%s", row->field[f->col[COL_MNAME]]);
        return 1;
    }
}

/* The unit of a metric's value (cached per slot: a file gives one metric one unit); the first
 * unit ncu scaled for display is remembered for the file's warning. NULL with the error. */
static const rt_ncu_unit *ncu_unit(ncu_import *im, ncu_file *f, int slot, const rt_csv_row *row,
                                   const char *mname)
{
    const char *unit = row->field[f->col[COL_MUNIT]];
    size_t ul = row->len[f->col[COL_MUNIT]];
    /* the cache holds the unit and its NUL (the field has one at ul): same bytes, same length */
    if (f->last_u[slot] && ul < sizeof f->last_unit[slot] &&
        memcmp(unit, f->last_unit[slot], ul + 1) == 0)
        return f->last_u[slot];
    const rt_ncu_unit *u = rt_ncu_units_find(&im->units, unit, ul);
    if (!u) {
        rt_error_set(im->err,
                     "%s: line %lu: field 'Metric Unit': unknown unit '%.40s' of metric '%s' (the "
                     "units rooftime knows are in data/ncu/units.json)",
                     f->path, row->line, unit, mname);
        return NULL;
    }
    if (u->scaled && !f->scaled_unit) {
        f->scaled_unit = u->name;
        f->scaled_line = row->line;
    }
    if (ul < sizeof f->last_unit[slot]) {
        memcpy(f->last_unit[slot], unit, ul + 1);
        f->last_u[slot] = u;
    }
    return u;
}

/* Parse the next data row into *rr: 1 = a row, 0 = the end, -1 = error. */
static int ncu_read_row(ncu_import *im, ncu_file *f, rowrec *rr)
{
    rt_error *err = im->err;
    rt_csv_row row;
    int r = ncu_next_data_row(im, f, &row);
    if (r <= 0)
        return r;
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

    uint32_t kname = ncu_kname(im, f, row.field[f->col[COL_NAME]], row.len[f->col[COL_NAME]]);

    int sm = im->default_sm;
    if (f->col[COL_CC] >= 0) {
        const char *cc = row.field[f->col[COL_CC]];
        if (strncmp(cc, f->last_cc, sizeof f->last_cc) == 0 && f->last_cc[0]) {
            sm = f->last_sm;
        } else {
            int v = rt_ncu_parse_arch(cc);
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
    rr->grid_zero = f->col[COL_GRID] < 0 || is_zero_grid(row.field[f->col[COL_GRID]]);
    rr->nan = is_nan_text(row.field[f->col[COL_MVALUE]], row.len[f->col[COL_MVALUE]]);
    rr->na = is_na_text(row.field[f->col[COL_MVALUE]], row.len[f->col[COL_MVALUE]]);

    const char *mname = row.field[f->col[COL_MNAME]];
    uint32_t mid = (uint32_t)rt_name_index_intern(&im->mnames, mname, row.len[f->col[COL_MNAME]]);
    if (mid >= im->nmslot) {
        im->mslot = rt_xrealloc(im->mslot, (mid + 1) * sizeof *im->mslot);
        for (size_t i = im->nmslot; i <= mid; i++)
            im->mslot[i] = rt_ncu_map_slot(&im->map, im->mnames.key[i]);
        im->nmslot = mid + 1;
    }
    int slot = im->mslot[mid];
    if (slot < 0)
        return 1; /* a metric the mapping does not use: its unit and value are not read */
    rr->slot = slot;
    if (rr->na)
        return 1; /* not collected: absent, whatever its unit */
    const rt_ncu_unit *u = ncu_unit(im, f, slot, &row, mname);
    if (!u)
        return -1;
    double scale = u->scale, v;
    const char *vs = row.field[f->col[COL_MVALUE]];
    if (parse_value(vs, row.len[f->col[COL_MVALUE]], &v) != 0) {
        rt_error_set(err,
                     "%s: line %lu: field 'Metric Value': '%.40s' is not a number (metric '%s')%s",
                     f->path, row.line, vs, mname,
                     strchr(vs, ',') ? "; a comma only groups thousands, as in 1,234.5" : "");
        return -1;
    }
    if (!isnan(v) && (v < 0 || !isfinite(v * scale))) { /* nan: counted as missing later */
        rt_error_set(err, "%s: line %lu: field 'Metric Value': %.40s is %s (metric '%s')", f->path,
                     row.line, vs, v < 0 ? "negative" : "out of range", mname);
        return -1;
    }
    rr->value = v * scale;
    return 1;
}

/* The next launch of a file: its consecutive rows with one key (one row is read ahead). */
int rt_ncu_next_group(ncu_import *im, ncu_file *f, group *g)
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
    g->na = 0;
    g->failed = 1;
    for (;;) {
        g->failed &= rr->nan && rr->grid_zero;
        if (rr->slot >= 0 && rr->na) {
            g->na |= (uint64_t)1 << rr->slot;
        } else if (rr->slot >= 0) {
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
