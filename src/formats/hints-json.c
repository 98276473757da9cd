/* The hint rules' files, read for the core's hint engine (core/hints.c):
 * data/verdict-hints.json {"schema": "rooftime.verdict-hints/1", "hints": [{"bound", "detail"?,
 * "hint"}]}, and data/torch/hints.json {"schema": "rooftime.hints/1", "rules": [...]}, advice on
 * a run. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/core/hints.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const classes[] = {"zero-ai", "overhead", "bandwidth", "compute", "none"};

static int from_json(const json_t *root, const rt_json_src *src, rt_verdict_hints *out,
                     rt_error *err)
{
    rt_jr r = {*src, err};
    const json_t *arr;
    if (rt_jr_object(&r, root, "") != 0 ||
        rt_jr_schema(&r, root, "rooftime.verdict-hints/1") != 0 ||
        rt_jr_array(&r, root, "", "hints", true, &arr) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *h = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "hints[%zu]", i);
        char *bound = NULL, *detail = NULL, *text = NULL;
        int rc = -1;
        if (rt_jr_object(&r, h, path) == 0 &&
            rt_jr_string(&r, h, path, "bound", true, &bound) == 0 &&
            rt_jr_string(&r, h, path, "detail", false, &detail) == 0 &&
            rt_jr_string(&r, h, path, "hint", true, &text) == 0) {
            size_t c = 0;
            while (c < sizeof classes / sizeof *classes && strcmp(classes[c], bound) != 0)
                c++;
            if (c == sizeof classes / sizeof *classes)
                rt_jr_fail(&r, path, "bound",
                           "unknown bound '%s' (zero-ai, overhead, bandwidth, compute or none)",
                           bound);
            else {
                rt_verdict_hints_add(out, bound, detail, text);
                rc = 0;
            }
        }
        free(bound);
        free(detail);
        free(text);
        if (rc != 0) {
            rt_verdict_hints_release(out);
            return -1;
        }
    }
    return 0;
}

int rt_verdict_hints_parse(const char *text, size_t len, const char *origin, rt_verdict_hints *out,
                           rt_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        rt_error_set(err, "cannot read '%s': line %d, column %d: %s", origin, je.line, je.column,
                     je.text);
        return -1;
    }
    int rc = from_json(root, &(rt_json_src){origin, text, len}, out, err);
    json_decref(root);
    return rc;
}

int rt_verdict_hints_load(const char *path, rt_verdict_hints *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    rt_data_file f; /* the one loader of data files; from_json checks the schema */
    int rc = rt_data_file_load(&f, path, "verdict-hints.json", NULL, err);
    if (rc == 0) {
        rt_json_src src = rt_data_file_src(&f);
        rc = from_json(f.root, &src, out, err);
        rt_data_file_release(&f);
    }
    return rc;
}

/* ---- data/torch/hints.json: advice on a run ---- */

/* "over": "kernels", "configs" or a list of them (default kernels); "group_by": the tags that
 * make the configs. path: the rule's JSON path. */
static int load_over(rt_jr *jr, const json_t *j, const char *path, rt_hint_rule *r)
{
    const json_t *over = json_object_get(j, "over"), *v;
    size_t k;
    char key[48];
    r->over = RT_HINT_OVER_KERNELS;
    if (over) {
        r->over = 0;
        size_t n = json_is_array(over) ? json_array_size(over) : 1;
        for (k = 0; k < n; k++) {
            const json_t *e = json_is_array(over) ? json_array_get(over, k) : over;
            const char *s = json_string_value(e);
            int o = !s                          ? 0
                    : strcmp(s, "kernels") == 0 ? RT_HINT_OVER_KERNELS
                    : strcmp(s, "configs") == 0 ? RT_HINT_OVER_CONFIGS
                                                : 0;
            if (!o) {
                const char *want = "kernels, configs or a list of them";
                if (json_is_array(over)) {
                    snprintf(key, sizeof key, "over[%zu]", k);
                    want = "kernels or configs";
                } else {
                    snprintf(key, sizeof key, "over");
                }
                if (s)
                    rt_jr_fail(jr, path, key, "'%.80s' is not %s", s, want);
                else
                    rt_jr_fail(jr, path, key, "not %s", want);
                return -1;
            }
            r->over |= o;
        }
        if (!r->over) {
            rt_jr_fail(jr, path, "over", "an empty list (kernels, configs or both)");
            return -1;
        }
    }
    const json_t *g = json_object_get(j, "group_by");
    if (g &&
        (!json_is_array(g) || json_array_size(g) == 0 || json_array_size(g) > RT_HINT_MAX_KEYS)) {
        rt_jr_fail(jr, path, "group_by", "not a list of 1 to %d tags", RT_HINT_MAX_KEYS);
        return -1;
    }
    json_array_foreach(g, k, v)
    {
        if (!json_is_string(v) || !*json_string_value(v)) {
            snprintf(key, sizeof key, "group_by[%zu]", k);
            rt_jr_fail(jr, path, key, "not a tag (a non-empty string)");
            return -1;
        }
        r->group[r->n_group++] = rt_strdup_utf8(json_string_value(v));
    }
    return 0;
}

/* "kernels": the names a rule matches, '*' only at the start or the end of one. */
static int load_names(rt_jr *jr, const json_t *names, const char *path, rt_hint_rule *r)
{
    if (names && (!json_is_array(names) || json_array_size(names) > RT_HINT_MAX_NAMES)) {
        rt_jr_fail(jr, path, "kernels", "not a list of at most %d names", RT_HINT_MAX_NAMES);
        return -1;
    }
    size_t k;
    const json_t *v;
    json_array_foreach(names, k, v)
    {
        const char *s = json_string_value(v);
        const char *star = s ? strchr(s, '*') : NULL;
        if (!s || !*s || (star && star != s && star[1] != '\0') ||
            (star && strchr(star + 1, '*'))) {
            char key[48];
            snprintf(key, sizeof key, "kernels[%zu]", k);
            if (s && *s)
                rt_jr_fail(jr, path, key, "'%.80s' is not a name with '*' only at its start or end",
                           s);
            else
                rt_jr_fail(jr, path, key, "not a name with '*' only at its start or end");
            return -1;
        }
        r->names[r->n_names++] = rt_strdup_utf8(s);
    }
    return 0;
}

static int load_rule(rt_jr *jr, const json_t *j, size_t i, rt_hint_rule *r)
{
    memset(r, 0, sizeof *r);
    char path[48];
    snprintf(path, sizeof path, "rules[%zu]", i);
    if (rt_jr_object(jr, j, path) != 0 || rt_jr_string(jr, j, path, "id", true, &r->id) != 0 ||
        rt_jr_string(jr, j, path, "advice", true, &r->advice) != 0 ||
        rt_jr_number(jr, j, path, "min_share", true, -INFINITY, &r->min_share) != 0)
        return -1;
    if (!(r->min_share > 0) || r->min_share > 1) {
        rt_jr_fail(jr, path, "min_share", "%g is not a share in (0, 1]", r->min_share);
        return -1;
    }
    if (rt_jr_string(jr, j, path, "tag", false, &r->tag) != 0)
        return -1;
    const json_t *zf = json_object_get(j, "zero_flops");
    if (zf && !json_is_boolean(zf)) {
        rt_jr_fail(jr, path, "zero_flops", "not true or false");
        return -1;
    }
    r->zero_flops = json_is_true(zf);
    if (load_over(jr, j, path, r) != 0)
        return -1;
    const json_t *b = json_object_get(j, "bound");
    if (b) {
        r->bound = rt_hint_bound_parse(json_string_value(b));
        if (r->bound == RT_BOUND_NONE) {
            if (json_is_string(b))
                rt_jr_fail(jr, path, "bound", "'%.80s' is not compute, bandwidth or overhead",
                           json_string_value(b));
            else
                rt_jr_fail(jr, path, "bound", "not compute, bandwidth or overhead");
            return -1;
        }
    }
    const json_t *names = json_object_get(j, "kernels");
    if (load_names(jr, names, path, r) != 0)
        return -1;
    if (!names && !b && !r->tag && !zf) {
        rt_jr_fail(jr, path, NULL, "matches every kernel (give kernels, bound, tag or zero_flops)");
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
    rt_jr jr = {rt_data_file_src(&f), err};
    const json_t *rules;
    if (rt_jr_array(&jr, f.root, "", "rules", true, &rules) != 0)
        goto out;
    if (json_array_size(rules) > RT_HINT_MAX_RULES) {
        rt_jr_fail(&jr, "", "rules", "%zu rules, more than the limit of %d", json_array_size(rules),
                   RT_HINT_MAX_RULES);
        goto out;
    }
    h = rt_hints_new();
    for (size_t i = 0; i < json_array_size(rules); i++) {
        h->n = i + 1; /* a rule that fails is released with the others */
        if (load_rule(&jr, json_array_get(rules, i), i, &h->r[i]) != 0)
            goto out;
    }
    *out = h;
    h = NULL;
    rc = 0;
out:
    rt_hints_free(h);
    rt_data_file_release(&f);
    return rc;
}
