/* oneDNN cost model, the memory-bound primitives: normalizations, eltwise and softmax, pooling,
 * and the list kinds (binary, sum, concat, reorder, shuffle, prelu, reduction, resampling). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/strings.h"

/*
 * Per-element models of the normalizations, elementwise and reduction-like kinds. Arguments named
 * "data" (2.x prints one descriptor for source and destination) count twice forward (read and
 * write) and once backward; "diff" twice (diff_dst read, diff_src written).
 */
typedef struct elem_ctx {
    double elems;    /* elements of src/dst */
    double stats;    /* elements of mean/variance (layer normalization) */
    double channels; /* batch normalization: scale/shift/mean/variance */
} elem_ctx;

static double elem_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    const elem_ctx *c = c_;
    if (strcmp(arg, "data") == 0) {
        *mult = rt_onednn_is_forward(prop) ? 2 : 1;
        return c->elems;
    }
    if (strcmp(arg, "diff") == 0) {
        *mult = 2;
        return c->elems;
    }
    if (strcmp(arg, "stats") == 0) {
        *mult = 2; /* mean and variance */
        return c->stats;
    }
    int d;
    const char *a = rt_onednn_base_arg(arg, &d);
    if (strcmp(a, "src") == 0 || strcmp(a, "dst") == 0)
        return c->elems;
    if (strcmp(a, "scale") == 0 || strcmp(a, "shift") == 0 || strcmp(a, "mean") == 0 ||
        strcmp(a, "var") == 0 || strcmp(a, "variance") == 0)
        return c->channels;
    if (strcmp(a, "ws") == 0 || strcmp(a, "workspace") == 0)
        return c->elems;
    return -1;
}

/* The normalization flags the cost model's formula reads: G (global statistics given), S (scale
 * and shift), C (scale), H (shift), R/A (fused ReLU). */
static void norm_flags(const char *aux, rt_onednn_counts *n)
{
    char flags[32];
    rt_onednn_aux_get(aux, "flags", flags, sizeof flags);
    n->global_stats = strchr(flags, 'G') != NULL;
    n->scale_shift = strchr(flags, 'S') != NULL;
    n->scale = strchr(flags, 'C') != NULL;
    n->shift = strchr(flags, 'H') != NULL;
    n->relu = strchr(flags, 'R') != NULL || strchr(flags, 'A') != NULL;
}

int rt_onednn_cost_bnorm(const rt_shape *sh, const mdlist *ml, const char *prop, const char *aux,
                         cost *c, rt_error *err)
{
    if (!rt_shape_has(sh, "mb") || !rt_shape_has(sh, "ic")) {
        rt_error_set(err, "batch normalization problem descriptor needs mb and ic");
        return -1;
    }
    elem_ctx x = {.channels = rt_shape_get(sh, "ic", 1)};
    x.elems = rt_shape_get(sh, "mb", 1) * x.channels * rt_shape_get(sh, "id", 1) *
              rt_shape_get(sh, "ih", 1) * rt_shape_get(sh, "iw", 1);
    x.stats = x.channels;
    c->n.elems = x.elems;
    norm_flags(aux, &c->n);
    if (rt_onednn_sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

int rt_onednn_cost_lnorm(const char *problem, const mdlist *ml, const char *prop, const char *aux,
                         cost *c, rt_error *err)
{
    dimlists dl;
    if (rt_onednn_dims_parse(problem, &dl) != 0 || dl.nd[0] < 2) {
        rt_error_set(err, "layer normalization problem '%s' is not dims", problem);
        return -1;
    }
    elem_ctx x = {.elems = rt_onednn_dims_prod(&dl, 0)};
    x.channels = dl.d[0][dl.nd[0] - 1];
    x.stats = x.elems / x.channels;
    c->n.elems = x.elems;
    norm_flags(aux, &c->n);
    if (rt_onednn_sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Eltwise: 1 for a function with a multiply and an add (the model's two_op_algs, matched as a
 * prefix of the algorithm; and leaky ReLU, a relu with a non-zero alpha), else 0. */
static double eltwise_two_op(const rt_onednn_kind_model *model, const char *aux)
{
    char alg[64], alpha[32];
    rt_onednn_aux_get(aux, "alg", alg, sizeof alg);
    rt_onednn_aux_get(aux, "alpha", alpha, sizeof alpha);
    const char *a = strncmp(alg, "eltwise_", 8) == 0 ? alg + 8 : alg;
    for (size_t i = 0; model && i < model->n_two_op; i++)
        if (strncmp(a, model->two_op_algs[i], strlen(model->two_op_algs[i])) == 0)
            return 1;
    return strncmp(a, "relu", 4) == 0 && alpha[0] && strtod(alpha, NULL) != 0;
}

int rt_onednn_cost_dims_elementwise(const char *kind, const rt_onednn_kind_model *model,
                                    const char *problem, const mdlist *ml, const char *prop,
                                    const char *aux, cost *c, rt_error *err)
{
    dimlists dl;
    if (rt_onednn_dims_parse(problem, &dl) != 0) {
        rt_error_set(err, "%s problem '%s' is not dims", kind, problem);
        return -1;
    }
    elem_ctx x = {.elems = rt_onednn_dims_prod(&dl, 0)};
    x.stats = x.channels = x.elems;
    c->n.elems = x.elems;
    if (strcmp(kind, "eltwise") == 0)
        c->n.two_op = eltwise_two_op(model, aux);
    if (rt_onednn_sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Pooling (and pooling_v2). */
typedef struct pool_ctx {
    double src, dst;
} pool_ctx;

static double pool_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const pool_ctx *c = c_;
    int d;
    const char *a = rt_onednn_base_arg(arg, &d);
    if (strcmp(a, "src") == 0)
        return c->src;
    if (strcmp(a, "dst") == 0 || strcmp(a, "ws") == 0)
        return c->dst;
    return -1;
}

int rt_onednn_cost_pool(int window, const rt_shape *sh, const mdlist *ml, const char *prop,
                        const char *aux, cost *c, rt_error *err)
{
    if (!rt_shape_has(sh, "mb") || !rt_shape_has(sh, "ic")) {
        rt_error_set(err, "pooling problem descriptor needs mb and ic");
        return -1;
    }
    char alg[64];
    rt_onednn_aux_get(aux, "alg", alg, sizeof alg);
    int include_pad = strstr(alg, "include_padding") != NULL;
    int avg = strstr(alg, "avg") != NULL;
    double mbc = rt_shape_get(sh, "mb", 1) * rt_shape_get(sh, "ic", 1);
    double taps = 1, src = mbc, dst = mbc;
    const char dims[3] = {'d', 'h', 'w'};
    for (int i = 0; i < 3; i++) {
        char ki[4], ko[4], kk[4], ks[4], kd[4], kp[4];
        snprintf(ki, 4, "i%c", dims[i]);
        snprintf(ko, 4, "o%c", dims[i]);
        snprintf(kk, 4, "k%c", dims[i]);
        snprintf(ks, 4, "s%c", dims[i]);
        snprintf(kd, 4, "d%c", dims[i]);
        snprintf(kp, 4, "p%c", dims[i]);
        double in = rt_shape_get(sh, ki, 1), out = rt_shape_get(sh, ko, 1),
               k = rt_shape_get(sh, kk, 1);
        double s = rt_shape_get(sh, ks, 1);
        if (s < 1) {
            rt_error_set(err, "stride %s is %g", ks, s);
            return -1;
        }
        src *= in;
        dst *= out;
        /* Average including padding divides by the whole window but still adds only real inputs. */
        taps *= include_pad || window ? out * k
                                      : rt_onednn_valid_taps(out, in, k, s, rt_shape_get(sh, kd, 0),
                                                             rt_shape_get(sh, kp, 0));
    }
    /* One compare (max) or add (avg) per tap, plus one divide per output for avg. */
    c->n.window_taps = mbc * taps;
    c->n.avg = avg;
    c->n.dst = dst;
    pool_ctx x = {src, dst};
    if (rt_onednn_sum_bytes(ml, &x, pool_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Kinds whose problem is a list of dims, one per source: binary, sum, concat, reorder, shuffle,
 * prelu, reduction, resampling. Sources take the lists in order; the destination is the
 * broadcast (binary), the sum of the concatenated lists (concat) or the last list. */
int rt_onednn_cost_lists(const char *kind, const char *problem, const mdlist *ml, const char *aux,
                         cost *c, rt_error *err)
{
    dimlists dl;
    if (rt_onednn_dims_parse(problem, &dl) != 0) {
        rt_error_set(err, "%s problem '%s' is not dims", kind, problem);
        return -1;
    }
    double dst;
    if (strcmp(kind, "binary") == 0) {
        int nd = 0;
        for (int l = 0; l < dl.n; l++)
            if (dl.nd[l] > nd)
                nd = dl.nd[l];
        dst = 1;
        for (int i = 0; i < nd; i++) {
            double m = 1;
            for (int l = 0; l < dl.n; l++) {
                int j = i - (nd - dl.nd[l]);
                if (j >= 0 && dl.d[l][j] > m)
                    m = dl.d[l][j];
            }
            dst *= m;
        }
    } else if (strcmp(kind, "concat") == 0) {
        dst = 0;
        for (int l = 0; l < dl.n; l++)
            dst += rt_onednn_dims_prod(&dl, l);
    } else {
        dst = rt_onednn_dims_prod(&dl, dl.n - 1);
    }
    int n_src = 0;
    double b = 0;
    for (int i = 0; i < ml->n; i++) {
        const mdesc *m = &ml->m[i];
        double sz = rt_onednn_dt_size(m->dt);
        if (sz <= 0)
            continue;
        int d;
        const char *a = rt_onednn_base_arg(m->arg, &d);
        if (strncmp(a, "src", 3) == 0 || strcmp(a, "wei") == 0) {
            int l = n_src < dl.n ? n_src : dl.n - 1;
            /* sum and reorder: every source has the one shape. */
            b += rt_onednn_dims_prod(&dl, l) * sz;
            n_src++;
        } else if (strcmp(a, "dst") == 0) {
            b += dst * sz;
        } else {
            rt_error_set(err, "memory descriptor '%s' is not one %s has", m->arg, kind);
            return -1;
        }
    }
    c->bytes = b;
    c->bytes_known = 1;
    c->n.dst = dst;
    c->n.src = rt_onednn_dims_prod(&dl, 0);
    c->n.sources = n_src > 1 ? n_src : 1;
    (void)aux;
    return 0;
}
