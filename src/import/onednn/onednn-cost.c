/* oneDNN verbose logs, the cost model: FLOPs and bytes per call of each primitive kind, from its
 * problem and memory descriptors, dispatched from a table by kind. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/strings.h"

const char *rt_onednn_source_dt(const mdlist *ml)
{
    static const char *src_args[] = {"src", "src_layer", "data", "src_0", "src_1", "diff_src"};
    for (size_t a = 0; a < sizeof src_args / sizeof src_args[0]; a++)
        for (int i = 0; i < ml->n; i++)
            if (strcmp(ml->m[i].arg, src_args[a]) == 0 && strcmp(ml->m[i].dt, "undef") != 0)
                return ml->m[i].dt;
    for (int i = 0; i < ml->n; i++)
        if (strcmp(ml->m[i].dt, "undef") != 0)
            return ml->m[i].dt;
    return NULL;
}

/* ---- dispatch by kind ---- */

/* Adapters to one signature: the kind, its problem descriptor parsed or as text. */
typedef struct dn_call {
    const char *kind, *problem, *prop, *aux;
    const mdlist *ml;
    const rt_shape *sh;
    const rt_onednn_kind_model *model; /* NULL: the model has no formula for the kind */
    int window; /* RT_CONV_WINDOW: whole windows for convolution and pooling */
} dn_call;

static int k_conv(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_conv(x->kind[0] == 'd', x->window, x->sh, x->ml, x->prop, c, err);
}
static int k_ip(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_ip(x->sh, x->ml, x->prop, c, err);
}
static int k_rnn(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_rnn(x->sh, x->ml, x->prop, x->aux, c, err);
}
static int k_bnorm(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_bnorm(x->sh, x->ml, x->prop, x->aux, c, err);
}
static int k_pool(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_pool(x->window, x->sh, x->ml, x->prop, x->aux, c, err);
}
static int k_matmul(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_matmul(x->problem, x->ml, x->prop, c, err);
}
static int k_lnorm(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_lnorm(x->problem, x->ml, x->prop, x->aux, c, err);
}
static int k_elementwise(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_dims_elementwise(x->kind, x->model, x->problem, x->ml, x->prop, x->aux, c,
                                           err);
}
static int k_lists(const dn_call *x, cost *c, rt_error *err)
{
    return rt_onednn_cost_lists(x->kind, x->problem, x->ml, x->aux, c, err);
}

/* Every primitive kind this importer reads, with the counts its function provides to the cost
 * model's formulas; a kind not here (lrn, kinds newer than the importer) keeps its time and is
 * named in a note. */
/* The keys oneDNN writes in the problem shapes of these kinds (benchdnn's descriptors) */
#define CONV_KEYS "mb g ic oc id ih iw od oh ow kd kh kw sd sh sw dd dh dw pd ph pw"
#define POOL_KEYS "mb ic id ih iw od oh ow kd kh kw sd sh sw dd dh dw pd ph pw"

static const struct {
    const char *kind;
    int prefix;       /* match "softmax", "softmax_v2" ... */
    int shape_first;  /* the problem descriptor is a shape ("mb16_ic64...") to parse first */
    const char *keys; /* with shape_first: the keys it may hold */
    int (*fn)(const dn_call *, cost *, rt_error *);
    const char *counts;
} kinds[] = {
    {"convolution", 0, 1, CONV_KEYS, k_conv, "macs bias_adds"},
    {"deconvolution", 0, 1, CONV_KEYS, k_conv, "macs bias_adds"},
    {"inner_product", 0, 1, "mb ic oc id ih iw", k_ip, "macs bias_adds"},
    {"rnn", 0, 1, "l t mb sic slc dhc dic", k_rnn, "cells gemm_macs bias_adds"},
    {"batch_normalization", 0, 1, "mb ic id ih iw", k_bnorm,
     "elems global_stats scale_shift scale shift relu"},
    {"pooling", 1, 1, POOL_KEYS, k_pool, "window_taps avg dst"},
    {"matmul", 0, 0, NULL, k_matmul, "macs bias_adds"},
    /* 3.x's dnnl_sgemm and its kin, logged as "gemm_api" with the matmul's "MxK:KxN" problem */
    {"gemm_api", 0, 0, NULL, k_matmul, "macs bias_adds"},
    {"layer_normalization", 0, 0, NULL, k_lnorm, "elems global_stats scale_shift scale shift relu"},
    {"eltwise", 0, 0, NULL, k_elementwise, "elems two_op"},
    {"softmax", 1, 0, NULL, k_elementwise, "elems"},
    {"logsoftmax", 0, 0, NULL, k_elementwise, "elems"},
    {"binary", 0, 0, NULL, k_lists, "dst src sources"},
    {"sum", 0, 0, NULL, k_lists, "dst src sources"},
    {"concat", 0, 0, NULL, k_lists, "dst src sources"},
    {"reorder", 0, 0, NULL, k_lists, "dst src sources"},
    {"shuffle", 0, 0, NULL, k_lists, "dst src sources"},
    {"prelu", 0, 0, NULL, k_lists, "dst src sources"},
    {"reduction", 0, 0, NULL, k_lists, "dst src sources"},
    {"resampling", 0, 0, NULL, k_lists, "dst src sources"},
};

/* The first key of sh that is not a word of keys (space-separated), or NULL. */
static const char *unknown_key(const rt_shape *sh, const char *keys)
{
    for (int i = 0; i < sh->n; i++) {
        size_t kl = strlen(sh->kv[i].k);
        const char *p = keys;
        for (; (p = strstr(p, sh->kv[i].k)) != NULL; p += kl)
            if ((p == keys || p[-1] == ' ') && (p[kl] == ' ' || p[kl] == '\0'))
                break;
        if (!p)
            return sh->kv[i].k;
    }
    return NULL;
}

const char *rt_onednn_kind_counts(const char *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, kind) == 0)
            return kinds[i].counts;
    return NULL;
}

int rt_onednn_cost(const rt_onednn_model *model, const char *kind, const char *prop,
                   const mdlist *ml, const char *aux, const char *problem, int window, cost *c,
                   rt_onednn_coverage *coverage, rt_error *err)
{
    memset(c, 0, sizeof *c);
    *coverage = RT_ONEDNN_UNMODELLED;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].kind);
        if (kinds[i].prefix ? strncmp(kind, kinds[i].kind, n) != 0
                            : strcmp(kind, kinds[i].kind) != 0)
            continue;
        rt_shape sh;
        if (kinds[i].shape_first && rt_shape_parse(problem, &sh) != 0) {
            rt_error_set(err, "cannot read problem descriptor '%s'", problem);
            return -1;
        }
        const char *odd = kinds[i].shape_first ? unknown_key(&sh, kinds[i].keys) : NULL;
        if (odd) {
            rt_error_set(err, "key '%s' is not one of %s's (%s)", odd, kinds[i].kind,
                         kinds[i].keys);
            *coverage = RT_ONEDNN_UNREAD_KEY;
            return 0;
        }
        const rt_onednn_kind_model *km = rt_onednn_model_kind(model, kinds[i].kind);
        dn_call x = {kind, problem, prop, aux, ml, kinds[i].shape_first ? &sh : NULL, km, window};
        if (kinds[i].fn(&x, c, err) != 0)
            return -1;
        if (km) {
            c->flops = rt_onednn_model_flops(km, prop, &c->n);
            c->flops_known = 1;
        }
        *coverage = c->flops_known ? RT_ONEDNN_MODELLED : RT_ONEDNN_NO_FLOPS;
        return 0;
    }
    return 0;
}
