/* Runs one job on a team of threads at once and times it, retrying runs where the threads did not
 * overlap. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
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

/* Pinning: the process's CPUs when pinning began, the i-th of which thread i runs on. */
static cpu_set_t pin_mask;
static int pin_cpus[CPU_SETSIZE], pin_n;
static bool pin_on;
static unsigned pin_gen; /* bumped by each pinning: a thread pinned before pins again */

void rt_team_pin(bool on)
{
    if (on) {
        pin_n = 0;
        if (sched_getaffinity(0, sizeof pin_mask, &pin_mask) != 0)
            return;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &pin_mask))
                pin_cpus[pin_n++] = c;
        pin_on = pin_n > 1;
        pin_gen++;
        return;
    }
    if (!pin_on)
        return;
    pin_on = false;
    /* Every thread of the pool (and the caller) gets the whole mask back. */
#ifdef RT_HAVE_OPENMP
#pragma omp parallel num_threads(pin_n)
#endif
    sched_setaffinity(0, sizeof pin_mask, &pin_mask);
}

/* Pin the calling thread to the tid-th CPU of the mask, once per thread and CPU. */
static void pin_self(int tid)
{
    static _Thread_local int pinned_to = -1;
    static _Thread_local unsigned pinned_gen;
    if (!pin_on || pin_n < 1)
        return;
    int cpu = pin_cpus[tid % pin_n];
    if (pinned_to == cpu && pinned_gen == pin_gen)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
        pinned_to = cpu;
        pinned_gen = pin_gen;
    }
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
        pin_self(tid);
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
    tm->disturbed = false;
    free(cpu);
    free(st);
    free(en);
    return fail ? -1 : 0;
}

/* Counts for the whole measurement (one runs at a time); see rt_team_stats. */
static long team_runs, team_disturbed;
static double team_t0, team_retry_s;

void rt_team_stats_reset(void)
{
    team_runs = team_disturbed = 0;
    team_t0 = rt_now();
    team_retry_s = 0;
}

void rt_team_stats(long *runs, long *disturbed)
{
    *runs = team_runs;
    *disturbed = team_disturbed;
}

/* Give the core away for a while: a competing burst that took it may end meanwhile. */
static void yield_for(double seconds)
{
    sched_yield();
    struct timespec ts = {0, (long)(seconds * 1e9)};
    nanosleep(&ts, NULL);
}

int rt_team_run_synced(int threads, int (*job)(void *ctx, int tid), void *ctx, rt_team_timing *tm)
{
    /*
     * On a shared machine another process can take a core while our threads
     * run: a thread is descheduled (its CPU time falls behind its wall time)
     * or starts late, and the run measures neither the single-
     * nor the all-thread figure. Such a run is retried after yielding the
     * core (another process's burst of work ends; builds, editors and
     * browsers load a machine in bursts of tens of milliseconds), and the
     * least disturbed attempt is kept. The retries share a time budget, a
     * quarter of the measurement so far: a disturbance that persists is not
     * waited out, it would only stretch the measurement. Threads that ran the
     * whole time but finished apart are not retried: one core slower than the
     * other (a busier host core, a shared resource) is what the machine does.
     */
    rt_team_timing best = {0, 0, 0, 0, 0, false};
    double best_bad = INFINITY;
    for (int attempt = 0; attempt < RT_TEAM_ATTEMPTS; attempt++) {
        rt_team_timing t;
        double t0 = rt_now();
        if (attempt > 0) {
            /* Longer pauses as the disturbance persists: 2, 4, 8 ... up to 32 ms. */
            double pause = 0.002 * (double)(1 << (attempt - 1 < 4 ? attempt - 1 : 4));
            yield_for(pause);
        }
        if (rt_team_run(threads, job, ctx, &t) != 0)
            return -1;
        if (attempt > 0)
            team_retry_s += rt_now() - t0;
        double bad = fmax(t.wall > 0 ? t.skew / t.wall : 0, 1 - t.cpu_ratio);
        if (bad < best_bad) {
            best = t;
            best_bad = bad;
        }
        if (bad <= 0.05)
            break;
        double budget = RT_TEAM_RETRY_FLOOR + RT_TEAM_RETRY_SHARE * (rt_now() - team_t0);
        if (team_retry_s > budget)
            break;
    }
    team_runs++;
    best.disturbed = best_bad > 0.05;
    if (best.disturbed)
        team_disturbed++;
    *tm = best;
    return 0;
}
