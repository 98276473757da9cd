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

/* One measurement under way: what it runs with and where its results go. */
typedef struct run {
    rt_measure_opts o;
    const plan *pl;
    rt_cpu_info cpu;
    rt_isa limit, isa; /* the ISA allowed; the best one the CPU has within it */
    int ncpu, maxt;
    int tcounts[40], nt; /* thread counts measured: 1, 2, 4 ... maxt */
    rt_warnings *sk;
    rt_run_progress pr;
    rt_measurement *meas;
} run;

/* The options, the CPU and its limits, the thread counts; says what the CPU rules out. */
static int setup(run *r, const rt_measure_opts *opts, rt_warnings *sk, rt_error *err)
{
    memset(r, 0, sizeof *r);
    if (opts)
        r->o = *opts;
    r->pl = r->o.quick ? &quick_plan : &full_plan;
    r->sk = sk;
    rt_cpu_detect(&r->cpu);
    r->limit = RT_ISA_AMX;
    if (r->o.max_isa && rt_isa_parse(r->o.max_isa, &r->limit, err) != 0) {
        rt_error_prefix(err, "max_isa");
        return -1;
    }
    rt_cpu_info *cpu = &r->cpu;
    rt_isa limit = r->limit;
    rt_cpu_limit(cpu, limit);
    r->isa = rt_cpu_best_isa(cpu);
    r->ncpu = rt_measure_max_threads();
    if (r->o.max_threads < 0 || r->o.max_threads > r->ncpu) {
        rt_error_set(err, "cannot use %d threads: %d CPUs available", r->o.max_threads, r->ncpu);
        return -1;
    }
    r->maxt = r->o.max_threads > 0 ? r->o.max_threads : r->ncpu;
#ifndef RT_HAVE_OPENMP
    rt_warnings_add(sk, "more than one thread: built without OpenMP");
#endif
    for (int t = 1; t < r->maxt && r->nt < 38; t *= 2)
        r->tcounts[r->nt++] = t;
    r->tcounts[r->nt++] = r->maxt;

    /* Say what this CPU or the limit rules out before spending time. */
    if (limit < RT_ISA_AVX512)
        rt_warnings_add(sk, "AVX-512 kernels: limited to %s", rt_isa_name(limit));
    else if (!cpu->avx512f)
        rt_warnings_add(sk, "AVX-512 kernels: the CPU has no AVX-512F");
    if (!cpu->avx512_bf16)
        rt_warnings_add(sk, "bf16: no AVX512-BF16 (vdpbf16ps)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (!cpu->avx512_fp16)
        rt_warnings_add(sk, "fp16: no AVX512-FP16 (vfmadd231ph)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (!cpu->avx512_vnni)
        rt_warnings_add(sk, "int8: no AVX512-VNNI (vpdpbusd)%s",
                        limit < RT_ISA_AVX512 ? " allowed" : "");
    if (limit < RT_ISA_AMX)
        rt_warnings_add(sk, "AMX: limited to %s", rt_isa_name(limit));
    else if (!cpu->amx_tile && cpu->amx_cpu)
        rt_warnings_add(sk, "AMX: the CPU has AMX tiles but the operating system does not save "
                            "their state (XCR0 bits 17-18 clear; Linux does from 5.16): amx_bf16, "
                            "amx_int8 not measured");
    else if (!cpu->amx_tile)
        rt_warnings_add(sk, "AMX: no AMX (amx_bf16, amx_int8 not measured)");
#ifndef RT_HAVE_AMX_KERNELS
    if (cpu->amx_tile) {
        rt_warnings_add(sk, "AMX: this build has no AMX kernels (its compiler knows no AMX "
                            "intrinsics: GCC 11 or Clang 12 needed): amx_bf16, amx_int8 not "
                            "measured");
        cpu->amx_tile = cpu->amx_bf16 = cpu->amx_int8 = false;
    }
#endif
#ifndef RT_HAVE_FP16_KERNELS
    if (cpu->avx512_fp16)
        rt_warnings_add(sk, "fp16: this build has no AVX512-FP16 kernel (its compiler knows no "
                            "AVX512-FP16: GCC 12 or Clang 15 needed)");
#endif
    /* Once per process, before any tile instruction (else SIGILL): Linux grants it per process. */
    if (cpu->amx_tile) {
        rt_error e2;
        if (rt_cpu_request_amx(&e2) != 0) {
            rt_warnings_add(sk, "AMX: %s: amx_bf16, amx_int8 not measured", e2.msg);
            cpu->amx_tile = cpu->amx_bf16 = cpu->amx_int8 = false;
        }
    }
    r->pr = (rt_run_progress){r->o.progress, r->o.progress_ctx, "", 0, 0};
    return 0;
}

/* The core clock, with imul as a cross-check. */
static void measure_clock(run *r)
{
    rt_progress_stage(&r->pr, "core clock", 0.0, 0.03);
    rt_stat imul;
    rt_stat clk = rt_measure_clock(r->pl->clock_trials, r->pl->clock_seconds, &imul);
    r->meas->clock_hz = spread_of(clk);
    r->meas->imul_hz = imul.median;
    r->meas->clock_method =
        rt_strdup("chains of 100 dependent `add reg, reg` (1 cycle each) timed "
                  "by the monotonic clock on one thread; imul_hz: the same with "
                  "`imul reg, reg` (3 cycles), a cross-check");
}

/* Every compute kernel that runs at every thread count; best[u] gets unit u's best kernel. */
static void measure_compute(run *r, rt_unit_result best[RT_N_UNITS])
{
    rt_progress_stage(&r->pr, "compute peaks", 0.03, r->o.quick ? 0.25 : 0.2);
    /* Each core's own work: RT_OWN_SPLIT times the trials, each as much shorter. */
    rt_compute_plan cp = {r->pl->flops_trials * RT_OWN_SPLIT, r->pl->flops_seconds / RT_OWN_SPLIT,
                          r->o.quick, NULL, 0};
    cp.kernels = rt_flops_kernels(&cp.n_kernels);
    rt_measure_compute(&cp, &r->cpu, r->limit, r->tcounts, r->nt, &r->pr, r->meas, best, r->sk);
}

/* The overheads measured: OpenMP fork/join per thread count, OpenCL, PyTorch and oneDNN. */
typedef struct overheads {
    rt_overhead_rec omp[8];
    int n_omp;
    rt_stat tau;          /* fork/join at the most threads */
    int clrc, fwrc, dnrc; /* 0: measured */
    rt_stat cl, fw, dn;
    char dev[256], fw_version[64], dn_what[160];
    const char *python;
} overheads;

static int measure_overheads(run *r, overheads *oh, rt_error *err)
{
    const plan *pl = r->pl;
    rt_progress_stage(&r->pr, "launch overhead", 0.93, 1.0);
    oh->n_omp = 0;
    oh->tau = (rt_stat){0, 0, 0, 0, 0};
    for (int t = 0; t < r->nt; t++) {
        rt_stat s;
        if (rt_overhead_openmp(r->tcounts[t], pl->oh_trials, pl->omp_regions, &s, err) != 0) {
#ifdef RT_HAVE_OPENMP
            return -1;
#else
            rt_warnings_add(r->sk, "launch overhead: %s", err->msg);
            break;
#endif
        }
        if (oh->n_omp < 8)
            oh->omp[oh->n_omp++] = (rt_overhead_rec){r->tcounts[t], spread_of(s)};
        oh->tau = s;
        rt_progress_report(&r->pr, 0.5 * (t + 1) / r->nt);
    }
    rt_error clerr;
    oh->clrc = rt_overhead_opencl(pl->oh_trials, pl->cl_launches, &oh->cl, oh->dev, sizeof oh->dev,
                                  &clerr);
    if (oh->clrc != 0)
        rt_warnings_add(r->sk, "OpenCL launch overhead: %s", clerr.msg);
    /* One layer up: a framework's dispatch and a oneDNN primitive execute. */
    rt_error fwerr, dnerr;
    oh->python = rt_spawn_python();
    oh->fwrc = rt_overhead_torch(oh->python, pl->oh_trials, pl->fw_ops, &oh->fw, oh->fw_version,
                                 sizeof oh->fw_version, &fwerr);
    if (oh->fwrc != 0)
        rt_warnings_add(r->sk, "framework dispatch overhead (PyTorch): %s", fwerr.msg);
    /*
     * oneDNN runs OpenMP regions of as many threads as the CPUs: pinned, the pool threads beyond
     * the ones measured all sat on the caller's CPU (with --threads 1 an execute took 6 ms instead
     * of microseconds).
     */
    rt_team_pin(false);
    oh->dnrc = rt_overhead_onednn(pl->oh_trials, pl->dnnl_execs, &oh->dn, oh->dn_what,
                                  sizeof oh->dn_what, &dnerr);
    if (oh->dnrc != 0)
        rt_warnings_add(r->sk, "oneDNN primitive overhead: %s", dnerr.msg);
    rt_progress_report(&r->pr, 1.0);
    return 0;
}

/* The machine's units, each from its best kernel; returns the reference unit (NULL: none). */
static const char *add_units(rt_machine *m, const run *r, const rt_unit_result *best)
{
    const char *ref_unit = NULL;
    int maxt = r->maxt;
    for (size_t u = 0; u < RT_N_UNITS; u++) {
        if (!best[u].have)
            continue;
        const rt_flops_kernel *k = best[u].k;
        rt_unit *un = rt_machine_add_unit(m, rt_unit_order[u], best[u].all.best);
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
                 best[u].all.clean, r->pl->flops_trials * RT_OWN_SPLIT, best[u].one.best / 1e9,
                 best[u].hz / 1e9, maxt, how);
        rt_machine_set_str(&un->note, note);
        /* The reference is the highest measured floating-point peak (analyze, plot and report
         * choose again among the units a profile uses); integer units never are. */
        if (strstr(un->name, "int") == NULL &&
            (!ref_unit || un->flops > rt_machine_unit(m, ref_unit)->flops))
            ref_unit = un->name;
    }
    return ref_unit;
}

/* Level i's capacity: a cache's from hwloc or sysfs, main memory's from the system (the
 * physical pages); what the sweep saw of it: its plateau's last working set, all threads. */
static void set_capacity(rt_level *l, const run *r, const rt_levels *lv, size_t i)
{
    const rt_plateau *p = &lv->found[i];
    if (i < (size_t)lv->ncache) {
        l->size_bytes = lv->caches[i].size;
        l->shared_by = lv->caches[i].shared_by;
        l->instances = lv->caches[i].instances;
        rt_machine_set_str(&l->size_source, lv->cache_source);
    } else {
        double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
        if (phys > 0) {
            l->size_bytes = phys;
            l->shared_by = r->ncpu;
            l->instances = 1;
            rt_machine_set_str(&l->size_source, "sysconf (physical memory)");
        }
    }
    if (p->to_bytes > 0) {
        l->swept_bytes = p->to_bytes * r->maxt;
        l->swept_threads = r->maxt;
    }
}

/* The machine's memory levels from the reference curve; returns the reference level (the last
 * found: DRAM when the curve reached it), NULL when none was found. */
static const char *add_levels(rt_machine *m, const run *r, const rt_levels *lv)
{
    const char *ref_level = NULL;
    for (size_t i = 0; i < lv->n; i++) {
        const rt_plateau *p = &lv->found[i];
        if (!p->found)
            continue;
        rt_level *l = rt_machine_add_level(m, p->name, p->bw);
        l->min = p->min;
        l->max = p->max;
        l->typical = lv->typical[i];
        set_capacity(l, r, lv, i);
        char note[400];
        snprintf(note, sizeof note, "%s kernel (%s), %d thread%s: %s", rt_bw_kind_name(lv->kind[i]),
                 rt_isa_name(lv->isa[lv->kind[i]]), r->maxt, r->maxt > 1 ? "s" : "", p->note);
        rt_machine_set_str(&l->note, note);
        ref_level = p->name;
    }
    return ref_level;
}

/* Every overhead measured, each by its own definition; the model's tau is the fork/join of all
 * threads. */
static void add_overheads(rt_machine *m, const run *r, const overheads *oh)
{
    const plan *pl = r->pl;
    for (int i = 0; i < oh->n_omp; i++) {
        char how[200];
        snprintf(how, sizeof how,
                 "OpenMP parallel region fork+join, %d thread%s, median of %d trials of %ld "
                 "regions",
                 oh->omp[i].threads, oh->omp[i].threads > 1 ? "s" : "", pl->oh_trials,
                 pl->omp_regions);
        rt_machine_add_overhead(m, RT_OVERHEAD_OPENMP, oh->omp[i].threads, oh->omp[i].seconds, how);
    }
    if (oh->clrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "clEnqueueNDRangeKernel of an empty kernel (global size 1) + clFinish on %s, "
                 "median of %d trials of %ld launches",
                 oh->dev, pl->oh_trials, pl->cl_launches);
        rt_machine_add_overhead(m, RT_OVERHEAD_OPENCL, 0, spread_of(oh->cl), how);
    }
    if (oh->fwrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "PyTorch %s eager op (torch.add of two one-element tensors, one thread) in a "
                 "Python loop, timed in %s, median of %d trials of %ld ops; the dispatch a "
                 "profile of PyTorch self times pays per op",
                 oh->fw_version, oh->python, pl->oh_trials, pl->fw_ops);
        rt_machine_add_overhead(m, RT_OVERHEAD_FRAMEWORK, 1, spread_of(oh->fw), how);
    }
    if (oh->dnrc == 0) {
        char how[400];
        snprintf(how, sizeof how,
                 "dnnl_primitive_execute + dnnl_stream_wait of a %s, median of %d trials of %ld "
                 "executes; what each oneDNN verbose line's time holds beyond the work",
                 oh->dn_what, pl->oh_trials, pl->dnnl_execs);
        rt_machine_add_overhead(m, RT_OVERHEAD_ONEDNN, 0, spread_of(oh->dn), how);
    }
}

/* tau and how the machine was measured. */
static void describe(rt_machine *m, const run *r, const overheads *oh, const rt_levels *lv)
{
    const plan *pl = r->pl;
    int maxt = r->maxt;
    m->tau = oh->tau.median;
    char taum[400];
    snprintf(taum, sizeof taum,
             "OpenMP parallel region fork+join on %d thread%s, median of %d trials of %ld regions "
             "(min %.3g s, max %.3g s); the default because CPU frameworks run each primitive as "
             "one parallel region; every overhead measured is in `overheads`",
             maxt, maxt > 1 ? "s" : "", pl->oh_trials, pl->omp_regions, oh->tau.min, oh->tau.max);
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
             r->o.quick ? " --quick" : "", maxt, maxt > 1 ? "s" : "",
             rt_isa_name(lv->isa[RT_BW_READ]), lv->cache_source);
    rt_machine_set_str(&m->method, method);
}

/* The measurement's record of the CPU, the run and its disturbances; warns when many runs were
 * disturbed. */
static void record_run(run *r, rt_machine *m, double t_start)
{
    rt_measurement *meas = r->meas;
    meas->cpu_vendor = rt_strdup(r->cpu.vendor);
    meas->cpu_model = rt_strdup(r->cpu.model);
    meas->cpu_family = r->cpu.family;
    meas->cpu_model_id = r->cpu.model_id;
    meas->isa_used = rt_cpu_flags_string(&r->cpu);
    meas->cpus = r->ncpu;
    meas->thread_counts = rt_xcalloc((size_t)r->nt, sizeof *meas->thread_counts);
    for (int t = 0; t < r->nt; t++)
        meas->thread_counts[t] = r->tcounts[t];
    meas->n_thread_counts = (size_t)r->nt;
    meas->quick = r->o.quick;
    meas->max_isa = rt_strdup(rt_isa_name(r->limit));
    meas->seconds = rt_now() - t_start;
    long runs, disturbed, slow;
    rt_team_stats(&runs, &disturbed, &slow);
    meas->timed_runs = runs;
    meas->disturbed_runs = disturbed;
    meas->slow_runs = slow;
    m->timed_runs = runs;
    m->disturbed_runs = disturbed;
    if (runs > 0 && disturbed * 10 > runs)
        rt_warnings_add(
            r->sk,
            "accuracy: %ld of %ld timed runs were disturbed by other processes (a thread "
            "descheduled or late, or, %ld of them, far slower than the same work before) in all "
            "their attempts: figures may be low",
            disturbed, runs, slow);
    for (size_t i = 0; i < r->sk->n; i++)
        rt_measurement_add_skipped(meas, r->sk->msg[i]);
}

int rt_machine_measure(const rt_measure_opts *opts, rt_machine **out, rt_warnings *skipped,
                       rt_error *err)
{
    *out = NULL;
    rt_warnings local = {0};
    run r;
    if (setup(&r, opts, skipped ? skipped : &local, err) != 0) {
        rt_warnings_release(&local);
        return -1;
    }
    r.meas = rt_measurement_new();
    rt_machine *m = NULL;
    int rc = -1;
    double t_start = rt_now();
    rt_unit_result best[RT_N_UNITS];
    rt_levels lv;
    overheads oh;

    rt_team_stats_reset();
    if (!r.o.no_pin)
        rt_team_pin(true);
    measure_clock(&r);
    double t_stage = rt_now();
    r.meas->stage_seconds[0] = t_stage - t_start;
    measure_compute(&r, best);
    r.meas->stage_seconds[1] = rt_now() - t_stage;
    t_stage = rt_now();
    const plan *pl = r.pl;
    rt_levels_plan lp = {.trials = pl->bw_trials,
                         .seconds = pl->bw_seconds,
                         .step = pl->bw_step,
                         .total_max = pl->bw_total_max,
                         .llc_mult = pl->llc_mult,
                         .quick = r.o.quick};
    lp.kernels = rt_bw_kernels(&lp.n_kernels);
    if (rt_measure_levels(&lp, r.isa, r.tcounts, r.nt, r.o.quick ? 0.25 : 0.2, 0.93, &r.pr, r.meas,
                          &lv, r.sk, err) != 0)
        goto fail;
    r.meas->stage_seconds[2] = rt_now() - t_stage;
    t_stage = rt_now();
    if (measure_overheads(&r, &oh, err) != 0)
        goto fail;
    r.meas->stage_seconds[3] = rt_now() - t_stage;

    char name[128];
    snprintf(name, sizeof name, "%s (%d thread%s, measured)", r.cpu.model, r.maxt,
             r.maxt > 1 ? "s" : "");
    m = rt_machine_new(name);
    rt_machine_set_str(&m->source, "measured");
    const char *ref_unit = add_units(m, &r, best);
    const char *ref_level = add_levels(m, &r, &lv);
    if (!ref_unit || !ref_level) {
        rt_error_set(err, "measurement found no %s",
                     !ref_unit ? "floating-point unit" : "memory level");
        goto fail;
    }
    add_overheads(m, &r, &oh);
    rt_machine_set_str(&m->ref_unit, ref_unit);
    rt_machine_set_str(&m->ref_level, ref_level);
    describe(m, &r, &oh, &lv);
    record_run(&r, m, t_start);
    m->measurement = r.meas;
    r.meas = NULL;
    if (rt_machine_check(m, err) != 0)
        goto fail;
    *out = m;
    m = NULL;
    rc = 0;
fail:
    rt_team_pin(false);
    rt_measurement_free(r.meas);
    rt_machine_free(m);
    rt_warnings_release(&local);
    return rc;
}
