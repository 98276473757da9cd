/* Import a processed result table (one kernel or config per row), such as the paper's notebook
 * tables. */
#define _GNU_SOURCE
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table-internal.h"
#include "table-read.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/table.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/*
 * Column names recognised without --map: the time-based roofline paper's notebooks (V100 tables)
 * and the per-config totals such notebooks write (`CUDA Time Avg`, `FP32 FLOPs Avg`, `DRAM Bytes
 * Avg` ...). A quantity takes the first of its names that the table has.
 */
static const rt_table_map table_defaults[] = {
    {"time", "CUDA Time"},
    {"time", "CUDA Time Avg"},
    {"invocations", "Invocations"},
    {"invocations", "Invocations Avg"},
    {"flops.fp64", "FP64 FLOPs"},
    {"flops.fp64", "FP64 FLOPs Avg"},
    {"flops.fp32", "FP32 FLOPs"},
    {"flops.fp32", "FP32 FLOPs Avg"},
    {"flops.fp16", "FP16 FLOPs"},
    {"flops.fp16", "FP16 FLOPs Avg"},
    {"flops.tensor", "TC FLOPs"},
    {"flops.tensor", "TC FLOPs Avg"},
    {"flops.total", "FLOPs"},
    {"flops.total", "FLOPs Avg"},
    {"bytes.HBM", "DRAM Bytes"},
    {"bytes.HBM", "DRAM Bytes Avg"},
    {"bytes.HBM", "HBM Bytes"},
    {"bytes.HBM", "HBM Bytes Avg"},
    {"bytes.L2", "L2 Bytes"},
    {"bytes.L2", "L2 Bytes Avg"},
    {"bytes.L1", "L1 Bytes"},
    {"bytes.L1", "L1 Bytes Avg"},
    {"ai.HBM", "DRAM AI"},
    {"ai.L2", "L2 AI"},
    {"ai.L1", "L1 AI"},
};
static const char *const table_default_name_columns[] = {"Input Shape", "Kernel Shape"};

/* A column name that reads as a measurement rather than a parameter: a word such as FLOPs, Bytes,
 * AI, Transactions, Fraction, Avg, or a last word Time ("CUDA Time", but not "Time Steps"). */
static int measurement_name(const char *name)
{
    static const char *const words[] = {
        "flop",         "flops",    "gflop/s",   "tflop/s",  "byte",   "bytes",      "ai",
        "transactions", "fraction", "intensity", "duration", "cycles", "sectors",    "avg",
        "std",          "mean",     "median",    "sum",      "total",  "invocations"};
    const char *s = name, *last = NULL;
    size_t lastlen = 0;
    while (*s) {
        while (*s && strchr(" _-()[]", *s))
            s++;
        const char *b = s;
        while (*s && !strchr(" _-()[]", *s))
            s++;
        size_t n = (size_t)(s - b);
        if (!n)
            continue;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i]) == n && strncasecmp(words[i], b, n) == 0)
                return 1;
        last = b;
        lastlen = n;
    }
    return last && lastlen == 4 && strncasecmp(last, "time", 4) == 0;
}

static int cell_number(const table *t, size_t r, int c, double *v, rt_error *err)
{
    const char *s = table_cell(t, r, (size_t)c);
    if (!rt_parse_double(s, v)) {
        rt_error_set(err, "%s: line %lu: column '%s': '%.40s' is not a number", t->path, t->line[r],
                     t->col[c], s);
        return -1;
    }
    return 0;
}

/* A "Kernel Shape" HxWxCxF: "Kernel Size" (H, or HxW) and "Filters" (F) as separate parameters. */
static void kernel_shape_tags(rt_tags *tags, const char *shape)
{
    long h, w, ci, f;
    char tail;
    if (sscanf(shape, "%ldx%ldx%ldx%ld%c", &h, &w, &ci, &f, &tail) != 4)
        return;
    char buf[64];
    if (h == w)
        snprintf(buf, sizeof buf, "%ld", h);
    else
        snprintf(buf, sizeof buf, "%ldx%ld", h, w);
    rt_tags_set(tags, "Kernel Size", buf);
    snprintf(buf, sizeof buf, "%ld", f);
    rt_tags_set(tags, "Filters", buf);
}

/* Rows whose tags are all equal would be one config: an error naming both rows. Rows that are
 * kernels (a name column is mapped) may share a config; those with the same name too would merge.
 */
static int table_check_merge(const table *t, size_t r, const char *kname, const rt_tags *tags,
                             rt_name_index *seen, rt_error *err)
{
    size_t cap = 16 + (kname ? 2 * strlen(kname) : 0);
    for (size_t i = 0; i < tags->n; i++)
        cap += strlen(tags->v[i].key) + strlen(tags->v[i].value) + 4;
    char *key = rt_xmalloc(cap), *shown = rt_xmalloc(cap);
    size_t len = (size_t)snprintf(key, cap, "%s\x1d", kname ? kname : "");
    size_t slen = (size_t)snprintf(shown, cap, "%s", kname ? kname : "");
    for (size_t i = 0; i < tags->n; i++) {
        len += (size_t)snprintf(key + len, cap - len, "%s\x1f%s\x1e", tags->v[i].key,
                                tags->v[i].value);
        slen += (size_t)snprintf(shown + slen, cap - slen, "%s%s=%s", slen ? ", " : "",
                                 tags->v[i].key, tags->v[i].value);
    }
    int rc = 0;
    size_t prev = rt_name_index_get(seen, key, len);
    if (prev != (size_t)-1) {
        rt_error_set(err,
                     "%s: lines %lu and %lu have the same %s (%.600s): they would merge into one "
                     "%s; tell them apart with a column (--map tag.NAME=COLUMN) or remove one",
                     t->path, t->line[prev], t->line[r], kname ? "name and tags" : "tags",
                     slen ? shown : "none", kname ? "kernel" : "config");
        rc = -1;
    } else {
        rt_name_index_put(seen, key, len, r);
    }
    free(key);
    free(shown);
    return rc;
}

/* The names of the columns flagged in mark, comma-separated, as a provenance note. */
static void table_note_columns(rt_tags *notes, const char *key, const table *t,
                               const unsigned char *mark)
{
    size_t cap = 1;
    for (size_t c = 0; c < t->ncol; c++)
        if (mark[c])
            cap += strlen(t->col[c]) + 2;
    if (cap == 1)
        return;
    char *s = rt_xmalloc(cap);
    size_t len = 0;
    for (size_t c = 0; c < t->ncol; c++)
        if (mark[c])
            len += (size_t)snprintf(s + len, cap - len, "%s%s", len ? ", " : "", t->col[c]);
    rt_tags_set(notes, key, s);
    free(s);
}

static void table_import_release(table_import *ti)
{
    free(ti->base);
    free(ti->q);
    free(ti->join);
    free(ti->keycol);
    free(ti->maincol);
    rt_name_index_release(&ti->keys);
    free(ti->is_tag);
    free(ti->in_name);
    free(ti->unused);
    rt_name_index_release(&ti->seen);
    rt_table_release(&ti->t[0]);
    rt_table_release(&ti->t[1]);
}

/* The table's header, and the AI table's. */
static int open_tables(table_import *ti, rt_error *err)
{
    const rt_table_options *opt = ti->opt;
    size_t max_bytes = opt->max_bytes ? opt->max_bytes : RT_TABLE_MAX_BYTES;
    if (opt->ai_file && strcmp(ti->path, "-") == 0 && strcmp(opt->ai_file, "-") == 0) {
        rt_error_set(err, "standard input ('-') can be the table or the AI table, not both");
        return -1;
    }
    if (rt_table_open(ti->path, max_bytes, &ti->t[0], err) != 0)
        return -1;
    ti->nt = 1;
    if (opt->ai_file) {
        if (rt_table_open(opt->ai_file, max_bytes, &ti->t[1], err) != 0)
            return -1;
        ti->nt = 2;
    }
    return 0;
}

/* The column of x in either table (x->file, x->col; -1 when none has it). */
static void find_column(const table_import *ti, qcol *x)
{
    for (int f = 0; f < ti->nt && x->col < 0; f++)
        if ((x->col = rt_table_find(&ti->t[f], x->column)) >= 0)
            x->file = f;
}

/* Quantities: the user's mappings, then the defaults for quantities they left alone. */
static int choose_quantities(table_import *ti, rt_error *err)
{
    const rt_table_options *opt = ti->opt;
    const size_t n_defaults = sizeof table_defaults / sizeof table_defaults[0];
    ti->q = rt_xcalloc(opt->n_map + n_defaults + 1, sizeof *ti->q);
    for (size_t i = 0; i < opt->n_map; i++) {
        const char *qn = opt->map[i].quantity;
        if (strcmp(qn, "time") && strcmp(qn, "invocations") && strcmp(qn, "name") &&
            strncmp(qn, "flops.", 6) && strncmp(qn, "bytes.", 6) && strncmp(qn, "ai.", 3) &&
            strncmp(qn, "tag.", 4)) {
            rt_error_set(err,
                         "--map %s=%s: unknown quantity '%s' (time, invocations, name, "
                         "flops.UNIT, flops.total, bytes.LEVEL, ai.LEVEL, tag.NAME)",
                         qn, opt->map[i].column, qn);
            return -1;
        }
        qcol x = {.quantity = qn, .column = opt->map[i].column, .file = -1, .col = -1};
        find_column(ti, &x);
        if (x.col < 0) {
            rt_error_set(err, "%s: --map %s=%s: no such column", ti->path, qn, x.column);
            return -1;
        }
        ti->q[ti->nq++] = x;
    }
    for (size_t i = 0; !opt->no_defaults && i < n_defaults; i++) {
        int taken = 0;
        for (size_t j = 0; j < ti->nq; j++)
            taken |= strcmp(ti->q[j].quantity, table_defaults[i].quantity) == 0;
        if (taken)
            continue;
        qcol x = {.quantity = table_defaults[i].quantity,
                  .column = table_defaults[i].column,
                  .file = -1,
                  .col = -1};
        find_column(ti, &x);
        if (x.col >= 0)
            ti->q[ti->nq++] = x;
    }
    for (size_t j = 0; j < ti->nq; j++) {
        ti->have_time |= strcmp(ti->q[j].quantity, "time") == 0;
        ti->have_inv |= strcmp(ti->q[j].quantity, "invocations") == 0;
        ti->have_name |= strcmp(ti->q[j].quantity, "name") == 0;
    }
    if (!ti->have_time) {
        rt_error_set(err, "%s: no time column ('CUDA Time'; name another with --map time=COLUMN)",
                     ti->path);
        return -1;
    }
    return 0;
}

/* Tag columns: every column not mapped to a quantity and not "...", except, in the notebooks'
 * two-row header, the numeric columns of the metric part and, in a one-row header, numeric
 * columns whose names read as measurements (listed as unused). Numeric tags are the parameters
 * that families sweep. */
static void choose_tag_columns(table_import *ti)
{
    const table *t0 = &ti->t[0];
    const qcol *q = ti->q;
    int two_row = 0;
    for (size_t c = 0; c < t0->ncol; c++)
        two_row |= t0->tagpart[c];
    ti->is_tag = rt_xcalloc(t0->ncol, 1);
    ti->in_name = rt_xcalloc(t0->ncol, 1);
    ti->unused = rt_xcalloc(t0->ncol, 1);
    const char *const *nc =
        ti->opt->name_columns ? ti->opt->name_columns : table_default_name_columns;
    size_t nn = ti->opt->name_columns ? ti->opt->n_name_columns
                                      : sizeof table_default_name_columns / sizeof(char *);
    for (size_t c = 0; c < t0->ncol; c++) {
        const char *name = t0->col[c];
        if (!name[0] || strcmp(name, "...") == 0)
            continue;
        int mapped = 0;
        for (size_t j = 0; j < ti->nq; j++)
            mapped |= q[j].file == 0 && q[j].col == (int)c && strncmp(q[j].quantity, "tag.", 4);
        if (mapped)
            continue;
        int text = 0;
        for (size_t r = 0; r < t0->nrow && !text; r++)
            text = table_cell(t0, r, c)[0] && !rt_table_is_number(table_cell(t0, r, c));
        for (size_t j = 0; j < ti->nq; j++)
            if (q[j].file == 0 && q[j].col == (int)c && strncmp(q[j].quantity, "tag.", 4) == 0)
                text = 1;
        if (!t0->tagpart[c] && !text && (two_row || measurement_name(name))) {
            ti->unused[c] = 1;
            continue;
        }
        ti->is_tag[c] = 1;
        for (size_t k = 0; k < nn; k++)
            if (strcmp(nc[k], name) == 0)
                ti->in_name[c] = 1;
    }
}

/* The file's name without its directory and its .main.csv or .csv (a heap string). */
static char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    char *base = rt_strdup(b ? b + 1 : path);
    char *dot = strstr(base, ".main.csv");
    if (!dot)
        dot = strstr(base, ".csv");
    if (dot && dot != base)
        *dot = '\0';
    return base;
}

/* The cell of quantity j in row r (of the AI table's joined row when the column is there). */
static const char *q_cell(const table_import *ti, size_t j, size_t r, const table **tt, size_t *rr)
{
    *tt = &ti->t[ti->q[j].file];
    *rr = ti->q[j].file ? ti->join[r] : r;
    return table_cell(*tt, *rr, (size_t)ti->q[j].col);
}

/* A row's kernel name: the file, the name columns, then the row's tag values (numbers as
 * column=value). A heap string. */
static char *row_name(const table_import *ti, size_t r)
{
    const table *t0 = &ti->t[0], *tt;
    size_t cap = strlen(ti->base) + 1, len, rr;
    for (size_t c = 0; c < t0->ncol; c++)
        if (ti->is_tag[c])
            cap += strlen(t0->col[c]) + strlen(table_cell(t0, r, c)) + 3;
    for (size_t j = 0; j < ti->nq; j++)
        if (strcmp(ti->q[j].quantity, "name") == 0)
            cap += strlen(q_cell(ti, j, r, &tt, &rr)) + 2;
    char *name = rt_xmalloc(cap);
    len = (size_t)snprintf(name, cap, "%s", ti->base);
    for (size_t j = 0; j < ti->nq; j++)
        if (strcmp(ti->q[j].quantity, "name") == 0)
            len += (size_t)snprintf(name + len, cap - len, " %s", q_cell(ti, j, r, &tt, &rr));
    for (size_t c = 0; c < t0->ncol; c++) {
        if (!ti->is_tag[c] || !table_cell(t0, r, c)[0])
            continue;
        const char *v = table_cell(t0, r, c);
        if (rt_table_is_number(v))
            len += (size_t)snprintf(name + len, cap - len, " %s=%s", t0->col[c], v);
        else
            len += (size_t)snprintf(name + len, cap - len, " %s", v);
    }
    return name;
}

/* The row's quantities into k: tags, time, invocations, FLOPs and bytes; *total: the FLOPs that
 * AI divides (flops.total, else the sum of flops.*). */
static int row_quantities(const table_import *ti, size_t r, rt_kernel *k, double *total,
                          rt_error *err)
{
    double fsum = 0;
    *total = NAN;
    for (size_t j = 0; j < ti->nq; j++) {
        const table *tt;
        size_t rr;
        const char *cell = q_cell(ti, j, r, &tt, &rr), *qn = ti->q[j].quantity;
        if (strcmp(qn, "name") == 0)
            continue;
        if (strncmp(qn, "tag.", 4) == 0) {
            rt_tags_set(&k->tags, qn + 4, cell);
            continue;
        }
        double v;
        if (cell_number(tt, rr, ti->q[j].col, &v, err) != 0)
            return -1;
        if (v < 0) {
            rt_error_set(err, "%s: line %lu: column '%s': %g is negative", tt->path, tt->line[rr],
                         tt->col[ti->q[j].col], v);
            return -1;
        }
        if (strcmp(qn, "time") == 0)
            k->time = v;
        else if (strcmp(qn, "invocations") == 0)
            k->invocations = v;
        else if (strcmp(qn, "flops.total") == 0)
            *total = v;
        else if (strncmp(qn, "flops.", 6) == 0) {
            rt_values_set(&k->flops, qn + 6, v);
            fsum += v;
        } else if (strncmp(qn, "bytes.", 6) == 0)
            rt_values_set(&k->bytes, qn + 6, v);
    }
    if (isnan(*total))
        *total = fsum;
    return 0;
}

/* Bytes per level from the arithmetic intensity: Q_l = W / AI_l. */
static int row_bytes_from_ai(table_import *ti, size_t r, rt_kernel *k, double total, rt_error *err)
{
    for (size_t j = 0; j < ti->nq; j++) {
        const char *qn = ti->q[j].quantity;
        if (strncmp(qn, "ai.", 3) != 0 || rt_values_has(&k->bytes, qn + 3))
            continue;
        const table *tt;
        size_t rr;
        (void)q_cell(ti, j, r, &tt, &rr);
        const char *col = tt->col[ti->q[j].col];
        double ai;
        if (cell_number(tt, rr, ti->q[j].col, &ai, err) != 0)
            return -1;
        if (ai > 0 && !isfinite(total / ai)) {
            rt_error_set(err, "%s: line %lu: column '%s': %g FLOPs / AI %g is out of range",
                         tt->path, tt->line[rr], col, total, ai);
            return -1;
        } else if (ai > 0) {
            rt_values_set(&k->bytes, qn + 3, total / ai);
        } else if (total > 0) {
            rt_error_set(err, "%s: line %lu: column '%s': AI %g with %g FLOPs gives no byte count",
                         tt->path, tt->line[rr], col, ai, total);
            return -1;
        } else {
            ti->zero_ai++;
        }
    }
    return 0;
}

/* Row r as a kernel of p. */
static int add_row(table_import *ti, size_t r, rt_profile *p, rt_error *err)
{
    const table *t0 = &ti->t[0];
    char *name = row_name(ti, r);
    rt_kernel *k = rt_profile_add_kernel(p, name);
    free(name);
    k->invocations = 1;
    for (size_t c = 0; c < t0->ncol; c++) {
        if (!ti->is_tag[c] || ti->in_name[c])
            continue;
        rt_tags_set(&k->tags, t0->col[c], table_cell(t0, r, c));
    }
    for (size_t c = 0; c < t0->ncol; c++)
        if (ti->is_tag[c] && strcmp(t0->col[c], "Kernel Shape") == 0)
            kernel_shape_tags(&k->tags, table_cell(t0, r, c));
    double total;
    if (row_quantities(ti, r, k, &total, err) != 0 ||
        table_check_merge(t0, r, ti->have_name ? k->name : NULL, &k->tags, &ti->seen, err) != 0)
        return -1;
    if (!isfinite(total)) {
        rt_error_set(err, "%s: line %lu: the FLOPs add up to %g", t0->path, t0->line[r], total);
        return -1;
    }
    if (row_bytes_from_ai(ti, r, k, total, err) != 0)
        return -1;
    /* the limits a profile is saved and loaded within, checked here where the line is known */
    char field[160];
    rt_error why;
    if (rt_profile_sums_add(&ti->sums, k, field, sizeof field, &why) != 0) {
        rt_error_set(err, "%s: line %lu: %s: %s", t0->path, t0->line[r], field, why.msg);
        return -1;
    }
    return 0;
}

/* Where the profile came from: its inputs, the columns chosen, the time's kind, the method. */
static void describe(table_import *ti, rt_profile *p)
{
    const rt_table_options *opt = ti->opt;
    rt_provenance_add_input(&p->provenance, ti->path);
    if (opt->ai_file)
        rt_provenance_add_input(&p->provenance, opt->ai_file);
    for (size_t j = 0; j < ti->nq; j++) {
        rt_tags_set(&p->provenance.formulas, ti->q[j].quantity, ti->q[j].column);
        if (strcmp(ti->q[j].quantity, "time") == 0 && !opt->time_kind &&
            strcasecmp(ti->q[j].column, "CUDA Time") == 0)
            p->time_kind = RT_TIME_DEVICE;
    }
    if (opt->time_kind)
        p->time_kind = opt->time_kind;
    const table *t0 = &ti->t[0];
    for (size_t c = 0; c < t0->ncol; c++)
        ti->is_tag[c] &= !ti->in_name[c];
    table_note_columns(&p->provenance.notes, "tags", t0, ti->is_tag);
    table_note_columns(&p->provenance.notes, "name columns", t0, ti->in_name);
    table_note_columns(&p->provenance.notes, "unused columns", t0, ti->unused);
    p->method = rt_strdup("processed table, one config per row; where only AI is given, bytes per "
                          "level = FLOPs / AI at that level (the printed precision of both carries "
                          "into the bytes)");
}

/* The steps: headers, the quantities' columns, the AI table's join columns, then the rows, the
 * tag columns, the join, one kernel per row, and where it all came from. */
int rt_import_table(const char *path, const rt_table_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err)
{
    rt_table_options dflt = {0};
    table_import ti = {.path = path, .opt = opt ? opt : &dflt};
    rt_profile *p = NULL;
    int rc = -1;
    *out = NULL;
    if (open_tables(&ti, err) != 0 || choose_quantities(&ti, err) != 0 ||
        (ti.nt == 2 && table_join_columns(&ti, err) != 0))
        goto done;
    /* The columns are there: now the rows. */
    for (int f = 0; f < ti.nt; f++)
        if (rt_table_read_rows(&ti.t[f], err) != 0)
            goto done;
    if (!ti.have_inv && w)
        rt_warnings_add(w, "%s: no invocations column: 1 per row assumed", path);
    choose_tag_columns(&ti);
    if (ti.nt == 2 && table_join_rows(&ti, err) != 0)
        goto done;
    p = rt_profile_new();
    p->tool = rt_strdup("table");
    ti.base = base_name(path);
    for (size_t r = 0; r < ti.t[0].nrow; r++)
        if (add_row(&ti, r, p, err) != 0)
            goto done;
    if (ti.zero_ai && w)
        rt_warnings_add(w,
                        "%s: %lu AI values of rows without FLOPs: their bytes at that "
                        "level are unknown and left out",
                        path, ti.zero_ai);
    describe(&ti, p);
    *out = p;
    p = NULL;
    rc = rt_import_check(out, path, err);
done:
    rt_profile_free(p);
    table_import_release(&ti);
    return rc;
}
