/* One entry of the PyTorch cost model's table (data/torch/ops.json): its model, class and fields
 * read and checked, with errors naming the file, the JSON path and the field; torch-ops.c reads the
 * table and looks entries up by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"
#include "torch-cost-args.h"

static const struct {
    const char *name;
    tc_model model;
} models[] = {{"none", TC_NONE},           {"matmul", TC_MATMUL},
              {"conv", TC_CONV},           {"conv_backward", TC_CONV_BACKWARD},
              {"pool", TC_POOL},           {"stream", TC_STREAM},
              {"embedding", TC_EMBEDDING}, {"attention", TC_ATTENTION},
              {"uncounted", TC_UNCOUNTED}, {"region", TC_REGION},
              {"compiled", TC_COMPILED},   {"tbe", TC_TBE}};
#define MODEL_CHOICES                                                                              \
    "none, matmul, conv, conv_backward, pool, stream, embedding, attention, uncounted, region, "   \
    "compiled, tbe"

int rt_torch_ops_model_named(const char *name, tc_model *model, const char **klass)
{
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
        if (strcmp(models[m].name, name) == 0) {
            *model = models[m].model;
            if (klass)
                *klass = models[m].name;
            return 0;
        }
    return -1;
}

/* The sizes an attention formula names (torch-cost-attention.c fills them in this order). */
static const char *const attention_names[] = {"BH", "L", "S", "E", "Ev"};

static const char *const classes[] = {"view", "allocation", "dispatch", "framework"};
/* What work of model "uncounted" is (docs/import-frameworks.md): random numbers, sorting,
 * data-dependent indexing and scattering, unique. */
static const char *const uncounted_classes[] = {"rng", "sort", "index", "unique"};

static const char *const pos_names[TCP_N] = {"stride",      "padding", "dilation",  "groups",
                                             "output_mask", "kernel",  "ceil_mode", "output_size",
                                             "dim",         "total_D"};

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

static int attention_resolve(void *ctx, const char *name, size_t len, int *bank, int *index,
                             const char **why)
{
    (void)ctx;
    *bank = 0;
    for (size_t i = 0; i < sizeof attention_names / sizeof attention_names[0]; i++)
        if (strlen(attention_names[i]) == len && memcmp(attention_names[i], name, len) == 0) {
            *index = (int)i;
            return 0;
        }
    *why = "unknown name (BH, L, S, E, Ev)";
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
/* A list of operator names d (member `key`) into *names (*n of them). */
static int load_names(rt_jr *r, const json_t *d, const char *path, const char *key, char ***names,
                      size_t *n)
{
    size_t i;
    const json_t *v;
    *names = rt_xcalloc(json_array_size(d) ? json_array_size(d) : 1, sizeof **names);
    json_array_foreach(d, i, v)
    {
        if (!json_is_string(v) || !*json_string_value(v)) {
            char at[48];
            snprintf(at, sizeof at, "%s[%zu]", key, i);
            rt_jr_fail(r, path, at, "not an operator name");
            return -1;
        }
        (*names)[(*n)++] = rt_strdup(json_string_value(v));
    }
    return 0;
}

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
    return load_names(r, d, path, "defer", &e->defer, &e->n_defer);
}

/* A region's or a compiled kernel's "why"; a compiled kernel's "after" and "partial". */
static int load_compiled(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    if (rt_jr_string(r, j, path, "why", true, &e->why) != 0)
        return -1;
    if (!*e->why || strlen(e->why) >= 160) {
        rt_jr_fail(r, path, "why", "not a reason of 1 to 159 characters");
        return -1;
    }
    if (e->model != TC_COMPILED)
        return 0;
    if (rt_jr_string(r, j, path, "after", true, &e->after) != 0)
        return -1;
    if (!*e->after) {
        rt_jr_fail(r, path, "after", "empty: what precedes the operators of a kernel's name");
        return -1;
    }
    const json_t *d = json_object_get(j, "partial");
    if (d && !json_is_array(d)) {
        rt_jr_fail(r, path, "partial", "not a list of operator names");
        return -1;
    }
    return d ? load_names(r, d, path, "partial", &e->partial, &e->n_partial) : 0;
}

void rt_torch_ops_entry_release(tc_entry *e)
{
    if (e->has_flops)
        rt_formula_release(&e->flops);
    for (size_t i = 0; i < e->n_defer; i++)
        free(e->defer[i]);
    free(e->defer);
    e->defer = NULL;
    e->n_defer = 0;
    free(e->why);
    e->why = NULL;
    for (size_t i = 0; i < e->n_partial; i++)
        free(e->partial[i]);
    free(e->partial);
    e->partial = NULL;
    e->n_partial = 0;
    free(e->after);
    e->after = NULL;
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

/* The FLOPs formula of a stream (over out and inN) or an attention (over its sizes). */
static int load_flops(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    int stream = e->model == TC_STREAM;
    const char *over = stream ? "out and inN" : "BH, L, S, E and Ev";
    const json_t *f = json_object_get(j, "flops");
    if (!json_is_string(f)) {
        if (f)
            rt_jr_fail(r, path, "flops", "not a string: a formula over %s", over);
        else
            rt_jr_fail(r, path, "flops", "missing: %s needs a formula over %s",
                       stream ? "a stream" : "an attention", over);
        return -1;
    }
    rt_error ferr;
    if (rt_formula_compile(&e->flops, json_string_value(f),
                           stream ? stream_resolve : attention_resolve, NULL, &ferr) != 0) {
        rt_jr_fail(r, path, "flops", "%s", ferr.msg);
        rt_formula_release(&e->flops);
        return -1;
    }
    e->has_flops = 1;
    return 0;
}

/* "reads": the inputs whose bytes are read, 'all' (the default) or a list of indices. */
static int load_reads(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
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
    return 0;
}

int rt_torch_cost_type_size(const char *name)
{
    static const struct {
        const char *name;
        int size;
    } types[] = {{"uint8", 1}, {"half", 2}, {"bfloat16", 2}, {"float", 4}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        if (strcmp(name, types[t].name) == 0)
            return types[t].size;
    return 0;
}

/* A list of input indices (member key) as bits; 0 when absent. */
static int index_bits(rt_jr *r, const json_t *j, const char *path, const char *key, uint32_t *out)
{
    const json_t *l = json_object_get(j, key), *v;
    size_t i;
    *out = 0;
    if (!l)
        return 0;
    if (!json_is_array(l) || json_array_size(l) == 0) {
        rt_jr_fail(r, path, key, "not a list of input indices");
        return -1;
    }
    json_array_foreach(l, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= TC_MAX_ARGS) {
            char at[48];
            snprintf(at, sizeof at, "%s[%zu]", key, i);
            rt_jr_fail(r, path, at, "not an input index (0 to %d)", TC_MAX_ARGS - 1);
            return -1;
        }
        *out |= 1u << json_integer_value(v);
    }
    return 0;
}

/* A table-batched embedding's forward: its tables' weights (needed), the per-row state that
 * counts their rows, the per-sample weights, the smallest type its output may have (needed:
 * 'out_type'). */
static int load_tbe(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    if (e->backward)
        return 0;
    if (index_bits(r, j, path, "weights", &e->tbe_weights) != 0 ||
        index_bits(r, j, path, "rows", &e->tbe_rows) != 0 ||
        int_member(r, j, path, "indice_weights", TC_MAX_ARGS, &e->tbe_indice_weights) != 0)
        return -1;
    if (!e->tbe_weights) {
        rt_jr_fail(r, path, "weights", "missing: a table-batched embedding needs its weights");
        return -1;
    }
    char *ot = NULL;
    if (rt_jr_string(r, j, path, "out_type", true, &ot) != 0)
        return -1;
    e->out_esize = rt_torch_cost_type_size(ot);
    if (!e->out_esize)
        rt_jr_fail(r, path, "out_type", "'%s' is none of uint8, half, bfloat16, float", ot);
    free(ot);
    return e->out_esize ? 0 : -1;
}

/* A stream's FLOPs formula, outputs, inputs read and output type. */
static int load_stream(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    if (load_flops(r, e, j, path) != 0 || load_out(r, e, j, path) != 0 ||
        load_reads(r, e, j, path) != 0)
        return -1;
    char *ot = NULL;
    if (rt_jr_string(r, j, path, "out_type", false, &ot) != 0)
        return -1;
    /* the outputs' element type when it is not the first input's: a comparison's bool, input N's
     * (inN), or one by name (a quantization's bytes) */
    e->out_bool = ot && strcmp(ot, "bool") == 0;
    e->out_esize = ot ? rt_torch_cost_type_size(ot) : 0;
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
    } else if (e->model == TC_ATTENTION) {
        ak[0] = "q", ak[1] = "k", ak[2] = "v";
    } else if (e->model == TC_TBE) {
        ak[0] = e->backward ? "grad_output" : "D_offsets";
        ak[1] = e->backward ? "-" : "indices", ak[2] = e->backward ? "-" : "offsets";
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
    if (e->model == TC_TBE && (e->backward ? e->a < 0 : lack || e->c < 0)) {
        rt_jr_fail(r, path,
                   e->backward ? ak[0]
                   : lack      ? lack
                               : ak[2],
                   "missing: a table-batched embedding needs %s",
                   e->backward ? "'grad_output'" : "'D_offsets', 'indices' and 'offsets'");
        return -1;
    }
    if (e->model == TC_ATTENTION && (lack || e->c < 0)) {
        rt_jr_fail(r, path, lack ? lack : "v", "missing: an attention needs 'q', 'k' and 'v'");
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

/* An attention's "layout": "bhle" ([..., L, E], the default) or "blhe" (flash's [B, L, H, E]). */
static int load_layout(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    const json_t *v = json_object_get(j, "layout");
    const char *l = json_string_value(v);
    if (!v || (l && strcmp(l, "bhle") == 0))
        return 0;
    if (l && strcmp(l, "blhe") == 0) {
        e->blhe = 1;
        return 0;
    }
    fail_choice(r, j, path, "layout", "bhle or blhe");
    return -1;
}

int rt_torch_ops_load_entry(rt_jr *r, tc_entry *e, const json_t *j, const char *path)
{
    memset(e, 0, sizeof *e);
    for (int i = 0; i < TCP_N; i++)
        e->pos[i] = -1;
    e->reads_all = 1;
    e->out_type_in = e->gathered = e->tbe_indice_weights = -1;
    if (rt_jr_object(r, j, path) != 0)
        return -1;
    const char *model = json_string_value(json_object_get(j, "model"));
    if (!model || rt_torch_ops_model_named(model, &e->model, &e->klass) != 0) {
        fail_choice(r, j, path, "model", MODEL_CHOICES);
        return -1;
    }
    if (e->model == TC_NONE &&
        !(e->klass = class_of(r, j, path, classes, sizeof classes / sizeof *classes,
                              "view, allocation, dispatch or framework")))
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
    if (load_defer(r, e, j, path) != 0 || flag(r, j, path, "annotation", &e->annotation) != 0)
        return -1;
    if (e->model == TC_COMPILED || e->model == TC_REGION)
        return load_compiled(r, e, j, path);
    if (e->model == TC_ATTENTION)
        return load_layout(r, e, j, path) != 0 || load_flops(r, e, j, path) != 0 ||
                       load_reads(r, e, j, path) != 0
                   ? -1
                   : 0;
    if (e->model == TC_TBE)
        return load_tbe(r, e, j, path);
    if (e->model != TC_STREAM)
        return 0;
    return load_stream(r, e, j, path);
}

/* One name of "ops" (key: "ops[k]") for entry idx: an operator, or a pattern with '*' at its
 * start or end. */
