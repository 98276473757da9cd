/* Advice from patterns in a run: the rules of data/torch/hints.json matched against kernels, or
 * configs, by name, verdict, FLOPs and tags; a rule fires when what it matches holds enough of the
 * time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rooftime/core/analysis.h"
#include "rooftime/import/hints.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/format.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

#define MAX_RULES 64
#define MAX_NAMES 64
#define MAX_KEYS 8

enum { OVER_KERNELS = 1, OVER_CONFIGS = 2 };

typedef struct rule {
    char *id, *advice, *tag;
    char *names[MAX_NAMES];
    size_t n_names;
    rt_bound bound; /* RT_BOUND_NONE: any */
    int zero_flops;
    double min_share;
    int over;              /* OVER_KERNELS, OVER_CONFIGS or both */
    char *group[MAX_KEYS]; /* configs: the tags that make them (none: every tag) */
    size_t n_group;
} rule;

struct rt_hints {
    rule r[MAX_RULES];
    size_t n;
};

static void rule_release(rule *r)
{
    free(r->id);
    free(r->advice);
    free(r->tag);
    for (size_t i = 0; i < r->n_names; i++)
        free(r->names[i]);
    for (size_t i = 0; i < r->n_group; i++)
        free(r->group[i]);
}

/* "over": "kernels", "configs" or a list of them (default kernels); "group_by": the tags that
 * make the configs. */
static int load_over(const json_t *j, rule *r, const char *path, size_t i, rt_error *err)
{
    const json_t *over = json_object_get(j, "over"), *v;
    size_t k;
    r->over = OVER_KERNELS;
    if (over) {
        r->over = 0;
        size_t n = json_is_array(over) ? json_array_size(over) : 1;
        for (k = 0; k < n; k++) {
            const char *s = json_string_value(json_is_array(over) ? json_array_get(over, k) : over);
            int o = !s                          ? 0
                    : strcmp(s, "kernels") == 0 ? OVER_KERNELS
                    : strcmp(s, "configs") == 0 ? OVER_CONFIGS
                                                : 0;
            if (!o) {
                rt_error_set(err,
                             "'%s': rules[%zu]: field 'over' is not kernels, configs or a list "
                             "of them",
                             path, i);
                return -1;
            }
            r->over |= o;
        }
        if (!r->over) {
            rt_error_set(err, "'%s': rules[%zu]: field 'over' is an empty list", path, i);
            return -1;
        }
    }
    const json_t *g = json_object_get(j, "group_by");
    if (g && (!json_is_array(g) || json_array_size(g) == 0 || json_array_size(g) > MAX_KEYS)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'group_by' is not a list of 1 to %d tags", path,
                     i, MAX_KEYS);
        return -1;
    }
    json_array_foreach(g, k, v)
    {
        if (!json_is_string(v) || !*json_string_value(v)) {
            rt_error_set(err, "'%s': rules[%zu]: group_by[%zu] is not a tag", path, i, k);
            return -1;
        }
        r->group[r->n_group++] = rt_strdup_utf8(json_string_value(v));
    }
    return 0;
}

void rt_hints_free(rt_hints *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        rule_release(&h->r[i]);
    free(h);
}

static int load_rule(const json_t *j, rule *r, const char *path, size_t i, rt_error *err)
{
    memset(r, 0, sizeof *r);
    if (!json_is_object(j)) {
        rt_error_set(err, "'%s': rules[%zu]: not an object", path, i);
        return -1;
    }
    const char *id = json_string_value(json_object_get(j, "id"));
    const char *advice = json_string_value(json_object_get(j, "advice"));
    const json_t *share = json_object_get(j, "min_share");
    if (!id || !advice) {
        rt_error_set(err, "'%s': rules[%zu]: field '%s' missing or not a string", path, i,
                     id ? "advice" : "id");
        return -1;
    }
    if (!json_is_number(share) || !(json_number_value(share) > 0) || json_number_value(share) > 1) {
        rt_error_set(err, "'%s': rules[%zu]: field 'min_share' is not a share in (0, 1]", path, i);
        return -1;
    }
    r->id = rt_strdup_utf8(id);
    r->advice = rt_strdup_utf8(advice);
    r->min_share = json_number_value(share);
    const json_t *tag = json_object_get(j, "tag");
    if (tag && !json_is_string(tag)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'tag' is not a string", path, i);
        return -1;
    }
    if (tag)
        r->tag = rt_strdup_utf8(json_string_value(tag));
    const json_t *zf = json_object_get(j, "zero_flops");
    if (zf && !json_is_boolean(zf)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'zero_flops' is not true or false", path, i);
        return -1;
    }
    r->zero_flops = json_is_true(zf);
    if (load_over(j, r, path, i, err) != 0)
        return -1;
    const json_t *b = json_object_get(j, "bound");
    if (b) {
        const char *s = json_string_value(b);
        r->bound = !s                            ? RT_BOUND_NONE
                   : strcmp(s, "compute") == 0   ? RT_BOUND_COMPUTE
                   : strcmp(s, "bandwidth") == 0 ? RT_BOUND_BANDWIDTH
                   : strcmp(s, "overhead") == 0  ? RT_BOUND_OVERHEAD
                                                 : RT_BOUND_NONE;
        if (r->bound == RT_BOUND_NONE) {
            rt_error_set(err,
                         "'%s': rules[%zu]: field 'bound' is not compute, bandwidth or overhead",
                         path, i);
            return -1;
        }
    }
    const json_t *names = json_object_get(j, "kernels"), *v;
    size_t k;
    if (names && (!json_is_array(names) || json_array_size(names) > MAX_NAMES)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'kernels' is not a list of at most %d names",
                     path, i, MAX_NAMES);
        return -1;
    }
    json_array_foreach(names, k, v)
    {
        const char *s = json_string_value(v);
        const char *star = s ? strchr(s, '*') : NULL;
        if (!s || !*s || (star && star != s && star[1] != '\0') ||
            (star && strchr(star + 1, '*'))) {
            rt_error_set(err,
                         "'%s': rules[%zu]: kernels[%zu] is not a name with '*' only at its start "
                         "or end",
                         path, i, k);
            return -1;
        }
        r->names[r->n_names++] = rt_strdup_utf8(s);
    }
    if (!names && !b && !tag && !zf) {
        rt_error_set(err,
                     "'%s': rules[%zu]: matches every kernel (give kernels, bound, tag or "
                     "zero_flops)",
                     path, i);
        return -1;
    }
    return 0;
}

int rt_hints_load(const char *path, rt_hints **out, rt_error *err)
{
    *out = NULL;
    int rc = -1;
    rt_hints *h = NULL;
    /* The one loader of data files: bounded, duplicate keys refused, the schema checked. */
    rt_data_file f;
    if (rt_data_file_load(&f, path, "torch/hints.json", "rooftime.hints/1", err) != 0)
        return -1;
    const char *p = f.path;
    const json_t *rules = json_object_get(f.root, "rules");
    if (!json_is_array(rules) || json_array_size(rules) > MAX_RULES) {
        rt_error_set(err, "'%s': field 'rules' missing or not a list of at most %d rules", p,
                     MAX_RULES);
        goto out;
    }
    h = rt_xcalloc(1, sizeof *h);
    for (size_t i = 0; i < json_array_size(rules); i++) {
        if (load_rule(json_array_get(rules, i), &h->r[i], p, i, err) != 0) {
            h->n = i + 1;
            goto out;
        }
        h->n = i + 1;
    }
    *out = h;
    h = NULL;
    rc = 0;
out:
    rt_hints_free(h);
    rt_data_file_release(&f);
    return rc;
}

static int name_matches(const rule *r, const char *name)
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

static void over_kernels(const rule *r, const rt_machine *m, rt_mode mode, rt_profile *const *ps,
                         size_t n, match *mt)
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
static void over_configs(const rule *r, const rt_machine *m, rt_mode mode, rt_profile *const *ps,
                         size_t n, match *mt)
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
        const rule *r = &h->r[ri];
        if (r->bound != RT_BOUND_NONE && !m)
            continue;
        /* each level the rule looks at; it fires on the one holding the most time */
        match best = {0}, mk = {0}, mc = {0};
        int configs = 0;
        if (r->over & OVER_KERNELS) {
            over_kernels(r, m, mode, ps, n, &mk);
            best = mk;
        }
        if ((r->over & OVER_CONFIGS) && m) {
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
