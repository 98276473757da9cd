/* Spread of per-invocation times: exact quartiles of few samples, a quantile sketch for many, and
 * ratios of two sums judged against their spread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/time-spread.h"
#include "rooftime/util/strings.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The q-quantile of sorted v[0..n), n >= 1, interpolated at (n - 1) q. */
static double quantile_sorted(const double *v, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

void rt_time_spread_of(double *v, size_t n, rt_time_spread *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    out->n = (double)n;
    out->q1 = quantile_sorted(v, n, 0.25);
    out->median = quantile_sorted(v, n, 0.5);
    out->q3 = quantile_sorted(v, n, 0.75);
}

int rt_time_spread_check(const rt_time_spread *s, const char **field, const char **why)
{
    const double v[] = {s->n, s->median, s->q1, s->q3};
    static const char *const name[] = {"n", "median", "q1", "q3"};
    for (int i = 0; i < 4; i++)
        if (!isfinite(v[i]) || v[i] < 0) {
            *field = name[i];
            *why = "is not a finite number >= 0";
            return -1;
        }
    if (s->n == 0 && (s->median != 0 || s->q1 != 0 || s->q3 != 0)) {
        *field = "n";
        *why = "is 0 (unknown) but the quartiles are not";
        return -1;
    }
    if (s->q1 > s->median) {
        *field = "q1";
        *why = "is above the median";
        return -1;
    }
    if (s->median > s->q3) {
        *field = "q3";
        *why = "is below the median";
        return -1;
    }
    return 0;
}

bool rt_time_spread_known(const rt_time_spread *s)
{
    return s->n >= RT_SPREAD_MIN_SAMPLES && s->median > 0;
}

double rt_time_spread_rel(const rt_time_spread *s)
{
    return rt_time_spread_known(s) ? (s->q3 - s->q1) / (2 * s->median) : NAN;
}

/* Move the exact samples into a sketch. */
static void to_sketch(rt_time_samples *a)
{
    rt_sketch_init(&a->sketch, RT_SPREAD_ALPHA);
    for (uint32_t i = 0; i < a->n_exact; i++)
        rt_sketch_add(&a->sketch, a->exact[i]);
    free(a->exact);
    a->exact = NULL;
    a->n_exact = a->cap = 0;
    a->sketched = true;
}

void rt_time_samples_add(rt_time_samples *a, double seconds)
{
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    if (!a->sketched && a->n_exact == RT_SPREAD_EXACT)
        to_sketch(a); /* one more than the exact buffer holds */
    if (a->sketched) {
        rt_sketch_add(&a->sketch, seconds);
        return;
    }
    if (a->n_exact == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 4;
        a->exact = rt_xrealloc(a->exact, a->cap * sizeof *a->exact);
    }
    a->exact[a->n_exact++] = seconds;
}

void rt_time_samples_merge(rt_time_samples *a, const rt_time_samples *b)
{
    if (!b->sketched) {
        for (uint32_t i = 0; i < b->n_exact; i++)
            rt_time_samples_add(a, b->exact[i]);
        return;
    }
    if (!a->sketched)
        to_sketch(a);
    rt_sketch_merge(&a->sketch, &b->sketch);
}

uint64_t rt_time_samples_count(const rt_time_samples *a)
{
    return a->sketched ? a->sketch.n : a->n_exact;
}

void rt_time_samples_result(const rt_time_samples *a, rt_time_spread *out)
{
    memset(out, 0, sizeof *out);
    if (a->sketched) {
        out->n = (double)a->sketch.n;
        out->q1 = rt_sketch_quantile(&a->sketch, 0.25);
        out->median = rt_sketch_quantile(&a->sketch, 0.5);
        out->q3 = rt_sketch_quantile(&a->sketch, 0.75);
        return;
    }
    if (a->n_exact == 0)
        return;
    double v[RT_SPREAD_EXACT];
    memcpy(v, a->exact, a->n_exact * sizeof *v);
    rt_time_spread_of(v, a->n_exact, out);
}

void rt_time_samples_release(rt_time_samples *a)
{
    free(a->exact);
    if (a->sketched)
        rt_sketch_release(&a->sketch);
    memset(a, 0, sizeof *a);
}

void rt_noise_add(rt_noise *z, double time, const rt_time_spread *s)
{
    if (!(time > 0))
        return;
    z->time += time;
    double r = rt_time_spread_rel(s);
    if (!isnan(r)) {
        z->time_known += time;
        z->weighted += time * r;
    } else if (time > z->few_time) {
        z->few_time = time;
        z->few_n = s->n;
    }
}

double rt_noise_rel(const rt_noise *z)
{
    if (!(z->time > 0) || z->time_known < RT_NOISE_MIN_COVER * z->time)
        return NAN;
    return z->weighted / z->time_known;
}

rt_ratio_noise rt_noise_compare(const rt_noise *a, const rt_noise *b, double ratio,
                                double *combined)
{
    double ra = rt_noise_rel(a), rb = rt_noise_rel(b);
    double c = isnan(ra) || isnan(rb) ? NAN : sqrt(ra * ra + rb * rb);
    if (combined)
        *combined = c;
    if (isnan(c) || !(ratio > 0) || !isfinite(ratio))
        return RT_RATIO_SPREAD_UNKNOWN;
    return fabs(log(ratio)) <= c ? RT_RATIO_WITHIN_NOISE : RT_RATIO_BEYOND_NOISE;
}

rt_ratio_noise rt_noise_note(char *buf, size_t n, const rt_noise *a, const rt_noise *b,
                             double ratio)
{
    double c;
    rt_ratio_noise cls = rt_noise_compare(a, b, ratio, &c);
    if (!isnan(c)) {
        snprintf(buf, n, "IQR \u00b1%.*f%%", c * 100 < 1 ? 1 : 0, c * 100);
        return cls;
    }
    /* The side without a spread says why: no per-invocation times, or too few of them. */
    double few = INFINITY;
    bool none = false;
    const rt_noise *side[] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (!isnan(rt_noise_rel(side[i])))
            continue;
        if (side[i]->few_n > 0)
            few = fmin(few, side[i]->few_n);
        else
            none = true;
    }
    if (none || !isfinite(few))
        snprintf(buf, n, "no per-invocation times, spread unknown");
    else
        snprintf(buf, n, "from %.0f invocation%s, spread unknown", few, few == 1 ? "" : "s");
    return cls;
}

void rt_noise_ratio_text(char *buf, size_t n, double ratio, int digits, const rt_noise *a,
                         const rt_noise *b)
{
    char note[96];
    if (rt_noise_note(note, sizeof note, a, b, ratio) == RT_RATIO_WITHIN_NOISE)
        snprintf(buf, n, "within noise (%s)", note);
    else
        snprintf(buf, n, "x%.*f (%s)", digits, ratio, note);
}

void rt_time_band_add(rt_time_band *b, double time, double invocations, const rt_time_spread *s,
                      double resolution)
{
    if (!(time > 0))
        return;
    b->time += time;
    if (rt_time_spread_known(s) && invocations > 0) {
        b->lo += invocations * fmax(0, s->q1 - resolution);
        b->hi += invocations * (s->q3 + resolution);
        b->time_known += time;
    } else {
        b->lo += time;
        b->hi += time;
    }
}

bool rt_time_band_known(const rt_time_band *b)
{
    return b->time > 0 && b->time_known >= RT_NOISE_MIN_COVER * b->time;
}

void rt_time_band_over_runs(const rt_time_band *runs, size_t n, rt_time_band *out)
{
    memset(out, 0, sizeof *out);
    double *v = rt_xmalloc(2 * n * sizeof *v), *lo = v, *hi = v + n, share = 1;
    for (size_t i = 0; i < n; i++) {
        lo[i] = runs[i].lo;
        hi[i] = runs[i].hi;
        out->time += runs[i].time / (double)n;
        double k = runs[i].time > 0 ? runs[i].time_known / runs[i].time : 0;
        share = k < share ? k : share;
    }
    qsort(lo, n, sizeof *lo, cmp_double);
    qsort(hi, n, sizeof *hi, cmp_double);
    out->lo = quantile_sorted(lo, n, 0.25);
    out->hi = quantile_sorted(hi, n, 0.75);
    out->time_known = share * out->time;
    free(v);
}

rt_ratio_noise rt_time_band_compare(const rt_time_band *before, const rt_time_band *after,
                                    double threshold, double *margin)
{
    double m = before->hi > 0 ? after->lo / before->hi : NAN;
    if (margin)
        *margin = m;
    if (!rt_time_band_known(before) || !rt_time_band_known(after) || isnan(m))
        return RT_RATIO_SPREAD_UNKNOWN;
    return m > 1 + threshold ? RT_RATIO_BEYOND_NOISE : RT_RATIO_WITHIN_NOISE;
}

double rt_time_spread_tick(const rt_time_spread *const *s, size_t n)
{
    size_t known = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rt_time_spread_known(s[i]))
            continue;
        known++;
        const double v[3] = {s[i]->q1, s[i]->median, s[i]->q3};
        for (int j = 0; j < 3; j++) {
            double q = v[j] * 4e6; /* quarter microseconds */
            if (fabs(q - nearbyint(q)) > 1e-6 * fmax(1, fabs(q)))
                return 0;
        }
    }
    return known ? 1e-6 : 0;
}
