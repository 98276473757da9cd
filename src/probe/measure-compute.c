/* The compute stage of a machine measurement: a trial run of each kernel where a fault cannot end
 * the process (one that faults is left out, said), every kernel the CPU runs at each thread count,
 * a second look at the figures that read slow, and each unit's best kernel. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/core/measurement.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

const char *const rt_unit_order[RT_N_UNITS] = {"fp64", "fp32",     "bf16",    "fp16",
                                               "int8", "amx_bf16", "amx_int8"};

static rt_spread spread_of(rt_stat s)
{
    return (rt_spread){s.median, s.min, s.max};
}

/* Whether kernel i runs: the CPU has it, the limit allows it and its trial run passed (usable[i]);
 * --quick runs only the best usable ISA of each unit (the one its ceiling comes from). */
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

/*
 * Kernel k's trial run before it is measured: RT_TRIAL_ITERS iterations in a child process
 * (rt_guarded_run). CPUID can list an instruction set that faults all the same (a hypervisor that
 * passes the CPUID bit through but not the instruction; AMX where Linux granted the permission and
 * the host did not), and a fault in the measurement itself would end the whole process. 1 when it
 * ran right; 0 when it raised a signal, did not end or computed a wrong result: a line in skipped,
 * the kernel left out (a unit whose kernel computes wrong has no figure to give, and the others
 * still do). Where no child can be started, the kernels are checked in this process, unguarded,
 * and skipped says so once.
 */
static int trial(const rt_flops_kernel *k, bool *unguarded, rt_warnings *skipped)
{
    rt_guarded g;
    rt_error gerr;
    if (!*unguarded && rt_guarded_run(k->run, RT_TRIAL_ITERS, RT_TRIAL_TIMEOUT, &g, &gerr) != 0) {
        rt_warnings_add(skipped,
                        "compute kernels' trial runs: %s: the kernels run unguarded (one that "
                        "faults ends the measurement)",
                        gerr.msg);
        *unguarded = true;
    }
    if (*unguarded ? rt_flops_kernel_check(k, RT_TRIAL_ITERS, &gerr) == 0
                   : g.end == RT_GUARD_RETURNED && g.value == 0)
        return 1;
    if (*unguarded || g.end == RT_GUARD_RETURNED) {
        rt_warnings_add(skipped, "%s (%s, %s): the trial run computed a wrong result: not measured",
                        k->unit, rt_isa_name(k->isa), k->instr);
        return 0;
    }
    char how[160];
    rt_guarded_describe(&g, RT_TRIAL_TIMEOUT, how, sizeof how);
    rt_warnings_add(skipped, "%s (%s, %s): the trial run %s%s: not measured", k->unit,
                    rt_isa_name(k->isa), k->instr, how,
                    g.end == RT_GUARD_SIGNAL && g.value == SIGILL
                        ? " although CPUID lists the instruction set"
                        : "");
    return 0;
}

/* One kernel at one thread count: its figure and where it is in the measurement. */
typedef struct kernel_run {
    const rt_flops_kernel *k;
    int threads;
    rt_stat s;
    size_t peak;  /* index in meas->peaks */
    size_t first; /* index of the same kernel's one-thread run */
} kernel_run;

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

/* The second look: the runs that read slow are measured again, one thread first, seconds after
 * their first measurement; the better figure is kept (a clean trial over none, else higher). */
static int revisit(const rt_compute_plan *pl, kernel_run *kr, size_t n, rt_measurement *meas,
                   rt_error *err)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if ((pass == 0) != (kr[i].threads == 1) || !reads_slow(kr, n, i))
                continue;
            rt_stat again;
            double one = kr[i].threads > 1 ? kr[kr[i].first].s.best : 0;
            if (rt_flops_measure(kr[i].k, kr[i].threads, pl->trials, pl->seconds, one, &again,
                                 err) != 0)
                return -1;
            meas->revisited_peaks++;
            bool keep = (again.clean > 0) != (kr[i].s.clean > 0) ? again.clean > 0
                                                                 : again.best > kr[i].s.best;
            if (!keep)
                continue;
            meas->peak_revisits_kept++;
            kr[i].s = again;
            rt_peak_trial *e = &meas->peaks[kr[i].peak];
            e->flops = spread_of(again);
            e->ceiling = again.best;
            e->clean = again.clean;
        }
    return 0;
}

/* Each unit's best kernel (at the most threads) into best[]. */
static void pick_best(const kernel_run *kr, size_t n, const double *hz, rt_unit_result *best)
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
                best[u].hz = hz[i];
                best[u].have = 1;
            }
    }
}

int rt_measure_compute(const rt_compute_plan *pl, const rt_cpu_info *cpu, rt_isa limit,
                       const int *tcounts, int nt, rt_run_progress *pr, rt_measurement *meas,
                       rt_unit_result best[RT_N_UNITS], rt_warnings *skipped, rt_error *err)
{
    const rt_flops_kernel *ks = pl->kernels;
    size_t nk = pl->n_kernels;
    memset(best, 0, RT_N_UNITS * sizeof *best);
    bool *usable = rt_xcalloc(nk + 1, sizeof *usable);
    kernel_run *kr = NULL;
    double *hz = NULL;
    size_t n = 0, done = 0, nrun = 0;
    double clock_samples[64];
    size_t n_clock_samples = 0;
    int rc = -1;
    /* Every trial first: --quick falls back to the best ISA of a unit whose trial passed. */
    bool unguarded = false;
    for (size_t i = 0; i < nk; i++) {
        if (!ks[i].available(cpu) || ks[i].isa > limit)
            continue;
        usable[i] = trial(&ks[i], &unguarded, skipped) > 0;
    }
    for (size_t i = 0; i < nk; i++)
        nrun += runs_kernel(ks, nk, usable, i, pl->quick);
    kr = rt_xcalloc(nrun * (size_t)nt + 1, sizeof *kr);
    hz = rt_xcalloc(nrun * (size_t)nt + 1, sizeof *hz);
    for (size_t i = 0; i < nk && n_clock_samples < 64; i++) {
        const rt_flops_kernel *k = &ks[i];
        if (!runs_kernel(ks, nk, usable, i, pl->quick))
            continue;
        /*
         * The clock right before the kernel: a core's clock moves with the load on
         * the others (and the host's), so the theoretical peak uses the one it ran at.
         * Its 0.9 quantile (a chain only reads slow) of short chains, like the kernels'.
         */
        rt_stat kclk = rt_measure_clock(3 * RT_OWN_SPLIT, 0.01 / RT_OWN_SPLIT, NULL);
        clock_samples[n_clock_samples++] = kclk.best;
        size_t first = n;
        for (int t = 0; t < nt; t++) {
            rt_stat s;
            double one = t > 0 ? kr[first].s.best : 0;
            rt_error wrong;
            if (rt_flops_measure(k, tcounts[t], pl->trials, pl->seconds, one, &s, &wrong) != 0) {
                /* right in its trial, wrong here (more threads, longer runs): left out whole */
                rt_warnings_add(skipped,
                                "%s (%s, %s): computed a wrong result on %d threads: not "
                                "measured",
                                k->unit, rt_isa_name(k->isa), k->instr, tcounts[t]);
                rt_measurement_drop_peaks(meas, meas->n_peaks - (n - first));
                n = first;
                break;
            }
            rt_peak_trial *e =
                rt_measurement_add_peak(meas, k->unit, rt_isa_name(k->isa), k->instr, tcounts[t]);
            e->flops = spread_of(s);
            e->ceiling = s.best;
            e->clean = s.clean;
            e->clock_hz = kclk.best;
            kr[n] = (kernel_run){k, tcounts[t], s, meas->n_peaks - 1, first};
            hz[n++] = kclk.best;
            rt_progress_report(pr, (done + (double)(t + 1) / nt) / (double)(nrun + 1));
        }
        done++;
    }
    if (revisit(pl, kr, n, meas, err) != 0)
        goto done;
    rt_progress_report(pr, 1.0);
    pick_best(kr, n, hz, best);
    if (n_clock_samples > 0) {
        meas->clock_before_kernels = spread_of(rt_stat_of(clock_samples, n_clock_samples));
        meas->clock_samples = n_clock_samples;
    }
    rc = 0;
done:
    free(usable);
    free(kr);
    free(hz);
    return rc;
}
