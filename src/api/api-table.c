/* The API's tables as columns: the config or kernel rows of `analyze --format csv` from the same
 * column descriptors as the CSV (formats/analysis-columns.h), as arrays instead of text, so a
 * caller builds its data frame without writing and parsing the CSV. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/formats/analysis-columns.h"
#include "rooftime/util/strings.h"

/* A text column being filled: its strings back to back, each with its NUL. */
typedef struct text_buf {
    char *s;
    size_t len, cap;
} text_buf;

static void text_add(text_buf *b, const char *s)
{
    size_t n = strlen(s) + 1;
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->s = rt_xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
}

/* The API's name for each type of column. */
static const int api_type[] = {[RT_COLUMN_TEXT] = RT_API_TEXT,
                               [RT_COLUMN_INT] = RT_API_INT,
                               [RT_COLUMN_REAL] = RT_API_REAL,
                               [RT_COLUMN_COUNT] = RT_API_COUNT,
                               [RT_COLUMN_OPT_TEXT] = RT_API_OPT_TEXT};

static bool is_text(const rt_table_column *d)
{
    return d->type == RT_COLUMN_TEXT || d->type == RT_COLUMN_OPT_TEXT;
}

/* The columns of a table of tt with n rows, named, typed and with room for the numbers and the
 * optional texts' flags (which lead their columns' data). */
static rt_api_table *table_new(const rt_table_layout *tt, size_t n, const rt_table_column **desc,
                               size_t *index, text_buf *text)
{
    rt_api_table *t = rt_xcalloc(1, sizeof *t);
    t->n_rows = n;
    t->n_columns = rt_table_width(tt);
    t->columns = rt_xcalloc(t->n_columns, sizeof *t->columns);
    size_t j = 0;
    for (size_t c = 0; c < rt_table_n_columns; c++) {
        const rt_table_column *d = &rt_table_columns[c];
        for (size_t k = 0; k < rt_table_column_span(tt, d); k++, j++) {
            rt_api_column *col = &t->columns[j];
            desc[j] = d;
            index[j] = k;
            col->name = rt_table_column_name(tt, d, k);
            col->type = api_type[d->type];
            if (d->type == RT_COLUMN_OPT_TEXT) { /* n flags, then the strings */
                text[j].cap = 2 * n + 1;
                text[j].s = rt_xmalloc(text[j].cap);
                text[j].len = n;
            } else if (!is_text(d)) {
                col->size = n * (d->type == RT_COLUMN_INT ? sizeof(int64_t) : sizeof(double));
                col->data = rt_xmalloc(col->size ? col->size : 1);
            }
        }
    }
    return t;
}

/* Row by row (the rows visit memory at random; each column is written in order). */
static void table_fill(rt_api_table *t, const rt_table_layout *tt, rt_table_kind kind,
                       const rt_table_column **desc, const size_t *index, text_buf *text)
{
    rt_table_rows rows;
    rt_table_row row;
    rt_table_rows_init(&rows, tt, kind);
    for (size_t r = 0; rt_table_rows_next(&rows, &row); r++)
        for (size_t j = 0; j < t->n_columns; j++) {
            const rt_table_column *d = desc[j];
            if (d->type == RT_COLUMN_TEXT) {
                text_add(&text[j], d->text(&row));
            } else if (d->type == RT_COLUMN_OPT_TEXT) {
                const char *s = d->opt_text(&row, index[j]);
                text[j].s[r] = s != NULL;
                text_add(&text[j], s ? s : "");
            } else if (d->type == RT_COLUMN_INT) {
                ((int64_t *)t->columns[j].data)[r] = d->integer(&row);
            } else {
                ((double *)t->columns[j].data)[r] = d->real(&row, index[j]);
            }
        }
    rt_table_rows_release(&rows);
    for (size_t j = 0; j < t->n_columns; j++)
        if (is_text(desc[j])) {
            t->columns[j].data = text[j].s ? text[j].s : rt_xcalloc(1, 1);
            t->columns[j].size = text[j].len;
        }
}

rt_api_table *rt_api_analysis_table(rt_api_analysis *a, const char *kind)
{
    api_begin();
    if (!a) {
        api_fail("no analysis");
        return NULL;
    }
    rt_table_kind k;
    if (kind && strcmp(kind, "config") == 0) {
        k = RT_TABLE_CONFIGS;
    } else if (kind && strcmp(kind, "kernel") == 0) {
        k = RT_TABLE_KERNELS;
    } else {
        api_fail("unknown table '%s' (config or kernel)", kind ? kind : "");
        return NULL;
    }
    rt_analysis *an = api_analysis_for_tables(a);
    if (!an)
        return NULL;
    rt_table_layout tt;
    rt_warnings warn = {0};
    rt_table_layout_init(&tt, an, &warn);
    api_keep_warnings(&warn);
    rt_warnings_release(&warn);
    size_t width = rt_table_width(&tt);
    const rt_table_column **desc = rt_xcalloc(width, sizeof *desc);
    size_t *index = rt_xcalloc(width, sizeof *index);
    text_buf *text = rt_xcalloc(width, sizeof *text);
    rt_api_table *t =
        table_new(&tt, k == RT_TABLE_CONFIGS ? an->n_configs : an->n_items, desc, index, text);
    table_fill(t, &tt, k, desc, index, text);
    rt_table_layout_release(&tt);
    free(desc);
    free(index);
    free(text);
    return t;
}

void rt_api_table_free(rt_api_table *t)
{
    if (!t)
        return;
    for (size_t j = 0; j < t->n_columns; j++) {
        free(t->columns[j].name);
        free(t->columns[j].data);
    }
    free(t->columns);
    free(t);
}
