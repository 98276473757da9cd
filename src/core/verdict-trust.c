/* Whether the verdicts can be trusted: the machine check, and kernels above their roofs by more
 * than the measured spread; one line naming the suspect ceiling and a remedy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/verdict-trust.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

/* The relative spread of a ceiling, or the default where the file has none. */
static double spread_of(double value, double min, double max)
{
    if (value > 0 && max > min && min > 0)
        return (max - min) / value;
    return RT_TRUST_DEFAULT_SPREAD;
}

/* The overhead's name among the ceilings: a floor on time, not a roof on a rate. */
static const char OVERHEAD[] = "launch overhead";

/* The ceiling bounding v (its name, the machine's, in buf for an overhead) and its tolerance;
 * NULL when v is bound by none we can name. */
static const char *bound_ceiling(const rt_machine *m, const rt_verdict *v, double *spread,
                                 char *buf, size_t n)
{
    rt_bound b = rt_verdict_binding(v); /* on device time the roof, not the overhead box */
    if (b == RT_BOUND_COMPUTE && v->bound_unit >= 0 && (size_t)v->bound_unit < m->n_units) {
        const rt_unit *u = &m->units[v->bound_unit];
        *spread = spread_of(u->flops, u->min, u->max);
        return u->name;
    }
    if (b == RT_BOUND_BANDWIDTH && v->bound_level >= 0 && (size_t)v->bound_level < m->n_levels) {
        const rt_level *l = &m->levels[v->bound_level];
        *spread = spread_of(l->bytes_per_s, l->min, l->max);
        return l->name;
    }
    if (b == RT_BOUND_OVERHEAD) {
        /* the overhead its calls pay, within the spread of its measured trials */
        const rt_overhead *o = v->paid_oh;
        if (!o) {
            *spread = RT_TRUST_DEFAULT_SPREAD;
            return OVERHEAD;
        }
        *spread = spread_of(o->seconds.median, o->seconds.min, o->seconds.max);
        char label[64];
        snprintf(buf, n, "%s (%s)", OVERHEAD, rt_verdict_paid_label(v, label, sizeof label));
        return buf;
    }
    return NULL;
}

/* The ceiling v runs above by more than its spread (its name, in buf for an overhead), or NULL;
 * *spread gets the ceiling's spread, NAN where v is bound by none we can name. */
static const char *ceiling_beyond(const rt_machine *m, const rt_verdict *v, double *spread,
                                  char *buf, size_t n)
{
    double sp = NAN;
    const char *ceiling =
        rt_verdict_is_real(v) && isfinite(v->efficiency) ? bound_ceiling(m, v, &sp, buf, n) : NULL;
    *spread = ceiling ? sp : NAN;
    return ceiling && v->efficiency > 1 + sp ? ceiling : NULL;
}

int rt_trust_beyond_spread(const rt_machine *m, const rt_verdict *v, double *spread)
{
    double sp;
    char oh[64];
    const char *ceiling = ceiling_beyond(m, v, &sp, oh, sizeof oh);
    if (spread)
        *spread = sp;
    return ceiling != NULL;
}

int rt_trust_check(const rt_analysis *a, rt_trust *t)
{
    memset(t, 0, sizeof *t);
    const rt_machine *m = a->machine;
    rt_warnings w = {0};
    t->failed_rules = rt_machine_sanity(m, &w);
    rt_warnings_release(&w);
    /* Per ceiling: a handful of units and levels, plus the overhead. */
    rt_trust_above acc[64];
    size_t n_acc = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_verdict *v = &a->items[i].v;
        double spread;
        char oh[sizeof acc[0].name];
        const char *ceiling = ceiling_beyond(m, v, &spread, oh, sizeof oh);
        if (!ceiling)
            continue;
        /* The name as acc keeps it: cut to its room, as snprintf would. */
        char name[sizeof acc[0].name];
        size_t len = strlen(ceiling);
        len = len < sizeof name ? len : sizeof name - 1;
        memcpy(name, ceiling, len);
        name[len] = '\0';
        size_t k = 0;
        while (k < n_acc && strcmp(acc[k].name, name) != 0)
            k++;
        if (k == n_acc) {
            if (n_acc == sizeof acc / sizeof *acc)
                continue;
            memset(&acc[k], 0, sizeof acc[k]);
            snprintf(acc[k].name, sizeof acc[k].name, "%s", name);
            acc[k].spread = spread;
            n_acc++;
        }
        acc[k].kernels++;
        acc[k].time += v->time;
        t->kernels_above++;
        t->time_above += v->time;
    }
    t->ceilings_above = n_acc;
    for (size_t k = 0; k < n_acc; k++)
        if (k == 0 || acc[k].time > t->worst.time)
            t->worst = acc[k];
    return t->failed_rules > 0 || t->kernels_above > 0;
}

char *rt_trust_line(const rt_analysis *a)
{
    rt_trust t;
    if (!rt_trust_check(a, &t))
        return NULL;
    char buf[1024], tt[32];
    size_t len = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        int r_ = snprintf(buf + len, sizeof buf - len, __VA_ARGS__);                               \
        if (r_ > 0)                                                                                \
            len = len + (size_t)r_ < sizeof buf ? len + (size_t)r_ : sizeof buf - 1;               \
    } while (0)
    ADD("Verdicts suspect: ");
    /* A kernel faster than its calls x tau says the tau is too large for it: a time that reads
     * high, which --tau replaces (--reference moves no overhead). */
    bool overhead =
        t.kernels_above > 0 && strncmp(t.worst.name, OVERHEAD, sizeof OVERHEAD - 1) == 0;
    /* "(calls x tau)", or the overhead they pay by name: "launch overhead (onednn_primitive)" */
    const char *paid = overhead && t.worst.name[sizeof OVERHEAD - 1] == ' '
                           ? t.worst.name + sizeof OVERHEAD + 1
                           : "tau)";
    if (t.kernels_above > 0) {
        rt_fmt_time(tt, sizeof tt, t.worst.time);
        ADD("%zu kernel%s (%s, %.1f%% of the time) ", t.worst.kernels,
            t.worst.kernels == 1 ? "" : "s", tt,
            a->total_time > 0 ? 100 * t.worst.time / a->total_time : 0);
        if (overhead)
            ADD("take%s less than %s launch overhead bound (calls x %s by more than %.0f%%",
                t.worst.kernels == 1 ? "s" : "", t.worst.kernels == 1 ? "its" : "their", paid,
                100 * t.worst.spread);
        else
            ADD("run%s above the %s roof by more than its measured spread (%.0f%%)",
                t.worst.kernels == 1 ? "s" : "", t.worst.name, 100 * t.worst.spread);
        if (t.ceilings_above > 1) {
            rt_fmt_time(tt, sizeof tt, t.time_above);
            ADD(" (%zu kernels, %s, beating %zu ceilings in all)", t.kernels_above, tt,
                t.ceilings_above);
        }
        if (overhead && strcmp(paid, "tau)") != 0)
            ADD(", so the overhead %.*s that machine '%s' measured reads high for these calls",
                (int)strlen(paid) - 1, paid, a->machine->name);
        else if (overhead)
            ADD(", so the launch overhead (tau) that machine '%s' gives them reads high",
                a->machine->name);
        else
            ADD(", so the %s ceiling of machine '%s' reads low", t.worst.name, a->machine->name);
        if (t.failed_rules)
            ADD(", and the machine fails %zu rule%s of `rooftime machine check`", t.failed_rules,
                t.failed_rules == 1 ? "" : "s");
    } else {
        ADD("machine '%s' fails %zu rule%s of `rooftime machine check` (see the machine section)",
            a->machine->name, t.failed_rules, t.failed_rules == 1 ? "" : "s");
    }
    if (overhead)
        ADD(". Remedy: measure the machine again while it is idle (`rooftime machine measure`), or "
            "pass `--tau` the overhead these calls pay (one of the machine's by name, or a time).");
    else
        ADD(". Remedy: measure the machine again while it is idle (`rooftime machine measure`), "
            "or pass `--machine` a preset of this hardware (`rooftime machine list`), or "
            "`--reference` another unit or level.");
#undef ADD
    return rt_strdup(buf);
}
