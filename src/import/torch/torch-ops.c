/* The cost model of PyTorch operators, its table: data/torch/ops.json read (through the one data
 * loader) into entries, and the lookups by operator name. The models that use an entry:
 * torch-cost.c (matrix, stream, embedding) and torch-cost-window.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"
#include "torch-cost-args.h"

struct rt_torch_ops {
    char *path;
    char *label; /* how a profile names it (rt_data_file_label): never a local path of data/ */
    tc_entry *e;
    size_t n_e;
    rt_name_index names; /* operator -> entry */
    char **glob;         /* "prefix*" or "*suffix" patterns */
    size_t *glob_entry, n_glob;
    /* "opmath": a precision's arithmetic on another unit (static names), for these models */
    const char *opmath_from[RT_TORCH_PRECISIONS], *opmath_to[RT_TORCH_PRECISIONS];
    size_t n_opmath;
    unsigned char opmath_model[TC_MODELS];
};

/* Whether needle [0, nl) occurs in s [0, n). */
static int has_infix(const char *s, size_t n, const char *needle, size_t nl)
{
    for (size_t i = 0; i + nl <= n; i++)
        if (memcmp(s + i, needle, nl) == 0)
            return 1;
    return 0;
}

static int add_name(rt_torch_ops *o, rt_jr *r, const char *name, size_t idx, const char *path,
                    const char *key)
{
    size_t n = strlen(name);
    if (n == 0) {
        rt_jr_fail(r, path, key, "an empty operator name");
        return -1;
    }
    const char *star = strchr(name, '*');
    if (star) {
        /* "prefix*", "*suffix" or "*infix*" */
        const char *other = strchr(star + 1, '*');
        if (n < 2 || (star != name && star != name + n - 1) ||
            (other && (star != name || other != name + n - 1 || n < 3)) ||
            (other && strchr(other + 1, '*'))) {
            rt_jr_fail(r, path, key, "'%s': '*' only at the start, the end or both", name);
            return -1;
        }
        o->glob = rt_xrealloc(o->glob, (o->n_glob + 1) * sizeof *o->glob);
        o->glob_entry = rt_xrealloc(o->glob_entry, (o->n_glob + 1) * sizeof *o->glob_entry);
        o->glob[o->n_glob] = rt_strdup(name);
        o->glob_entry[o->n_glob++] = idx;
        return 0;
    }
    size_t first = rt_name_index_get(&o->names, name, n);
    if (first != (size_t)-1) {
        rt_jr_fail(r, path, key, "operator '%s' is listed twice (also in ops[%zu])", name, first);
        return -1;
    }
    rt_name_index_put(&o->names, name, n, idx);
    return 0;
}

/* An entry's "ops": the operator names it costs, a non-empty list. */
static int load_names(rt_torch_ops *o, rt_jr *r, const json_t *j, size_t idx, const char *path)
{
    const json_t *names, *v;
    if (rt_jr_array(r, j, path, "ops", true, &names) != 0)
        return -1;
    if (json_array_size(names) == 0) {
        rt_jr_fail(r, path, "ops", "an empty list of names");
        return -1;
    }
    size_t k;
    json_array_foreach(names, k, v)
    {
        char key[48];
        snprintf(key, sizeof key, "ops[%zu]", k);
        if (!json_is_string(v)) {
            rt_jr_fail(r, path, key, "not a string");
            return -1;
        }
        if (add_name(o, r, json_string_value(v), idx, path, key) != 0)
            return -1;
    }
    return 0;
}

/* "opmath" (optional): {"units": {"bf16": "fp32", ...}, "models": ["stream", ...]}, the unit the
 * arithmetic of those models' operators runs on for data of a precision. */
static int load_opmath(rt_torch_ops *o, rt_jr *r, const json_t *root)
{
    const json_t *om, *units, *models, *v;
    if (rt_jr_member_object(r, root, "", "opmath", false, &om) != 0)
        return -1;
    if (!om)
        return 0;
    if (rt_jr_member_object(r, om, "opmath", "units", true, &units) != 0 ||
        rt_jr_array(r, om, "opmath", "models", true, &models) != 0)
        return -1;
    const char *k;
    json_object_foreach((json_t *)units, k, v)
    {
        char key[80];
        snprintf(key, sizeof key, "units.%.60s", k);
        const char *from = rt_torch_cost_unit_named(k);
        const char *to = json_is_string(v) ? rt_torch_cost_unit_named(json_string_value(v)) : NULL;
        if (!from || !to || o->n_opmath == RT_TORCH_PRECISIONS) {
            rt_jr_fail(r, "opmath", key,
                       "not a precision of a recorded floating type to another (fp64, fp32, fp16, "
                       "bf16)");
            return -1;
        }
        o->opmath_from[o->n_opmath] = from;
        o->opmath_to[o->n_opmath++] = to;
    }
    size_t i;
    json_array_foreach(models, i, v)
    {
        tc_model m;
        if (!json_is_string(v) || rt_torch_ops_model_named(json_string_value(v), &m, NULL) != 0) {
            char key[48];
            snprintf(key, sizeof key, "models[%zu]", i);
            rt_jr_fail(r, "opmath", key, "not the name of a model (as an entry's \"model\")");
            return -1;
        }
        o->opmath_model[m] = 1;
    }
    return 0;
}

int rt_torch_ops_load(const char *path, rt_torch_ops **out, rt_error *err)
{
    *out = NULL;
    /* The one loader of data files: bounded, duplicate keys refused, the schema checked. */
    rt_data_file f;
    if (rt_data_file_load(&f, path, "torch/ops.json", "rooftime.torch-ops/1", err) != 0)
        return -1;
    rt_jr r = {rt_data_file_src(&f), err}; /* its name is o->path, freed with o */
    rt_torch_ops *o = rt_xcalloc(1, sizeof *o);
    o->path = f.path; /* kept by o; the rest of f released at the end */
    o->label = f.label;
    f.path = f.label = NULL;
    const json_t *ops;
    if (load_opmath(o, &r, f.root) != 0 || rt_jr_array(&r, f.root, "", "ops", true, &ops) != 0)
        goto fail;
    if (json_array_size(ops) == 0) {
        rt_jr_fail(&r, "", "ops", "an empty list");
        goto fail;
    }
    o->n_e = json_array_size(ops);
    o->e = rt_xcalloc(o->n_e, sizeof *o->e);
    for (size_t i = 0; i < o->n_e; i++) {
        const json_t *j = json_array_get(ops, i);
        char where[48];
        snprintf(where, sizeof where, "ops[%zu]", i);
        if (rt_torch_ops_load_entry(&r, &o->e[i], j, where) != 0 ||
            load_names(o, &r, j, i, where) != 0) {
            o->n_e = i + 1; /* release what this one compiled */
            goto fail;
        }
    }
    rt_data_file_release(&f);
    *out = o;
    return 0;
fail:
    rt_data_file_release(&f);
    rt_torch_ops_free(o);
    return -1;
}

void rt_torch_ops_free(rt_torch_ops *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n_e; i++)
        rt_torch_ops_entry_release(&o->e[i]);
    for (size_t i = 0; i < o->n_glob; i++)
        free(o->glob[i]);
    free(o->glob);
    free(o->glob_entry);
    free(o->e);
    rt_name_index_release(&o->names);
    free(o->path);
    free(o->label);
    free(o);
}

const char *rt_torch_ops_path(const rt_torch_ops *o)
{
    return o->path;
}

const char *rt_torch_ops_label(const rt_torch_ops *o)
{
    return o->label;
}

const tc_entry *rt_torch_ops_find(const rt_torch_ops *o, const char *name)
{
    size_t n = strlen(name);
    size_t i = rt_name_index_get(&o->names, name, n);
    if (i != (size_t)-1)
        return &o->e[i];
    for (size_t g = 0; g < o->n_glob; g++) {
        const char *p = o->glob[g];
        size_t pl = strlen(p) - 1;
        int infix = p[0] == '*' && pl > 0 && p[pl] == '*';
        if (infix         ? has_infix(name, n, p + 1, pl - 1)
            : p[0] == '*' ? n >= pl && memcmp(name + n - pl, p + 1, pl) == 0
                          : n >= pl && memcmp(name, p, pl) == 0)
            return &o->e[o->glob_entry[g]];
    }
    return NULL;
}

int rt_torch_ops_annotation(const rt_torch_ops *o, const char *name)
{
    const tc_entry *e = rt_torch_ops_find(o, name);
    return e && e->annotation;
}

const char *rt_torch_ops_opmath(const rt_torch_ops *o, const tc_entry *e, const char *unit)
{
    if (unit && o->opmath_model[e->model])
        for (size_t i = 0; i < o->n_opmath; i++)
            if (strcmp(o->opmath_from[i], unit) == 0)
                return o->opmath_to[i];
    return unit;
}

int rt_torch_ops_defers(const rt_torch_ops *o, const char *parent, const char *callee)
{
    size_t pl = strlen(parent), cl = strlen(callee);
    /* a redispatch (aten::add -> aten::add), an in-place form through the out-of-place one
     * (aten::mul_ -> aten::mul, then aten::copy_), an out-of-place form through the in-place one
     * (aten::masked_fill -> aten::clone, then aten::masked_fill_) */
    if (strcmp(parent, callee) == 0 ||
        (pl == cl + 1 && parent[cl] == '_' && memcmp(parent, callee, cl) == 0) ||
        (cl == pl + 1 && callee[pl] == '_' && memcmp(parent, callee, pl) == 0))
        return 1;
    const tc_entry *e = rt_torch_ops_find(o, parent);
    if (!e || e->model == TC_NONE)
        return 0;
    if (e->defer_any)
        return 1;
    for (size_t i = 0; i < e->n_defer; i++)
        if (strcmp(e->defer[i], callee) == 0)
            return 1;
    return 0;
}
