/* Quantiles of a stream of positive numbers in memory independent of its length
 * (quantile-sketch.c): a log-bucketed histogram (DDSketch, Masson et al., VLDB 2019) whose answers
 * are within a set relative error of the true quantile. */
#ifndef ROOFTIME_CORE_QUANTILE_SKETCH_H
#define ROOFTIME_CORE_QUANTILE_SKETCH_H

#include <stddef.h>
#include <stdint.h>

/* The most buckets one sketch holds: beyond, the lowest collapse into one (the low quantiles lose
 * accuracy first; the median and above keep it unless values span more than ~1e8x at 1%). */
#define RT_SKETCH_MAX_BUCKETS 1024

typedef struct rt_sketch {
    double alpha;      /* relative accuracy, e.g. 0.01 */
    double log_gamma;  /* log((1 + alpha) / (1 - alpha)) */
    uint32_t *counts;  /* counts[i] for bucket index lo + i */
    int32_t lo;        /* index of counts[0] */
    uint32_t n_counts; /* buckets held */
    uint64_t zeros;    /* values <= 0 (counted as 0) */
    uint64_t n;        /* values added */
} rt_sketch;

void rt_sketch_init(rt_sketch *s, double alpha);
void rt_sketch_release(rt_sketch *s);
void rt_sketch_add(rt_sketch *s, double v);
/* Add every value of b into a (same alpha). */
void rt_sketch_merge(rt_sketch *a, const rt_sketch *b);
/* The q-quantile (0 <= q <= 1, nearest rank on the (n - 1) q grid), within alpha of a value of
 * the stream; 0 when empty. */
double rt_sketch_quantile(const rt_sketch *s, double q);
/* How many values are above x (to within alpha of x). */
uint64_t rt_sketch_count_above(const rt_sketch *s, double x);
/* Bytes held beyond the struct. */
size_t rt_sketch_bytes(const rt_sketch *s);

#endif
