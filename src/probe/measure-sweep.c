/* The working-set sweep of a bandwidth kernel: each thread's buffer, and per working set a
 * calibrated pass count, timed trials and the references that tell a slow trial. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "measure-internal.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct sweep_ctx {
    const rt_bw_kernel *k;
    int threads;
    void **bufs; /* one per thread, allocated and first touched by that thread */
    size_t cap;
} sweep_ctx;

/* Fill (first call: allocate) each thread's buffer; 0 when every thread got memory. */
static int sweep_fill(sweep_ctx *c, size_t bytes, int alloc)
{
    int fail = 0;
#ifdef RT_HAVE_OPENMP
#pragma omp parallel num_threads(c->threads) reduction(| : fail)
#endif
    {
        int tid = 0;
#ifdef RT_HAVE_OPENMP
        tid = omp_get_thread_num();
#endif
        if (alloc) {
            /*
             * Whole huge pages, aligned to them: fewer TLB misses at the DRAM end of the sweep
             * (harmless where THP is off), and every working set, which starts at the buffer's
             * start, in pages of one size. A buffer only 4 KiB aligned began in the small pages
             * before its first huge page: on the AMD Zen 3 VM a 12 KiB read across that boundary
             * ran at half the L1 rate (95-110 against 150-200 GB/s, for seconds, on whichever
             * core's buffer began so), which was the two-thread L1 stretch at one core's rate.
             */
            size_t huge = (size_t)2 << 20, size = (c->cap + huge - 1) / huge * huge;
            void *p = NULL;
            if (posix_memalign(&p, huge, size) != 0)
                p = NULL;
#ifdef MADV_HUGEPAGE
            if (p)
                madvise(p, size, MADV_HUGEPAGE);
#endif
            c->bufs[tid] = p;
        }
        if (c->bufs[tid])
            rt_bw_fill(c->k->kind, c->bufs[tid], bytes);
        else
            fail = 1;
    }
    return fail ? -1 : 0;
}

typedef struct sweep_job {
    sweep_ctx *c;
    size_t bytes;
    long passes;
} sweep_job;

static int sweep_job_run(void *ctx, int tid)
{
    sweep_job *j = ctx;
    return rt_bw_run(j->c->k, j->c->bufs[tid], j->bytes, j->passes);
}

/*
 * All threads run `passes` passes at once. Returns the wall time (first start
 * to last finish) for a trial, or for balanced work (each thread's working set
 * inside its core's own caches) the threads' own times' harmonic mean, so the
 * rate is the sum of the threads' rates, or for calibration (calib) the longest
 * thread's own time: scheduling delays on a busy machine must not shrink the
 * pass count. A trial over slow_after seconds (0: no limit) is retried as
 * disturbed.
 */
static double sweep_time(sweep_ctx *c, size_t bytes, long passes, int *bad, int calib,
                         double slow_after, bool balanced, bool *clean)
{
    sweep_job j = {c, bytes, passes};
    rt_team_timing tm;
    *bad =
        (calib ? rt_team_run(c->threads, sweep_job_run, &j, &tm)
               : rt_team_run_synced(c->threads, sweep_job_run, &j, slow_after, balanced, &tm)) != 0;
    if (!*bad && tm.threads != c->threads)
        *bad = 1;
    if (clean)
        *clean = !tm.disturbed;
    return calib ? tm.thread_max : balanced ? tm.own : tm.wall;
}

size_t rt_bw_grid_sizes(const rt_bw_grid *g, size_t *sizes, size_t cap)
{
    if (!(g->step > 1.0) || !(g->min >= RT_BW_GRAIN) || !(g->max >= g->min))
        return 0;
    size_t np = 0;
    for (size_t i = 0; np < cap; i++) {
        double want = g->min * pow(g->step, (double)i);
        if (want > g->max * 1.0001)
            break;
        if (g->skip_to > g->skip_from && want > g->skip_from && want <= g->skip_to)
            continue;
        size_t b = (size_t)llround(want / RT_BW_GRAIN) * RT_BW_GRAIN;
        if (b < RT_BW_GRAIN)
            b = RT_BW_GRAIN;
        if (np == 0 || b > sizes[np - 1])
            sizes[np++] = b;
    }
    return np;
}

/*
 * The rate all threads together must reach at a working set of `bytes` per thread, or the trial is
 * slow (0: none): RT_SLOW_SAME of the best clean rate there so far (same, the fastest calibration
 * run included) and RT_SLOW_CROSS of the one-thread curve's ceiling at that size times the
 * threads, both only inside the caches of one core (ref->private_bytes): beyond them the threads
 * share a cache or the memory bus, and another process's traffic there is what the machine does.
 */
static double slow_rate(const rt_bw_ref *ref, int threads, size_t bytes, double same)
{
    if (!ref || !((double)bytes <= ref->private_bytes))
        return 0;
    double want = RT_SLOW_SAME * same;
    if (threads > 1 && ref->one && rt_team_distinct_cores(threads))
        for (size_t i = 0; i < ref->n_one; i++)
            if (fabs(ref->one[i].bytes - (double)bytes) <= 0.01 * (double)bytes)
                want = fmax(want, RT_SLOW_CROSS * threads * ref->one[i].bw.best);
    return want;
}

/* One working set: calibration, then `trials` timed trials into *out; prev (NULL for the first) is
 * the point before it. -1 when the kernel's check failed. */
static int sweep_point(sweep_ctx *c, size_t bytes, const rt_bw_point *prev, int trials,
                       double seconds, const rt_bw_ref *ref, rt_bw_point *out)
{
    int threads = c->threads, bad = 0;
    /* Inside a core's own caches, RT_OWN_SPLIT times as many trials, each as much shorter. */
    if (ref && (double)bytes <= ref->private_bytes) {
        trials = trials * RT_OWN_SPLIT < 64 ? trials * RT_OWN_SPLIT : 64;
        seconds /= RT_OWN_SPLIT;
    }
    /*
     * Calibrate: grow the pass count until a run lasts an eighth of the target. Not needed
     * where the last point's fastest trial says one pass lasts two trials or more (rates
     * only fall as working sets grow): one pass each.
     */
    long passes = 1;
    double t = INFINITY;
    double traffic = (double)bytes * rt_bw_traffic(c->k->kind); /* one pass, a thread */
    if (!prev || !(prev->bw.max > 0) || (double)threads * traffic / prev->bw.max < 2 * seconds)
        t = sweep_time(c, bytes, passes, &bad, 1, 0, false, NULL);
    while (!bad && t < seconds / 8 && passes < (1L << 40)) {
        passes *= 4;
        t = sweep_time(c, bytes, passes, &bad, 1, 0, false, NULL);
    }
    /* The fastest of three: a run stretched by another process would give too few passes
     * (not needed when one pass already lasts a trial: the count stays 1). */
    for (int k = 0; k < 2 && !bad && t < seconds; k++)
        t = fmin(t, sweep_time(c, bytes, passes, &bad, 1, 0, false, NULL));
    double same = isfinite(t) && t > 0 ? (double)threads * traffic * (double)passes / t : 0;
    if (!bad && t < seconds)
        passes = (long)((double)passes * seconds / (t > 0 ? t : 1e-9)) + 1;
    double v[64], work = (double)threads * traffic * (double)passes;
    /* Inside a core's own caches each thread's work is its core's: the trial's rate is the sum of
     * the threads' own rates (rt_team_run_synced's balanced). */
    bool balanced = ref && (double)bytes <= ref->private_bytes && threads > 1 &&
                    rt_team_distinct_cores(threads);
    bool clean[64];
    for (int k = 0; k < trials && !bad; k++) {
        double want = slow_rate(ref, threads, bytes, same);
        double s =
            sweep_time(c, bytes, passes, &bad, 0, want > 0 ? work / want : 0, balanced, &clean[k]);
        v[k] = work / s;
        if (clean[k])
            same = fmax(same, v[k]);
    }
    if (bad)
        return -1;
    out->bytes = (double)bytes;
    out->bw = rt_stat_of_clean(v, clean, (size_t)trials);
    return 0;
}

int rt_bw_points(const rt_bw_kernel *k, int threads, const size_t *sizes, size_t np, int trials,
                 double seconds, const rt_bw_ref *ref, rt_bw_point *out,
                 void (*progress)(void *ctx, double fraction), void *pctx, rt_error *err)
{
    if (threads < 1 || np == 0) {
        rt_error_set(err, "bandwidth sweep: bad parameters");
        return -1;
    }
#ifndef RT_HAVE_OPENMP
    threads = 1;
#endif
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    size_t cap = 0;
    for (size_t i = 0; i < np; i++)
        cap = sizes[i] > cap ? sizes[i] : cap;
    sweep_ctx c = {k, threads, rt_xcalloc((size_t)threads, sizeof(void *)), cap};
    int rc = -1;
    /* The read pattern depends on the position only: filled once, whole, for every size. */
    if (sweep_fill(&c, k->kind == RT_BW_READ ? c.cap : sizes[0], 1) != 0) {
        rt_error_set(err, "cannot allocate %zu bytes per thread for the bandwidth sweep", c.cap);
        goto done;
    }
    for (size_t i = 0; i < np; i++) {
        if (i > 0 && k->kind != RT_BW_READ)
            sweep_fill(&c, sizes[i], 0);
        if (sweep_point(&c, sizes[i], i > 0 ? &out[i - 1] : NULL, trials, seconds, ref, &out[i]) !=
            0) {
            rt_error_set(err, "at %zu bytes per thread on %d thread%s", sizes[i], threads,
                         threads > 1 ? "s" : "");
            rc = 1;
            goto done;
        }
        if (progress)
            progress(pctx, (double)(i + 1) / (double)np);
    }
    rc = 0;
done:
    for (int k = 0; k < threads; k++)
        free(c.bufs[k]);
    free(c.bufs);
    return rc;
}

int rt_bw_sweep(const rt_bw_kernel *k, int threads, const rt_bw_grid *grid, int trials,
                double seconds, const rt_bw_ref *ref, rt_bw_point **pts, size_t *n,
                void (*progress)(void *ctx, double fraction), void *pctx, rt_error *err)
{
    *pts = NULL;
    *n = 0;
    size_t cap_pts = grid->step > 1.0 && grid->max >= grid->min && grid->min >= RT_BW_GRAIN
                         ? (size_t)(log(grid->max / grid->min) / log(grid->step)) + 2
                         : 0;
    if (threads < 1 || cap_pts == 0) {
        rt_error_set(err, "bandwidth sweep: bad parameters");
        return -1;
    }
    /* Sizes first, rounded to whole kernel steps and deduplicated. */
    size_t *sizes = rt_xcalloc(cap_pts, sizeof *sizes);
    size_t np = rt_bw_grid_sizes(grid, sizes, cap_pts);
    if (np == 0) {
        free(sizes);
        rt_error_set(err, "bandwidth sweep: no working set between %.0f and %.0f bytes", grid->min,
                     grid->max);
        return -1;
    }
    rt_bw_point *out = rt_xcalloc(np, sizeof *out);
    int rc = rt_bw_points(k, threads, sizes, np, trials, seconds, ref, out, progress, pctx, err);
    free(sizes);
    if (rc != 0) {
        free(out);
        return rc;
    }
    *pts = out;
    *n = np;
    return 0;
}
