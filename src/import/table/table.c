/* Import a processed result table (one kernel or config per row), such as the paper's notebook
 * tables. */
#define _GNU_SOURCE
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table-read.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
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

/* One resolved mapping: quantity -> column of the main table (file 0) or of the AI table (file 1).
 */
typedef struct qcol {
    const char *quantity;
    const char *column;
    int file, col;
} qcol;

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

int rt_import_table(const char *path, const rt_table_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err)
{
    rt_table_options dflt = {0};
    if (!opt)
        opt = &dflt;
    *out = NULL;
    table t[2];
    memset(t, 0, sizeof t);
    int nt = 1, rc = -1;
    qcol *q = NULL;
    size_t nq = 0;
    size_t *join = NULL;                    /* main row -> AI table row */
    size_t *keycol = NULL, *maincol = NULL; /* the AI table's join columns, and the main table's */
    size_t nk = 0;
    rt_name_index keys = {0}; /* the join columns' values -> the AI table's row */
    rt_profile *p = NULL;
    unsigned char *is_tag = NULL, *in_name = NULL, *unused = NULL;
    rt_name_index seen = {0}; /* a row's tags -> its row: rows that would merge into one config */
    char *base = NULL;
    size_t max_bytes = opt->max_bytes ? opt->max_bytes : RT_TABLE_MAX_BYTES;
    if (opt->ai_file && strcmp(path, "-") == 0 && strcmp(opt->ai_file, "-") == 0) {
        rt_error_set(err, "standard input ('-') can be the table or the AI table, not both");
        goto done;
    }
    if (rt_table_open(path, max_bytes, &t[0], err) != 0)
        goto done;
    if (opt->ai_file) {
        if (rt_table_open(opt->ai_file, max_bytes, &t[1], err) != 0)
            goto done;
        nt = 2;
    }

    /* Quantities: the user's mappings, then the defaults for quantities they left alone. */
    q = rt_xcalloc(opt->n_map + sizeof table_defaults / sizeof table_defaults[0] + 1, sizeof *q);
    for (size_t i = 0; i < opt->n_map; i++) {
        const char *qn = opt->map[i].quantity;
        if (strcmp(qn, "time") && strcmp(qn, "invocations") && strcmp(qn, "name") &&
            strncmp(qn, "flops.", 6) && strncmp(qn, "bytes.", 6) && strncmp(qn, "ai.", 3) &&
            strncmp(qn, "tag.", 4)) {
            rt_error_set(err,
                         "--map %s=%s: unknown quantity '%s' (time, invocations, name, "
                         "flops.UNIT, flops.total, bytes.LEVEL, ai.LEVEL, tag.NAME)",
                         qn, opt->map[i].column, qn);
            goto done;
        }
        qcol x = {.quantity = qn, .column = opt->map[i].column, .file = -1, .col = -1};
        for (int f = 0; f < nt && x.col < 0; f++)
            if ((x.col = rt_table_find(&t[f], x.column)) >= 0)
                x.file = f;
        if (x.col < 0) {
            rt_error_set(err, "%s: --map %s=%s: no such column", path, qn, x.column);
            goto done;
        }
        q[nq++] = x;
    }
    for (size_t i = 0; !opt->no_defaults && i < sizeof table_defaults / sizeof table_defaults[0];
         i++) {
        int taken = 0;
        for (size_t j = 0; j < nq; j++)
            taken |= strcmp(q[j].quantity, table_defaults[i].quantity) == 0;
        if (taken)
            continue;
        qcol x = {.quantity = table_defaults[i].quantity,
                  .column = table_defaults[i].column,
                  .file = -1,
                  .col = -1};
        for (int f = 0; f < nt && x.col < 0; f++)
            if ((x.col = rt_table_find(&t[f], x.column)) >= 0)
                x.file = f;
        if (x.col >= 0)
            q[nq++] = x;
    }
    int have_time = 0, have_inv = 0;
    for (size_t j = 0; j < nq; j++) {
        have_time |= strcmp(q[j].quantity, "time") == 0;
        have_inv |= strcmp(q[j].quantity, "invocations") == 0;
    }
    if (!have_time) {
        rt_error_set(err, "%s: no time column ('CUDA Time'; name another with --map time=COLUMN)",
                     path);
        goto done;
    }
    /* The AI table joins by the tag columns of its second header row: the main table has them. */
    if (nt == 2) {
        keycol = rt_xcalloc(t[1].ncol + 1, sizeof *keycol);
        maincol = rt_xcalloc(t[1].ncol + 1, sizeof *maincol);
        for (size_t c = 0; c < t[1].ncol; c++) {
            if (!t[1].tagpart[c])
                continue;
            int mc = rt_table_find(&t[0], t[1].col[c]);
            if (mc < 0) {
                rt_error_set(err, "%s: tag column '%s' is not in %s", opt->ai_file, t[1].col[c],
                             path);
                goto done;
            }
            keycol[nk] = c;
            maincol[nk++] = (size_t)mc;
        }
        if (nk == 0) {
            rt_error_set(err, "%s: no tag columns to join with %s (two-row header expected)",
                         opt->ai_file, path);
            goto done;
        }
    }
    /* The columns are there: now the rows. */
    for (int f = 0; f < nt; f++)
        if (rt_table_read_rows(&t[f], err) != 0)
            goto done;
    if (!have_inv && w)
        rt_warnings_add(w, "%s: no invocations column: 1 per row assumed", path);

    /* Tag columns: every column not mapped to a quantity and not "...", except, in the notebooks'
     * two-row header, the numeric columns of the metric part and, in a one-row header, numeric
     * columns whose names read as measurements (listed as unused). Numeric tags are the
     * parameters that families sweep. */
    int two_row = 0;
    for (size_t c = 0; c < t[0].ncol; c++)
        two_row |= t[0].tagpart[c];
    is_tag = rt_xcalloc(t[0].ncol, 1);
    in_name = rt_xcalloc(t[0].ncol, 1);
    unused = rt_xcalloc(t[0].ncol, 1);
    for (size_t c = 0; c < t[0].ncol; c++) {
        const char *name = t[0].col[c];
        if (!name[0] || strcmp(name, "...") == 0)
            continue;
        int mapped = 0;
        for (size_t j = 0; j < nq; j++)
            mapped |= q[j].file == 0 && q[j].col == (int)c && strncmp(q[j].quantity, "tag.", 4);
        if (mapped)
            continue;
        int text = 0;
        for (size_t r = 0; r < t[0].nrow && !text; r++)
            text = table_cell(&t[0], r, c)[0] && !rt_table_is_number(table_cell(&t[0], r, c));
        for (size_t j = 0; j < nq; j++)
            if (q[j].file == 0 && q[j].col == (int)c && strncmp(q[j].quantity, "tag.", 4) == 0)
                text = 1;
        if (!t[0].tagpart[c] && !text && (two_row || measurement_name(name))) {
            unused[c] = 1;
            continue;
        }
        is_tag[c] = 1;
        const char *const *nc = opt->name_columns ? opt->name_columns : table_default_name_columns;
        size_t nn = opt->name_columns ? opt->n_name_columns
                                      : sizeof table_default_name_columns / sizeof(char *);
        for (size_t k = 0; k < nn; k++)
            if (strcmp(nc[k], name) == 0)
                in_name[c] = 1;
    }

    /* Join the AI table by the tag columns it has: a map from their values to its first row. */
    if (nt == 2) {
        char *key = NULL;
        size_t kcap = 0;
        for (size_t r = 0; r < t[1].nrow; r++) {
            size_t len = rt_table_join_key(&t[1], r, keycol, nk, &key, &kcap);
            if (rt_name_index_get(&keys, key, len) == (size_t)-1)
                rt_name_index_put(&keys, key, len, r);
        }
        join = rt_xmalloc(t[0].nrow * sizeof *join);
        for (size_t r = 0; r < t[0].nrow; r++) {
            size_t len = rt_table_join_key(&t[0], r, maincol, nk, &key, &kcap);
            size_t at = rt_name_index_get(&keys, key, len);
            if (at == (size_t)-1) {
                rt_error_set(err, "%s: line %lu: no row with the same %s ... in %s", path,
                             t[0].line[r], t[1].col[keycol[0]], opt->ai_file);
                free(key);
                goto done;
            }
            join[r] = at;
        }
        free(key);
    }

    p = rt_profile_new();
    p->tool = rt_strdup("table");
    {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        base = rt_strdup(b);
        char *dot = strstr(base, ".main.csv");
        if (!dot)
            dot = strstr(base, ".csv");
        if (dot && dot != base)
            *dot = '\0';
    }
    unsigned long zero_ai = 0;
    int have_name = 0;
    for (size_t j = 0; j < nq; j++)
        have_name |= strcmp(q[j].quantity, "name") == 0;
    for (size_t r = 0; r < t[0].nrow; r++) {
        /* Name: the file, then the row's tag values (numbers as column=value). */
        size_t cap = strlen(base) + 1, len;
        for (size_t c = 0; c < t[0].ncol; c++)
            if (is_tag[c])
                cap += strlen(t[0].col[c]) + strlen(table_cell(&t[0], r, c)) + 3;
        for (size_t j = 0; j < nq; j++)
            if (strcmp(q[j].quantity, "name") == 0)
                cap +=
                    strlen(table_cell(&t[q[j].file], q[j].file ? join[r] : r, (size_t)q[j].col)) +
                    2;
        char *name = rt_xmalloc(cap);
        len = (size_t)snprintf(name, cap, "%s", base);
        for (size_t j = 0; j < nq; j++)
            if (strcmp(q[j].quantity, "name") == 0)
                len += (size_t)snprintf(
                    name + len, cap - len, " %s",
                    table_cell(&t[q[j].file], q[j].file ? join[r] : r, (size_t)q[j].col));
        for (size_t c = 0; c < t[0].ncol; c++) {
            if (!is_tag[c] || !table_cell(&t[0], r, c)[0])
                continue;
            const char *v = table_cell(&t[0], r, c);
            if (rt_table_is_number(v))
                len += (size_t)snprintf(name + len, cap - len, " %s=%s", t[0].col[c], v);
            else
                len += (size_t)snprintf(name + len, cap - len, " %s", v);
        }
        rt_kernel *k = rt_profile_add_kernel(p, name);
        free(name);
        k->invocations = 1;
        for (size_t c = 0; c < t[0].ncol; c++) {
            if (!is_tag[c] || in_name[c])
                continue;
            rt_tags_set(&k->tags, t[0].col[c], table_cell(&t[0], r, c));
        }
        for (size_t c = 0; c < t[0].ncol; c++)
            if (is_tag[c] && strcmp(t[0].col[c], "Kernel Shape") == 0)
                kernel_shape_tags(&k->tags, table_cell(&t[0], r, c));
        double total = NAN, fsum = 0;
        for (size_t j = 0; j < nq; j++) {
            const table *tt = &t[q[j].file];
            size_t rr = q[j].file ? join[r] : r;
            const char *qn = q[j].quantity;
            if (strcmp(qn, "name") == 0)
                continue;
            if (strncmp(qn, "tag.", 4) == 0) {
                rt_tags_set(&k->tags, qn + 4, table_cell(tt, rr, (size_t)q[j].col));
                continue;
            }
            double v;
            if (cell_number(tt, rr, q[j].col, &v, err) != 0)
                goto done;
            if (v < 0) {
                rt_error_set(err, "%s: line %lu: column '%s': %g is negative", tt->path,
                             tt->line[rr], tt->col[q[j].col], v);
                goto done;
            }
            if (strcmp(qn, "time") == 0)
                k->time = v;
            else if (strcmp(qn, "invocations") == 0)
                k->invocations = v;
            else if (strcmp(qn, "flops.total") == 0)
                total = v;
            else if (strncmp(qn, "flops.", 6) == 0) {
                rt_values_set(&k->flops, qn + 6, v);
                fsum += v;
            } else if (strncmp(qn, "bytes.", 6) == 0)
                rt_values_set(&k->bytes, qn + 6, v);
        }
        if (table_check_merge(&t[0], r, have_name ? k->name : NULL, &k->tags, &seen, err) != 0)
            goto done;
        if (isnan(total))
            total = fsum;
        if (!isfinite(total)) {
            rt_error_set(err, "%s: line %lu: the FLOPs add up to %g", t[0].path, t[0].line[r],
                         total);
            goto done;
        }
        /* Bytes per level from the arithmetic intensity: Q_l = W / AI_l. */
        for (size_t j = 0; j < nq; j++) {
            const char *qn = q[j].quantity;
            if (strncmp(qn, "ai.", 3) != 0 || rt_values_has(&k->bytes, qn + 3))
                continue;
            const table *tt = &t[q[j].file];
            size_t rr = q[j].file ? join[r] : r;
            double ai;
            if (cell_number(tt, rr, q[j].col, &ai, err) != 0)
                goto done;
            if (ai > 0 && !isfinite(total / ai)) {
                rt_error_set(err, "%s: line %lu: column '%s': %g FLOPs / AI %g is out of range",
                             tt->path, tt->line[rr], tt->col[q[j].col], total, ai);
                goto done;
            } else if (ai > 0) {
                rt_values_set(&k->bytes, qn + 3, total / ai);
            } else if (total > 0) {
                rt_error_set(err,
                             "%s: line %lu: column '%s': AI %g with %g FLOPs gives no byte count",
                             tt->path, tt->line[rr], tt->col[q[j].col], ai, total);
                goto done;
            } else {
                zero_ai++;
            }
        }
    }
    if (zero_ai && w)
        rt_warnings_add(w,
                        "%s: %lu AI values of rows without FLOPs: their bytes at that "
                        "level are unknown and left out",
                        path, zero_ai);
    rt_provenance_add_input(&p->provenance, path);
    if (opt->ai_file)
        rt_provenance_add_input(&p->provenance, opt->ai_file);
    for (size_t j = 0; j < nq; j++) {
        rt_tags_set(&p->provenance.formulas, q[j].quantity, q[j].column);
        if (strcmp(q[j].quantity, "time") == 0 && !opt->time_kind &&
            strcasecmp(q[j].column, "CUDA Time") == 0)
            p->time_kind = RT_TIME_DEVICE;
    }
    if (opt->time_kind)
        p->time_kind = opt->time_kind;
    for (size_t c = 0; c < t[0].ncol; c++)
        is_tag[c] &= !in_name[c];
    table_note_columns(&p->provenance.notes, "tags", &t[0], is_tag);
    table_note_columns(&p->provenance.notes, "name columns", &t[0], in_name);
    table_note_columns(&p->provenance.notes, "unused columns", &t[0], unused);
    p->method = rt_strdup("processed table, one config per row; where only AI is given, bytes per "
                          "level = FLOPs / AI at that level (the printed precision of both carries "
                          "into the bytes)");
    *out = p;
    p = NULL;
    rc = 0;
done:
    rt_profile_free(p);
    free(base);
    free(q);
    free(join);
    free(keycol);
    free(maincol);
    rt_name_index_release(&keys);
    free(is_tag);
    free(in_name);
    free(unused);
    rt_name_index_release(&seen);
    rt_table_release(&t[0]);
    rt_table_release(&t[1]);
    return rc;
}
