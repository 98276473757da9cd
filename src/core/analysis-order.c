/* An analysis's kernels and configs in order of time, longest first: sorted once when the
 * analysis is made, copied for every table and chart that walks them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/util/strings.h"

/* Longest first, ties in index order, as a comparison sort by (time descending, index) would
 * give: a stable radix sort of the times' bits, one pass per byte that differs between them.
 * At a million entries this is several times faster than qsort's comparisons. NaN sorts last;
 * -0 and 0 are one time. */
static uint64_t desc_key(double t)
{
    if (t != t)
        return UINT64_MAX;
    if (t == 0)
        t = 0; /* -0 */
    uint64_t u;
    memcpy(&u, &t, sizeof u);
    u = (u >> 63) ? ~u : (u | (1ull << 63)); /* ascending as unsigned */
    return ~u;                               /* descending */
}

static size_t *order_by(const double *t, size_t n)
{
    uint64_t *key = rt_xmalloc((n ? n : 1) * sizeof *key),
             *k2 = rt_xmalloc((n ? n : 1) * sizeof *k2);
    size_t *idx = rt_xmalloc((n ? n : 1) * sizeof *idx), *i2 = rt_xmalloc((n ? n : 1) * sizeof *i2);
    uint64_t diff = 0;
    for (size_t i = 0; i < n; i++) {
        key[i] = desc_key(t[i]);
        idx[i] = i;
        diff |= key[i] ^ key[0];
    }
    for (int shift = 0; shift < 64; shift += 8) {
        if (!((diff >> shift) & 0xFF))
            continue; /* every key has the same byte here */
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((key[i] >> shift) & 0xFF) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) {
            size_t d = count[(key[i] >> shift) & 0xFF]++;
            k2[d] = key[i];
            i2[d] = idx[i];
        }
        uint64_t *tk = key;
        key = k2, k2 = tk;
        size_t *ti = idx;
        idx = i2, i2 = ti;
    }
    free(key);
    free(k2);
    free(i2);
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
