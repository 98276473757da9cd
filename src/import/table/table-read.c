/* Read a result table: its header first, then its rows, in one buffer within the limits of
 * docs/limits.md (RT_TABLE_MAX_ROWS, the options' max_bytes). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "table-read.h"
#include "rooftime/util/strings.h"

void rt_table_release(table *t)
{
    for (size_t c = 0; c < t->ncol; c++)
        free(t->col[c]);
    free(t->col);
    free(t->tagpart);
    free(t->text);
    free(t->off);
    free(t->line);
    rt_csv_free(t->csv);
}

int rt_table_is_number(const char *s)
{
    double v;
    return rt_parse_double(s, &v);
}

static char **row_copy(const rt_csv_row *row)
{
    char **out = rt_xmalloc((row->n ? row->n : 1) * sizeof *out);
    for (size_t i = 0; i < row->n; i++)
        out[i] = rt_strndup(row->field[i], row->len[i]);
    return out;
}

/* Keep one data row (its field count checked), within the limits on what a table holds. */
static int table_add_row(table *t, const rt_csv_row *row, rt_error *err)
{
    if (row->n != t->ncol) {
        rt_error_set(err, "%s: line %lu: expected %zu fields as in the header, found %zu%s",
                     t->path, row->line, t->ncol, row->n,
                     row->n < t->ncol ? " (truncated file or missing fields?)" : "");
        return -1;
    }
    if (t->nrow >= RT_TABLE_MAX_ROWS) {
        rt_error_set(err,
                     "%s: line %lu: more than %lu rows, the limit of a table (one row per kernel "
                     "or config)",
                     t->path, row->line, (unsigned long)RT_TABLE_MAX_ROWS);
        return -1;
    }
    size_t text = 0;
    for (size_t i = 0; i < row->n; i++)
        text += row->len[i] + 1;
    /* Both terms are bounded: a row by RT_CSV_MAX_ROW, the rows by RT_TABLE_MAX_ROWS. */
    size_t held = t->ntext + text + (t->nrow + 1) * (t->ncol * sizeof *t->off + sizeof *t->line);
    if (held > t->max_bytes) {
        rt_error_set(err,
                     "%s: line %lu: the table's cells take more than %zu MiB, the limit of a "
                     "table held in memory",
                     t->path, row->line, t->max_bytes >> 20);
        return -1;
    }
    if (t->nrow == t->rowcap) {
        t->rowcap = t->rowcap ? 2 * t->rowcap : 64;
        t->off = rt_xrealloc(t->off, t->rowcap * (t->ncol ? t->ncol : 1) * sizeof *t->off);
        t->line = rt_xrealloc(t->line, t->rowcap * sizeof *t->line);
    }
    if (t->ntext + text > t->textcap) {
        while (t->ntext + text > t->textcap)
            t->textcap = t->textcap ? 2 * t->textcap : 4096;
        t->text = rt_xrealloc(t->text, t->textcap);
    }
    for (size_t i = 0; i < row->n; i++) {
        t->off[t->nrow * t->ncol + i] = t->ntext;
        memcpy(t->text + t->ntext, row->field[i], row->len[i] + 1);
        t->ntext += row->len[i] + 1;
    }
    t->line[t->nrow++] = row->line;
    return 0;
}

/* Two columns of one name: which one a quantity or tag reads would be a guess (the first took the
 * time, the last the tag). Blank names (the paper's first header row) may repeat. */
static int header_unique(const table *t, unsigned long line, rt_error *err)
{
    for (size_t i = 0; i < t->ncol; i++)
        for (size_t j = i + 1; t->col[i][0] && j < t->ncol; j++)
            if (strcmp(t->col[i], t->col[j]) == 0) {
                rt_error_set(err, "%s: line %lu: columns %zu and %zu are both named '%.60s'",
                             t->path, line, i + 1, j + 1, t->col[i]);
                return -1;
            }
    return 0;
}

int rt_table_open(const char *path, size_t max_bytes, table *t, rt_error *err)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->max_bytes = max_bytes;
    rt_csv *c = t->csv = rt_csv_open(path, err);
    if (!c)
        return -1;
    rt_csv_row row;
    int r = rt_csv_next(c, &row, err);
    if (r <= 0) {
        if (r == 0)
            rt_error_set(err, "%s: line 1: empty file, no header", path);
        return -1;
    }
    size_t named = 0, numeric = 0;
    for (size_t i = 0; i < row.n; i++) {
        named += row.len[i] > 0;
        numeric += row.len[i] > 0 && rt_table_is_number(row.field[i]);
        if (strlen(row.field[i]) != row.len[i]) {
            rt_error_set(err,
                         "%s: line %lu: column %zu: a NUL byte in the header (not a text table?)",
                         path, row.line, i + 1);
            return -1;
        }
    }
    if (named == 0 || numeric * 2 > named) {
        rt_error_set(err,
                     "%s: line %lu: no header row (the first row holds numbers, not column names)",
                     path, row.line);
        return -1;
    }
    if (row.n == 1 && strpbrk(row.field[0], ";\t")) {
        rt_error_set(err,
                     "%s: line %lu: one column, '%.40s': the file is separated by %s, not commas "
                     "(save it as CSV with commas, and '.' as the decimal point)",
                     path, row.line, row.field[0],
                     strchr(row.field[0], ';') ? "semicolons" : "tabs");
        return -1;
    }
    if (row.n > RT_TABLE_MAX_COLUMNS) {
        rt_error_set(err, "%s: line %lu: %zu columns, more than the limit of %d", path, row.line,
                     row.n, RT_TABLE_MAX_COLUMNS);
        return -1;
    }
    t->ncol = row.n;
    t->col = row_copy(&row);
    t->tagpart = rt_xcalloc(t->ncol, 1);
    unsigned long hline = row.line;
    /* A second header row: it names exactly some of the columns the first left blank. */
    r = rt_csv_next(c, &row, err);
    if (r < 0)
        return -1;
    if (r == 0) {
        rt_error_set(err, "%s: line %lu: a header but no data rows", path, hline + 1);
        return -1;
    }
    int second = row.n == t->ncol;
    size_t fills = 0;
    for (size_t i = 0; second && i < row.n; i++) {
        if (row.len[i] == 0)
            continue;
        if (t->col[i][0] != '\0' || rt_table_is_number(row.field[i]))
            second = 0;
        else
            fills++;
    }
    if (second && fills > 0) {
        for (size_t i = 0; i < row.n; i++)
            if (row.len[i] > 0) {
                free(t->col[i]);
                t->col[i] = rt_strndup(row.field[i], row.len[i]);
                t->tagpart[i] = 1;
            }
        return header_unique(t, row.line, err);
    }
    if (header_unique(t, hline, err) != 0)
        return -1;
    if (row.n == 1 && row.len[0] == 0)
        return 0; /* blank line */
    return table_add_row(t, &row, err);
}

int rt_table_read_rows(table *t, rt_error *err)
{
    rt_csv_row row;
    int r;
    while ((r = rt_csv_next(t->csv, &row, err)) > 0) {
        if (row.n == 1 && row.len[0] == 0)
            continue; /* blank line */
        if (table_add_row(t, &row, err) != 0)
            return -1;
    }
    if (r < 0)
        return -1;
    if (t->nrow == 0) {
        rt_error_set(err, "%s: line %lu: a header but no data rows", t->path, rt_csv_line(t->csv));
        return -1;
    }
    rt_csv_free(t->csv);
    t->csv = NULL;
    return 0;
}

int rt_table_find(const table *t, const char *name)
{
    for (size_t c = 0; c < t->ncol; c++)
        if (strcmp(t->col[c], name) == 0)
            return (int)c;
    return -1;
}

size_t rt_table_join_key(const table *t, size_t r, const size_t *cols, size_t n, char **buf,
                         size_t *cap)
{
    size_t len = 0;
    for (size_t k = 0; k < n; k++) {
        const char *v = table_cell(t, r, cols[k]);
        size_t vl = strlen(v);
        if (len + sizeof vl + vl > *cap) {
            *cap = 2 * (len + sizeof vl + vl);
            *buf = rt_xrealloc(*buf, *cap);
        }
        memcpy(*buf + len, &vl, sizeof vl);
        memcpy(*buf + len + sizeof vl, v, vl);
        len += sizeof vl + vl;
    }
    return len;
}
