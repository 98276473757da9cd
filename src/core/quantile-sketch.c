/* A relative-error quantile sketch: values fall into buckets gamma^(i-1) < v <= gamma^i, kept as a
 * dense run of counts between the lowest and highest bucket seen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/quantile-sketch.h"
#include "rooftime/util/strings.h"

void rt_sketch_init(rt_sketch *s, double alpha)
{
    memset(s, 0, sizeof *s);
    s->alpha = alpha > 0 && alpha < 0.5 ? alpha : 0.01;
    s->log_gamma = log((1 + s->alpha) / (1 - s->alpha));
}

void rt_sketch_release(rt_sketch *s)
{
    free(s->counts);
    s->counts = NULL;
    s->n_counts = 0;
}

static int32_t bucket_of(const rt_sketch *s, double v)
{
    double i = ceil(log(v) / s->log_gamma);
    /* Times from 1e-300 to 1e300 s stay far inside int32 at any alpha accepted. */
    return (int32_t)fmax(fmin(i, 1e9), -1e9);
}

/* The value a bucket stands for: within alpha of every value in it. */
static double value_of(const rt_sketch *s, int32_t i)
{
    double gamma = exp(s->log_gamma);
    return 2 * exp(i * s->log_gamma) / (gamma + 1);
}

/* Make bucket i addressable, collapsing the lowest buckets when the run would grow too long. */
static uint32_t *slot(rt_sketch *s, int32_t i)
{
    if (s->n_counts == 0) {
        s->counts = rt_xcalloc(1, sizeof *s->counts);
        s->lo = i;
        s->n_counts = 1;
        return &s->counts[0];
    }
    int64_t hi = (int64_t)s->lo + s->n_counts - 1;
    int64_t new_lo = i < s->lo ? i : s->lo, new_hi = i > hi ? i : hi;
    if (new_hi - new_lo + 1 > RT_SKETCH_MAX_BUCKETS) {
        /* Keep the top RT_SKETCH_MAX_BUCKETS; everything lower counts in the lowest kept. */
        new_lo = new_hi - RT_SKETCH_MAX_BUCKETS + 1;
    }
    if (new_lo != s->lo || new_hi != hi) {
        uint32_t n = (uint32_t)(new_hi - new_lo + 1);
        uint32_t *c = rt_xcalloc(n, sizeof *c);
        for (uint32_t k = 0; k < s->n_counts; k++) {
            int64_t at = (int64_t)s->lo + k - new_lo;
            c[at < 0 ? 0 : at] += s->counts[k];
        }
        free(s->counts);
        s->counts = c;
        s->lo = (int32_t)new_lo;
        s->n_counts = n;
    }
    int64_t at = (int64_t)i - s->lo;
    return &s->counts[at < 0 ? 0 : at];
}

void rt_sketch_add(rt_sketch *s, double v)
{
    s->n++;
    if (!(v > 0) || !isfinite(v)) {
        s->zeros++;
        return;
    }
    (*slot(s, bucket_of(s, v)))++;
}

void rt_sketch_merge(rt_sketch *a, const rt_sketch *b)
{
    a->n += b->n;
    a->zeros += b->zeros;
    for (uint32_t k = 0; k < b->n_counts; k++)
        if (b->counts[k])
            *slot(a, b->lo + (int32_t)k) += b->counts[k];
}

double rt_sketch_quantile(const rt_sketch *s, double q)
{
    if (s->n == 0)
        return 0;
    q = q < 0 ? 0 : q > 1 ? 1 : q;
    uint64_t want = (uint64_t)floor(q * (double)(s->n - 1) + 0.5), seen = s->zeros;
    if (want < seen)
        return 0;
    for (uint32_t k = 0; k < s->n_counts; k++) {
        seen += s->counts[k];
        if (want < seen)
            return value_of(s, s->lo + (int32_t)k);
    }
    return value_of(s, s->lo + (int32_t)s->n_counts - 1);
}

uint64_t rt_sketch_count_above(const rt_sketch *s, double x)
{
    if (!(x > 0))
        return s->n - s->zeros;
    int32_t b = bucket_of(s, x);
    uint64_t c = 0;
    for (uint32_t k = 0; k < s->n_counts; k++)
        if (s->lo + (int64_t)k > b)
            c += s->counts[k];
    return c;
}

size_t rt_sketch_bytes(const rt_sketch *s)
{
    return s->n_counts * sizeof *s->counts;
}
