/* The spread of a kernel's time per invocation (time-spread.c): median and quartiles of the
 * invocations' own times, where a source times them one by one (the study's timers, PyTorch traces,
 * Nsight Compute per launch), and whether a ratio of two times stands out of that noise. */
#ifndef ROOFTIME_CORE_TIME_SPREAD_H
#define ROOFTIME_CORE_TIME_SPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/quantile-sketch.h"

/* Fewer invocations than this give no spread worth comparing with ("spread unknown"). */
#define RT_SPREAD_MIN_SAMPLES 5
/* Samples an accumulator keeps exactly; beyond, they go into a quantile sketch (bounded memory:
 * RT_SPREAD_EXACT doubles, then at most RT_SKETCH_MAX_BUCKETS counts). */
#define RT_SPREAD_EXACT 256
/* The sketch's relative accuracy (1%). */
#define RT_SPREAD_ALPHA 0.01
/* The share of a sum's time that must have a known spread for the sum to have one. */
#define RT_NOISE_MIN_COVER 0.5

/* Seconds per invocation. n = 0: unknown (no per-invocation times); then the rest is 0. */
typedef struct rt_time_spread {
    double n;      /* invocations timed one by one */
    double median; /* of their times */
    double q1, q3; /* first and third quartiles */
} rt_time_spread;

/* Exact quartiles of v[0..n), which is sorted in place: linear interpolation between order
 * statistics at (n - 1) q (numpy's default). n = 0 gives unknown. */
void rt_time_spread_of(double *v, size_t n, rt_time_spread *out);

/* 0 when s is unknown or holds finite numbers with n >= 0 and 0 <= q1 <= median <= q3; otherwise
 * -1 with the first field at fault in *field and what is wrong in *why. */
int rt_time_spread_check(const rt_time_spread *s, const char **field, const char **why);

/* Known: at least RT_SPREAD_MIN_SAMPLES invocations and a median above 0. */
bool rt_time_spread_known(const rt_time_spread *s);
/* Half the interquartile range over the median, (q3 - q1) / (2 median); NAN when not known. */
double rt_time_spread_rel(const rt_time_spread *s);

/* Per-invocation times as they come, in memory bounded per accumulator: the first RT_SPREAD_EXACT
 * exactly, then a quantile sketch (quantiles within RT_SPREAD_ALPHA). All zero is empty. */
typedef struct rt_time_samples {
    double *exact; /* the samples while n_exact <= RT_SPREAD_EXACT and not sketched */
    uint32_t n_exact, cap;
    bool sketched; /* the samples are in sketch (exact is empty) */
    rt_sketch sketch;
} rt_time_samples;

void rt_time_samples_add(rt_time_samples *a, double seconds);
/* Add every sample of b into a. */
void rt_time_samples_merge(rt_time_samples *a, const rt_time_samples *b);
uint64_t rt_time_samples_count(const rt_time_samples *a);
/* The spread of the samples so far: exact while they are few, from the sketch after. */
void rt_time_samples_result(const rt_time_samples *a, rt_time_spread *out);
void rt_time_samples_release(rt_time_samples *a);

/* The noise of a sum of kernels (a config): the time-weighted relative half-IQR of those with a
 * known spread, and what the others lack. Zero-initialize, then add each kernel. */
typedef struct rt_noise {
    double time;       /* all the kernels' time */
    double time_known; /* of which in kernels with a known spread */
    double weighted;   /* sum of time x rt_time_spread_rel over those */
    double few_time;   /* the longest kernel without a known spread: its time */
    double few_n;      /* and its invocations timed one by one (0: none) */
} rt_noise;

void rt_noise_add(rt_noise *z, double time, const rt_time_spread *s);
/* The relative half-IQR of the sum (time-weighted over kernels with a known spread); NAN when
 * less than RT_NOISE_MIN_COVER of its time has one. */
double rt_noise_rel(const rt_noise *z);

typedef enum rt_ratio_noise {
    RT_RATIO_SPREAD_UNKNOWN = 0, /* a side has no known spread: the ratio stands alone */
    RT_RATIO_WITHIN_NOISE,       /* |ln ratio| <= the combined relative spread */
    RT_RATIO_BEYOND_NOISE,
} rt_ratio_noise;

/* Compare ratio = time(b) / time(a) with the spread of both sides: combined = sqrt(ra^2 + rb^2)
 * of their relative half-IQRs (into *combined when not NULL; NAN when unknown). */
rt_ratio_noise rt_noise_compare(const rt_noise *a, const rt_noise *b, double ratio,
                                double *combined);

/* What a reader needs beside the ratio, into buf: "IQR ±4%" (the combined spread) when both sides
 * have one, else "from 3 invocations, spread unknown" or "no per-invocation times, spread
 * unknown"; returns how the ratio compares. */
rt_ratio_noise rt_noise_note(char *buf, size_t n, const rt_noise *a, const rt_noise *b,
                             double ratio);
/* A sum of kernels' time as a band of its noise, for comparing runs (`diff --gate`): a kernel with
 * a known spread counts invocations x its first quartile at the low end and x its third quartile
 * at the high end, one without counts its time at both. Zero-initialize, then add each kernel. */
typedef struct rt_time_band {
    double time;       /* the kernels' time, seconds */
    double lo, hi;     /* the band's ends, seconds */
    double time_known; /* of the time, in kernels with a known spread */
} rt_time_band;

/* resolution: the tick of the times (seconds; 0 when unknown): each end of a known spread's band
 * widens by one tick per invocation, a quartile being no finer than the clock that read it. */
void rt_time_band_add(rt_time_band *b, double time, double invocations, const rt_time_spread *s,
                      double resolution);
/* The tick of a set of spreads' times: 1 us when every quartile and median of the known ones is
 * a whole number of quarter microseconds (times read to the microsecond, as PyTorch's trace
 * writes them, interpolated at quarters), else 0 (finer, or unknown). */
double rt_time_spread_tick(const rt_time_spread *const *s, size_t n);
/* Known: at least RT_NOISE_MIN_COVER of its time has a known spread. */
bool rt_time_band_known(const rt_time_band *b);
/* Several runs of one workload as one band: from the first quartile of the runs' low ends to the
 * third quartile of their high ends (interpolated as rt_time_spread_of; one run: its own band),
 * the noise between runs beside the noise within each; time is their mean, time_known the least
 * share known among them times that mean. n >= 1. */
void rt_time_band_over_runs(const rt_time_band *runs, size_t n, rt_time_band *out);

/* How after's band stands against before's: after slower beyond noise when its low end lies above
 * before's high end by more than the threshold (a fraction); *margin (may be NULL) gets
 * after.lo / before.hi. RT_RATIO_SPREAD_UNKNOWN when either band is not known. */
rt_ratio_noise rt_time_band_compare(const rt_time_band *before, const rt_time_band *after,
                                    double threshold, double *margin);

/* The ratio for a sentence: "x76.53 (IQR ±4%)", "within noise (IQR ±12%)", "x76.53 (from 3
 * invocations, spread unknown)". digits: decimals of the number. */
void rt_noise_ratio_text(char *buf, size_t n, double ratio, int digits, const rt_noise *a,
                         const rt_noise *b);

#endif
