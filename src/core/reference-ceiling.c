/* The reference unit and level: chosen from the measured peaks and what the profiles use, not by
 * name; and the reference and tau an analysis is run with. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

bool rt_analysis_uses_unit(const rt_analysis *a, size_t u)
{
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_values *f = &a->items[i].kernel->flops;
        for (size_t j = 0; j < f->n; j++)
            if (f->v[j].value > 0 &&
                rt_machine_resolve_unit(a->machine, f->v[j].key, NULL) == (int)u)
                return true;
    }
    return false;
}

bool rt_analysis_uses_level(const rt_analysis *a, size_t l)
{
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_verdict *v = &a->items[i].v;
        if (l < v->n_levels && v->q[l] > 0)
            return true;
    }
    return false;
}

/* Kernel time bound at each level (hier verdicts), and whether any kernel records bytes there. */
static void level_use(const rt_machine *m, rt_profile *const *ps, size_t n, double *bound_time,
                      bool *recorded)
{
    rt_verdict_ctx ctx = {.mode = RT_MODE_HIER, .tau = m->tau};
    /* One block for the levels of each verdict in turn: not an allocation a kernel. */
    double *levels = rt_xmalloc(rt_verdict_levels(m) * sizeof *levels);
    for (size_t p = 0; p < n; p++)
        for (size_t k = 0; k < ps[p]->n_kernels; k++) {
            rt_verdict v;
            rt_verdict_compute_at(m, &ctx, &ps[p]->kernels[k], "", levels, &v, NULL);
            for (size_t l = 0; l < m->n_levels; l++)
                recorded[l] |= v.q[l] > 0;
            if (v.bound == RT_BOUND_BANDWIDTH && v.bound_level >= 0 && rt_verdict_is_real(&v))
                bound_time[v.bound_level] += v.time;
            rt_verdict_release(&v);
        }
    free(levels);
}

void rt_reference_choose(rt_machine *m, rt_profile *const *ps, size_t n)
{
    /* The unit: the highest peak among the units the kernels use. */
    int best = -1;
    for (size_t p = 0; p < n; p++)
        for (size_t k = 0; k < ps[p]->n_kernels; k++) {
            const rt_values *f = &ps[p]->kernels[k].flops;
            for (size_t j = 0; j < f->n; j++) {
                int u = rt_machine_resolve_unit(m, f->v[j].key, NULL);
                if (f->v[j].value > 0 && u >= 0 &&
                    (best < 0 || m->units[u].flops > m->units[best].flops))
                    best = u;
            }
        }
    char unit_why[160], level_why[200];
    if (best >= 0) {
        snprintf(unit_why, sizeof unit_why, "%s: the highest peak among the units the kernels use",
                 m->units[best].name);
        rt_machine_set_str(&m->ref_unit, m->units[best].name);
    } else {
        snprintf(unit_why, sizeof unit_why, "%s: the machine's (the kernels use none of its units)",
                 m->ref_unit ? m->ref_unit : "?");
    }

    double *bound_time = rt_xcalloc(m->n_levels + 1, sizeof *bound_time);
    bool *recorded = rt_xcalloc(m->n_levels + 1, sizeof *recorded);
    level_use(m, ps, n, bound_time, recorded);
    int ref_l = rt_machine_level_index(m, m->ref_level), bl = -1;
    for (size_t l = 0; l < m->n_levels; l++)
        if (recorded[l] && (bl < 0 || bound_time[l] > bound_time[bl]))
            bl = (int)l;
    if (ref_l >= 0 && recorded[ref_l]) {
        snprintf(level_why, sizeof level_why, "%s: the machine's, where the kernels record bytes",
                 m->ref_level);
    } else if (bl >= 0) {
        snprintf(level_why, sizeof level_why,
                 "%s: the machine's %s has no bytes recorded; the kernels are bound here most",
                 m->levels[bl].name, m->ref_level ? m->ref_level : "reference");
        rt_machine_set_str(&m->ref_level, m->levels[bl].name);
    } else {
        snprintf(level_why, sizeof level_why, "%s: the machine's (no bytes recorded)",
                 m->ref_level ? m->ref_level : "?");
    }
    free(bound_time);
    free(recorded);
    char *why = rt_asprintf("unit %s; level %s", unit_why, level_why);
    rt_machine_set_str(&m->ref_reason, why);
    free(why);
}

/* "fp32, fp16 and tensor" into buf: what m has, for messages. */
static void names(char *buf, size_t n, const rt_machine *m, bool units)
{
    size_t cnt = units ? m->n_units : m->n_levels, off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cnt && off + 1 < n; i++) {
        int w = snprintf(buf + off, n - off, "%s%s", i ? ", " : "",
                         units ? m->units[i].name : m->levels[i].name);
        if (w < 0)
            break;
        off += (size_t)w;
    }
}

int rt_reference_set(rt_machine *m, const char *spec, rt_error *err)
{
    char *s = rt_strdup(spec ? spec : "");
    char *slash = strchr(s, '/');
    if (slash)
        *slash++ = '\0';
    char have[512];
    int rc = -1;
    if (!*s && !(slash && *slash)) {
        rt_error_set(err, "--reference takes UNIT, UNIT/LEVEL or /LEVEL, not '%s'", spec);
        goto out;
    }
    if (*s && rt_machine_unit_index(m, s) < 0) {
        names(have, sizeof have, m, true);
        rt_error_set(err, "--reference: machine '%s' has no unit '%s' (it has %s)", m->name, s,
                     have);
        goto out;
    }
    if (slash && *slash && rt_machine_level_index(m, slash) < 0) {
        names(have, sizeof have, m, false);
        rt_error_set(err, "--reference: machine '%s' has no level '%s' (it has %s)", m->name, slash,
                     have);
        goto out;
    }
    if (*s)
        rt_machine_set_str(&m->ref_unit, m->units[rt_machine_unit_index(m, s)].name);
    if (slash && *slash)
        rt_machine_set_str(&m->ref_level, m->levels[rt_machine_level_index(m, slash)].name);
    rt_machine_set_str(&m->ref_reason, "--reference");
    rc = 0;
out:
    free(s);
    return rc;
}

int rt_reference_tau_apply(rt_machine *m, rt_profile **ps, size_t n, const char *reference,
                           const char *tau, const char *tau_option, rt_error *err)
{
    if (reference) {
        if (rt_reference_set(m, reference, err) != 0)
            return -1;
    } else {
        rt_reference_choose(m, ps, n);
    }
    if (!tau)
        return 0;
    double secs;
    const rt_overhead *oh = rt_machine_overhead(m, tau);
    if (oh) {
        for (size_t i = 0; i < n; i++)
            rt_profile_set_overhead(ps[i], oh->name);
        return 0;
    }
    if (rt_parse_time(tau, &secs) == 0) {
        m->tau = secs;
        rt_machine_set_str(&m->tau_method, "given with --tau");
        for (size_t i = 0; i < n; i++)
            rt_profile_set_overhead(ps[i], NULL);
        return 0;
    }
    char have[512] = "";
    for (size_t i = 0, off = 0; i < m->n_overheads && off + 1 < sizeof have; i++) {
        int w =
            snprintf(have + off, sizeof have - off, "%s%s", i ? ", " : "", m->overheads[i].name);
        off += w > 0 ? (size_t)w : 0;
    }
    rt_error_set(err, "%s takes a time (4.2us, 3e-6) or an overhead of machine '%s' (%s), not '%s'",
                 tau_option, m->name, m->n_overheads ? have : "it has none", tau);
    return -1;
}
