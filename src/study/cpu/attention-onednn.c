/* Attention through oneDNN, unfused: K transposed by a reorder (a kernel of its own: oneDNN 2.6
 * runs a batched matmul on a transposed view of K with the mask post-op through its reference
 * kernel only), S = Q K^T as a batched matmul (the scale as its output scale), the causal mask
 * added by a binary primitive (a kernel of its own: as the matmul's post-op, broadcast over the
 * heads, oneDNN 2.6 runs the reference kernel again), softmax over each row, O = S V as a second
 * matmul; the scores, in the run's precision, go to memory and back. fp32 and bf16 (where oneDNN
 * has them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "xformer-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
enum { M_Q, M_K, M_KT, M_V, M_S, M_O, M_MASK, M_COUNT };

typedef struct attn_onednn {
    rt_study_case base;
    rt_attn_shape s;
    rt_dnnl_engine e;
    dnnl_memory_t m[M_COUNT];
    rt_dnnl_reorder kt; /* K's transposed view into a plain K^T */
    rt_xf_prim k[4];    /* qk, mask (causal only), softmax, pv */
} attn_onednn;

static int onednn_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    attn_onednn *a = (attn_onednn *)base;
    if (rt_dnnl_reorder_run(&a->kt, a->e.strm, t, "reorder_kt", err) < 0)
        return -1;
    for (int i = 0; i < 4; i++)
        if (a->k[i].p && rt_xf_run(&a->k[i], &a->e, t, err) < 0)
            return -1;
    return 0;
}

static float *onednn_out(rt_study_case *base, size_t *n)
{
    attn_onednn *a = (attn_onednn *)base;
    return rt_xf_read(&a->e, a->m[M_O], n);
}

static void onednn_free(rt_study_case *base)
{
    attn_onednn *a = (attn_onednn *)base;
    for (int i = 0; i < 4; i++)
        rt_xf_prim_release(&a->k[i]);
    rt_dnnl_reorder_release(&a->kt);
    for (int i = 0; i < M_COUNT; i++)
        dnnl_memory_destroy(a->m[i]);
    rt_dnnl_engine_close(&a->e);
    free(a->base.impl);
    free(a->base.note);
    free(a);
}

/* The causal mask [1][L][L]: 0 where a query sees the key, -inf past it. */
static float *causal_mask(long L)
{
    float *m = rt_xmalloc((size_t)L * (size_t)L * sizeof *m);
    for (long i = 0; i < L; i++)
        for (long j = 0; j < L; j++)
            m[i * L + j] = j <= i ? 0.0f : -INFINITY;
    return m;
}

/* The memories and primitives of a; -1 with err. */
static int build(attn_onednn *a, const rt_attn_data *d, rt_precision prec, rt_error *err)
{
    const rt_attn_shape *s = &a->s;
    long BH = s->batch * s->heads, L = s->seq, D = s->head_dim;
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    double e = prec == RT_PREC_FP32 ? 4 : 2;
    dnnl_memory_desc_t q, ktv, kt, sc, o, mask;
    rt_xf_md(&q, 3, (dnnl_dim_t[]){BH, L, D}, dt, NULL);
    rt_xf_md(&ktv, 3, (dnnl_dim_t[]){BH, D, L}, dt, (dnnl_dim_t[]){L * D, 1, D});
    rt_xf_md(&kt, 3, (dnnl_dim_t[]){BH, D, L}, dt, NULL);
    rt_xf_md(&sc, 3, (dnnl_dim_t[]){BH, L, L}, dt, NULL);
    rt_xf_md(&o, 3, (dnnl_dim_t[]){BH, L, D}, dt, NULL);
    rt_xf_md(&mask, 3, (dnnl_dim_t[]){1, L, L}, dnnl_f32, NULL);
    if (rt_xf_mem(&a->e, &q, d->q, &a->m[M_Q], err) < 0 ||
        rt_xf_mem(&a->e, &q, d->k, &a->m[M_K], err) < 0 ||
        rt_xf_view(&a->e, &ktv, a->m[M_K], &a->m[M_KT], err) < 0 ||
        rt_xf_mem(&a->e, &q, d->v, &a->m[M_V], err) < 0 ||
        rt_xf_mem(&a->e, &sc, NULL, &a->m[M_S], err) < 0 ||
        rt_xf_mem(&a->e, &o, NULL, &a->m[M_O], err) < 0)
        return -1;
    if (s->causal) {
        float *mv = causal_mask(L);
        int rc = rt_xf_mem(&a->e, &mask, mv, &a->m[M_MASK], err);
        free(mv);
        if (rc < 0)
            return -1;
    }
    dnnl_primitive_attr_t attr = rt_xf_attr(1.0f / sqrtf((float)D), 0, 0, 0, NULL);
    int rc = rt_xf_matmul(&a->k[0], &a->e, "matmul_qk", &q, &kt, &sc, attr, prec,
                          rt_attn_qk_count(s, e, e, true, false), NULL, err);
    dnnl_primitive_attr_destroy(attr);
    /* the mask: one addition per score, the scores read and written (in place: once in its working
     * set), the mask read */
    double LL = (double)L * L;
    rt_xf_count mc = {(double)BH * LL, 2 * (double)BH * LL * e + LL * 4,
                      (double)BH * LL * e + LL * 4};
    if (rc < 0 ||
        (s->causal && rt_xf_binary(&a->k[1], &a->e, "mask_add", dnnl_binary_add, &sc, &mask, prec,
                                   mc, err) < 0) ||
        rt_xf_softmax(&a->k[2], &a->e, "softmax", &sc, 2, prec,
                      rt_attn_softmax_count(s, e, false, false), err) < 0 ||
        rt_xf_matmul(&a->k[3], &a->e, "matmul_pv", &sc, &q, &o, NULL, prec,
                     rt_attn_pv_count(s, e, e), NULL, err) < 0)
        return -1;
    dnnl_memory_t kt_plain = NULL;
    if (rt_dnnl_reorder_init(&a->kt, a->e.eng, a->m[M_KT], &kt, true, &kt_plain, err) < 0)
        return -1;
    rt_xf_arg(&a->k[0], DNNL_ARG_SRC, a->m[M_Q]);
    rt_xf_arg(&a->k[0], DNNL_ARG_WEIGHTS, kt_plain);
    rt_xf_arg(&a->k[0], DNNL_ARG_DST, a->m[M_S]);
    if (s->causal) {
        rt_xf_arg(&a->k[1], DNNL_ARG_SRC_0, a->m[M_S]);
        rt_xf_arg(&a->k[1], DNNL_ARG_SRC_1, a->m[M_MASK]);
        rt_xf_arg(&a->k[1], DNNL_ARG_DST, a->m[M_S]);
    }
    rt_xf_arg(&a->k[2], DNNL_ARG_SRC, a->m[M_S]);
    rt_xf_arg(&a->k[2], DNNL_ARG_DST, a->m[M_S]);
    rt_xf_arg(&a->k[3], DNNL_ARG_SRC, a->m[M_S]);
    rt_xf_arg(&a->k[3], DNNL_ARG_WEIGHTS, a->m[M_V]);
    rt_xf_arg(&a->k[3], DNNL_ARG_DST, a->m[M_O]);
    return 0;
}
#endif

int rt_attn_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_attn_shape_check(&pt->attn, err) < 0 ||
        rt_xformer_require("onednn attention", prec, pass, false, err) < 0)
        return -1;
#ifdef RT_HAVE_DNNL
    attn_onednn *a = rt_xcalloc(1, sizeof *a);
    a->base.run = onednn_run;
    a->base.out = onednn_out;
    a->base.free = onednn_free;
    a->s = pt->attn;
    rt_attn_data d;
    rt_attn_data_init(&d, &pt->attn, seed);
    int rc = rt_dnnl_engine_open(&a->e, err) < 0 ? -1 : build(a, &d, prec, err);
    rt_attn_data_release(&d);
    return rt_xf_case_done(&a->base, a->k, 4, rc, out);
#else
    (void)seed;
    return rt_dnnl_missing(err);
#endif
}
