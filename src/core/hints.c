/* The hint engine: what to try for one verdict (the first rule whose class, and unit or level,
 * matches its bound) and advice on a run (rules over its kernels or configs that fire past a
 * share of the time). The rules are data (data/verdict-hints.json, data/torch/hints.json), read
 * by formats/hints-json.c; both kinds name a bound by the same class names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/hints.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

void rt_verdict_hints_release(rt_verdict_hints *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->rules[i].bound);
        free(h->rules[i].detail);
        free(h->rules[i].text);
    }
    free(h->rules);
    memset(h, 0, sizeof *h);
}

void rt_verdict_hints_add(rt_verdict_hints *h, const char *bound, const char *detail,
                          const char *text)
{
    h->rules = rt_xrealloc(h->rules, (h->n + 1) * sizeof *h->rules);
    h->rules[h->n++] = (rt_verdict_hint_rule){.bound = rt_strdup(bound),
                                              .detail = detail ? rt_strdup(detail) : NULL,
                                              .text = rt_strdup(text)};
}

/* The classes of bound both kinds of rules name. */
static const struct {
    rt_bound bound;
    const char *name;
} bound_names[] = {{RT_BOUND_OVERHEAD, "overhead"},
                   {RT_BOUND_BANDWIDTH, "bandwidth"},
                   {RT_BOUND_COMPUTE, "compute"}};

const char *rt_hint_bound_name(rt_bound b)
{
    for (size_t i = 0; i < sizeof bound_names / sizeof bound_names[0]; i++)
        if (bound_names[i].bound == b)
            return bound_names[i].name;
    return "none";
}

rt_bound rt_hint_bound_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof bound_names / sizeof bound_names[0]; i++)
        if (strcmp(bound_names[i].name, s) == 0)
            return bound_names[i].bound;
    return RT_BOUND_NONE;
}

/* The class of a verdict as the rules name it, and its detail (after ':' of the label). */
static const char *verdict_class(const rt_verdict *v, const char **detail)
{
    const char *colon = v->bound_label ? strchr(v->bound_label, ':') : NULL;
    *detail = colon ? colon + 1 : "";
    if (v->zero_ai)
        return "zero-ai";
    return rt_hint_bound_name(v->bound);
}

void rt_verdict_hint_for(const rt_verdict_hints *h, const rt_verdict *v, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    if (!h || !n)
        return;
    const char *detail, *cls = verdict_class(v, &detail);
    for (size_t i = 0; i < h->n; i++) {
        const rt_verdict_hint_rule *r = &h->rules[i];
        if (strcmp(r->bound, cls) != 0 || (r->detail && strcmp(r->detail, detail) != 0))
            continue;
        /* Copy the text, "{detail}" replaced. */
        size_t o = 0;
        for (const char *p = r->text; *p && o + 1 < n;) {
            if (strncmp(p, "{detail}", 8) == 0) {
                for (const char *d = detail; *d && o + 1 < n; d++)
                    buf[o++] = *d;
                p += 8;
            } else {
                buf[o++] = *p++;
            }
        }
        buf[o] = '\0';
        return;
    }
}

/* ---- advice on a run ---- */

static void rule_release(rt_hint_rule *r)
{
    free(r->id);
    free(r->advice);
    free(r->tag);
    for (size_t i = 0; i < r->n_names; i++)
        free(r->names[i]);
    for (size_t i = 0; i < r->n_group; i++)
        free(r->group[i]);
}

rt_hints *rt_hints_new(void)
{
    return rt_xcalloc(1, sizeof(rt_hints));
}

void rt_hints_free(rt_hints *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        rule_release(&h->r[i]);
    free(h);
}

static int name_matches(const rt_hint_rule *r, const char *name)
{
    if (r->n_names == 0)
        return 1;
    size_t n = strlen(name);
    for (size_t i = 0; i < r->n_names; i++) {
        const char *p = r->names[i];
        size_t pl = strlen(p);
        if (p[0] == '*'        ? n >= pl - 1 && memcmp(name + n - (pl - 1), p + 1, pl - 1) == 0
            : p[pl - 1] == '*' ? n >= pl - 1 && memcmp(name, p, pl - 1) == 0
                               : strcmp(name, p) == 0)
            return 1;
    }
    return 0;
}

/* What a rule matched at one level: time, count and the longest. */
typedef struct match {
    double t, longest;
    size_t count;
    const char *which;
    char label[256]; /* configs: the longest's label (the analysis is gone by then) */
} match;

static void match_add(match *mt, double t, const char *name)
{
    mt->t += t;
    mt->count++;
    if (t > mt->longest) {
        mt->longest = t;
        mt->which = name;
    }
}

static void over_kernels(const rt_hint_rule *r, const rt_machine *m, rt_mode mode,
                         rt_profile *const *ps, size_t n, match *mt)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < ps[i]->n_kernels; k++) {
            const rt_kernel *kk = &ps[i]->kernels[k];
            if (!name_matches(r, kk->name) || (r->tag && !rt_tags_get(&kk->tags, r->tag)) ||
                (r->zero_flops && rt_values_sum(&kk->flops) > 0))
                continue;
            if (r->bound != RT_BOUND_NONE) {
                rt_verdict v;
                rt_warnings w = {0};
                rt_verdict_compute(m, mode, kk, kk->name, &v, &w);
                rt_bound b = v.bound;
                rt_verdict_release(&v);
                rt_warnings_release(&w);
                if (b != r->bound)
                    continue;
            }
            match_add(mt, kk->time, kk->name);
        }
}

/* Configs (by the rule's group_by, else every tag) whose members match the names and tag, with
 * no FLOPs in all (zero_flops) and the verdict of their sum (bound): a config of many count-less
 * dispatch operators and a few counted ones is judged as one. */
static void over_configs(const rt_hint_rule *r, const rt_machine *m, rt_mode mode,
                         rt_profile *const *ps, size_t n, match *mt)
{
    rt_group_opts g = {.keys = (const char *const *)r->group, .n_keys = r->n_group};
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, mode, ps, n, &g, &err);
    if (!a)
        return;
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *cf = &a->configs[c];
        int names = r->n_names == 0, tag = !r->tag;
        for (size_t i = 0; i < cf->n_items && !(names && tag); i++) {
            const rt_kernel *kk = a->items[cf->items[i]].kernel;
            names = names || name_matches(r, kk->name);
            tag = tag || rt_tags_get(&kk->tags, r->tag) != NULL;
        }
        if (!names || !tag || (r->zero_flops && rt_values_sum(&cf->sum.flops) > 0) ||
            (r->bound != RT_BOUND_NONE && cf->v.bound != r->bound))
            continue;
        match_add(mt, cf->sum.time, cf->label);
    }
    if (mt->which) {
        snprintf(mt->label, sizeof mt->label, "%s", mt->which);
        mt->which = mt->label;
    }
    rt_analysis_free(a);
}

void rt_hints_eval(const rt_hints *h, const rt_machine *m, rt_mode mode, rt_profile *const *ps,
                   size_t n, rt_warnings *out)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < ps[i]->n_kernels; k++)
            total += ps[i]->kernels[k].time;
    if (!(total > 0))
        return;
    for (size_t ri = 0; ri < h->n; ri++) {
        const rt_hint_rule *r = &h->r[ri];
        if (r->bound != RT_BOUND_NONE && !m)
            continue;
        /* each level the rule looks at; it fires on the one holding the most time */
        match best = {0}, mk = {0}, mc = {0};
        int configs = 0;
        if (r->over & RT_HINT_OVER_KERNELS) {
            over_kernels(r, m, mode, ps, n, &mk);
            best = mk;
        }
        if ((r->over & RT_HINT_OVER_CONFIGS) && m) {
            over_configs(r, m, mode, ps, n, &mc);
            if (mc.t > best.t) {
                best = mc;
                best.which = best.label;
                configs = 1;
            }
        }
        if (best.count == 0 || best.t / total < r->min_share)
            continue;
        char ts[64], tt[64], by[256] = "";
        rt_fmt_time(ts, sizeof ts, best.t);
        rt_fmt_time(tt, sizeof tt, total);
        for (size_t k = 0; configs && k < r->n_group; k++) {
            size_t l = strlen(by);
            snprintf(by + l, sizeof by - l, "%s%s", k ? "," : " by ", r->group[k]);
        }
        rt_warnings_add(
            out, "%s: %.1f%% of the time (%s of %s) in %zu %s%s%s, the longest '%.120s': %s", r->id,
            100 * best.t / total, ts, tt, best.count, configs ? "config" : "kernel",
            best.count == 1 ? "" : "s", by, best.which, r->advice);
    }
}
