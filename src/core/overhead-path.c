/* The overhead a kernel's calls pay on their path: the machine's overhead a kernel names, found
 * at its thread count, or nothing measurable; a config's from its members'; the names the
 * verdicts give it. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"

static const char NONE[] = RT_OVERHEAD_NONE, MIXED[] = "mixed";

const rt_overhead *rt_overhead_at(const rt_machine *m, const char *name, int threads)
{
    if (threads <= 0)
        return rt_machine_overhead(m, name);
    const rt_overhead *best = NULL;
    for (size_t i = 0; name && i < m->n_overheads; i++) {
        const rt_overhead *o = &m->overheads[i];
        if (strcasecmp(o->name, name) != 0)
            continue;
        if (o->threads == 0)
            return o; /* threads do not apply to it */
        if (o->threads <= threads && (!best || o->threads > best->threads))
            best = o;
    }
    return best;
}

double rt_overhead_floor(const rt_overhead *o)
{
    double lo = o->seconds.min, med = o->seconds.median;
    return lo > 0 && lo < med ? lo : med;
}

void rt_overhead_path_resolve(const rt_machine *m, const rt_kernel *k, rt_verdict_ctx *ctx)
{
    if (!k->overhead)
        return;
    ctx->paid_oh = NULL;
    ctx->paid = 0;
    ctx->paid_threads = 0;
    if (strcasecmp(k->overhead, NONE) == 0) {
        ctx->paid_path = RT_PAID_NONE;
        ctx->paid_name = NONE;
        return;
    }
    const rt_overhead *o = rt_overhead_at(m, k->overhead, k->overhead_threads);
    if (!o) {
        ctx->paid_path = RT_PAID_UNMEASURED;
        ctx->paid_name = k->overhead;
        return;
    }
    ctx->paid_path = RT_PAID_OVERHEAD;
    ctx->paid = rt_overhead_floor(o);
    ctx->paid_oh = o;
    ctx->paid_name = o->name;
    ctx->paid_threads = k->overhead_threads > 0 ? o->threads : 0; /* the region's, as measured */
}

/* The seconds per call ctx pays: its own, or tau on the implementation's path. */
static double paid_of(const rt_verdict_ctx *c)
{
    return c->paid_path == RT_PAID_TAU ? c->tau : c->paid;
}

void rt_overhead_path_merge(rt_verdict_ctx *acc, const rt_verdict_ctx *member, double n, bool first,
                            double *n_paid)
{
    *n_paid += n * paid_of(member);
    if (first) {
        acc->paid_path = member->paid_path;
        acc->paid_oh = member->paid_oh;
        acc->paid_threads = member->paid_threads;
        acc->paid_name = member->paid_path == RT_PAID_TAU ? member->tau_name : member->paid_name;
        return;
    }
    const char *name = member->paid_path == RT_PAID_TAU ? member->tau_name : member->paid_name;
    bool same =
        acc->paid_path == member->paid_path && acc->paid_oh == member->paid_oh &&
        acc->paid_threads == member->paid_threads &&
        (acc->paid_name == name || (acc->paid_name && name && strcmp(acc->paid_name, name) == 0));
    if (!same) {
        acc->paid_path = RT_PAID_MIXED;
        acc->paid_oh = NULL;
        acc->paid_threads = 0;
        acc->paid_name = MIXED;
    }
}

void rt_verdict_paid(const rt_verdict_ctx *ctx, bool device, rt_verdict *v)
{
    v->paid_path = ctx->paid_path;
    v->paid_oh = ctx->paid_oh;
    v->paid_name = ctx->paid_path == RT_PAID_TAU ? ctx->tau_name : ctx->paid_name;
    v->paid_threads = ctx->paid_threads;
    v->t_paid = device ? 0 : ctx->paid_path == RT_PAID_TAU ? v->t_oh : v->n * ctx->paid;
}

const char *rt_verdict_paid_label(const rt_verdict *v, char *buf, size_t n)
{
    const char *name = v->paid_name ? v->paid_name : "tau";
    if (v->time_kind == RT_TIME_DEVICE)
        snprintf(buf, n, "none (device time)");
    else if (v->paid_path == RT_PAID_UNMEASURED)
        snprintf(buf, n, "%s (not measured)", name);
    else if (v->paid_path == RT_PAID_OVERHEAD && v->paid_threads > 0)
        snprintf(buf, n, "%s(%d thread%s)", name, v->paid_threads, v->paid_threads == 1 ? "" : "s");
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

void rt_verdict_paid_text(const rt_verdict_ctx *ctx, const rt_verdict *v, char *buf, size_t n)
{
    char label[96];
    rt_verdict_paid_label(v, label, sizeof label);
    double per_call = v->n > 0 ? v->t_paid / v->n : paid_of(ctx);
    bool machine_tau = v->paid_path == RT_PAID_TAU && !ctx->tau_name;
    snprintf(buf, n, "%s%s%.3g µs", label, machine_tau ? " = " : " ", per_call * 1e6);
}

void rt_overhead_path_note(rt_analysis *a)
{
    rt_tags seen = {0};
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        if (!it->kernel->overhead)
            continue;
        a->own_paths = true;
        if (it->ctx.paid_path != RT_PAID_UNMEASURED || rt_tags_get(&seen, it->kernel->overhead))
            continue;
        rt_tags_set(&seen, it->kernel->overhead, "");
        char t[32] = "";
        if (it->kernel->overhead_threads > 0)
            snprintf(t, sizeof t, " at %d thread%s", it->kernel->overhead_threads,
                     it->kernel->overhead_threads == 1 ? "" : "s");
        rt_warnings_add(&a->warnings,
                        "kernel '%s' pays the overhead '%s'%s on its path, which machine '%s' has "
                        "not measured: kernels that pay it have no overhead floor under their "
                        "time (measure the machine, or choose one tau for all with --tau)",
                        it->kernel->name, it->kernel->overhead, t, a->machine->name);
    }
    rt_tags_release(&seen);
}
