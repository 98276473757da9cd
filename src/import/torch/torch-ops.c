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
};

static const struct {
    const char *name;
    tc_model model;
} models[] = {{"none", TC_NONE},           {"matmul", TC_MATMUL},
              {"conv", TC_CONV},           {"conv_backward", TC_CONV_BACKWARD},
              {"pool", TC_POOL},           {"stream", TC_STREAM},
              {"embedding", TC_EMBEDDING}, {"uncounted", TC_UNCOUNTED}};

static const char *const classes[] = {"view", "allocation", "dispatch"};
/* What work of model "uncounted" is (docs/import-frameworks.md): random numbers, sorting,
 * data-dependent indexing and scattering, unique. */
static const char *const uncounted_classes[] = {"rng", "sort", "index", "unique"};

static const char *const pos_names[TCP_N] = {"stride",    "padding",     "dilation",
                                             "groups",    "output_mask", "kernel",
                                             "ceil_mode", "output_size", "dim"};

static int stream_resolve(void *ctx, const char *name, size_t len, int *bank, int *index,
                          const char **why)
{
    (void)ctx;
    *bank = 0;
    if (len == 3 && memcmp(name, "out", 3) == 0) {
        *index = 0;
        return 0;
    }
    if (len >= 3 && len <= 4 && name[0] == 'i' && name[1] == 'n') {
        int v = 0;
        for (size_t i = 2; i < len; i++) {
            if (name[i] < '0' || name[i] > '9')
                goto bad;
            v = v * 10 + (name[i] - '0');
        }
        if (v < TC_MAX_ARGS) {
            *index = 1 + v;
            return 0;
        }
    }
bad:
    *why = "unknown name (out, in0 .. in31)";
    return -1;
}

/* An error about a member that must be one of choices ("none, matmul or conv"). */
static void fail_choice(rt_jr *r, const json_t *o, const char *path, const char *key,
                        const char *choices)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        rt_jr_fail(r, path, key, "missing (one of %s)", choices);
    else if (json_is_string(v))
        rt_jr_fail(r, path, key, "'%.80s' is not one of %s", json_string_value(v), choices);
    else
        rt_jr_fail(r, path, key, "not one of %s", choices);
}

/* An optional small non-negative integer member; -1 when absent. */
static int int_member(rt_jr *r, const json_t *o, const char *path, const char *key, int max,
                      int *out)
{
    const json_t *v = json_object_get(o, key);
    *out = -1;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= max) {
        rt_jr_fail(r, path, key, "not a whole number from 0 to %d", max - 1);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* "defer": true (any costed callee carries the work) or a list of the callees that do. */
static int load_defer(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const json_t *d = json_object_get(j, "defer");
    if (!d || json_is_false(d))
        return 0;
    if (json_is_true(d)) {
        e->defer_any = 1;
        return 0;
    }
    if (!json_is_array(d) || json_array_size(d) == 0) {
        rt_jr_fail(r, path, "defer", "neither true nor a list of operator names");
        return -1;
    }
    size_t i;
    const json_t *v;
    e->defer = rt_xcalloc(json_array_size(d), sizeof *e->defer);
    json_array_foreach(d, i, v)
    {
        if (!json_is_string(v) || !*json_string_value(v)) {
            char key[48];
            snprintf(key, sizeof key, "defer[%zu]", i);
            rt_jr_fail(r, path, key, "not an operator name");
            return -1;
        }
        e->defer[e->n_defer++] = rt_strdup(json_string_value(v));
    }
    return 0;
}

static void entry_release(tc_entry *e)
{
    if (e->has_flops)
        rt_formula_release(&e->flops);
    for (size_t i = 0; i < e->n_defer; i++)
        free(e->defer[i]);
    free(e->defer);
    e->defer = NULL;
    e->n_defer = 0;
}

/* "concrete": where the window models find their arguments in "Concrete Inputs". */
static int load_concrete(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const json_t *cst;
    if (rt_jr_member_object(r, j, path, "concrete", false, &cst) != 0)
        return -1;
    if (!cst)
        return 0;
    char sub[64];
    snprintf(sub, sizeof sub, "%s.concrete", path);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)cst, k, v)
    {
        int p = 0;
        while (p < TCP_N && strcmp(pos_names[p], k) != 0)
            p++;
        if (p == TCP_N) {
            char known[160] = "";
            for (int q = 0; q < TCP_N; q++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", q ? ", " : "",
                         pos_names[q]);
            rt_jr_fail(r, sub, k, "not an argument the models read (%s)", known);
            return -1;
        }
        if (int_member(r, cst, sub, k, TC_MAX_ARGS, &e->pos[p]) != 0)
            return -1;
    }
    return 0;
}

/* "out": the outputs, each 'broadcast' or the input whose shape it has (default: broadcast). */
static int load_out(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const json_t *out = json_object_get(j, "out"), *v;
    size_t i;
    if (!out) {
        e->n_out = 1;
        e->out[0] = -1;
        return 0;
    }
    if (!json_is_array(out) || json_array_size(out) > TC_MAX_OUT) {
        rt_jr_fail(r, path, "out", "not a list of at most %d outputs", TC_MAX_OUT);
        return -1;
    }
    json_array_foreach(out, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), "broadcast") == 0)
            e->out[i] = -1;
        else if (json_is_integer(v) && json_integer_value(v) >= 0 &&
                 json_integer_value(v) < TC_MAX_ARGS)
            e->out[i] = (int)json_integer_value(v);
        else {
            char key[48];
            snprintf(key, sizeof key, "out[%zu]", i);
            rt_jr_fail(r, path, key, "neither 'broadcast' nor an input index (0 to %d)",
                       TC_MAX_ARGS - 1);
            return -1;
        }
        e->n_out++;
    }
    return 0;
}

/* A stream's FLOPs formula, outputs, inputs read and output type. */
static int load_stream(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const json_t *f = json_object_get(j, "flops");
    if (!json_is_string(f)) {
        if (f)
            rt_jr_fail(r, path, "flops", "not a string: a formula over out and inN");
        else
            rt_jr_fail(r, path, "flops", "missing: a stream needs a formula over out and inN");
        return -1;
    }
    rt_error ferr;
    if (rt_formula_compile(&e->flops, json_string_value(f), stream_resolve, NULL, &ferr) != 0) {
        rt_jr_fail(r, path, "flops", "%s", ferr.msg);
        rt_formula_release(&e->flops);
        return -1;
    }
    e->has_flops = 1;
    if (load_out(r, e, j, path) != 0)
        return -1;
    const json_t *reads = json_object_get(j, "reads"), *v;
    size_t i;
    if (reads && !(json_is_string(reads) && strcmp(json_string_value(reads), "all") == 0)) {
        if (!json_is_array(reads)) {
            rt_jr_fail(r, path, "reads", "neither 'all' nor a list of input indices");
            return -1;
        }
        e->reads_all = 0;
        json_array_foreach(reads, i, v)
        {
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= TC_MAX_ARGS) {
                char key[48];
                snprintf(key, sizeof key, "reads[%zu]", i);
                rt_jr_fail(r, path, key, "not an input index (0 to %d)", TC_MAX_ARGS - 1);
                return -1;
            }
            e->reads |= 1u << json_integer_value(v);
        }
    }
    char *ot = NULL;
    if (rt_jr_string(r, j, path, "out_type", false, &ot) != 0)
        return -1;
    /* the outputs' element type when it is not the first input's: a comparison's bool, input N's
     * (inN), or one by name (a quantization's bytes) */
    static const struct {
        const char *name;
        int size;
    } types[] = {{"uint8", 1}, {"half", 2}, {"bfloat16", 2}, {"float", 4}};
    e->out_bool = ot && strcmp(ot, "bool") == 0;
    e->out_esize = 0;
    for (size_t t = 0; ot && t < sizeof types / sizeof types[0]; t++)
        if (strcmp(ot, types[t].name) == 0)
            e->out_esize = types[t].size;
    int at = -1;
    if (ot && !e->out_bool && !e->out_esize) {
        char *end;
        long n = strncmp(ot, "in", 2) == 0 ? strtol(ot + 2, &end, 10) : -1;
        if (n < 0 || n >= TC_MAX_ARGS || end == ot + 2 || *end) {
            rt_jr_fail(r, path, "out_type",
                       "'%s' is none of bool, inN (input N's type), uint8, half, bfloat16, float",
                       ot);
            free(ot);
            return -1;
        }
        at = (int)n;
    }
    free(ot);
    e->out_type_in = at;
    return int_member(r, j, path, "gathered", TC_MAX_ARGS, &e->gathered);
}

/* An optional true or false (absent: false). */
static int flag(rt_jr *r, const json_t *j, const char *path, const char *key, int *out)
{
    const json_t *v = json_object_get(j, key);
    if (v && !json_is_boolean(v)) {
        rt_jr_fail(r, path, key, "expected true or false");
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

/* The arguments a model reads ("a", "b", "c"; a convolution's "input", "weight", ...), each an
 * input index, and those it needs. */
static int load_args(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const char *ak[3] = {"a", "b", "c"};
    if (e->model == TC_CONV) {
        ak[0] = "input", ak[1] = "weight", ak[2] = "bias";
    } else if (e->model == TC_CONV_BACKWARD) {
        ak[0] = "grad_output", ak[1] = "input", ak[2] = "weight";
    } else if (e->model == TC_EMBEDDING) {
        ak[0] = e->backward ? "grad_output" : "weight", ak[1] = "indices", ak[2] = "-";
    }
    int *av[3] = {&e->a, &e->b, &e->c};
    for (int i = 0; i < 3; i++)
        if (int_member(r, j, path, ak[i], TC_MAX_ARGS, av[i]) != 0)
            return -1;
    const char *lack = e->a < 0 ? ak[0] : e->b < 0 ? ak[1] : NULL;
    if (e->model == TC_MATMUL && lack) {
        rt_jr_fail(r, path, lack, "missing: a matmul needs 'a' and 'b'");
        return -1;
    }
    if ((e->model == TC_CONV || e->model == TC_CONV_BACKWARD) && lack) {
        rt_jr_fail(r, path, lack, "missing: a convolution needs '%s' and '%s'", ak[0], ak[1]);
        return -1;
    }
    if (e->model == TC_CONV_BACKWARD && e->c < 0) {
        rt_jr_fail(r, path, ak[2], "missing: a convolution backward needs 'weight'");
        return -1;
    }
    if (e->model == TC_EMBEDDING && lack) {
        rt_jr_fail(r, path, lack, "missing: an embedding needs '%s' and 'indices'", ak[0]);
        return -1;
    }
    return 0;
}

/* An entry's "class", one of names (static); NULL with the error naming the choices. */
static const char *class_of(rt_jr *r, const json_t *j, const char *path, const char *const *names,
                            size_t n, const char *choices)
{
    const char *k = json_string_value(json_object_get(j, "class"));
    for (size_t i = 0; k && i < n; i++)
        if (strcmp(k, names[i]) == 0)
            return names[i];
    fail_choice(r, j, path, "class", choices);
    return NULL;
}

static int load_entry(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    memset(e, 0, sizeof *e);
    for (int i = 0; i < TCP_N; i++)
        e->pos[i] = -1;
    e->reads_all = 1;
    e->out_type_in = e->gathered = -1;
    if (rt_jr_object(r, j, path) != 0)
        return -1;
    const char *model = json_string_value(json_object_get(j, "model"));
    size_t m = 0;
    while (model && m < sizeof models / sizeof models[0] && strcmp(models[m].name, model) != 0)
        m++;
    if (!model || m == sizeof models / sizeof models[0]) {
        fail_choice(r, j, path, "model",
                    "none, matmul, conv, conv_backward, pool, stream, embedding, uncounted");
        return -1;
    }
    e->model = models[m].model;
    e->klass = models[m].name;
    if (e->model == TC_NONE &&
        !(e->klass = class_of(r, j, path, classes, sizeof classes / sizeof *classes,
                              "view, allocation or dispatch")))
        return -1;
    if (e->model == TC_UNCOUNTED &&
        !(e->klass = class_of(r, j, path, uncounted_classes,
                              sizeof uncounted_classes / sizeof *uncounted_classes,
                              "rng, sort, index or unique")))
        return -1;
    if (flag(r, j, path, "transpose_b", &e->transpose_b) != 0 ||
        /* a pooling's "indices" says it writes them; an embedding's is an input index */
        (e->model == TC_POOL && flag(r, j, path, "indices", &e->indices) != 0) ||
        flag(r, j, path, "adaptive", &e->adaptive) != 0 ||
        flag(r, j, path, "backward", &e->backward) != 0 || load_args(r, e, j, path) != 0)
        return -1;
    if (load_concrete(r, e, j, path) != 0)
        return -1;
    if (e->model == TC_POOL && e->pos[e->adaptive ? TCP_OUTSIZE : TCP_KERNEL] < 0) {
        const char *what = e->adaptive ? "output_size" : "kernel";
        char key[48];
        snprintf(key, sizeof key, "concrete.%s", what);
        rt_jr_fail(r, path, key, "missing: a pooling needs the position of its %s in 'concrete'",
                   what);
        return -1;
    }
    if (load_defer(r, e, j, path) != 0)
        return -1;
    if (e->model != TC_STREAM)
        return 0;
    return load_stream(r, e, j, path);
}

/* One name of "ops" (key: "ops[k]") for entry idx: an operator, or a pattern with '*' at its
 * start or end. */
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
        if (strchr(star + 1, '*') || (star != name && star != name + n - 1)) {
            rt_jr_fail(r, path, key, "'%s': '*' only at the start or the end", name);
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
    if (rt_jr_array(&r, f.root, "", "ops", true, &ops) != 0)
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
        if (load_entry(&r, &o->e[i], j, where) != 0 || load_names(o, &r, j, i, where) != 0) {
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
        entry_release(&o->e[i]);
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
        if (p[0] == '*' ? n >= pl && memcmp(name + n - pl, p + 1, pl) == 0
                        : n >= pl && memcmp(name, p, pl) == 0)
            return &o->e[o->glob_entry[g]];
    }
    return NULL;
}

int rt_torch_ops_defers(const rt_torch_ops *o, const char *parent, const char *callee)
{
    size_t pl = strlen(parent), cl = strlen(callee);
    /* a redispatch (aten::add -> aten::add), an in-place form through the out-of-place one
     * (aten::mul_ -> aten::mul, then aten::copy_) */
    if (strcmp(parent, callee) == 0 ||
        (pl == cl + 1 && parent[cl] == '_' && memcmp(parent, callee, cl) == 0))
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
