/* The GPU study's planner: the client processes (framework x operation x precision x variant),
 * their sweep points and passes, their iterations, and the plan files they read. Pure: nothing
 * here touches a GPU or a file. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/study/study-gpu-check.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const prec_names[RT_GPU_PREC_COUNT] = {"fp32", "tf32", "fp16", "bf16"};
static const char *const fw_names[RT_GPU_FW_COUNT] = {"pytorch", "jax"};

const char *rt_gpu_prec_name(rt_gpu_prec p)
{
    return p >= 0 && p < RT_GPU_PREC_COUNT ? prec_names[p] : "?";
}

const char *rt_gpu_framework_name(rt_gpu_framework f)
{
    return f >= 0 && f < RT_GPU_FW_COUNT ? fw_names[f] : "?";
}

static int parse_name(const char *s, const char *const *names, int n, const char *what, int *out,
                      rt_error *err)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char known[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 names[i]);
    rt_error_set(err, "unknown %s '%s' (known: %s)", what, s, known);
    return -1;
}

int rt_gpu_prec_parse(const char *s, rt_gpu_prec *out, rt_error *err)
{
    int v = 0;
    int rc = parse_name(s, prec_names, RT_GPU_PREC_COUNT, "precision", &v, err);
    *out = (rt_gpu_prec)v;
    return rc;
}

int rt_gpu_framework_parse(const char *s, rt_gpu_framework *out, rt_error *err)
{
    int v = 0;
    int rc = parse_name(s, fw_names, RT_GPU_FW_COUNT, "framework", &v, err);
    *out = (rt_gpu_framework)v;
    return rc;
}

void rt_study_gpu_opts_init(rt_study_gpu_opts *o)
{
    memset(o, 0, sizeof *o);
    o->scale = 1;
    o->warmup = o->iters = -1;
    /* the paper's ops; the transformer study's run when --op names them (20 more clients) */
    for (int i = 0; i < RT_OP_COUNT; i++)
        o->ops[i] = !rt_study_op_is_xformer((rt_study_op)i);
    for (int i = 0; i < RT_GPU_FW_COUNT; i++)
        o->frameworks[i] = true;
    for (int i = 0; i < RT_GPU_PREC_COUNT; i++)
        o->precisions[i] = true;
}

/* The implementations: which framework runs which op at which precisions, with which variants.
 * JAX has no TF32 switch of its own worth a separate run (its "highest" precision is fp32). */
typedef struct gpu_impl {
    rt_gpu_framework fw;
    rt_study_op op;
    const char *variant;
    bool prec[RT_GPU_PREC_COUNT];
} gpu_impl;

static const gpu_impl impls[] = {
    {RT_GPU_PYTORCH, RT_OP_CONV2D, "", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_CONV2D, "channels_last", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_LSTM, "", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_LSTM, "graphs", {true, true, true, true}},
    {RT_GPU_JAX, RT_OP_CONV2D, "jit", {true, false, true, true}},
    {RT_GPU_JAX, RT_OP_LSTM, "jit", {true, false, true, true}},
    /* the transformer study: each point eager and captured in a CUDA graph, in one client; sdpa
     * runs scaled_dot_product_attention's flash, efficient and math back ends */
    {RT_GPU_PYTORCH, RT_OP_ATTENTION, "", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_ATTENTION, "sdpa", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_MLP, "", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_DECODE, "", {true, true, true, true}},
    {RT_GPU_PYTORCH, RT_OP_DECODE, "sdpa", {true, true, true, true}},
};

static const rt_pass conv_passes[] = {RT_PASS_FWD, RT_PASS_BWD_DATA, RT_PASS_BWD_WEIGHTS};
static const rt_pass lstm_passes[] = {RT_PASS_FWD, RT_PASS_BWD};
static const rt_pass fwd_only[] = {RT_PASS_FWD};

/* Small shapes covering every kernel size and stride of the sweeps (odd sizes included). */
static const rt_study_gpu_check_point check_points[] = {
    {2, 8, 16, 16, 3, 2}, {2, 4, 15, 8, 3, 1}, {1, 4, 17, 8, 7, 2}, {1, 3, 19, 4, 9, 3}};

const rt_study_gpu_check_point *rt_study_gpu_check_points(size_t *n)
{
    *n = sizeof check_points / sizeof check_points[0];
    return check_points;
}

const char *rt_study_gpu_script(rt_gpu_framework f)
{
    return f == RT_GPU_JAX ? "scripts/study-gpu-jax.py" : "scripts/study-gpu-torch.py";
}

int rt_study_gpu_plans(const rt_study_gpu_opts *o, rt_study_gpu_plan **out, size_t *n,
                       rt_error *err)
{
    *out = NULL;
    *n = 0;
    if (!(o->scale > 0 && o->scale <= 1)) {
        rt_error_set(err, "scale must be in (0, 1], got %g", o->scale);
        return -1;
    }
    if (o->warmup > 1000 || o->iters > 100000 || o->iters == 0) {
        rt_error_set(err,
                     "iterations must be between 1 and 100000 and warm-up at most 1000 (got %d "
                     "and %d)",
                     o->iters, o->warmup);
        return -1;
    }
    int warmup = o->warmup >= 0 ? o->warmup : o->quick ? 1 : 5;
    int iters = o->iters > 0 ? o->iters : o->quick ? 3 : 20;
    size_t cap = sizeof impls / sizeof impls[0] * RT_GPU_PREC_COUNT, m = 0;
    rt_study_gpu_plan *v = rt_xcalloc(cap, sizeof *v);
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
        const gpu_impl *im = &impls[i];
        if (!o->frameworks[im->fw] || !o->ops[im->op])
            continue;
        for (int pr = 0; pr < RT_GPU_PREC_COUNT; pr++) {
            if (!o->precisions[pr] || !im->prec[pr])
                continue;
            rt_study_gpu_plan *p = &v[m++];
            p->framework = im->fw;
            p->op = im->op;
            p->precision = (rt_gpu_prec)pr;
            p->variant = im->variant;
            snprintf(p->name, sizeof p->name, "%s-%s-%s%s%s", fw_names[im->fw],
                     rt_study_op_name(im->op), prec_names[pr], im->variant[0] ? "-" : "",
                     im->variant);
            p->passes = im->op == RT_OP_CONV2D ? conv_passes
                        : im->op == RT_OP_LSTM ? lstm_passes
                                               : fwd_only;
            p->n_passes = im->op == RT_OP_CONV2D ? 3 : im->op == RT_OP_LSTM ? 2 : 1;
            p->points = rt_study_points(im->op, o->quick, o->scale, &p->n_points);
            p->warmup = warmup;
            p->iters = iters;
            /* Counters replay every kernel once per pass set: a quick study samples every
             * measured iteration, a full one one warm-up and two of them (see docs/study.md). */
            p->c_warmup = o->quick ? warmup : (warmup < 1 ? warmup : 1);
            p->c_iters = o->quick ? iters : (iters < 2 ? iters : 2);
            p->check = o->check_dir && im->op == RT_OP_CONV2D;
            for (size_t k = 0; k < p->n_points; k++) {
                if (rt_study_point_check(&p->points[k], err) < 0) {
                    rt_error_prefix(err, "%s: sweep point %zu (%s)", p->name, k,
                                    p->points[k].varied);
                    rt_study_gpu_plans_free(v, m);
                    return -1;
                }
            }
        }
    }
    if (!m) {
        rt_error_set(err, "no implementation runs the selected operations and precisions "
                          "(jax has fp32, fp16, bf16; pytorch fp32, tf32, fp16, bf16)");
        free(v);
        return -1;
    }
    *out = v;
    *n = m;
    return 0;
}

void rt_study_gpu_plans_free(rt_study_gpu_plan *p, size_t n)
{
    if (!p)
        return;
    for (size_t i = 0; i < n; i++)
        free(p[i].points);
    free(p);
}

static json_t *point_json(const rt_study_point *pt)
{
    json_t *o = json_object(), *tags = json_object();
    size_t np;
    const char *const *params = rt_study_params(pt->op, &np);
    for (size_t i = 0; i < np; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", rt_study_point_param(pt, params[i]));
        json_object_set_new(tags, params[i], json_string(buf));
    }
    json_object_set_new(o, "tags", tags);
    if (pt->op == RT_OP_CONV2D) {
        json_object_set_new(o, "batch", json_integer(pt->conv.n));
        json_object_set_new(o, "channels", json_integer(pt->conv.c));
        json_object_set_new(o, "size", json_integer(pt->conv.h));
        json_object_set_new(o, "filters", json_integer(pt->conv.k));
        json_object_set_new(o, "kernel", json_integer(pt->conv.r));
        json_object_set_new(o, "stride", json_integer(pt->conv.stride));
    } else if (pt->op == RT_OP_ATTENTION) {
        const rt_attn_shape *a = &pt->attn;
        const long v[] = {a->batch, a->heads, a->seq, a->head_dim, a->causal};
        const char *const k[] = {"batch", "heads", "seq", "head_dim", "causal"};
        for (size_t i = 0; i < 5; i++)
            json_object_set_new(o, k[i], json_integer(v[i]));
    } else if (pt->op == RT_OP_MLP) {
        const rt_mlp_shape *m = &pt->mlp;
        const long v[] = {m->tokens, m->hidden, m->ffn, m->gated};
        const char *const k[] = {"tokens", "hidden", "ffn", "gated"};
        for (size_t i = 0; i < 4; i++)
            json_object_set_new(o, k[i], json_integer(v[i]));
    } else if (pt->op == RT_OP_DECODE) {
        const rt_decode_shape *d = &pt->dec;
        const long v[] = {d->batch, d->cache, d->hidden, d->heads, d->ffn};
        const char *const k[] = {"batch", "cache", "hidden", "heads", "ffn"};
        for (size_t i = 0; i < 5; i++)
            json_object_set_new(o, k[i], json_integer(v[i]));
    } else {
        json_object_set_new(o, "batch", json_integer(pt->lstm.batch));
        json_object_set_new(o, "seq", json_integer(pt->lstm.seq));
        json_object_set_new(o, "features", json_integer(pt->lstm.features));
        json_object_set_new(o, "hidden", json_integer(pt->lstm.hidden));
    }
    return o;
}

static json_t *check_json(const char *dir)
{
    json_t *c = json_object(), *pts = json_array();
    json_object_set_new(c, "dir", json_string(dir));
    for (size_t i = 0; i < sizeof check_points / sizeof check_points[0]; i++) {
        const rt_study_gpu_check_point *q = &check_points[i];
        rt_study_point pt = {.op = RT_OP_CONV2D, .varied = "check"};
        pt.conv = (rt_conv_shape){.n = q->batch,
                                  .c = q->channels,
                                  .h = q->size,
                                  .w = q->size,
                                  .k = q->filters,
                                  .r = q->kernel,
                                  .s = q->kernel,
                                  .stride = q->stride,
                                  .pad = q->kernel / 2};
        json_array_append_new(pts, point_json(&pt));
    }
    json_object_set_new(c, "points", pts);
    return c;
}

char *rt_study_gpu_plan_json(const rt_study_gpu_plan *p, const rt_study_gpu_opts *o, bool counters,
                             long point_index)
{
    json_t *j = json_object(), *passes = json_array(), *pts = json_array();
    json_object_set_new(j, "format", json_string(RT_STUDY_GPU_PLAN_FORMAT));
    json_object_set_new(j, "framework", json_string(fw_names[p->framework]));
    json_object_set_new(j, "op", json_string(rt_study_op_name(p->op)));
    json_object_set_new(j, "precision", json_string(prec_names[p->precision]));
    json_object_set_new(j, "variant", json_string(p->variant));
    /* one point (the ncu cross-check): its forward pass only */
    for (size_t i = 0; i < (point_index >= 0 ? 1 : p->n_passes); i++)
        json_array_append_new(passes, json_string(rt_pass_name(p->passes[i])));
    json_object_set_new(j, "passes", passes);
    json_object_set_new(j, "warmup", json_integer(counters ? p->c_warmup : p->warmup));
    json_object_set_new(j, "iters", json_integer(counters ? p->c_iters : p->iters));
    json_object_set_new(j, "device", json_integer(o->device));
    for (size_t k = 0; k < p->n_points; k++)
        if (point_index < 0 || (size_t)point_index == k)
            json_array_append_new(pts, point_json(&p->points[k]));
    json_object_set_new(j, "points", pts);
    /* the check runs once per implementation: in the trace run, not the counter run */
    bool check = p->check && !counters && point_index < 0 && o->check_dir;
    json_object_set_new(j, "check", check ? check_json(o->check_dir) : json_null());
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(j);
    char *out = rt_asprintf("%s\n", s);
    free(s);
    return out;
}
