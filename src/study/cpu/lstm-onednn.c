/* The LSTM through oneDNN's fused LSTM primitives (forward training and backward); weight reorders
 * between the user's ldigo layout and oneDNN's choice are kernels of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lstm-data.h"
#include "study-onednn-internal.h"
#include "rooftime/study/lstm-onednn.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
/* The tensors of the primitive, in the order of `args` below. */
enum {
    T_SRC_LAYER,
    T_SRC_ITER,
    T_SRC_ITER_C,
    T_W_LAYER,
    T_W_ITER,
    T_BIAS,
    T_DST_LAYER,
    T_DST_ITER,
    T_DST_ITER_C,
    T_WORKSPACE,
    T_DSRC_LAYER,
    T_DSRC_ITER,
    T_DSRC_ITER_C,
    T_DW_LAYER,
    T_DW_ITER,
    T_DBIAS,
    T_DDST_LAYER,
    T_DDST_ITER,
    T_DDST_ITER_C,
    T_COUNT
};
static const int arg_of[T_COUNT] = {
    DNNL_ARG_SRC_LAYER,       DNNL_ARG_SRC_ITER,           DNNL_ARG_SRC_ITER_C,
    DNNL_ARG_WEIGHTS_LAYER,   DNNL_ARG_WEIGHTS_ITER,       DNNL_ARG_BIAS,
    DNNL_ARG_DST_LAYER,       DNNL_ARG_DST_ITER,           DNNL_ARG_DST_ITER_C,
    DNNL_ARG_WORKSPACE,       DNNL_ARG_DIFF_SRC_LAYER,     DNNL_ARG_DIFF_SRC_ITER,
    DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
    DNNL_ARG_DIFF_BIAS,       DNNL_ARG_DIFF_DST_LAYER,     DNNL_ARG_DIFF_DST_ITER,
    DNNL_ARG_DIFF_DST_ITER_C};

/* Data types: activations, cell state, bias, weight gradients. */
typedef struct lstm_types {
    dnnl_data_type_t dt, ct, bt, dwt, ddt; /* ddt: gradients of the activations */
} lstm_types;

typedef struct onednn_lstm {
    rt_study_case base;
    rt_lstm_shape s;
    rt_precision prec;
    rt_pass pass;
    rt_dnnl_engine e;
    dnnl_primitive_t fwd, bwd;
    dnnl_memory_t user[T_COUNT]; /* plain layouts (what a framework holds) */
    dnnl_memory_t prim[T_COUNT]; /* what the primitive is given */
    rt_dnnl_reorder re_w[2], re_dw[2];
    int n_args;
    rt_kernel_cost cost;
    double zero_bytes;
    char impl[96];
    char unit[24];
} onednn_lstm;

static int lstm_exec(onednn_lstm *d, dnnl_primitive_t p, int n, rt_study_timer *t,
                     const rt_kernel_cost *cost, rt_error *err)
{
    dnnl_exec_arg_t args[T_COUNT];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (d->prim[i])
            args[m++] = (dnnl_exec_arg_t){arg_of[i], d->prim[i]};
    return rt_dnnl_exec(p, d->e.strm, m, args, t, cost, err);
}

static void zero_mem(dnnl_memory_t m)
{
    const dnnl_memory_desc_t *md;
    void *h = NULL;
    dnnl_memory_get_memory_desc(m, &md);
    dnnl_memory_get_data_handle(m, &h);
    memset(h, 0, dnnl_memory_desc_get_size(md));
}

static int lstm_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    onednn_lstm *d = (onednn_lstm *)base;
    if (rt_dnnl_reorder_run(&d->re_w[0], d->e.strm, t, "reorder_weights_layer", err) < 0 ||
        rt_dnnl_reorder_run(&d->re_w[1], d->e.strm, t, "reorder_weights_iter", err) < 0)
        return -1;
    if (d->pass == RT_PASS_FWD)
        return lstm_exec(d, d->fwd, T_WORKSPACE + 1, t, &d->cost, err);
    /* oneDNN's RNN backward adds into the weight gradients: clear them, as a framework does */
    rt_kernel_cost zc = {.name = "zero_grads",
                         .unit = "fp32",
                         .flops = 0,
                         .dram_bytes = d->zero_bytes,
                         .l1_bytes = -1,
                         .overhead = RT_OVERHEAD_NONE}; /* memsets, no primitive */
    rt_timer_start(t);
    zero_mem(d->prim[T_DW_LAYER]);
    zero_mem(d->prim[T_DW_ITER]);
    zero_mem(d->prim[T_DBIAS]);
    rt_timer_stop(t, &zc);
    if (lstm_exec(d, d->bwd, T_COUNT, t, &d->cost, err) < 0)
        return -1;
    if (rt_dnnl_reorder_run(&d->re_dw[0], d->e.strm, t, "reorder_diff_weights_layer", err) < 0 ||
        rt_dnnl_reorder_run(&d->re_dw[1], d->e.strm, t, "reorder_diff_weights_iter", err) < 0)
        return -1;
    return 0;
}

static const dnnl_format_tag_t user_tag[T_COUNT] = {
    dnnl_tnc,  dnnl_ldnc, dnnl_ldnc, dnnl_ldigo, dnnl_ldigo,
    dnnl_ldgo, dnnl_tnc,  dnnl_ldnc, dnnl_ldnc,  dnnl_format_tag_undef,
    dnnl_tnc,  dnnl_ldnc, dnnl_ldnc, dnnl_ldigo, dnnl_ldigo,
    dnnl_ldgo, dnnl_tnc,  dnnl_ldnc, dnnl_ldnc};

static float *lstm_out(rt_study_case *base, size_t *n)
{
    onednn_lstm *d = (onednn_lstm *)base;
    static const int fwd_parts[] = {T_DST_LAYER, T_DST_ITER_C};
    static const int bwd_parts[] = {T_DSRC_LAYER, T_DW_LAYER,  T_DW_ITER,
                                    T_DBIAS,      T_DSRC_ITER, T_DSRC_ITER_C};
    const int *parts = d->pass == RT_PASS_FWD ? fwd_parts : bwd_parts;
    int np = d->pass == RT_PASS_FWD ? 2 : 6;
    *n = rt_lstm_out_elems(&d->s, d->pass);
    float *out = rt_xmalloc(*n * sizeof *out);
    size_t off = 0;
    for (int i = 0; i < np; i++) {
        rt_error err;
        size_t m = 0;
        float *f =
            rt_dnnl_read_f32(d->e.eng, d->e.strm, d->user[parts[i]], user_tag[parts[i]], &m, &err);
        if (!f || off + m > *n) { /* a check with nothing to compare fails on the NaN */
            free(f);
            for (size_t j = 0; j < *n; j++)
                out[j] = 0.0f / 0.0f;
            return out;
        }
        memcpy(out + off, f, m * sizeof *f);
        off += m;
        free(f);
    }
    return out;
}

static void lstm_free(rt_study_case *base)
{
    onednn_lstm *d = (onednn_lstm *)base;
    for (int i = 0; i < 2; i++) {
        rt_dnnl_reorder_release(&d->re_w[i]);
        rt_dnnl_reorder_release(&d->re_dw[i]);
    }
    for (int i = 0; i < T_COUNT; i++)
        dnnl_memory_destroy(d->user[i]);
    dnnl_memory_destroy(d->prim[T_WORKSPACE]); /* the other prim[] are user[] or a reorder's */
    dnnl_primitive_destroy(d->fwd);
    dnnl_primitive_destroy(d->bwd);
    rt_dnnl_engine_close(&d->e);
    free(d->base.note);
    free(d->base.impl);
    free(d);
}

/* Memory descriptors of every tensor for the types ty; weights left to oneDNN (any) when any. */
static void lstm_mds(const rt_lstm_shape *s, const lstm_types *ty, bool any, dnnl_memory_desc_t *md)
{
    dnnl_dims_t layer_in = {s->seq, s->batch, s->features},
                layer_out = {s->seq, s->batch, s->hidden};
    dnnl_dims_t iter = {1, 1, s->batch, s->hidden};
    dnnl_dims_t wl = {1, 1, s->features, 4, s->hidden}, wi = {1, 1, s->hidden, 4, s->hidden};
    dnnl_dims_t b = {1, 1, 4, s->hidden};
    dnnl_format_tag_t wt = any ? dnnl_format_tag_any : dnnl_ldigo;
    memset(md, 0, sizeof(dnnl_memory_desc_t) * T_COUNT);
    dnnl_memory_desc_init_by_tag(&md[T_SRC_LAYER], 3, layer_in, ty->dt, dnnl_tnc);
    dnnl_memory_desc_init_by_tag(&md[T_SRC_ITER], 4, iter, ty->dt, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_SRC_ITER_C], 4, iter, ty->ct, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_W_LAYER], 5, wl, ty->dt, wt);
    dnnl_memory_desc_init_by_tag(&md[T_W_ITER], 5, wi, ty->dt, wt);
    dnnl_memory_desc_init_by_tag(&md[T_BIAS], 4, b, ty->bt, dnnl_ldgo);
    dnnl_memory_desc_init_by_tag(&md[T_DST_LAYER], 3, layer_out, ty->dt, dnnl_tnc);
    dnnl_memory_desc_init_by_tag(&md[T_DST_ITER], 4, iter, ty->dt, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_DST_ITER_C], 4, iter, ty->ct, dnnl_ldnc);
    dnnl_data_type_t gt = ty->dwt; /* gradients of f32 tensors stay f32 */
    dnnl_memory_desc_init_by_tag(&md[T_DSRC_LAYER], 3, layer_in, ty->ddt, dnnl_tnc);
    dnnl_memory_desc_init_by_tag(&md[T_DSRC_ITER], 4, iter, ty->ddt, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_DSRC_ITER_C], 4, iter, ty->ct, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_DW_LAYER], 5, wl, gt, wt);
    dnnl_memory_desc_init_by_tag(&md[T_DW_ITER], 5, wi, gt, wt);
    dnnl_memory_desc_init_by_tag(&md[T_DBIAS], 4, b, gt, dnnl_ldgo);
    dnnl_memory_desc_init_by_tag(&md[T_DDST_LAYER], 3, layer_out, ty->ddt, dnnl_tnc);
    dnnl_memory_desc_init_by_tag(&md[T_DDST_ITER], 4, iter, ty->ddt, dnnl_ldnc);
    dnnl_memory_desc_init_by_tag(&md[T_DDST_ITER_C], 4, iter, ty->ct, dnnl_ldnc);
}

static dnnl_status_t lstm_pds(const rt_lstm_shape *s, const lstm_types *ty, bool backward,
                              dnnl_engine_t eng, dnnl_primitive_desc_t *fpd,
                              dnnl_primitive_desc_t *bpd)
{
    dnnl_memory_desc_t md[T_COUNT];
    lstm_mds(s, ty, true, md);
    dnnl_rnn_desc_t fd, bd;
    dnnl_status_t st = dnnl_lstm_forward_desc_init(
        &fd, dnnl_forward_training, dnnl_unidirectional_left2right, &md[T_SRC_LAYER],
        &md[T_SRC_ITER], &md[T_SRC_ITER_C], &md[T_W_LAYER], &md[T_W_ITER], &md[T_BIAS],
        &md[T_DST_LAYER], &md[T_DST_ITER], &md[T_DST_ITER_C], 0);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(fpd, &fd, NULL, eng, NULL);
    if (st != dnnl_success || !backward)
        return st;
    st = dnnl_lstm_backward_desc_init(
        &bd, dnnl_backward, dnnl_unidirectional_left2right, &md[T_SRC_LAYER], &md[T_SRC_ITER],
        &md[T_SRC_ITER_C], &md[T_W_LAYER], &md[T_W_ITER], &md[T_BIAS], &md[T_DST_LAYER],
        &md[T_DST_ITER], &md[T_DST_ITER_C], &md[T_DSRC_LAYER], &md[T_DSRC_ITER], &md[T_DSRC_ITER_C],
        &md[T_DW_LAYER], &md[T_DW_ITER], &md[T_DBIAS], &md[T_DDST_LAYER], &md[T_DDST_ITER],
        &md[T_DDST_ITER_C], 0);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(bpd, &bd, NULL, eng, *fpd);
    return st;
}

/* Fill the user tensors: the inputs from the shared data, the rest zero. */
static int lstm_fill(onednn_lstm *d, const lstm_types *ty, uint64_t seed, rt_error *err)
{
    rt_lstm_data data;
    rt_lstm_data_init(&data, &d->s, seed);
    const float *src[T_COUNT] = {0};
    src[T_SRC_LAYER] = data.x;
    src[T_SRC_ITER] = data.h0;
    src[T_SRC_ITER_C] = data.c0;
    src[T_W_LAYER] = data.W;
    src[T_W_ITER] = data.U;
    src[T_BIAS] = data.b;
    src[T_DDST_LAYER] = data.dy;
    dnnl_memory_desc_t md[T_COUNT];
    lstm_mds(&d->s, ty, false, md);
    int rc = 0;
    int n = d->pass == RT_PASS_FWD ? T_WORKSPACE : T_COUNT;
    for (int i = 0; i < n && rc == 0; i++) {
        if (i == T_WORKSPACE)
            continue;
        size_t elems = dnnl_memory_desc_get_size(&md[i]) / (md[i].data_type == dnnl_f32 ? 4 : 2);
        float *zeros = NULL;
        if (!src[i])
            src[i] = zeros = rt_xcalloc(elems ? elems : 1, sizeof(float));
        rc = rt_dnnl_mem_from_f32(d->e.eng, d->e.strm, &md[i], user_tag[i], src[i], &d->user[i],
                                  err);
        free(zeros);
    }
    rt_lstm_data_release(&data);
    return rc;
}
#endif

int rt_lstm_onednn_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_lstm_shape_check(s, err) < 0)
        return -1;
#ifdef RT_HAVE_DNNL
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD) {
        rt_error_set(err, "onednn: lstm has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    onednn_lstm *d = rt_xcalloc(1, sizeof *d);
    d->base = (rt_study_case){.run = lstm_run, .out = lstm_out, .free = lstm_free};
    d->s = *s;
    d->prec = prec;
    d->pass = pass;
    if (rt_dnnl_engine_open(&d->e, err) < 0)
        return rt_dnnl_case_done(&d->base, -1, out);
    /* oneDNN 2.6 runs 16-bit LSTMs with the cell state, bias and weight gradients in f32, and
     * (found by trying, for bf16 backward on avx512_core_bf16) the activation gradients in f32
     * too; try those, then everything in the 16-bit type. */
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    lstm_types tries[3] = {{dt, dnnl_f32, dnnl_f32, dnnl_f32, dt},
                           {dt, dnnl_f32, dnnl_f32, dnnl_f32, dnnl_f32},
                           {dt, dt, dt, dt, dt}};
    int ntries = prec == RT_PREC_FP32 ? 1 : 3;
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    lstm_types ty = tries[0];
    dnnl_status_t st = dnnl_success;
    for (int i = 0; i < ntries; i++) {
        dnnl_primitive_desc_destroy(fpd);
        dnnl_primitive_desc_destroy(bpd);
        fpd = bpd = NULL;
        ty = tries[i];
        st = lstm_pds(s, &ty, pass == RT_PASS_BWD, d->e.eng, &fpd, &bpd);
        if (st == dnnl_success)
            break;
    }
    if (st != dnnl_success) {
        rt_dnnl_no_primitive(err, "LSTM", prec, pass, st);
        dnnl_primitive_desc_destroy(fpd);
        dnnl_primitive_desc_destroy(bpd);
        lstm_free(&d->base);
        return -1;
    }
    const_dnnl_primitive_desc_t main_pd = pass == RT_PASS_FWD ? fpd : bpd;
    snprintf(d->impl, sizeof d->impl, "%s", rt_dnnl_impl(main_pd));
    d->base.impl = rt_strdup(d->impl);
    int rc = lstm_fill(d, &ty, seed, err);
    for (int i = 0; i < T_COUNT; i++)
        d->prim[i] = d->user[i];
    /* the weights in oneDNN's layout for the pass, and the workspace of forward training */
    static const int wq[2] = {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER};
    static const int dwq[2] = {DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER};
    for (int i = 0; i < 2 && rc == 0; i++) {
        const dnnl_memory_desc_t *wmd =
            dnnl_primitive_desc_query_md(main_pd, dnnl_query_exec_arg_md, wq[i]);
        rc = rt_dnnl_reorder_init(&d->re_w[i], d->e.eng, d->user[T_W_LAYER + i], wmd, true,
                                  &d->prim[T_W_LAYER + i], err);
        if (rc == 0 && pass == RT_PASS_BWD) {
            const dnnl_memory_desc_t *dmd =
                dnnl_primitive_desc_query_md(bpd, dnnl_query_exec_arg_md, dwq[i]);
            rc = rt_dnnl_reorder_init(&d->re_dw[i], d->e.eng, d->user[T_DW_LAYER + i], dmd, false,
                                      &d->prim[T_DW_LAYER + i], err);
        }
    }
    const dnnl_memory_desc_t *wsmd = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    if (rc == 0 && wsmd && wsmd->ndims > 0 &&
        dnnl_memory_create(&d->prim[T_WORKSPACE], wsmd, d->e.eng, DNNL_MEMORY_ALLOCATE) !=
            dnnl_success) {
        rt_error_set(err, "onednn: cannot allocate the LSTM workspace");
        rc = -1;
    }
    if (rc == 0 && (dnnl_primitive_create(&d->fwd, fpd) != dnnl_success ||
                    (pass == RT_PASS_BWD && dnnl_primitive_create(&d->bwd, bpd) != dnnl_success))) {
        rt_error_set(err, "onednn: cannot create the LSTM primitives (%s)", d->impl);
        rc = -1;
    }
    if (rc == 0 && pass == RT_PASS_BWD) {
        /* the forward pass that fills the workspace the backward pass reads, untimed; the
         * forward weights may want another layout than the backward ones */
        rt_study_timer t;
        rt_timer_init(&t, NULL, NULL);
        rt_dnnl_reorder fw[2] = {{0}};
        dnnl_memory_t bw[2] = {d->prim[T_W_LAYER], d->prim[T_W_ITER]};
        for (int i = 0; i < 2 && rc == 0; i++) {
            const dnnl_memory_desc_t *wmd =
                dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, wq[i]);
            rc = rt_dnnl_reorder_init(&fw[i], d->e.eng, d->user[T_W_LAYER + i], wmd, true,
                                      &d->prim[T_W_LAYER + i], err);
            if (rc == 0)
                rc = rt_dnnl_reorder_run(&fw[i], d->e.strm, &t, "reorder", err);
        }
        rt_kernel_cost none = {.name = "lstm_fwd", .l1_bytes = -1};
        if (rc == 0)
            rc = lstm_exec(d, d->fwd, T_WORKSPACE + 1, &t, &none, err);
        for (int i = 0; i < 2; i++) {
            rt_dnnl_reorder_release(&fw[i]);
            d->prim[T_W_LAYER + i] = bw[i];
        }
    }
    double bytes = 0;
    int nt = pass == RT_PASS_FWD ? T_WORKSPACE + 1 : T_COUNT;
    for (int i = 0; i < nt && rc == 0; i++)
        if (d->prim[i]) {
            const dnnl_memory_desc_t *md;
            dnnl_memory_get_memory_desc(d->prim[i], &md);
            bytes += (double)dnnl_memory_desc_get_size(md);
            if (i == T_DW_LAYER || i == T_DW_ITER || i == T_DBIAS)
                d->zero_bytes += (double)dnnl_memory_desc_get_size(md);
        }
    char *unit_note = rt_dnnl_unit("rnn", d->impl, prec, d->unit, sizeof d->unit);
    d->cost = (rt_kernel_cost){.name = pass == RT_PASS_FWD ? "lstm_fwd" : "lstm_bwd",
                               .unit = d->unit,
                               .flops = rt_lstm_flops(s, pass),
                               .dram_bytes = bytes,
                               .l1_bytes = -1,
                               .impl = d->base.impl};
    d->base.note =
        rt_asprintf("%s; cell state %s, weight gradients %s, activation gradients %s%s%s", d->impl,
                    ty.ct == dnnl_f32 ? "f32" : rt_precision_name(prec),
                    ty.dwt == dnnl_f32 ? "f32" : rt_precision_name(prec),
                    ty.ddt == dnnl_f32 ? "f32" : rt_precision_name(prec), unit_note ? "; " : "",
                    unit_note ? unit_note : "");
    free(unit_note);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
    return rt_dnnl_case_done(&d->base, rc, out);
#else
    (void)prec, (void)pass, (void)seed;
    return rt_dnnl_missing(err);
#endif
}
