/* Runs one job on a team of threads at once and times it, retrying runs where the threads did not
 * overlap. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
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

/* The CPUs of a Linux cpu list such as "0-3,8" into set; 0 on success. */
static int cpulist_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0)
            return -1;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        s = end;
        if (*s != ',')
            break;
        s++;
    }
    return 0;
}

/* The CPUs of `cpu`'s core (its SMT siblings, itself included) by sysfs; 0 on success. */
static int core_siblings(int cpu, cpu_set_t *set)
{
    char path[96], line[256];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    return ok ? cpulist_parse(line, set) : -1;
}

int rt_team_smt_width(void)
{
    cpu_set_t mask, sib;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return 1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask))
            return core_siblings(c, &sib) == 0 && CPU_COUNT(&sib) > 0 ? CPU_COUNT(&sib) : 1;
    return 1;
}

/* Whether the first `threads` pinned CPUs are on distinct cores (uncached; see below). */
static bool distinct_cores(int threads)
{
    cpu_set_t team;
    CPU_ZERO(&team);
    for (int i = 0; i < threads; i++)
        CPU_SET(pin_cpus[i], &team);
    for (int i = 0; i < threads; i++) {
        cpu_set_t sib, both;
        if (core_siblings(pin_cpus[i], &sib) != 0)
            return false;
        CPU_AND(&both, &sib, &team);
        if (CPU_COUNT(&both) > 1) /* a sibling of this CPU runs a team thread too */
            return false;
    }
    return true;
}

bool rt_team_distinct_cores(int threads)
{
    if (threads < 2)
        return true;
    if (!pin_on || threads > pin_n)
        return false;
    /* Asked before every trial: the answer is kept until the pinning changes. */
    static unsigned known_gen;
    static int known_threads;
    static bool known;
    if (known_gen != pin_gen || known_threads != threads) {
        known = distinct_cores(threads);
        known_gen = pin_gen;
        known_threads = threads;
    }
    return known;
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
           ratio = 1, inv = 0;
    for (int i = 0; i < used; i++) {
        smin = fmin(smin, st[i]);
        smax = fmax(smax, st[i]);
        emin = fmin(emin, en[i]);
        emax = fmax(emax, en[i]);
        kmax = fmax(kmax, en[i] - st[i]);
        if (en[i] > st[i]) {
            ratio = fmin(ratio, cpu[i] / (en[i] - st[i]));
            inv += 1 / (en[i] - st[i]);
        }
    }
    tm->wall = emax - smin;
    tm->thread_max = kmax;
    tm->own = inv > 0 ? used / inv : kmax;
    tm->skew = smax - smin;
    tm->threads = used;
    tm->cpu_ratio = ratio;
    tm->disturbed = false;
    tm->slow = false;
    free(cpu);
    free(st);
    free(en);
    return fail ? -1 : 0;
}

/* Counts for the whole measurement (one runs at a time); see rt_team_stats. */
static long team_runs, team_disturbed, team_slow;
static double team_t0, team_retry_s;

void rt_team_stats_reset(void)
{
    team_runs = team_disturbed = team_slow = 0;
    team_t0 = rt_now();
    team_retry_s = 0;
}

void rt_team_stats(long *runs, long *disturbed, long *slow)
{
    *runs = team_runs;
    *disturbed = team_disturbed;
    if (slow)
        *slow = team_slow;
}

/* Give the core away for a while: a competing burst that took it may end meanwhile. */
static void yield_for(double seconds)
{
    sched_yield();
    struct timespec ts = {0, (long)(seconds * 1e9)};
    nanosleep(&ts, NULL);
}

int rt_team_run_synced(int threads, int (*job)(void *ctx, int tid), void *ctx, double slow_after,
                       bool balanced, rt_team_timing *tm)
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
     * waited out, it would only stretch the measurement.
     *
     * What CPU time cannot show is retried the same way: under a hypervisor
     * the host's other work on a core's SMT sibling, or two virtual CPUs put
     * on one core, slows every instruction while the guest sees its thread
     * running (a host's steal time is already outside the thread's CPU time,
     * the kernel's paravirtual steal clock): such a run is far slower than
     * the same work ran before (slow_after, from the caller's reference
     * rate). Where each thread's work is its own core's (balanced: compute,
     * a core's caches) the run's time is the threads' own times' harmonic
     * mean (tm->own: its rate is the sum of the threads' rates), so a core
     * the host slowed costs its own share only; otherwise the wall time.
     * Each attempt scores the worse of the guest's share (skew or lost CPU
     * time) over 5% and that time over slow_after; above 1 it is
     * disturbed, and the lowest score is kept.
     */
    rt_team_timing best = {0};
    double best_bad = INFINITY;
    int pauses = 0;
    bool guest_last = false; /* the last attempt lost its core in the guest */
    for (int attempt = 0; attempt < RT_TEAM_ATTEMPTS; attempt++) {
        rt_team_timing t;
        double t0 = rt_now();
        /* Longer pauses as the disturbance persists: 2, 4, 8 ... up to 32 ms. A run that was only
         * slow goes again at once: the host's work does not end because the guest waits. */
        if (guest_last) {
            yield_for(0.002 * (double)(1 << (pauses < 4 ? pauses : 4)));
            pauses++;
        }
        if (rt_team_run(threads, job, ctx, &t) != 0)
            return -1;
        if (attempt > 0)
            team_retry_s += rt_now() - t0;
        double guest = fmax(t.wall > 0 ? t.skew / t.wall : 0, 1 - t.cpu_ratio) / 0.05;
        double slow = slow_after > 0 ? (balanced ? t.own : t.wall) / slow_after : 0;
        double bad = fmax(guest, slow);
        t.slow = slow > 1 && slow >= guest;
        guest_last = guest > 1;
        if (bad < best_bad) {
            best = t;
            best_bad = bad;
        }
        if (bad <= 1)
            break;
        double budget = RT_TEAM_RETRY_FLOOR + RT_TEAM_RETRY_SHARE * (rt_now() - team_t0);
        if (team_retry_s > budget)
            break;
    }
    team_runs++;
    best.disturbed = best_bad > 1;
    if (best.disturbed)
        team_disturbed++;
    if (best.disturbed && best.slow)
        team_slow++;
    *tm = best;
    return 0;
}
