/* The time-based roofline of one kernel or config: bounds, class, efficiency, time-plane
 * coordinates. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rooftime/core/byte-placement.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

const char *rt_mode_name(rt_mode mode)
{
    return mode == RT_MODE_SINGLE ? "single" : "hier";
}

int rt_mode_parse(const char *s, rt_mode *out, rt_error *err)
{
    if (s && (strcmp(s, "single") == 0 || strcmp(s, "paper") == 0)) {
        *out = RT_MODE_SINGLE;
    } else if (s && (strcmp(s, "hier") == 0 || strcmp(s, "hierarchical") == 0)) {
        *out = RT_MODE_HIER;
    } else {
        rt_error_set(err, "unknown mode '%s' (single or hier)", s ? s : "");
        return -1;
    }
    return 0;
}

double rt_overhead_ceiling(double W_total, double n_total, double tau)
{
    if (!(n_total > 0) || !(tau > 0))
        return INFINITY;
    return W_total / (n_total * tau);
}

/* Main memory is HBM on GPUs and DRAM on CPUs: a profile's one finds the machine's other. */
static int level_index(const rt_machine *m, const char *name)
{
    int i = rt_machine_level_index(m, name);
    if (i >= 0)
        return i;
    if (strcasecmp(name, "HBM") == 0)
        return rt_machine_level_index(m, "DRAM");
    if (strcasecmp(name, "DRAM") == 0)
        return rt_machine_level_index(m, "HBM");
    return -1;
}

/* A communication kernel is judged against the link, not the memory roofline: its bound is the
 * bytes it sent over the link divided by the link's bandwidth, unknown without either. */
static void communication(const rt_machine *m, const rt_kernel *k, rt_verdict *v)
{
    double q = rt_values_get(&k->bytes, "link", NAN);
    v->bound = RT_BOUND_COMMUNICATION;
    v->bound_level = -1;
    v->t_bound = m->link_bw > 0 && q >= 0 ? fmax(q / m->link_bw, v->t_oh) : NAN;
    char label[RT_BOUND_LABEL_MAX];
    snprintf(label, sizeof label, "communication:%s",
             m->link_name && m->link_bw > 0 ? m->link_name
             : m->link_bw > 0               ? "link"
                                            : "unknown");
    v->bound_label = rt_intern(label);
}

/* Why a verdict above 1 is impossible: the ceiling that set its bound, named with its figure. */
static void warn_above_one(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_verdict *v,
                           const char *what, rt_warnings *w)
{
    char tau[96];
    rt_verdict_paid_text(ctx, v, tau, sizeof tau);
    /* Device time inside the overhead box: the box classifies, the roof bounds, so the roof is
     * what the kernel beat; its label then names that roof. */
    rt_bound b = rt_verdict_binding(v);
    const char *label = v->bound_label;
    char roof[RT_BOUND_LABEL_MAX];
    bool bw = b == RT_BOUND_BANDWIDTH && v->bound_level >= 0;
    if (b != v->bound) {
        if (bw)
            snprintf(roof, sizeof roof, "bandwidth:%s", m->levels[v->bound_level].name);
        else if (v->bound_unit >= 0)
            snprintf(roof, sizeof roof,
                     v->mode == RT_MODE_SINGLE ? "compute:ref(%s)" : "compute:%s",
                     m->units[v->bound_unit].name);
        else
            snprintf(roof, sizeof roof, "roof");
        label = roof;
    }
    if (v->t_bound == v->t_paid && v->t_paid > v->t_roof) {
        rt_warnings_add(w,
                        "%s: efficiency %.3g is above 1: it took less than its %.0f calls x %s of "
                        "launch overhead (%s): that tau is too large for these calls",
                        what, v->efficiency, v->n, tau,
                        ctx->time == RT_TIME_WALL ? "wall time"
                                                  : "times of unknown kind, read as wall time");
    } else if (bw) {
        rt_warnings_add(
            w,
            "%s: efficiency %.3g is above 1 (it ran faster than its %s bound): the %s "
            "bandwidth of machine '%s' (%.4g GB/s) is too low or its byte count too high",
            what, v->efficiency, label, m->levels[v->bound_level].name, m->name,
            m->levels[v->bound_level].bytes_per_s / 1e9);
    } else if (v->bound_unit >= 0 && v->t_compute >= v->t_bw_max) {
        const rt_unit *u = &m->units[v->bound_unit];
        char low[96] = "";
        if (u->theoretical > 0 && u->flops < 0.5 * u->theoretical)
            snprintf(low, sizeof low, ", %.0f%% of its theoretical peak",
                     100 * u->flops / u->theoretical);
        rt_warnings_add(w,
                        "%s: efficiency %.3g is above 1 (it ran faster than its %s bound): the %s "
                        "peak of machine '%s' (%.4g GFLOP/s%s) is too low or its FLOP count too "
                        "high",
                        what, v->efficiency, label, u->name, m->name,
                        (v->mode == RT_MODE_SINGLE ? rt_machine_ref_flops(m) : u->flops) / 1e9,
                        low);
    } else {
        rt_warnings_add(
            w,
            "%s: efficiency %.3g is above 1 (it ran faster than its %s bound): a "
            "ceiling of machine '%s' is too low or a FLOP/byte/launch count is too high",
            what, v->efficiency, label, m->name);
    }
}

void rt_verdict_compute(const rt_machine *m, rt_mode mode, const rt_kernel *k, const char *what,
                        rt_verdict *v, rt_warnings *w)
{
    rt_verdict_ctx ctx = {.mode = mode, .time = RT_TIME_UNKNOWN, .tau = m->tau};
    rt_verdict_compute_in(m, &ctx, k, what, v, w);
}

rt_bound rt_verdict_binding(const rt_verdict *v)
{
    /* wall time: what the calls pay, above the roof, is the bound; device time: the roof always
     * is */
    if (v->bound != RT_BOUND_COMMUNICATION && v->t_paid > v->t_roof && v->t_bound == v->t_paid)
        return RT_BOUND_OVERHEAD;
    if (v->bound != RT_BOUND_OVERHEAD || !(v->t_oh > v->t_roof) || v->t_bound != v->t_roof)
        return v->bound;
    return v->bound_level >= 0 && v->t_bw_max > v->t_compute ? RT_BOUND_BANDWIDTH
                                                             : RT_BOUND_COMPUTE;
}

/* A kernel whose time is the framework's own, no work (tag class=overhead). */
static bool framework_overhead(const rt_kernel *k)
{
    const char *c = rt_tags_get(&k->tags, "class");
    return c && strcmp(c, "overhead") == 0 && rt_values_sum(&k->flops) == 0 &&
           rt_values_sum(&k->bytes) == 0;
}

bool rt_verdict_is_real(const rt_verdict *v)
{
    return v->evidence == RT_EVIDENCE_FULL && v->bound != RT_BOUND_UNKNOWN;
}

/* The label a b c, cut to RT_BOUND_LABEL_MAX - 1 bytes as snprintf would, its one copy: the
 * bound's label, two million times in an analysis of a million kernels, without a format string
 * (and found again on this thread without a lock). */
static const char *label3(const char *a, const char *b, const char *c)
{
    char dst[RT_BOUND_LABEL_MAX];
    size_t cap = sizeof dst;
    const char *part[3] = {a, b, c};
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(part[i]);
        if (len > cap - 1 - n)
            len = cap - 1 - n;
        memcpy(dst + n, part[i], len);
        n += len;
    }
    dst[n] = '\0';
    return rt_intern(dst);
}

size_t rt_verdict_levels(const rt_machine *m)
{
    return 3 * m->n_levels + 1;
}

void rt_verdict_compute_in(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                           const char *what, rt_verdict *v, rt_warnings *w)
{
    rt_verdict_compute_at(m, ctx, k, what, NULL, v, w);
}

void rt_verdict_compute_at(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                           const char *what, double *block, rt_verdict *v, rt_warnings *w)
{
    rt_mode mode = ctx->mode;
    memset(v, 0, sizeof *v);
    v->mode = mode;
    v->time_kind = ctx->time;
    v->tau = ctx->tau;
    v->n = k->invocations;
    v->time = k->time;
    v->W = rt_values_sum(&k->flops);
    v->n_levels = m->n_levels;
    /* One block for the three per-level arrays: analyses hold millions of verdicts. */
    v->levels_lent = block != NULL;
    v->q = block ? block : rt_xcalloc(rt_verdict_levels(m), sizeof *v->q);
    v->q[3 * m->n_levels] = 0;
    v->ai = v->q + m->n_levels;
    v->t_bw = v->ai + m->n_levels;
    v->bound_level = v->bound_unit = -1;
    for (size_t l = 0; l < m->n_levels; l++)
        v->q[l] = v->ai[l] = v->t_bw[l] = NAN;

    /* Bytes per machine level. */
    double q_any = 0;
    for (size_t i = 0; i < k->bytes.n; i++) {
        int l = level_index(m, k->bytes.v[i].key);
        q_any += k->bytes.v[i].value;
        if (l < 0) /* reported once per analysis, see analysis.c */
            continue;
        v->q[l] = (isnan(v->q[l]) ? 0 : v->q[l]) + k->bytes.v[i].value;
    }
    rt_place_bytes(m, ctx, k, v); /* estimated bytes: at the level that holds the working set */
    for (size_t l = 0; l < m->n_levels; l++) {
        if (isnan(v->q[l]))
            continue;
        v->ai[l] = v->q[l] > 0 ? v->W / v->q[l] : (v->W > 0 ? INFINITY : 0);
        v->t_bw[l] = v->q[l] / m->levels[l].bytes_per_s;
    }
    int ref_l = rt_machine_level_index(m, m->ref_level);
    int at = v->placed ? v->placed_level : ref_l; /* placed estimates: theirs, where they are */
    v->q_ref = at >= 0 ? v->q[at] : NAN;
    v->ai_ref = at >= 0 ? v->ai[at] : NAN;

    /* Compute time. */
    double p_ref = rt_machine_ref_flops(m);
    bool no_ceiling = false;
    if (mode == RT_MODE_SINGLE) {
        v->t_compute = v->W / p_ref;
        v->bound_unit = rt_machine_unit_index(m, m->ref_unit);
    } else {
        double worst = -1;
        for (size_t i = 0; i < k->flops.n; i++) {
            const rt_value *f = &k->flops.v[i];
            rt_unit_match how;
            int u = rt_machine_resolve_unit(m, f->key, &how);
            if (how == RT_UNIT_NO_CEILING && f->value > 0)
                no_ceiling = true; /* a Tensor Core precision the machine has no ceiling for */
            double p = u >= 0 ? m->units[u].flops : p_ref;
            /* A unit the machine lacks counts at the reference peak (warned once per analysis). */
            double t = f->value / p;
            v->t_compute += t;
            if (t > worst && f->value > 0) {
                worst = t;
                v->bound_unit = u >= 0 ? u : rt_machine_unit_index(m, m->ref_unit);
            }
        }
        if (v->bound_unit < 0)
            v->bound_unit = rt_machine_unit_index(m, m->ref_unit);
    }

    /* Bandwidth time: the reference level alone, or the slowest level. */
    if (mode == RT_MODE_SINGLE) {
        v->t_bw_max = isnan(v->q_ref) ? 0 : v->t_bw[ref_l];
        v->bound_level = ref_l;
    } else {
        v->bound_level = ref_l;
        for (size_t l = 0; l < m->n_levels; l++)
            if (!isnan(v->t_bw[l]) && v->t_bw[l] > v->t_bw_max) {
                v->t_bw_max = v->t_bw[l];
                v->bound_level = (int)l;
            }
    }

    /* What the counts support: FLOPs and bytes, FLOPs alone (a compute bound only), or nothing.
     * A kernel of class overhead (a framework's own time, torch.compile's wrappers) has none by
     * what it is, not for want of a record: its bound is its launch overhead alone. */
    bool has_w = v->W > 0, has_q = q_any > 0, framework = framework_overhead(k);
    v->evidence = has_q || framework ? RT_EVIDENCE_FULL
                  : has_w            ? RT_EVIDENCE_PARTIAL
                                     : RT_EVIDENCE_NONE;
    /* Counts that are lower bounds (a cost model that knows part of the work): the bound holds,
     * the class and the recoverable time do not, so the verdict is partial. */
    v->lower_bound =
        v->evidence == RT_EVIDENCE_FULL && !framework && rt_kernel_counts_lower_bound(k);
    if (v->lower_bound)
        v->evidence = RT_EVIDENCE_PARTIAL;
    bool device = ctx->time == RT_TIME_DEVICE;
    v->t_oh = v->n * ctx->tau;
    v->t_roof = fmax(v->t_compute, v->t_bw_max);
    /* Device time holds no launch cost: the overhead bound classifies (the overhead box) but caps
     * nothing. Wall time per call holds what its calls pay on their path: a floor under the time
     * (n tau, unless the kernel names its own). */
    rt_verdict_paid(ctx, device, v);
    v->t_bound = device ? v->t_roof : fmax(v->t_roof, v->t_paid);
    /* Work no count measures (random numbers, sorting, data-dependent indexing): unknown,
     * whatever FLOPs or bytes it carries. */
    const char *uncounted = rt_kernel_uncounted(k);
    if ((v->evidence == RT_EVIDENCE_NONE || no_ceiling || uncounted) &&
        !rt_kernel_is_communication(k)) {
        v->t_bound = v->t_roof = 0;
        if (uncounted) {
            v->bound = RT_BOUND_UNKNOWN;
            v->evidence = RT_EVIDENCE_NONE;
            v->bound_label = "unknown (work not counted)";
        } else if (v->time > 0 || v->n > 0) {
            v->bound = RT_BOUND_UNKNOWN;
            v->bound_label = "unknown";
        } else {
            v->bound = RT_BOUND_NONE;
            v->bound_label = "none";
        }
        v->bound_unit = v->bound_level = -1;
        v->efficiency = v->recoverable = NAN;
        v->perf = NAN;
        v->zero_ai = false;
        if (no_ceiling) /* its compute time would rest on a ceiling the machine does not have */
            v->t_compute = NAN;
        return;
    }
    if (v->lower_bound && v->t_bw_max > v->t_compute) {
        /* the class of the counts: uncounted FLOPs or bytes may change it, the label says so */
        v->bound = RT_BOUND_BANDWIDTH;
        v->bound_label =
            label3("bandwidth:", v->bound_level >= 0 ? m->levels[v->bound_level].name : "?",
                   " (lower bound)");
    } else if (v->lower_bound) {
        v->bound = RT_BOUND_COMPUTE;
        v->bound_label = label3(mode == RT_MODE_SINGLE ? "compute:ref(" : "compute:",
                                v->bound_unit >= 0 ? m->units[v->bound_unit].name : "?",
                                mode == RT_MODE_SINGLE ? ") (lower bound)" : " (lower bound)");
    } else if (v->evidence == RT_EVIDENCE_PARTIAL) {
        /* FLOPs without bytes: the compute bound holds, the class does not (the bytes may bind). */
        v->bound = RT_BOUND_COMPUTE;
        v->bound_level = -1;
        v->bound_label = label3(mode == RT_MODE_SINGLE ? "compute:ref(" : "compute:",
                                v->bound_unit >= 0 ? m->units[v->bound_unit].name : "?",
                                mode == RT_MODE_SINGLE ? ") (partial)" : " (partial)");
    } else if (v->t_oh > v->t_roof || framework) {
        v->bound = RT_BOUND_OVERHEAD;
        v->bound_label = "overhead";
    } else if (v->t_compute >= v->t_bw_max) {
        v->bound = RT_BOUND_COMPUTE;
        /* Single mode puts every FLOP at the reference unit's peak: the label names that
         * reference, not a unit the kernel is known to have used. */
        v->bound_label = label3(mode == RT_MODE_SINGLE ? "compute:ref(" : "compute:",
                                v->bound_unit >= 0 ? m->units[v->bound_unit].name : "?",
                                mode == RT_MODE_SINGLE ? ")" : "");
    } else {
        v->bound = RT_BOUND_BANDWIDTH;
        v->bound_label =
            label3("bandwidth:", v->bound_level >= 0 ? m->levels[v->bound_level].name : "?", "");
    }
    if (rt_kernel_is_communication(k))
        communication(m, k, v);
    v->overhead_bound = v->evidence == RT_EVIDENCE_FULL && v->t_oh > v->t_roof;
    v->zero_ai = v->W == 0 && has_q && !v->lower_bound; /* uncounted FLOPs are not none */
    v->efficiency = v->time > 0 ? v->t_bound / v->time : NAN;
    v->recoverable = isnan(v->t_bound) ? 0 : fmax(0, v->time - v->t_bound);
    v->perf = v->time > 0 ? v->W / v->time : NAN;
    if (v->t_roof > 0) {
        v->compute_time = v->time * v->t_compute / v->t_roof;
        v->bw_time = v->time * v->t_bw_max / v->t_roof;
    }

    if (v->efficiency > 1 + 1e-9)
        warn_above_one(m, ctx, v, what, w);
    /* Single mode reads bytes at the reference level alone: without them its bandwidth time is
     * 0, while another level may say the kernel is bandwidth-bound. */
    if (mode == RT_MODE_SINGLE && ref_l >= 0 && !(v->q_ref > 0)) {
        int other = -1;
        for (size_t l = 0; l < m->n_levels && other < 0; l++)
            if ((int)l != ref_l && v->q[l] > 0)
                other = (int)l;
        if (other >= 0) {
            char b[32];
            rt_fmt_bytes(b, sizeof b, v->q[other]);
            rt_warnings_add(w,
                            "%s: no bytes at the reference level %s but %s at %s: single mode "
                            "counts its bandwidth time as 0 (hier mode bounds it at every level)",
                            what, m->levels[ref_l].name, b, m->levels[other].name);
        }
    }
    if (v->evidence == RT_EVIDENCE_PARTIAL && !v->lower_bound)
        rt_warnings_add(
            w,
            "%s: has FLOPs but zero bytes at every level: a byte count is missing, so "
            "its bandwidth bound is unknown and its verdict partial (a compute bound only)",
            what);
}

void rt_verdict_release(rt_verdict *v)
{
    if (!v->levels_lent)
        free(v->q); /* ai and t_bw share its block */
    v->q = v->ai = v->t_bw = NULL;
}
