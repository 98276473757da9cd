/* The hint rules' files, read for the core's hint engine (core/hints.c):
 * data/verdict-hints.json {"schema": "rooftime.verdict-hints/1", "hints": [{"bound", "detail"?,
 * "hint"}]}, and data/torch/hints.json {"schema": "rooftime.hints/1", "rules": [...]}, advice on
 * a run. */
#include <jansson.h>
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
 * make the configs. */
static int load_over(const json_t *j, rt_hint_rule *r, const char *path, size_t i, rt_error *err)
{
    const json_t *over = json_object_get(j, "over"), *v;
    size_t k;
    r->over = RT_HINT_OVER_KERNELS;
    if (over) {
        r->over = 0;
        size_t n = json_is_array(over) ? json_array_size(over) : 1;
        for (k = 0; k < n; k++) {
            const char *s = json_string_value(json_is_array(over) ? json_array_get(over, k) : over);
            int o = !s                          ? 0
                    : strcmp(s, "kernels") == 0 ? RT_HINT_OVER_KERNELS
                    : strcmp(s, "configs") == 0 ? RT_HINT_OVER_CONFIGS
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
    if (g &&
        (!json_is_array(g) || json_array_size(g) == 0 || json_array_size(g) > RT_HINT_MAX_KEYS)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'group_by' is not a list of 1 to %d tags", path,
                     i, RT_HINT_MAX_KEYS);
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

static int load_rule(const json_t *j, rt_hint_rule *r, const char *path, size_t i, rt_error *err)
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
        r->bound = rt_hint_bound_parse(json_string_value(b));
        if (r->bound == RT_BOUND_NONE) {
            rt_error_set(err,
                         "'%s': rules[%zu]: field 'bound' is not compute, bandwidth or overhead",
                         path, i);
            return -1;
        }
    }
    const json_t *names = json_object_get(j, "kernels"), *v;
    size_t k;
    if (names && (!json_is_array(names) || json_array_size(names) > RT_HINT_MAX_NAMES)) {
        rt_error_set(err, "'%s': rules[%zu]: field 'kernels' is not a list of at most %d names",
                     path, i, RT_HINT_MAX_NAMES);
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
    if (!json_is_array(rules) || json_array_size(rules) > RT_HINT_MAX_RULES) {
        rt_error_set(err, "'%s': field 'rules' missing or not a list of at most %d rules", p,
                     RT_HINT_MAX_RULES);
        goto out;
    }
    h = rt_hints_new();
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
