/* Conv2D through oneDNN's convolution primitives (algorithm auto, layouts chosen by oneDNN);
 * the reorders between the user's plain layout and oneDNN's are kernels of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-onednn-internal.h"
#include "rooftime/study/conv-onednn.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
/* Tensor roles: 0 src (or diff_src), 1 weights (or diff_weights), 2 dst (or diff_dst). */
typedef struct onednn_conv {
    rt_study_case base;
    rt_conv_shape s;
    rt_precision prec;
    rt_pass pass;
    rt_dnnl_engine e;
    dnnl_primitive_t conv;
    dnnl_memory_t user[3], prim[3];
    rt_dnnl_reorder re[3];
    int out_role; /* which tensor the pass writes */
    rt_kernel_cost cost;
    char name[32];
    char unit[24];
} onednn_conv;

static const char *const reorder_names[RT_PASS_COUNT][3] = {
    {"reorder_src", "reorder_weights", "reorder_dst"},
    {"reorder_diff_src", "reorder_weights", "reorder_diff_dst"},
    {"reorder_src", "reorder_diff_weights", "reorder_diff_dst"},
    {"", "", ""}};
static const int arg_ids[RT_PASS_COUNT][3] = {
    {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
    {DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST},
    {DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST},
    {0, 0, 0}};
static const dnnl_format_tag_t user_tags[3] = {dnnl_nchw, dnnl_oihw, dnnl_nchw};

static int conv_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    onednn_conv *d = (onednn_conv *)base;
    for (int i = 0; i < 3; i++)
        if (i != d->out_role &&
            rt_dnnl_reorder_run(&d->re[i], d->e.strm, t, reorder_names[d->pass][i], err) < 0)
            return -1;
    dnnl_exec_arg_t args[3];
    for (int i = 0; i < 3; i++)
        args[i] = (dnnl_exec_arg_t){arg_ids[d->pass][i], d->prim[i]};
    if (rt_dnnl_exec(d->conv, d->e.strm, 3, args, t, &d->cost, err) < 0)
        return -1;
    return rt_dnnl_reorder_run(&d->re[d->out_role], d->e.strm, t,
                               reorder_names[d->pass][d->out_role], err);
}

static float *conv_out(rt_study_case *base, size_t *n)
{
    onednn_conv *d = (onednn_conv *)base;
    rt_error err;
    float *f = rt_dnnl_read_f32(d->e.eng, d->e.strm, d->user[d->out_role], user_tags[d->out_role],
                                n, &err);
    if (!f) { /* a check with nothing to compare fails on its NaN */
        *n = 1;
        f = rt_xmalloc(sizeof *f);
        f[0] = 0.0f / 0.0f;
    }
    return f;
}

static void conv_free(rt_study_case *base)
{
    onednn_conv *d = (onednn_conv *)base;
    for (int i = 0; i < 3; i++) {
        rt_dnnl_reorder_release(&d->re[i]);
        dnnl_memory_destroy(d->user[i]);
    }
    dnnl_primitive_destroy(d->conv);
    rt_dnnl_engine_close(&d->e);
    free(d->base.note);
    free(d->base.impl);
    free(d);
}

static dnnl_status_t conv_fwd_desc(dnnl_convolution_desc_t *cd, const rt_conv_shape *s,
                                   const dnnl_memory_desc_t *md)
{
    dnnl_dims_t strides = {s->stride, s->stride}, pad = {s->pad, s->pad};
    /* right padding so the output size matches rt_conv_out_* exactly */
    dnnl_dims_t pad_r = {(rt_conv_out_h(s) - 1) * s->stride + s->r - s->h - s->pad,
                         (rt_conv_out_w(s) - 1) * s->stride + s->s - s->w - s->pad};
    return dnnl_convolution_forward_desc_init(cd, dnnl_forward_training, dnnl_convolution_auto,
                                              &md[0], &md[1], NULL, &md[2], strides, pad, pad_r);
}

/* Build the primitive descriptor of the pass; the backward ones need the forward one as a hint. */
static dnnl_status_t conv_pd(const rt_conv_shape *s, rt_pass pass, dnnl_data_type_t dt,
                             dnnl_data_type_t wdt, dnnl_engine_t eng, dnnl_primitive_desc_t *pd)
{
    dnnl_dims_t src = {s->n, s->c, s->h, s->w}, wei = {s->k, s->c, s->r, s->s};
    dnnl_dims_t dst = {s->n, s->k, rt_conv_out_h(s), rt_conv_out_w(s)};
    dnnl_dims_t strides = {s->stride, s->stride}, pad = {s->pad, s->pad};
    dnnl_dims_t pad_r = {(rt_conv_out_h(s) - 1) * s->stride + s->r - s->h - s->pad,
                         (rt_conv_out_w(s) - 1) * s->stride + s->s - s->w - s->pad};
    dnnl_memory_desc_t md[3], fmd[3];
    dnnl_memory_desc_init_by_tag(&md[0], 4, src, dt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&md[1], 4, wei, wdt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&md[2], 4, dst, dt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&fmd[0], 4, src, dt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&fmd[1], 4, wei, dt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&fmd[2], 4, dst, dt, dnnl_format_tag_any);
    dnnl_convolution_desc_t fd, cd;
    dnnl_status_t st = conv_fwd_desc(&fd, s, fmd);
    if (st != dnnl_success)
        return st;
    if (pass == RT_PASS_FWD)
        return dnnl_primitive_desc_create(pd, &fd, NULL, eng, NULL);
    dnnl_primitive_desc_t hint = NULL;
    st = dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL);
    if (st != dnnl_success)
        return st;
    if (pass == RT_PASS_BWD_DATA)
        st = dnnl_convolution_backward_data_desc_init(&cd, dnnl_convolution_auto, &md[0], &md[1],
                                                      &md[2], strides, pad, pad_r);
    else
        st = dnnl_convolution_backward_weights_desc_init(&cd, dnnl_convolution_auto, &md[0], &md[1],
                                                         NULL, &md[2], strides, pad, pad_r);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(pd, &cd, NULL, eng, hint);
    dnnl_primitive_desc_destroy(hint);
    return st;
}

static const dnnl_query_t md_queries[RT_PASS_COUNT][3] = {
    {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md},
    {dnnl_query_diff_src_md, dnnl_query_weights_md, dnnl_query_diff_dst_md},
    {dnnl_query_src_md, dnnl_query_diff_weights_md, dnnl_query_diff_dst_md},
    {0, 0, 0}};
#endif

int rt_conv_onednn_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_conv_shape_check(s, err) < 0)
        return -1;
#ifdef RT_HAVE_DNNL
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD_DATA && pass != RT_PASS_BWD_WEIGHTS) {
        rt_error_set(err, "onednn: conv2d has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    onednn_conv *d = rt_xcalloc(1, sizeof *d);
    d->base = (rt_study_case){.run = conv_run, .out = conv_out, .free = conv_free};
    d->s = *s;
    d->prec = prec;
    d->pass = pass;
    d->out_role = pass == RT_PASS_FWD ? 2 : pass == RT_PASS_BWD_DATA ? 0 : 1;
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    dnnl_primitive_desc_t pd = NULL;
    if (rt_dnnl_engine_open(&d->e, err) < 0)
        return rt_dnnl_case_done(&d->base, -1, out);
    dnnl_data_type_t wdt = dt;
    dnnl_status_t st = conv_pd(s, pass, dt, wdt, d->e.eng, &pd);
    if (st != dnnl_success && pass == RT_PASS_BWD_WEIGHTS && prec != RT_PREC_FP32) {
        wdt = dnnl_f32; /* some implementations write 16-bit weight gradients in f32 only */
        st = conv_pd(s, pass, dt, wdt, d->e.eng, &pd);
    }
    if (st != dnnl_success) {
        rt_dnnl_no_primitive(err, "convolution", prec, pass, st);
        conv_free(&d->base);
        return -1;
    }
    const char *impl = rt_dnnl_impl(pd);
    d->base.impl = rt_strdup(impl);
    dnnl_dims_t dims[3] = {{s->n, s->c, s->h, s->w},
                           {s->k, s->c, s->r, s->s},
                           {s->n, s->k, rt_conv_out_h(s), rt_conv_out_w(s)}};
    double tensor_bytes = 0;
    int rc = 0;
    char layouts[3][32];
    for (int i = 0; i < 3 && rc == 0; i++) {
        const dnnl_memory_desc_t *pmd = dnnl_primitive_desc_query_md(pd, md_queries[pass][i], 0);
        dnnl_memory_desc_t umd;
        dnnl_memory_desc_init_by_tag(&umd, 4, dims[i], i == 1 ? wdt : dt, user_tags[i]);
        size_t n = (size_t)dims[i][0] * dims[i][1] * dims[i][2] * dims[i][3];
        float *vals = rt_xmalloc(n * sizeof *vals);
        rt_study_fill_random(vals, n, &seed); /* same order and seed as the other implementations */
        rc = rt_dnnl_mem_from_f32(d->e.eng, d->e.strm, &umd, user_tags[i], vals, &d->user[i], err);
        free(vals);
        if (rc == 0)
            rc = rt_dnnl_reorder_init(&d->re[i], d->e.eng, d->user[i], pmd, i != d->out_role,
                                      &d->prim[i], err);
        tensor_bytes += (double)dnnl_memory_desc_get_size(pmd);
        snprintf(layouts[i], sizeof layouts[i], "%s", d->re[i].prim ? "reordered" : "plain");
    }
    if (rc == 0 && dnnl_primitive_create(&d->conv, pd) != dnnl_success) {
        rt_error_set(err, "onednn: cannot create the %s primitive", impl);
        rc = -1;
    }
    /* FLOPs of the algorithm oneDNN runs: gemm-based implementations multiply the padded
     * column matrix, the direct jit kernels skip the padding; Winograd (its name says F(m, r):
     * "wino_4x3") multiplies (m + r - 1)^2 transformed elements per tile, and its transforms
     * are not counted: a lower bound (said in the note). A Winograd whose F(m, r) its name does
     * not give keeps the direct count, said too. */
    double macs = strstr(impl, "gemm") ? rt_conv_macs_padded(s) : rt_conv_macs_valid(s);
    char wino[96] = "";
    if (strstr(impl, "wino")) {
        int m = 0, r = 0;
        const char *f = strstr(impl, "wino_");
        double wm =
            f && sscanf(f, "wino_%dx%d", &m, &r) == 2 ? rt_conv_macs_winograd(s, pass, m, r) : -1;
        if (wm > 0) {
            macs = wm;
            snprintf(wino, sizeof wino,
                     " (Winograd F(%dx%d, %dx%d): FLOPs of its tile products, not its transforms)",
                     m, m, r, r);
        } else
            snprintf(wino, sizeof wino, " (Winograd: FLOPs counted as direct)");
    }
    snprintf(d->name, sizeof d->name, "conv_%s",
             pass == RT_PASS_FWD        ? "fwd"
             : pass == RT_PASS_BWD_DATA ? "bwd_data"
                                        : "bwd_weights");
    char *unit_note = rt_dnnl_unit("convolution", impl, prec, d->unit, sizeof d->unit);
    d->cost = (rt_kernel_cost){.name = d->name,
                               .unit = d->unit,
                               .flops = 2 * macs,
                               .dram_bytes = tensor_bytes,
                               .l1_bytes = -1,
                               .impl = d->base.impl};
    d->base.note = rt_asprintf("%s%s; src %s, weights %s, dst %s%s%s%s", impl, wino, layouts[0],
                               layouts[1], layouts[2], wdt != dt ? "; weight gradient in f32" : "",
                               unit_note ? "; " : "", unit_note ? unit_note : "");
    free(unit_note);
    dnnl_primitive_desc_destroy(pd);
    return rt_dnnl_case_done(&d->base, rc, out);
#else
    (void)prec, (void)pass, (void)seed;
    return rt_dnnl_missing(err);
#endif
}
