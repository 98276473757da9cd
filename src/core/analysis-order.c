/* An analysis's kernels and configs in order of time, longest first: sorted once when the
 * analysis is made, copied for every table and chart that walks them. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/util/strings.h"

/* Sorted as (time, index) pairs side by side: the comparisons read no memory elsewhere, which at
 * a million entries is most of the sort's cost. */
typedef struct time_index {
    double t;
    size_t i;
} time_index;

static int cmp_time_desc(const void *x, const void *y)
{
    const time_index *a = x, *b = y;
    if (a->t != b->t)
        return a->t > b->t ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

static size_t *order_by(const double *t, size_t n)
{
    time_index *p = rt_xcalloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = (time_index){t[i], i};
    qsort(p, n, sizeof *p, cmp_time_desc);
    size_t *idx = rt_xcalloc(n ? n : 1, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = p[i].i;
    free(p);
    return idx;
}

static size_t *order_items(const rt_analysis *a)
{
    double *t = rt_xcalloc(a->n_items ? a->n_items : 1, sizeof *t);
    for (size_t i = 0; i < a->n_items; i++)
        t[i] = a->items[i].kernel->time;
    size_t *idx = order_by(t, a->n_items);
    free(t);
    return idx;
}

static size_t *order_configs(const rt_analysis *a)
{
    double *t = rt_xcalloc(a->n_configs ? a->n_configs : 1, sizeof *t);
    for (size_t i = 0; i < a->n_configs; i++)
        t[i] = a->configs[i].sum.time;
    size_t *idx = order_by(t, a->n_configs);
    free(t);
    return idx;
}

static size_t *copy_order(const size_t *order, size_t n)
{
    size_t *idx = rt_xcalloc(n ? n : 1, sizeof *idx);
    if (n)
        memcpy(idx, order, n * sizeof *idx);
    return idx;
}

size_t *rt_analysis_items_by_time(const rt_analysis *a)
{
    return a->items_by_time ? copy_order(a->items_by_time, a->n_items) : order_items(a);
}

size_t *rt_analysis_configs_by_time(const rt_analysis *a)
{
    return a->configs_by_time ? copy_order(a->configs_by_time, a->n_configs) : order_configs(a);
}
