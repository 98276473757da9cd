/* The columns of the config and kernel tables as one descriptor table, and their rows in time
 * order: what `analyze --format csv` writes and the C API's columns hand out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/formats/analysis-columns.h"
#include "rooftime/util/strings.h"
#include "analysis-prefetch.h"

static const char *col_kind(const rt_table_row *r)
{
    return r->kind;
}

static const char *col_name(const rt_table_row *r)
{
    return r->name;
}

static const char *col_config(const rt_table_row *r)
{
    return r->config;
}

static const char *col_bound(const rt_table_row *r)
{
    return r->v->bound_label;
}

static int64_t col_rank(const rt_table_row *r)
{
    return (int64_t)r->rank;
}

static int64_t col_overhead_bound(const rt_table_row *r)
{
    return r->v->overhead_bound;
}

static int64_t col_zero_ai(const rt_table_row *r)
{
    return r->v->zero_ai;
}

/* The real columns: one getter each, level ignored where the column is not per level. */
#define REAL_GETTER(fn, expr)                                                                      \
    static double fn(const rt_table_row *r, size_t level)                                          \
    {                                                                                              \
        (void)level;                                                                               \
        return (expr);                                                                             \
    }
REAL_GETTER(col_invocations, r->v->n)
REAL_GETTER(col_time, r->time)
REAL_GETTER(col_share, r->a->total_time > 0 ? r->time / r->a->total_time : NAN)
REAL_GETTER(col_flops, r->v->W)
REAL_GETTER(col_bytes, level < r->v->n_levels ? r->v->q[level] : NAN)
REAL_GETTER(col_ai, level < r->v->n_levels ? r->v->ai[level] : NAN)
REAL_GETTER(col_t_compute, r->v->t_compute)
REAL_GETTER(col_t_bandwidth, r->v->t_bw_max)
REAL_GETTER(col_t_overhead, r->v->t_oh)
REAL_GETTER(col_t_bound, r->v->t_bound)
REAL_GETTER(col_efficiency, r->v->efficiency)
REAL_GETTER(col_recoverable, r->v->recoverable)
REAL_GETTER(col_bw_time, r->v->bw_time)
REAL_GETTER(col_compute_time, r->v->compute_time)

#define TEXT(n, fn)                                                                                \
    {                                                                                              \
        .name = n, .type = RT_COLUMN_TEXT, .text = fn                                              \
    }
#define INT(n, fn)                                                                                 \
    {                                                                                              \
        .name = n, .type = RT_COLUMN_INT, .integer = fn                                            \
    }
#define REAL(n, fn)                                                                                \
    {                                                                                              \
        .name = n, .type = RT_COLUMN_REAL, .real = fn                                              \
    }
#define LEVELS(n, fn)                                                                              \
    {                                                                                              \
        .name = n, .type = RT_COLUMN_REAL, .per_level = true, .real = fn                           \
    }

const rt_table_column rt_table_columns[] = {
    TEXT("kind", col_kind),
    INT("rank", col_rank),
    TEXT("name", col_name),
    TEXT("config", col_config),
    {.name = "invocations", .type = RT_COLUMN_COUNT, .real = col_invocations},
    REAL("time_s", col_time),
    REAL("share", col_share),
    REAL("flops", col_flops),
    LEVELS("bytes_", col_bytes),
    LEVELS("ai_", col_ai),
    REAL("t_compute_s", col_t_compute),
    REAL("t_bandwidth_s", col_t_bandwidth),
    REAL("t_overhead_s", col_t_overhead),
    REAL("t_bound_s", col_t_bound),
    TEXT("bound", col_bound),
    REAL("efficiency", col_efficiency),
    REAL("recoverable_s", col_recoverable),
    REAL("bw_time_s", col_bw_time),
    REAL("compute_time_s", col_compute_time),
    INT("overhead_bound", col_overhead_bound),
    INT("zero_ai", col_zero_ai),
};
const size_t rt_table_n_columns = sizeof rt_table_columns / sizeof rt_table_columns[0];

size_t rt_table_column_levels(const rt_analysis *a, const rt_table_column *c)
{
    return c->per_level ? a->machine->n_levels : 1;
}

size_t rt_table_width(const rt_analysis *a)
{
    size_t w = 0;
    for (size_t c = 0; c < rt_table_n_columns; c++)
        w += rt_table_column_levels(a, &rt_table_columns[c]);
    return w;
}

char *rt_table_column_name(const rt_analysis *a, const rt_table_column *c, size_t level)
{
    return rt_asprintf("%s%s", c->name, c->per_level ? a->machine->levels[level].name : "");
}

void rt_table_rows_init(rt_table_rows *it, const rt_analysis *a, rt_table_kind kind)
{
    it->a = a;
    it->kind = kind;
    it->next = 0;
    if (kind == RT_TABLE_CONFIGS) {
        it->order = rt_analysis_configs_by_time(a);
        it->n = a->n_configs;
    } else {
        it->order = rt_analysis_items_by_time(a);
        it->n = a->n_items;
    }
}

bool rt_table_rows_next(rt_table_rows *it, rt_table_row *row)
{
    if (it->next >= it->n)
        return false;
    rt_table_rows_at(it, it->next++, row);
    return true;
}

void rt_table_rows_at(const rt_table_rows *it, size_t r, rt_table_row *row)
{
    const rt_analysis *a = it->a;
    row->a = a;
    row->rank = r + 1;
    if (it->kind == RT_TABLE_CONFIGS) {
        rt_rows_prefetch_configs(a, it->order, r, it->n);
        const rt_config *c = &a->configs[it->order[r]];
        row->kind = "config";
        row->name = row->config = c->label;
        row->v = &c->v;
        row->time = c->sum.time;
    } else {
        rt_rows_prefetch_items(a, it->order, r, it->n);
        const rt_item *item = &a->items[it->order[r]];
        row->kind = "kernel";
        row->name = item->kernel->name;
        row->config = a->configs[item->config].label;
        row->v = &item->v;
        row->time = item->kernel->time;
    }
}

void rt_table_rows_release(rt_table_rows *it)
{
    free(it->order);
    it->order = NULL;
    it->n = it->next = 0;
}
