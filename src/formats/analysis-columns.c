/* The columns of the config and kernel tables as one descriptor table, and their rows in time
 * order: what `analyze --format csv` writes and the C API's columns hand out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/overhead-path.h"
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

static const char *col_tag(const rt_table_row *r, size_t k)
{
    return r->tag[k];
}

/* The overhead the row's calls pay ("openmp_fork_join(2 threads)", "none"): valid until the next
 * call on this thread. */
static const char *col_overhead_paid(const rt_table_row *r, size_t k)
{
    (void)k;
    static _Thread_local char buf[96];
    return rt_verdict_paid_label(r->v, buf, sizeof buf);
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
REAL_GETTER(col_t_overhead_paid, r->v->t_paid)
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
        .name = n, .type = RT_COLUMN_REAL, .span = RT_SPAN_LEVELS, .real = fn                      \
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
    /* where kernels name the overhead their own calls pay: which one, and n x it */
    {.name = "overhead_paid",
     .type = RT_COLUMN_OPT_TEXT,
     .span = RT_SPAN_PAID,
     .opt_text = col_overhead_paid},
    {.name = "t_overhead_paid_s",
     .type = RT_COLUMN_REAL,
     .span = RT_SPAN_PAID,
     .real = col_t_overhead_paid},
    REAL("t_bound_s", col_t_bound),
    TEXT("bound", col_bound),
    REAL("efficiency", col_efficiency),
    REAL("recoverable_s", col_recoverable),
    REAL("bw_time_s", col_bw_time),
    REAL("compute_time_s", col_compute_time),
    INT("overhead_bound", col_overhead_bound),
    INT("zero_ai", col_zero_ai),
    /* after every other column: "tag." + key cannot be another column's name */
    {.name = "tag.", .type = RT_COLUMN_OPT_TEXT, .span = RT_SPAN_TAGS, .opt_text = col_tag},
};
const size_t rt_table_n_columns = sizeof rt_table_columns / sizeof rt_table_columns[0];

/* The id of tag key k in ix: guess (the column after the last tag's: a row's tags mostly come in
 * the columns' order) when it is that key, else looked up; (size_t)-1 when not there. */
static size_t key_id(const rt_name_index *ix, const char *k, size_t guess)
{
    if (guess < ix->n && strcmp(ix->key[guess], k) == 0)
        return guess;
    return rt_name_index_get(ix, k, strlen(k));
}

static void keys_add(rt_name_index *ix, const rt_tags *tags)
{
    size_t guess = 0;
    for (size_t i = 0; i < tags->n; i++) {
        const char *k = tags->v[i].key;
        size_t id = key_id(ix, k, guess);
        guess = (id == (size_t)-1 ? rt_name_index_intern(ix, k, strlen(k)) : id) + 1;
    }
}

void rt_table_layout_init(rt_table_layout *t, const rt_analysis *a, rt_warnings *warn)
{
    memset(t, 0, sizeof *t);
    t->a = a;
    for (size_t c = 0; c < a->n_configs; c++)
        keys_add(&t->keys, &a->configs[c].tags);
    for (size_t i = 0; i < a->n_items; i++)
        keys_add(&t->keys, &a->items[i].tags);
    t->n_tags = t->keys.n < RT_TABLE_MAX_TAGS ? t->keys.n : RT_TABLE_MAX_TAGS;
    t->n_tags_left_out = t->keys.n - t->n_tags;
    if (warn && t->n_tags_left_out)
        rt_warnings_add(warn,
                        "%zu tag keys have no tag.<key> column in the tables (at most %d such "
                        "columns; the first left out: '%s'): they stay in the config label and "
                        "the JSON's tags",
                        t->n_tags_left_out, RT_TABLE_MAX_TAGS,
                        rt_name_index_key(&t->keys, RT_TABLE_MAX_TAGS));
}

void rt_table_layout_release(rt_table_layout *t)
{
    rt_name_index_release(&t->keys);
    t->n_tags = t->n_tags_left_out = 0;
}

size_t rt_table_column_span(const rt_table_layout *t, const rt_table_column *c)
{
    return c->span == RT_SPAN_LEVELS ? t->a->machine->n_levels
           : c->span == RT_SPAN_TAGS ? t->n_tags
           : c->span == RT_SPAN_PAID ? (size_t)t->a->own_paths
                                     : 1;
}

size_t rt_table_width(const rt_table_layout *t)
{
    size_t w = 0;
    for (size_t c = 0; c < rt_table_n_columns; c++)
        w += rt_table_column_span(t, &rt_table_columns[c]);
    return w;
}

char *rt_table_column_name(const rt_table_layout *t, const rt_table_column *c, size_t index)
{
    return rt_asprintf("%s%s", c->name,
                       c->span == RT_SPAN_LEVELS ? t->a->machine->levels[index].name
                       : c->span == RT_SPAN_TAGS ? rt_table_tag_key(t, index)
                                                 : "");
}

void rt_table_rows_init(rt_table_rows *it, const rt_table_layout *t, rt_table_kind kind)
{
    const rt_analysis *a = t->a;
    it->a = a;
    it->t = t;
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

/* The tags of row r of it, or NULL past the last row. */
static const rt_tags *tags_at(const rt_table_rows *it, size_t r)
{
    if (r >= it->n)
        return NULL;
    return it->kind == RT_TABLE_CONFIGS ? &it->a->configs[it->order[r]].tags
                                        : &it->a->items[it->order[r]].tags;
}

/* The row's value of each tag column from its tags (keys past the columns left out). */
static void row_tags(const rt_table_layout *t, rt_table_row *row, const rt_tags *tags)
{
    memset(row->tag, 0, t->n_tags * sizeof row->tag[0]);
    size_t guess = 0;
    for (size_t i = 0; i < tags->n; i++) {
        size_t id = key_id(&t->keys, tags->v[i].key, guess);
        if (id < t->n_tags) {
            row->tag[id] = tags->v[i].value;
            guess = id + 1;
        }
    }
}

void rt_table_rows_at(const rt_table_rows *it, size_t r, rt_table_row *row)
{
    const rt_analysis *a = it->a;
    row->a = a;
    row->rank = r + 1;
    const rt_tags *tags;
    if (it->kind == RT_TABLE_CONFIGS) {
        rt_rows_prefetch_configs(a, it->order, r, it->n);
        const rt_config *c = &a->configs[it->order[r]];
        row->kind = "config";
        row->name = row->config = c->label;
        row->v = &c->v;
        row->time = c->sum.time;
        tags = &c->tags;
    } else {
        rt_rows_prefetch_items(a, it->order, r, it->n);
        const rt_item *item = &a->items[it->order[r]];
        row->kind = "kernel";
        row->name = item->kernel->name;
        row->config = a->configs[item->config].label;
        row->v = &item->v;
        row->time = item->kernel->time;
        tags = &item->tags;
    }
    if (it->t->n_tags) {
        rt_rows_prefetch_tags(tags_at(it, r + AHEAD / 2), tags_at(it, r + AHEAD / 4));
        row_tags(it->t, row, tags);
    }
}

void rt_table_rows_release(rt_table_rows *it)
{
    free(it->order);
    it->order = NULL;
    it->n = it->next = 0;
}
