/* The compute stage of a machine measurement: a trial run of each kernel where a fault cannot end
 * the process, every kernel the CPU runs at each thread count, a second look at the figures that
 * read slow, and each unit's best kernel; a kernel that faults or computes a wrong result at any
 * of these steps is left out, said, and under --quick its unit measured with the next ISA. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/core/measurement.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rt_unit_order[RT_N_UNITS] = {"fp64", "fp32",     "bf16",    "fp16",
                                               "int8", "amx_bf16", "amx_int8"};

static rt_spread spread_of(rt_stat s)
{
    return (rt_spread){s.median, s.min, s.max};
}

/* Whether kernel i runs: the CPU has it, the limit allows it, its trial run passed and it has not
 * computed a wrong result since (usable[i]); --quick runs only the best usable ISA of each unit
 * (the one its ceiling comes from). */
static bool runs_kernel(const rt_flops_kernel *ks, size_t nk, const bool *usable, size_t i,
                        bool quick)
{
    if (!usable[i])
        return false;
    if (quick)
        for (size_t j = 0; j < nk; j++)
            if (j != i && usable[j] && strcmp(ks[j].unit, ks[i].unit) == 0 && ks[j].isa > ks[i].isa)
                return false;
    return true;
}

/* Kernel k's trial run (rt_guarded_trial, RT_TRIAL_ITERS iterations): 1 when it ran right; 0 with
 * a line in skipped (a unit whose kernel faults or computes wrong has no figure to give, and the
 * others still do). */
static int trial(const rt_flops_kernel *k, bool *unguarded, rt_warnings *skipped)
{
    char how[200];
    if (rt_guarded_trial(k->run, RT_TRIAL_ITERS, "compute kernels", unguarded, skipped, how,
                         sizeof how) == 0)
        return 1;
    rt_warnings_add(skipped, "%s (%s, %s): the trial run %s: not measured", k->unit,
                    rt_isa_name(k->isa), k->instr, how);
    return 0;
}

/* One kernel at one thread count: its figure, the clock before the kernel and where its
 * one-thread run is. */
typedef struct kernel_run {
    const rt_flops_kernel *k;
    int threads;
    rt_stat s;
    double hz;
    size_t first; /* index of the same kernel's one-thread run */
    bool looked;  /* the second look has been at it */
} kernel_run;

/* The compute stage under way. */
typedef struct stage {
    const rt_compute_plan *pl;
    const int *tcounts;
    int nt;
    bool *usable, *ran; /* per kernel: see runs_kernel; measured already */
    kernel_run *kr;     /* a kernel's runs one after the other, in the order measured */
    size_t n, done, nrun;
    double clock_samples[64];
    size_t n_clock_samples;
    rt_run_progress *pr;
    rt_measurement *meas;
    rt_warnings *skipped;
} stage;

/*
 * Kernel k computed a wrong result (`when`: "on 2 threads" ...): its runs are dropped, its unit
 * keeps the figures of its other ISAs, and a line says so; under --quick, which measured only this
 * ISA of the unit, the next one whose trial passed is measured instead (measure_pending) and the
 * line names it.
 */
static void leave_out(stage *st, const rt_flops_kernel *k, const char *when)
{
    const rt_flops_kernel *ks = st->pl->kernels;
    size_t nk = st->pl->n_kernels, a = 0, b;
    st->usable[k - ks] = false;
    while (a < st->n && st->kr[a].k != k)
        a++;
    for (b = a; b < st->n && st->kr[b].k == k; b++)
        ;
    memmove(&st->kr[a], &st->kr[b], (st->n - b) * sizeof *st->kr);
    st->n -= b - a;
    for (size_t i = a; i < st->n; i++)
        st->kr[i].first -= b - a;
    char instead[160] = "";
    for (size_t j = 0; j < nk && st->pl->quick; j++)
        if (!st->ran[j] && strcmp(ks[j].unit, k->unit) == 0 &&
            runs_kernel(ks, nk, st->usable, j, true))
            snprintf(instead, sizeof instead, "; --quick measures %s with %s (%s) instead", k->unit,
                     rt_isa_name(ks[j].isa), ks[j].instr);
    rt_warnings_add(st->skipped, "%s (%s, %s): computed a wrong result %s: not measured%s", k->unit,
                    rt_isa_name(k->isa), k->instr, when, instead);
}

/* Kernel i at every thread count, the clock right before it; left out at its first wrong result
 * (right in its trial, wrong over longer runs or on more threads). */
static void measure_kernel(stage *st, size_t i)
{
    const rt_flops_kernel *k = &st->pl->kernels[i];
    st->ran[i] = true;
    /*
     * The clock right before the kernel: a core's clock moves with the load on the others (and
     * the host's), so the theoretical peak uses the one it ran at. Its 0.9 quantile (a chain only
     * reads slow) of short chains, like the kernels'.
     */
    rt_stat kclk = rt_measure_clock(3 * RT_OWN_SPLIT, 0.01 / RT_OWN_SPLIT, NULL);
    st->clock_samples[st->n_clock_samples++] = kclk.best;
    size_t first = st->n;
    for (int t = 0; t < st->nt; t++) {
        int th = st->tcounts[t];
        rt_stat s;
        rt_error wrong;
        if (rt_flops_measure(k, th, st->pl->trials, st->pl->seconds,
                             t > 0 ? st->kr[first].s.best : 0, &s, &wrong) != 0) {
            char when[64];
            snprintf(when, sizeof when, "on %d thread%s", th, th > 1 ? "s" : "");
            leave_out(st, k, when);
            break;
        }
        st->kr[st->n++] = (kernel_run){k, th, s, kclk.best, first, false};
        rt_progress_report(st->pr, (st->done + (double)(t + 1) / st->nt) / (double)(st->nrun + 1));
    }
    st->done++;
}

/* Every kernel that runs and has not been measured, in the table's order (a unit's next ISA under
 * --quick, after its best computed wrong, comes before it): how many. */
static size_t measure_pending(stage *st)
{
    const rt_flops_kernel *ks = st->pl->kernels;
    size_t nk = st->pl->n_kernels, measured = 0;
    for (size_t i = 0; i < nk && st->n_clock_samples < 64; i++)
        if (!st->ran[i] && runs_kernel(ks, nk, st->usable, i, st->pl->quick)) {
            measure_kernel(st, i);
            measured++;
            i = (size_t)-1; /* from the start again: a fallback may lie before it */
        }
    return measured;
}

/*
 * Whether run i reads slow against its kernel's other thread counts: no clean trial, a rate per
 * thread below RT_SLOW_UP of one thread's (threads on cores of their own; a lower all-core clock
 * reads so too, and is measured again for nothing), or one thread's below RT_SLOW_UP of the best
 * rate per thread on several.
 */
static bool reads_slow(const kernel_run *kr, size_t n, size_t i)
{
    const kernel_run *a = &kr[i], *one = &kr[a->first];
    if (a->s.clean == 0)
        return true;
    if (a->threads > 1)
        return rt_team_distinct_cores(a->threads) &&
               a->s.best / a->threads < RT_SLOW_UP * one->s.best;
    for (size_t j = 0; j < n; j++)
        if (kr[j].first == i && j != i && rt_team_distinct_cores(kr[j].threads) &&
            a->s.best < RT_SLOW_UP * kr[j].s.best / kr[j].threads)
            return true;
    return false;
}

/* The second look at the runs not looked at yet: those that read slow are measured again, one
 * thread first, seconds after their first measurement; the better figure is kept (a clean trial
 * over none, else higher). A kernel that now computes a wrong result is left out (leave_out). */
static void revisit(stage *st)
{
    const rt_compute_plan *pl = st->pl;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < st->n; i++) {
            kernel_run *a = &st->kr[i];
            if ((pass == 0) != (a->threads == 1) || a->looked)
                continue;
            a->looked = true;
            if (!reads_slow(st->kr, st->n, i))
                continue;
            rt_stat again;
            rt_error wrong;
            double one = a->threads > 1 ? st->kr[a->first].s.best : 0;
            if (rt_flops_measure(a->k, a->threads, pl->trials, pl->seconds, one, &again, &wrong) !=
                0) {
                char when[64];
                snprintf(when, sizeof when, "on its second look (%d thread%s)", a->threads,
                         a->threads > 1 ? "s" : "");
                leave_out(st, a->k, when);
                i = (size_t)-1; /* the runs moved: from the start (the looked-at passed over) */
                continue;
            }
            st->meas->revisited_peaks++;
            bool keep =
                (again.clean > 0) != (a->s.clean > 0) ? again.clean > 0 : again.best > a->s.best;
            if (keep) {
                st->meas->peak_revisits_kept++;
                a->s = again;
            }
        }
}

/* Each unit's best kernel (at the most threads) into best[]. */
static void pick_best(const kernel_run *kr, size_t n, rt_unit_result *best)
{
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && kr[i + 1].k == kr[i].k)
            continue; /* the kernel's last run is at the most threads */
        for (size_t u = 0; u < RT_N_UNITS; u++)
            if (strcmp(rt_unit_order[u], kr[i].k->unit) == 0 &&
                (!best[u].have || kr[i].s.best > best[u].all.best)) {
                best[u].k = kr[i].k;
                best[u].all = kr[i].s;
                best[u].one = kr[kr[i].first].s;
                best[u].hz = kr[i].hz;
                best[u].have = 1;
            }
    }
}

void rt_measure_compute(const rt_compute_plan *pl, const rt_cpu_info *cpu, rt_isa limit,
                        const int *tcounts, int nt, rt_run_progress *pr, rt_measurement *meas,
                        rt_unit_result best[RT_N_UNITS], rt_warnings *skipped)
{
    const rt_flops_kernel *ks = pl->kernels;
    size_t nk = pl->n_kernels;
    memset(best, 0, RT_N_UNITS * sizeof *best);
    stage st = {.pl = pl, .tcounts = tcounts, .nt = nt, .pr = pr, .meas = meas, .skipped = skipped};
    st.usable = rt_xcalloc(nk + 1, sizeof *st.usable);
    st.ran = rt_xcalloc(nk + 1, sizeof *st.ran);
    st.kr = rt_xcalloc(nk * (size_t)nt + 1, sizeof *st.kr); /* each kernel measured once */
    /* Every trial first: --quick falls back to the best ISA of a unit whose trial passed. */
    bool unguarded = false;
    for (size_t i = 0; i < nk; i++)
        if (ks[i].available(cpu) && ks[i].isa <= limit)
            st.usable[i] = trial(&ks[i], &unguarded, skipped) > 0;
    for (size_t i = 0; i < nk; i++)
        st.nrun += runs_kernel(ks, nk, st.usable, i, pl->quick);
    while (measure_pending(&st) > 0)
        revisit(&st);
    rt_progress_report(pr, 1.0);
    for (size_t i = 0; i < st.n; i++) {
        const kernel_run *a = &st.kr[i];
        rt_peak_trial *e = rt_measurement_add_peak(meas, a->k->unit, rt_isa_name(a->k->isa),
                                                   a->k->instr, a->threads);
        e->flops = spread_of(a->s);
        e->ceiling = a->s.best;
        e->clean = a->s.clean;
        e->clock_hz = a->hz;
    }
    pick_best(st.kr, st.n, best);
    if (st.n_clock_samples > 0) {
        meas->clock_before_kernels = spread_of(rt_stat_of(st.clock_samples, st.n_clock_samples));
        meas->clock_samples = st.n_clock_samples;
    }
    free(st.usable);
    free(st.ran);
    free(st.kr);
}
