/* Advice from patterns in a run: the rules of data/torch/hints.json matched against kernels by
 * name, verdict, FLOPs and tags; a rule fires when its kernels hold enough of the time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rooftime/import/hints.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/format.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

#define MAX_RULES 64
#define MAX_NAMES 64

typedef struct rule {
    char *id, *advice, *tag;
    char *names[MAX_NAMES];
    size_t n_names;
    rt_bound bound; /* RT_BOUND_NONE: any */
    int zero_flops;
    double min_share;
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
    char *dflt = path ? NULL : rt_asprintf("%s/torch/hints.json", rt_datadir());
    const char *p = path ? path : dflt;
    char *buf;
    size_t len;
    int rc = -1;
    json_t *root = NULL;
    rt_hints *h = NULL;
    if (rt_read_text_file(p, RT_MAX_TEXT_INPUT, &buf, &len, err) != 0)
        goto out;
    json_error_t je;
    root = json_loadb(buf, len, 0, &je);
    free(buf);
    if (!root) {
        rt_error_set(err, "cannot read '%s': line %d, column %d: %s", p, je.line, je.column,
                     je.text);
        goto out;
    }
    const char *schema = json_string_value(json_object_get(root, "schema"));
    const json_t *rules = json_object_get(root, "rules");
    if (!schema || strcmp(schema, "rooftime.hints/1") != 0) {
        rt_error_set(err, "'%s': field 'schema' is not \"rooftime.hints/1\"", p);
        goto out;
    }
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
    json_decref(root);
    free(dflt);
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
        double t = 0, longest = -1;
        size_t count = 0;
        const char *which = NULL;
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
                t += kk->time;
                count++;
                if (kk->time > longest) {
                    longest = kk->time;
                    which = kk->name;
                }
            }
        if (count == 0 || t / total < r->min_share)
            continue;
        char ts[64], tt[64];
        rt_fmt_time(ts, sizeof ts, t);
        rt_fmt_time(tt, sizeof tt, total);
        rt_warnings_add(
            out, "%s: %.1f%% of the time (%s of %s) in %zu kernel%s, the longest '%.120s': %s",
            r->id, 100 * t / total, ts, tt, count, count == 1 ? "" : "s", which, r->advice);
    }
}
