/* rt_gpu_measure: compiles the kernels of data/gpu/ with NVRTC and times them on an NVIDIA GPU;
 * the plan of a quick and a full run, and the machine built from what was measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/probe/gpu-measure.h"
#include "gpu-internal.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/strings.h"

static rt_gpu_bw *add_bw(rt_gpu_measurement *r, const char *name, const char *level,
                         const char *kernel)
{
    rt_gpu_bw *b = &r->bw[r->n_bw++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->level, sizeof b->level, "%s", level);
    snprintf(b->kernel, sizeof b->kernel, "%s", kernel);
    return b;
}
typedef struct plan {
    int trials;
    double compute_s, bw_s, sweep_s, sweep_step, sweep_max, hbm_min;
    long paper_launches, async_launches, cpu_launches;
    int graph_small, graph_big;
} plan;

/* hbm_min: the HBM kernels stream max(8 x L2, hbm_min) bytes. */
static const plan quick_plan = {
    3,     0.02, 0.005, 0.002, 1.4142135623730951, 512.0 * (1 << 20), 256.0 * (1 << 20), 6000,
    30000, 6000, 50,    500};
static const plan full_plan = {
    7,      0.05,  0.02, 0.005, 1.189207115002721, 1024.0 * (1 << 20), 256.0 * (1 << 20), 100000,
    200000, 50000, 100,  1000};

/* The detector's plateau as the measurement record keeps it. */
static void plateau_of(const rt_plateau *q, rt_gpu_plateau *out)
{
    snprintf(out->name, sizeof out->name, "%s", q->name);
    out->found = q->found;
    out->bw = (rt_spread){q->bw, q->min, q->max};
    out->from_bytes = q->from_bytes;
    out->to_bytes = q->to_bytes;
    out->points = q->n_points;
    snprintf(out->note, sizeof out->note, "%s", q->note);
}

static const char *level_of(const rt_gpu_measurement *r, const char *level, const rt_gpu_bw **best)
{
    *best = NULL;
    for (size_t i = 0; i < r->n_bw; i++)
        if (strcmp(r->bw[i].level, level) == 0 &&
            (!*best || r->bw[i].bw.median > (*best)->bw.median))
            *best = &r->bw[i];
    return level;
}

/* The compute kernels the method names: "FMA chains, mma.sync loops and (sm_90a) wgmma loops,
 * one wave of 256-thread blocks (128 for wgmma)" where a module of one family was loaded. */
static void loops_of(const rt_gpu_probe *g, char *buf, size_t n)
{
    const rt_gpu_module *m = NULL;
    for (int i = 0; i < N_MODS; i++)
        if (rt_gpu_modules[i].family && g->mod[i])
            m = &rt_gpu_modules[i];
    if (m)
        snprintf(buf, n,
                 "FMA chains, mma.sync loops and (sm_%d%s) %s loops, one wave of %d-thread blocks "
                 "(128 for %s)",
                 g->sm, m->feature ? m->feature : "", m->family, BLOCK, m->family);
    else
        snprintf(buf, n, "FMA chains and mma.sync loops, one wave of %d-thread blocks", BLOCK);
}

static rt_machine *build_machine(const rt_gpu_measurement *r, const rt_gpu_arch *arch,
                                 const char *loops)
{
    char *name = rt_asprintf("%s (GPU %d, measured)", r->device, r->index);
    rt_machine *m = rt_machine_new(name);
    free(name);
    rt_machine_set_str(&m->source, "measured");
    char *method = rt_asprintf(
        "rooftime machine measure --gpu%s: kernels of data/gpu/ compiled by NVRTC %s for "
        "sm_%d%d; %s on %d SMs; "
        "bandwidth from per-block slices (shared memory, L1), ld.global.cg (L2) and large "
        "streams (HBM), with an ERT-like sweep; launch overhead four ways, tau the '%s' one. "
        "Figures are medians of %d trials, min and max kept.",
        r->quick ? " --quick" : "", r->nvrtc, r->cc_major, r->cc_minor, loops, r->sms,
        rt_gpu_tau_name(r->tau), r->quick ? quick_plan.trials : full_plan.trials);
    rt_machine_set_str(&m->method, method);
    free(method);
    for (size_t i = 0; i < r->n_compute; i++) {
        const rt_gpu_compute *c = &r->compute[i];
        rt_unit *u = rt_machine_add_unit(m, c->unit, c->flops.median);
        u->min = c->flops.min;
        u->max = c->flops.max;
        u->theoretical = c->theoretical;
        char *note = rt_asprintf("%s (%s), SM clock %.4g GHz during the runs; theoretical %s",
                                 c->kernel, c->instr, c->clock_hz / 1e9,
                                 c->theoretical > 0 ? "from architectures.json"
                                                    : "unknown for this architecture");
        rt_machine_set_str(&u->note, note);
        free(note);
    }
    static const char *const levels[] = {"L1", "L2", "HBM"};
    for (size_t i = 0; i < 3; i++) {
        const rt_gpu_bw *b;
        level_of(r, levels[i], &b);
        if (!b)
            continue;
        rt_level *l = rt_machine_add_level(m, levels[i], b->bw.median);
        l->min = b->bw.min;
        l->max = b->bw.max;
        /* capacity: L1 one per SM (data/gpu/architectures.json), L2 and memory one for all SMs
         * (the driver's attributes) */
        l->size_bytes = i == 0   ? (arch ? arch->l1_bytes_per_sm : 0)
                        : i == 1 ? r->l2_bytes
                                 : r->mem_bytes;
        if (l->size_bytes > 0) {
            l->instances = i == 0 ? r->sms : 1;
            l->shared_by = i == 0 ? 1 : r->sms;
            rt_machine_set_str(&l->size_source,
                               i == 0   ? "data/gpu/architectures.json: L1/shared memory per SM"
                               : i == 1 ? "the driver: CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"
                                        : "the driver: cuDeviceTotalMem");
        }
        char *note =
            rt_asprintf("%s kernel (%s), the best of this level's kernels", b->name, b->kernel);
        rt_machine_set_str(&l->note, note);
        free(note);
    }
    /* Every definition goes into `overheads`, as the CPU probe's do; the model's tau is one. */
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++)
        if (r->overhead[i].launches > 0)
            rt_machine_add_overhead(m, rt_gpu_tau_overhead_name((rt_gpu_tau)i), 0,
                                    r->overhead[i].seconds, r->overhead[i].method);
    const rt_gpu_overhead *o = &r->overhead[r->tau];
    m->tau = o->seconds.median;
    char *taum = rt_asprintf("%s; every definition measured is in `overheads` (%s is this one)",
                             o->method, rt_gpu_tau_overhead_name(r->tau));
    rt_machine_set_str(&m->tau_method, taum);
    free(taum);
    /* the FP16 Tensor Core ceiling (wgmma on Hopper), else mma.sync's, else the vector FP32 */
    rt_machine_set_str(&m->ref_unit, rt_machine_unit(m, "tensor_fp16") ? "tensor_fp16"
                                     : rt_machine_unit(m, "mma_fp16")  ? "mma_fp16"
                                                                       : "fp32");
    rt_machine_set_str(&m->ref_level, "HBM");
    return m;
}

/* The compute units of one phase: family 0 the kernels of the common modules, 1 those of a module
 * of its own family (wgmma), where a driver error ends the phase with a line instead of the run.
 * A unit whose figure is rejected is left out with a line. 0, or -1 on a driver error in phase
 * 0 (in g->err). */
static int measure_compute(rt_gpu_probe *g, const rt_gpu_arch *arch, const plan *pl,
                           rt_gpu_measurement *r, rt_warnings *skipped, rt_gpu_progress_t *p,
                           int family)
{
    for (size_t i = 0; i < rt_gpu_n_compute; i++) {
        const rt_gpu_compute_kernel *k = &rt_gpu_compute_kernels[i];
        if ((rt_gpu_modules[k->mod].family != NULL) != family)
            continue;
        char unit[24];
        if (!rt_gpu_unit_of(k, g->gen, unit, sizeof unit))
            continue; /* not this generation's (wgmma but on sm_90) */
        if (p->o->skip_family && strcmp(p->o->skip_family, k->family) == 0) {
            if (skipped)
                rt_warnings_add(skipped, "%s (%s): not measured: --skip-family %s", unit, k->kernel,
                                k->family);
            continue;
        }
        if (r->n_compute >= sizeof r->compute / sizeof *r->compute)
            break;
        char label[64];
        snprintf(label, sizeof label, "GPU compute: %s", unit);
        double lo = family ? 0.96 : 0.05, span = family ? 0.04 : 0.35;
        rt_gpu_stage(p, label, lo + span * i / rt_gpu_n_compute,
                     lo + span * (i + 1) / rt_gpu_n_compute);
        if (arch && rt_gpu_arch_rate(arch, unit) <= 0) {
            if (skipped)
                rt_warnings_add(skipped, "%s: sm_%d (%s) has no such unit", unit, g->sm,
                                arch->name);
            continue;
        }
        if (!g->mod[k->mod]) {
            if (skipped)
                rt_warnings_add(skipped, "%s (%s): not measured: %s", unit, k->kernel,
                                g->absent[k->mod]);
            continue;
        }
        int absent;
        char why[512] = "";
        if (rt_gpu_run_compute(g, k, arch, pl->trials, pl->compute_s, &r->compute[r->n_compute],
                               &absent, why, sizeof why)) {
            if (!family)
                return -1;
            if (skipped)
                rt_warnings_add(skipped,
                                "%s: not measured: %s; the GPU context is lost, so no %s kernel "
                                "after it ran",
                                unit, g->err->msg, k->family);
            return 0;
        }
        if (absent == 2) {
            /* a rejected figure costs its unit, not the other ceilings: the machine is written
             * without it (unknown, not a guess), and the line says why */
            if (skipped)
                rt_warnings_add(skipped, "%s: not measured: %s", unit, why);
            continue;
        }
        if (absent) {
            if (skipped)
                rt_warnings_add(skipped, "%s: the %s instruction does not exist on sm_%d", unit,
                                k->instr, g->sm);
            continue;
        }
        r->n_compute++;
    }
    return 0;
}

int rt_gpu_family_check(const char *name, rt_error *err)
{
    char known[128] = "";
    for (size_t i = 0; i < rt_gpu_n_compute; i++) {
        const char *f = rt_gpu_compute_kernels[i].family;
        if (strcmp(f, name) == 0)
            return 0;
        if (i && strcmp(f, rt_gpu_compute_kernels[i - 1].family) == 0)
            continue; /* the table keeps a family's kernels together */
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "",
                 f);
    }
    rt_error_set(err, "no instruction family '%s' (the probe's: %s)", name, known);
    return -1;
}

int rt_gpu_measure(const rt_gpu_opts *opts, rt_machine **out, rt_warnings *skipped, rt_error *err)
{
    rt_gpu_opts defaults = {0};
    const rt_gpu_opts *o = opts ? opts : &defaults;
    const plan *pl = o->quick ? &quick_plan : &full_plan;
    *out = NULL;
    rt_gpu_measurement *r = rt_gpu_measurement_new();
    r->quick = o->quick;
    r->tau = o->tau;
    double t_start = rt_now();
    rt_gpu_probe g;
    memset(&g, 0, sizeof g);
    rt_gpu_progress_t p = {o, "", 0, 0};
    int rc = -1;
    rt_gpu_stage(&p, "GPU: loading the driver, compiling kernels", 0, 0.05);
    if (rt_gpu_open(&g, o->device, o->archs, r, err))
        goto done;
    const rt_gpu_arch *arch = g.arch;
    if (arch)
        snprintf(r->arch, sizeof r->arch, "%s", arch->name);
    else if (skipped && g.gen)
        rt_warnings_add(skipped,
                        "theoretical peaks: architectures.json has no entry for sm_%d; every "
                        "kernel is tried, none is checked against a peak, and the instructions "
                        "are those of its generation, sm_%d (%s)",
                        g.sm, g.gen->sm, g.gen->name);
    else if (skipped)
        rt_warnings_add(skipped,
                        "theoretical peaks: %s sm_%d; the vector kernels are tried, none is "
                        "checked against a peak; the Tensor Core kernels are not (which "
                        "instruction reaches each ceiling is its generation's to say)",
                        o->archs ? "architectures.json has no generation for" : "no peak data for",
                        g.sm);
    if (skipped)
        rt_gpu_untimed(g.gen, g.sm, skipped);

    /* compute: the established instructions first; the module-family kernels (wgmma) last,
     * after the launch overheads, below */
    if (measure_compute(&g, arch, pl, r, skipped, &p, 0) != 0)
        goto done;

    /* bandwidth: one buffer for the largest working set */
    double hbm_ws = 8 * r->l2_bytes > pl->hbm_min ? 8 * r->l2_bytes : pl->hbm_min;
    double need = hbm_ws > pl->sweep_max ? hbm_ws : pl->sweep_max;
    g.buf_bytes = (size_t)need;
    if (rt_gpu_ck(&g, g.cu.MemAlloc(&g.buf, g.buf_bytes), "cuMemAlloc (bandwidth buffer)") ||
        rt_gpu_ck(&g, g.cu.MemsetD32(g.buf, 0, g.buf_bytes / 4), "cuMemsetD32"))
        goto done;
    rt_gpu_stage(&p, "GPU bandwidth: shared memory, L1, L2, HBM", 0.40, 0.55);
    {
        rt_gpu_bw *b = add_bw(r, "shared", "L1", "bw_shared");
        if (rt_gpu_run_shared(&g, pl->trials, pl->bw_s, &b->bw, &b->clock_hz))
            goto done;
        b->working_set = (double)BLOCK * 16 * sizeof(float);
        b->theoretical = arch ? arch->l1_bytes_per_clock_per_sm * r->sms *
                                    (b->clock_hz > r->clock_hz ? b->clock_hz : r->clock_hz)
                              : 0;
        rt_gpu_progress(&p, 0.2);
        b = add_bw(r, "l1_read", "L1", "bw_l1");
        int max_per_sm = arch ? (int)(arch->l1_bytes_per_sm / 2 / (BLOCK * 64)) : 0;
        if (rt_gpu_run_l1(&g, max_per_sm > 0 ? max_per_sm : 1, pl->trials, pl->bw_s, &b->bw,
                          &b->clock_hz, &b->working_set))
            goto done;
        b->theoretical = r->bw[0].theoretical;
        rt_gpu_progress(&p, 0.4);
        struct {
            const char *name, *level;
            rt_gpu_bw_kind kind;
            double ws;
        } runs[] = {{"l2_read", "L2", BW_READ_L2, r->l2_bytes / 4},
                    {"l2_rmw", "L2", BW_RMW, r->l2_bytes / 4},
                    {"hbm_read", "HBM", BW_READ, hbm_ws},
                    {"hbm_rmw", "HBM", BW_RMW, hbm_ws}};
        for (size_t i = 0; i < 4; i++) {
            b = add_bw(r, runs[i].name, runs[i].level, rt_gpu_bw_kernels[runs[i].kind]);
            if (rt_gpu_run_bw(&g, runs[i].kind, runs[i].ws, pl->trials, pl->bw_s * (i < 2 ? 1 : 2),
                              &b->bw, &b->clock_hz, &b->working_set))
                goto done;
            if (i >= 2)
                b->theoretical = r->hbm_theoretical;
            rt_gpu_progress(&p, 0.4 + 0.15 * (i + 1));
        }
    }
    for (size_t i = 0; i < r->n_bw; i++) {
        const rt_gpu_bw *b = &r->bw[i];
        if (b->theoretical > 0 && b->bw.max > b->theoretical * 1.001) {
            rt_error_set(err,
                         "%s: measured %.4g B/s, above the theoretical %.4g: the kernel's "
                         "byte count or the device's figures are wrong",
                         b->name, b->bw.max, b->theoretical);
            goto done;
        }
    }

    /* the ERT-like sweep, L2 and HBM (loads bypass L1) */
    {
        unsigned grid;
        rt_cu_function f;
        if (rt_gpu_get_fn(&g, MOD_MEM, "bw_read_l2", &f) || rt_gpu_one_wave(&g, f, 0, &grid))
            goto done;
        double lo = (double)grid * BLOCK * 16;
        rt_gpu_bw_kind kinds[2] = {BW_READ_L2, BW_RMW};
        for (int c = 0; c < 2; c++) {
            rt_gpu_stage(&p, c == 0 ? "GPU sweep: read-only" : "GPU sweep: read-modify-write",
                         0.55 + 0.15 * c, 0.70 + 0.15 * c);
            rt_gpu_curve *cv = &r->curve[c];
            if (rt_gpu_run_sweep(&g, cv, kinds[c], lo, pl->sweep_max, pl->sweep_step, pl->trials,
                                 pl->sweep_s, &p, 0, 1))
                goto done;
            double limit = r->l2_bytes;
            const char *names[] = {"L2"};
            rt_warnings w = {0};
            rt_error perr;
            rt_plateau found[2];
            memset(found, 0, sizeof found);
            if (rt_plateau_detect(cv->bytes, cv->bw, cv->n, &limit, names, 1, found, &w, &perr) !=
                    0 &&
                skipped)
                rt_warnings_add(skipped, "%s sweep: %s", cv->kind, perr.msg);
            for (size_t i = 0; i < w.n; i++)
                if (skipped)
                    rt_warnings_add(skipped, "%s sweep: %s", cv->kind, w.msg[i]);
            rt_warnings_release(&w);
            snprintf(found[1].name, sizeof found[1].name, "HBM");
            for (int k = 0; k < 2; k++)
                plateau_of(&found[k], &cv->plateau[k]);
        }
    }

    /* launch overhead */
    {
        rt_cu_function f;
        if (rt_gpu_get_fn(&g, MOD_LAUNCH, "empty_kernel", &f))
            goto done;
        for (int i = 0; i < 100; i++) /* warm-up */
            if (rt_gpu_ck(&g, g.cu.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g.s, NULL, NULL),
                          "cuLaunchKernel"))
                goto done;
        if (rt_gpu_ck(&g, g.cu.StreamSynchronize(g.s), "cuStreamSynchronize"))
            goto done;
        for (int i = 0; i < RT_GPU_TAU_COUNT; i++)
            snprintf(r->overhead[i].label, sizeof r->overhead[i].label, "%s",
                     rt_gpu_tau_name((rt_gpu_tau)i));
        rt_gpu_stage(&p, "GPU launch overhead: paper (event-timed, synchronized)", 0.85, 0.93);
        if (rt_gpu_overhead_paper(&g, f, pl->paper_launches, pl->trials,
                                  &r->overhead[RT_GPU_TAU_PAPER]))
            goto done;
        rt_gpu_stage(&p, "GPU launch overhead: async, cpu, graph", 0.93, 0.96);
        if (rt_gpu_overhead_async(&g, f, pl->async_launches, pl->trials,
                                  &r->overhead[RT_GPU_TAU_ASYNC]) ||
            rt_gpu_overhead_cpu(&g, f, pl->cpu_launches, pl->trials,
                                &r->overhead[RT_GPU_TAU_CPU]) ||
            rt_gpu_overhead_graph(&g, f, pl->graph_small, pl->graph_big, pl->trials,
                                  &r->overhead[RT_GPU_TAU_GRAPH]))
            goto done;
    }
    /* The instruction families of a module of their own (wgmma on sm_90a) last: the newest code,
     * which a first run on a GPU may find faulting; a driver error there (the context is then
     * lost) ends the family's units, said, and keeps what was measured before it. */
    if (measure_compute(&g, arch, pl, r, skipped, &p, 1) != 0)
        goto done;
    rt_gpu_progress(&p, 1);
    r->seconds = rt_now() - t_start;
    char loops[256];
    loops_of(&g, loops, sizeof loops);
    *out = build_machine(r, arch, loops);
    (*out)->gpu = r;
    r = NULL;
    rc = 0;
done:
    rt_gpu_close(&g);
    rt_gpu_measurement_free(r);
    return rc;
}
