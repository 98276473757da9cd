/* The verdict tables' rows (analysis-text-rows.c): the text tables' rows formatted on the workers
 * a block at a time and written in order, and the prefetching of rows ahead that the text and
 * CSV writers share. */
#ifndef ROOFTIME_FORMATS_ANALYSIS_TEXT_ROWS_H
#define ROOFTIME_FORMATS_ANALYSIS_TEXT_ROWS_H

#include <stdbool.h>
#include <stdio.h>

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

/* Rows 1 to n of the text table of configs (items: of kernels) in the order given, as
 * fprintf("%4zu  %*s %6.1f%% %9s %10s %9s  %-18s %6s %*s  %s\n", ...) writes each: formatted by
 * the workers a block of rows each, written to fp in order. */
void rt_text_rows(FILE *fp, const rt_analysis *a, const size_t *order, size_t n, bool items);

#endif
