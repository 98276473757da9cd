/* The prefetching of the verdict tables' rows ahead, shared by the row iterator of
 * analysis-columns.c (the CSV and the C API's columns) and the text rows of analysis-text-rows.c.
 */
#ifndef ROOFTIME_FORMATS_ANALYSIS_PREFETCH_H
#define ROOFTIME_FORMATS_ANALYSIS_PREFETCH_H

#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/util/prefetch.h"

/* Rows go out in time order, which visits the configs, items, kernels and names at random
 * places in memory: at a million rows the writer waits on memory more than it formats. The row
 * AHEAD places on has its structures fetched now and the one half as far its strings (which
 * the structures point to), so the loads overlap instead of stalling one after another. */
#if defined(__GNUC__)
/* Inlined by force: GCC drops a call it has not inlined to a function of prefetches alone. */
#define PREFETCHER static inline __attribute__((always_inline)) void
#else
#define PREFETCHER static void
#endif
enum { AHEAD = 16 };

PREFETCHER rt_rows_prefetch_verdict(const rt_verdict *v)
{
    RT_PREFETCH(&v->n);
    RT_PREFETCH(&v->ai_ref);
    RT_PREFETCH(v->bound_label);
    RT_PREFETCH(&v->recoverable);
}

/* Row r of the configs in order ci (n rows): what its later rows will read. */
PREFETCHER rt_rows_prefetch_configs(const rt_analysis *a, const size_t *ci, size_t r, size_t n)
{
    if (r + AHEAD < n) {
        const rt_config *c = &a->configs[ci[r + AHEAD]];
        RT_PREFETCH(&c->label);
        RT_PREFETCH(&c->sum.time);
        rt_rows_prefetch_verdict(&c->v);
    }
    if (r + AHEAD / 2 < n)
        RT_PREFETCH(a->configs[ci[r + AHEAD / 2]].label);
}

/* The same for the items in order ii: the item, then its kernel, then the kernel's name. */
PREFETCHER rt_rows_prefetch_items(const rt_analysis *a, const size_t *ii, size_t r, size_t n)
{
    if (r + AHEAD < n) {
        const rt_item *it = &a->items[ii[r + AHEAD]];
        RT_PREFETCH(&it->kernel);
        rt_rows_prefetch_verdict(&it->v);
    }
    if (r + AHEAD / 2 < n) {
        const rt_kernel *k = a->items[ii[r + AHEAD / 2]].kernel;
        RT_PREFETCH(&k->name);
        RT_PREFETCH(&k->time);
    }
    if (r + AHEAD / 4 < n)
        RT_PREFETCH(a->items[ii[r + AHEAD / 4]].kernel->name);
}

/* What the tag columns read of the rows ahead (analysis-columns.c): the tag array of the row
 * half as far ahead as the structures, the keys (and the values beside them) of the row a quarter
 * as far; NULL: past the last row. */
PREFETCHER rt_rows_prefetch_tags(const rt_tags *half, const rt_tags *quarter)
{
    if (half)
        RT_PREFETCH(half->v);
    for (size_t i = 0; quarter && i < quarter->n && i < 8; i++)
        RT_PREFETCH(quarter->v[i].key);
}

#endif
