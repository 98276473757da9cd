/* Runs one job on a team of threads at once and times it, retrying runs where the threads did not
 * overlap. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "measure-internal.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif

double rt_thread_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rt_team_run(int threads, int (*job)(void *ctx, int tid), void *ctx, rt_team_timing *tm)
{
    if (threads < 1)
        threads = 1;
#ifndef RT_HAVE_OPENMP
    threads = 1;
#endif
    double *st = rt_xcalloc((size_t)threads, sizeof *st);
    double *en = rt_xcalloc((size_t)threads, sizeof *en);
    double *cpu = rt_xcalloc((size_t)threads, sizeof *cpu);
    int fail = 0, used = 1;
#ifdef RT_HAVE_OPENMP
#pragma omp parallel num_threads(threads) reduction(| : fail)
    {
        int tid = omp_get_thread_num();
#pragma omp master
        used = omp_get_num_threads();
        /* Everyone starts together; each thread times its own part. */
#pragma omp barrier
        double c0 = rt_thread_cpu_now();
        st[tid] = rt_now();
        fail |= job(ctx, tid) != 0;
        en[tid] = rt_now();
        cpu[tid] = rt_thread_cpu_now() - c0;
    }
#else
    double c0 = rt_thread_cpu_now();
    st[0] = rt_now();
    fail = job(ctx, 0) != 0;
    en[0] = rt_now();
    cpu[0] = rt_thread_cpu_now() - c0;
#endif
    double smin = INFINITY, smax = -INFINITY, emin = INFINITY, emax = -INFINITY, kmax = 0,
           ratio = 1;
    for (int i = 0; i < used; i++) {
        smin = fmin(smin, st[i]);
        smax = fmax(smax, st[i]);
        emin = fmin(emin, en[i]);
        emax = fmax(emax, en[i]);
        kmax = fmax(kmax, en[i] - st[i]);
        if (en[i] > st[i])
            ratio = fmin(ratio, cpu[i] / (en[i] - st[i]));
    }
    tm->wall = emax - smin;
    tm->thread_max = kmax;
    tm->skew = smax - smin;
    tm->threads = used;
    tm->cpu_ratio = ratio;
    free(cpu);
    free(st);
    free(en);
    return fail ? -1 : 0;
}

/* Counts for the whole measurement (one runs at a time); see rt_team_stats. */
static long team_runs, team_disturbed;
static int team_streak;

void rt_team_stats_reset(void)
{
    team_runs = team_disturbed = team_streak = 0;
}

void rt_team_stats(long *runs, long *disturbed)
{
    *runs = team_runs;
    *disturbed = team_disturbed;
}

int rt_team_run_synced(int threads, int (*job)(void *ctx, int tid), void *ctx, rt_team_timing *tm)
{
    /*
     * On a shared machine another process can take a core while our threads
     * run: a thread is descheduled (its CPU time falls behind its wall time)
     * or starts late, and the run measures neither the single-
     * nor the all-thread figure. Such a run is retried and the least
     * disturbed one kept: three attempts, or one while every run has been
     * disturbed lately (a disturbance that persists is not waited out, it
     * would only stretch the measurement). Threads that ran the whole time
     * but finished apart are not retried: one core slower than the other
     * (a busier host core, a shared resource) is what the machine does.
     */
    rt_team_timing best = {0, 0, 0, 0, 0};
    double best_bad = INFINITY;
    int attempts = team_streak >= 6 ? 1 : 3;
    for (int attempt = 0; attempt < attempts; attempt++) {
        rt_team_timing t;
        if (rt_team_run(threads, job, ctx, &t) != 0)
            return -1;
        double bad = fmax(t.wall > 0 ? t.skew / t.wall : 0, 1 - t.cpu_ratio);
        if (bad < best_bad) {
            best = t;
            best_bad = bad;
        }
        if (bad <= 0.05)
            break;
    }
    team_runs++;
    if (best_bad > 0.05) {
        team_disturbed++;
        team_streak++;
    } else {
        team_streak = 0;
    }
    *tm = best;
    return 0;
}
