/* rt_machine_measure: runs the clock, compute, bandwidth and overhead measurements and builds the
 * machine. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime-config.h"

#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif

int rt_measure_max_threads(void)
{
#ifdef RT_HAVE_OPENMP
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

/* How long each part runs: quick (under 30 s on 2 cores) or full (under 3 minutes). */
typedef struct plan {
    int clock_trials;
    double clock_seconds;
    int flops_trials;
    double flops_seconds;
    int bw_trials;
    double bw_seconds, bw_step, bw_total_max;
    int oh_trials;
    long omp_regions, cl_launches;
    long fw_ops, dnnl_execs; /* framework ops and oneDNN executes per trial */
    double llc_mult;         /* sweep to at least this many times a thread's last-level share */
} plan;

static const plan quick_plan = {
    3,  0.05, 3,  0.02, 3,    0.008, 1.4142135623730951, 512.0 * 1024 * 1024,
    15, 200,  50, 2000, 2000, 6};
static const plan full_plan = {
    5,  0.1,  5,   0.05,  5,     0.012, 1.2599210498948732, 1024.0 * 1024 * 1024,
    31, 1000, 200, 10000, 10000, 8};

/* Progress over the whole run: stages own slices [lo, hi) of [0, 1]. */
typedef struct progress {
    rt_progress_fn fn;
    void *ctx;
    const char *stage;
    double lo, hi;
} progress;

static void report(progress *p, double f)
{
    if (p->fn)
        p->fn(p->ctx, p->stage, p->lo + (p->hi - p->lo) * (f < 0 ? 0 : f > 1 ? 1 : f));
}

static void stage(progress *p, const char *name, double lo, double hi)
{
    p->stage = name;
    p->lo = lo;
    p->hi = hi;
    report(p, 0);
}

/* One OpenMP fork/join figure, kept until the machine exists. */
typedef struct rt_overhead_rec {
    int threads;
    rt_spread seconds;
} rt_overhead_rec;

static rt_spread spread_of(rt_stat s)
{
    return (rt_spread){s.median, s.min, s.max};
}

/* Nearest power of two to r (>= 1/2): instructions of one kind a core starts per cycle. */
static double issue_rate(double r)
{
    if (!(r > 0))
        return 0;
    double p = pow(2.0, round(log2(r)));
    return p < 0.5 ? 0.5 : p;
}

typedef struct unit_result {
    const rt_flops_kernel *k;
    rt_stat all; /* at the most threads */
    rt_stat one; /* one thread */
    double hz;   /* core clock measured right before it */
    int have;
} unit_result;

static const char *const unit_order[] = {"fp64", "fp32",     "bf16",    "fp16",
                                         "int8", "amx_bf16", "amx_int8"};
#define N_UNITS (sizeof unit_order / sizeof *unit_order)

/* Whether kernel i runs: the CPU has it and the limit allows it; --quick runs only the best ISA of
 * each unit (the one its ceiling comes from). */
static bool runs_kernel(const rt_flops_kernel *ks, size_t nk, size_t i, const rt_cpu_info *cpu,
                        rt_isa limit, bool quick)
{
    if (!ks[i].available(cpu) || ks[i].isa > limit)
        return false;
    if (quick)
        for (size_t j = 0; j < nk; j++)
            if (j != i && strcmp(ks[j].unit, ks[i].unit) == 0 && ks[j].isa > ks[i].isa &&
                ks[j].available(cpu) && ks[j].isa <= limit)
                return false;
    return true;
}

static void bw_progress(void *ctx, double f)
{
    progress *p = ctx;
    report(p, f);
}

int rt_machine_measure(const rt_measure_opts *opts, rt_machine **out, rt_warnings *skipped,
                       rt_error *err)
{
    rt_measure_opts o = {0};
    if (opts)
        o = *opts;
    *out = NULL;
    const plan *pl = o.quick ? &quick_plan : &full_plan;
    rt_warnings local = {0};
    rt_warnings *sk = skipped ? skipped : &local;

    rt_cpu_info cpu;
    rt_cpu_detect(&cpu);
    rt_isa limit = RT_ISA_AMX;
    if (o.max_isa && rt_isa_parse(o.max_isa, &limit, err) != 0) {
        rt_error_prefix(err, "max_isa");
        return -1;
    }
    rt_cpu_limit(&cpu, limit);
    rt_isa isa = rt_cpu_best_isa(&cpu);
    int ncpu = rt_measure_max_threads();
    if (o.max_threads < 0 || o.max_threads > ncpu) {
        rt_error_set(err, "cannot use %d threads: %d CPUs available", o.max_threads, ncpu);
        return -1;
    }
    int maxt = o.max_threads > 0 ? o.max_threads : ncpu;
#ifndef RT_HAVE_OPENMP
    rt_warnings_add(sk, "more than one thread: built without OpenMP");
#endif
    int tcounts[40], nt = 0;
    for (int t = 1; t < maxt && nt < 38; t *= 2)
        tcounts[nt++] = t;
    tcounts[nt++] = maxt;

    /* Say what this CPU or the limit rules out before spending time. */
    if (limit < RT_ISA_AVX512)
        rt_warnings_add(sk, "AVX-512 kernels: limited to %s", rt_isa_name(limit));
    else if (!cpu.avx512f)
        rt_warnings_add(sk, "AVX-512 kernels: the CPU has no AVX-512F");
    if (!cpu.avx512_bf16)
        rt_warnings_add(sk, "bf16: no AVX512-BF16 (vdpbf16ps)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (!cpu.avx512_fp16)
        rt_warnings_add(sk, "fp16: no AVX512-FP16 (vfmadd231ph)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (!cpu.avx512_vnni)
        rt_warnings_add(sk, "int8: no AVX512-VNNI (vpdpbusd)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (limit < RT_ISA_AMX)
        rt_warnings_add(sk, "AMX: limited to %s", rt_isa_name(limit));
    else if (!cpu.amx_tile)
        rt_warnings_add(sk, "AMX: no AMX (amx_bf16, amx_int8 not measured)");
    if (cpu.amx_tile) {
        rt_error e2;
        if (rt_cpu_request_amx(&e2) != 0) {
            rt_warnings_add(sk, "AMX: %s", e2.msg);
            cpu.amx_tile = cpu.amx_bf16 = cpu.amx_int8 = false;
        }
    }

    progress pr = {o.progress, o.progress_ctx, "", 0, 0};
    rt_measurement *meas = rt_measurement_new();
    rt_overhead_rec omp[8];
    int n_omp = 0;
    rt_machine *m = NULL;
    rt_bw_point *pts = NULL;
    double *xs = NULL, *ys = NULL;
    int rc = -1;
    double t_start = rt_now();

    rt_team_stats_reset();
    if (!o.no_pin)
        rt_team_pin(true);
    /* ---- clock ---- */
    stage(&pr, "core clock", 0.0, 0.03);
    rt_stat imul;
    rt_stat clk = rt_measure_clock(pl->clock_trials, pl->clock_seconds, &imul);
    meas->clock_hz = spread_of(clk);
    meas->imul_hz = imul.median;
    meas->clock_method = rt_strdup("chains of 100 dependent `add reg, reg` (1 cycle each) timed "
                                   "by the monotonic clock on one thread; imul_hz: the same with "
                                   "`imul reg, reg` (3 cycles), a cross-check");

    double t_stage = rt_now();
    meas->stage_seconds[0] = t_stage - t_start;
    /* ---- compute ---- */
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
    size_t nrun = 0;
    for (size_t i = 0; i < nk; i++)
        nrun += runs_kernel(ks, nk, i, &cpu, limit, o.quick);
    stage(&pr, "compute peaks", 0.03, o.quick ? 0.25 : 0.2);
    unit_result best[N_UNITS];
    memset(best, 0, sizeof best);
    size_t done = 0;
    double clock_samples[64];
    size_t n_clock_samples = 0;
    for (size_t i = 0; i < nk && n_clock_samples < 64; i++) {
        const rt_flops_kernel *k = &ks[i];
        if (!runs_kernel(ks, nk, i, &cpu, limit, o.quick))
            continue;
        /* A quick correctness run first: a wrong result is an error, not a number. */
        if (rt_flops_kernel_check(k, 100, err) != 0)
            goto fail;
        /*
         * The clock right before the kernel: a core's clock moves with the load on
         * the others (and the host's), so the theoretical peak uses the one it ran at.
         */
        rt_stat kclk = rt_measure_clock(3, 0.01, NULL);
        clock_samples[n_clock_samples++] = kclk.median;
        rt_stat one = {0, 0, 0, 0, 0}, all = {0, 0, 0, 0, 0};
        for (int t = 0; t < nt; t++) {
            rt_stat s;
            if (rt_flops_measure(k, tcounts[t], pl->flops_trials, pl->flops_seconds, &s, err) != 0)
                goto fail;
            if (t == 0)
                one = s;
            all = s;
            rt_peak_trial *e =
                rt_measurement_add_peak(meas, k->unit, rt_isa_name(k->isa), k->instr, tcounts[t]);
            e->flops = spread_of(s);
            e->ceiling = s.best;
            e->clean = s.clean;
            e->clock_hz = kclk.median;
            report(&pr, (done + (double)(t + 1) / nt) / (double)nrun);
        }
        done++;
        for (size_t u = 0; u < N_UNITS; u++)
            if (strcmp(unit_order[u], k->unit) == 0 &&
                (!best[u].have || all.best > best[u].all.best)) {
                best[u].k = k;
                best[u].all = all;
                best[u].one = one;
                best[u].hz = kclk.median;
                best[u].have = 1;
            }
    }
    if (n_clock_samples > 0) {
        meas->clock_before_kernels = spread_of(rt_stat_of(clock_samples, n_clock_samples));
        meas->clock_samples = n_clock_samples;
    }

    meas->stage_seconds[1] = rt_now() - t_stage;
    t_stage = rt_now();
    /* ---- bandwidth ---- */
    rt_cache_info caches[8];
    const char *csrc = "none";
    int ncache = rt_cache_detect(caches, 8, &csrc);
    if (ncache == 0)
        rt_warnings_add(sk, "cache sizes: neither hwloc nor sysfs reported any; only DRAM named");
    for (int i = 0; i < ncache; i++)
        rt_measurement_add_cache(meas, caches[i].level, caches[i].size, caches[i].shared_by);
    meas->cache_source = rt_strdup(csrc);
    double llc = ncache ? caches[ncache - 1].size : 32.0 * 1024 * 1024;
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    rt_plateau machine_levels[9];
    double machine_typical[9] = {0};
    size_t n_machine_levels = 0;
    double bw_lo = o.quick ? 0.25 : 0.2, bw_hi = 0.93;
    int ncurves = RT_BW_NKINDS * nt, curve_i = 0;
    for (int kind = 0; kind < RT_BW_NKINDS; kind++)
        for (int t = 0; t < nt; t++, curve_i++) {
            int th = tcounts[t];
            /* --quick: copy and triad at the most threads only; the levels come from read. */
            if (o.quick && kind != RT_BW_READ && t != nt - 1)
                continue;
            /*
             * Per thread: the plan's total, and at least 8x the thread's share of the
             * last-level cache: a victim L3 keeps serving part of a working set a few
             * times its size, so DRAM's plateau starts well beyond it.
             */
            double llc_share =
                llc / (ncache
                           ? (caches[ncache - 1].shared_by < th ? caches[ncache - 1].shared_by : th)
                           : 1);
            double maxb = fmax(pl->bw_total_max / th, pl->llc_mult * llc_share);
            /* --quick: copy and triad stop at the plan's total; the DRAM level is read's. */
            if (o.quick && kind != RT_BW_READ)
                maxb = pl->bw_total_max / th;
            if (phys > 0 && maxb * th > phys / 4)
                maxb = phys / 4 / th;
            char sname[64];
            snprintf(sname, sizeof sname, "bandwidth: %s, %d thread%s", rt_bw_kind_name(kind), th,
                     th > 1 ? "s" : "");
            stage(&pr, sname, bw_lo + (bw_hi - bw_lo) * curve_i / ncurves,
                  bw_lo + (bw_hi - bw_lo) * (curve_i + 1) / ncurves);
            size_t np;
            if (rt_bw_sweep(kind, isa, th, 2 * RT_BW_GRAIN, maxb, pl->bw_step, pl->bw_trials,
                            pl->bw_seconds, &pts, &np, bw_progress, &pr, err) != 0)
                goto fail;
            rt_bw_curve *c =
                rt_measurement_add_curve(meas, rt_bw_kind_name(kind), rt_isa_name(isa), th, np);
            xs = rt_xcalloc(np ? np : 1, sizeof *xs);
            ys = rt_xcalloc(np ? np : 1, sizeof *ys);
            for (size_t i = 0; i < np; i++) {
                c->bytes[i] = pts[i].bytes;
                c->bw[i] = spread_of(pts[i].bw);
                c->ceil[i] = pts[i].bw.best;
                xs[i] = pts[i].bytes;
                ys[i] = pts[i].bw.best; /* levels are ceilings: the points' best clean trials */
            }
            /* Capacity per thread: a shared cache is split among the threads using it. */
            double lim[8];
            char names[8][8];
            const char *np_[8];
            for (int i = 0; i < ncache; i++) {
                int share = caches[i].shared_by < th ? caches[i].shared_by : th;
                lim[i] = caches[i].size / (share > 0 ? share : 1);
                snprintf(names[i], sizeof names[i], "L%d", caches[i].level);
                np_[i] = names[i];
            }
            rt_plateau pls[9];
            rt_warnings pw = {0};
            if (rt_plateau_detect(xs, ys, np, lim, np_, (size_t)ncache, pls, &pw, err) != 0)
                goto fail;
            int is_ref = kind == RT_BW_READ && t == nt - 1;
            for (size_t i = 0; i < pw.n; i++)
                if (is_ref)
                    rt_warnings_add(sk, "memory level %s", pw.msg[i]);
            rt_warnings_release(&pw);
            for (int i = 0; i <= ncache; i++) {
                rt_bw_plateau *l = rt_measurement_add_plateau(meas, rt_bw_kind_name(kind), th,
                                                              pls[i].name, pls[i].note);
                l->found = pls[i].found;
                if (pls[i].found)
                    rt_plateau_from_clean(pts, np, &pls[i]);
                if (pls[i].found) {
                    l->bw = (rt_spread){pls[i].bw, pls[i].min, pls[i].max};
                    l->typical =
                        rt_plateau_typical_over(pts, np, pls[i].from_bytes, pls[i].to_bytes);
                    l->from_bytes = pls[i].from_bytes;
                    l->to_bytes = pls[i].to_bytes;
                }
                if (is_ref) {
                    machine_levels[i] = pls[i];
                    machine_typical[i] = l->typical;
                    n_machine_levels = (size_t)i + 1;
                }
            }
            free(xs);
            free(ys);
            free(pts);
            xs = ys = NULL;
            pts = NULL;
        }
    meas->bw_isa = rt_strdup(rt_isa_name(isa));
    meas->bw_method = rt_strdup("read (64-bit integer sums), copy and triad (x = y + s z) "
                                "with aligned vector loads, each thread over its own buffer; "
                                "working sets in geometric steps; bytes per pass = the working "
                                "set (STREAM counting, no write-allocate traffic); a point's "
                                "ceiling = the 0.9 quantile of its undisturbed trials; a level = "
                                "the median ceiling of the run of near-equal points (3-point "
                                "median, within 30%) with the most points between its cache "
                                "size and the one below, per thread; typical = the median of "
                                "the points' medians there");

    meas->stage_seconds[2] = rt_now() - t_stage;
    t_stage = rt_now();
    /* ---- launch overhead ---- */
    stage(&pr, "launch overhead", 0.93, 1.0);
    rt_stat tau_s = {0, 0, 0, 0, 0};
    for (int t = 0; t < nt; t++) {
        rt_stat s;
        if (rt_overhead_openmp(tcounts[t], pl->oh_trials, pl->omp_regions, &s, err) != 0) {
#ifdef RT_HAVE_OPENMP
            goto fail;
#else
            rt_warnings_add(sk, "launch overhead: %s", err->msg);
            break;
#endif
        }
        if (n_omp < 8)
            omp[n_omp++] = (rt_overhead_rec){tcounts[t], spread_of(s)};
        tau_s = s;
        report(&pr, 0.5 * (t + 1) / nt);
    }
    rt_stat cl;
    char dev[256];
    rt_error clerr;
    int clrc = rt_overhead_opencl(pl->oh_trials, pl->cl_launches, &cl, dev, sizeof dev, &clerr);
    if (clrc != 0)
        rt_warnings_add(sk, "OpenCL launch overhead: %s", clerr.msg);
    /* One layer up: a framework's dispatch and a oneDNN primitive execute. */
    rt_stat fw, dn;
    char fw_version[64], dn_what[160];
    rt_error fwerr, dnerr;
    const char *python = rt_spawn_python();
    int fwrc = rt_overhead_torch(python, pl->oh_trials, pl->fw_ops, &fw, fw_version,
                                 sizeof fw_version, &fwerr);
    if (fwrc != 0)
        rt_warnings_add(sk, "framework dispatch overhead (PyTorch): %s", fwerr.msg);
    int dnrc =
        rt_overhead_onednn(pl->oh_trials, pl->dnnl_execs, &dn, dn_what, sizeof dn_what, &dnerr);
    if (dnrc != 0)
        rt_warnings_add(sk, "oneDNN primitive overhead: %s", dnerr.msg);
    report(&pr, 1.0);
    meas->stage_seconds[3] = rt_now() - t_stage;

    /* ---- the machine ---- */
    char name[128];
    snprintf(name, sizeof name, "%s (%d thread%s, measured)", cpu.model, maxt, maxt > 1 ? "s" : "");
    m = rt_machine_new(name);
    rt_machine_set_str(&m->source, "measured");
    const char *ref_unit = NULL;
    for (size_t u = 0; u < N_UNITS; u++) {
        if (!best[u].have)
            continue;
        const rt_flops_kernel *k = best[u].k;
        rt_unit *un = rt_machine_add_unit(m, unit_order[u], best[u].all.best);
        un->min = best[u].all.min;
        un->max = best[u].all.max;
        un->typical = best[u].all.median;
        double per_cycle;
        char how[160];
        if (strncmp(k->unit, "amx_", 4) == 0) {
            /* Intel's figures for one AMX unit per core (Sapphire Rapids and later). */
            per_cycle = strcmp(k->unit, "amx_bf16") == 0 ? 1024 : 2048;
            snprintf(how, sizeof how, "%.0f per cycle per core (Intel's AMX figure)", per_cycle);
        } else {
            double rate = issue_rate(best[u].one.best / (best[u].hz * k->flops_per_instr));
            per_cycle = rate * k->flops_per_instr;
            snprintf(how, sizeof how,
                     "%.0f per cycle per core = %g per %s x %g issued per cycle (issue rate "
                     "inferred from the one-thread run)",
                     per_cycle, k->flops_per_instr, k->instr, rate);
        }
        un->theoretical = best[u].hz * per_cycle * maxt;
        char note[512];
        snprintf(note, sizeof note,
                 "%s (%s), %d thread%s: ceiling = the %.2g quantile of %d undisturbed of %d "
                 "trials (typical: their median); one thread %.4g GFLOP/s; "
                 "theoretical: %.3f GHz x %d x %s",
                 k->instr, rt_isa_name(k->isa), maxt, maxt > 1 ? "s" : "", RT_STAT_QUANTILE,
                 best[u].all.clean, pl->flops_trials, best[u].one.best / 1e9, best[u].hz / 1e9,
                 maxt, how);
        rt_machine_set_str(&un->note, note);
        /* The reference is the highest measured floating-point peak (analyze, plot and report
         * choose again among the units a profile uses); integer units never are. */
        if (strstr(un->name, "int") == NULL &&
            (!ref_unit || un->flops > rt_machine_unit(m, ref_unit)->flops))
            ref_unit = un->name;
    }
    const char *ref_level = NULL;
    for (size_t i = 0; i < n_machine_levels; i++) {
        const rt_plateau *p = &machine_levels[i];
        if (!p->found)
            continue;
        rt_level *lv = rt_machine_add_level(m, p->name, p->bw);
        lv->min = p->min;
        lv->max = p->max;
        lv->typical = machine_typical[i];
        lv->size_bytes = i < (size_t)ncache ? caches[i].size : 0;
        char note[400];
        snprintf(note, sizeof note, "read kernel (%s), %d thread%s: %s", rt_isa_name(isa), maxt,
                 maxt > 1 ? "s" : "", p->note);
        rt_machine_set_str(&lv->note, note);
        ref_level = p->name; /* the last found: DRAM when the curve reached it */
    }
    if (!ref_unit || !ref_level) {
        rt_error_set(err, "measurement found no %s",
                     !ref_unit ? "floating-point unit" : "memory level");
        goto fail;
    }
    /* Every overhead measured, each by its own definition; the model's tau is the fork/join of
     * all threads. */
    for (int i = 0; i < n_omp; i++) {
        char how[200];
        snprintf(how, sizeof how,
                 "OpenMP parallel region fork+join, %d thread%s, median of %d trials of %ld "
                 "regions",
                 omp[i].threads, omp[i].threads > 1 ? "s" : "", pl->oh_trials, pl->omp_regions);
        rt_machine_add_overhead(m, RT_OVERHEAD_OPENMP, omp[i].threads, omp[i].seconds, how);
    }
    if (clrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "clEnqueueNDRangeKernel of an empty kernel (global size 1) + clFinish on %s, "
                 "median of %d trials of %ld launches",
                 dev, pl->oh_trials, pl->cl_launches);
        rt_machine_add_overhead(m, RT_OVERHEAD_OPENCL, 0, spread_of(cl), how);
    }
    if (fwrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "PyTorch %s eager op (torch.add of two one-element tensors, one thread) in a "
                 "Python loop, timed in %s, median of %d trials of %ld ops; the dispatch a "
                 "profile of PyTorch self times pays per op",
                 fw_version, python, pl->oh_trials, pl->fw_ops);
        rt_machine_add_overhead(m, RT_OVERHEAD_FRAMEWORK, 1, spread_of(fw), how);
    }
    if (dnrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "dnnl_primitive_execute + dnnl_stream_wait of a %s, median of %d trials of %ld "
                 "executes; what each oneDNN verbose line's time holds beyond the work",
                 dn_what, pl->oh_trials, pl->dnnl_execs);
        rt_machine_add_overhead(m, RT_OVERHEAD_ONEDNN, 0, spread_of(dn), how);
    }
    rt_machine_set_str(&m->ref_unit, ref_unit);
    rt_machine_set_str(&m->ref_level, ref_level);
    m->tau = tau_s.median;
    char taum[400];
    snprintf(taum, sizeof taum,
             "OpenMP parallel region fork+join on %d thread%s, median of %d trials of %ld regions "
             "(min %.3g s, max %.3g s); the default because CPU frameworks run each primitive as "
             "one parallel region; every overhead measured is in `overheads`",
             maxt, maxt > 1 ? "s" : "", pl->oh_trials, pl->omp_regions, tau_s.min, tau_s.max);
    rt_machine_set_str(&m->tau_method, taum);
    char method[1024];
    snprintf(method, sizeof method,
             "rooftime machine measure%s: compute = FMA/dot-product/tile throughput kernels with "
             "independent accumulators and checked results, best ISA per unit at %d thread%s; "
             "memory = plateaus of the read-bandwidth sweep (%s loads) named from the %s cache "
             "sizes; every ceiling a high quantile (0.9) of the undisturbed trials, the median "
             "kept as `typical`, min and max as the spread; reference unit = "
             "the floating-point unit with the highest measured peak, reference level = DRAM; "
             "details in `measurement`",
             o.quick ? " --quick" : "", maxt, maxt > 1 ? "s" : "", rt_isa_name(isa), csrc);
    rt_machine_set_str(&m->method, method);

    meas->cpu_vendor = rt_strdup(cpu.vendor);
    meas->cpu_model = rt_strdup(cpu.model);
    meas->cpu_family = cpu.family;
    meas->cpu_model_id = cpu.model_id;
    meas->isa_used = rt_cpu_flags_string(&cpu);
    meas->cpus = ncpu;
    meas->thread_counts = rt_xcalloc((size_t)nt, sizeof *meas->thread_counts);
    for (int t = 0; t < nt; t++)
        meas->thread_counts[t] = tcounts[t];
    meas->n_thread_counts = (size_t)nt;
    meas->quick = o.quick;
    meas->max_isa = rt_strdup(rt_isa_name(limit));
    meas->seconds = rt_now() - t_start;
    long runs, disturbed;
    rt_team_stats(&runs, &disturbed);
    meas->timed_runs = runs;
    meas->disturbed_runs = disturbed;
    m->timed_runs = runs;
    m->disturbed_runs = disturbed;
    if (runs > 0 && disturbed * 10 > runs)
        rt_warnings_add(
            sk,
            "accuracy: %ld of %ld timed runs were disturbed by other processes (a thread "
            "descheduled or late) in all their attempts: figures may be low",
            disturbed, runs);
    for (size_t i = 0; i < sk->n; i++)
        rt_measurement_add_skipped(meas, sk->msg[i]);
    m->measurement = meas;
    meas = NULL;
    if (rt_machine_check(m, err) != 0)
        goto fail;
    *out = m;
    m = NULL;
    rc = 0;
fail:
    rt_team_pin(false);
    rt_measurement_free(meas);
    free(xs);
    free(ys);
    free(pts);
    rt_machine_free(m);
    rt_warnings_release(&local);
    return rc;
}
