/* One decode step through oneDNN: the QKV projection as a matmul, the new key and value copied
 * into the caches (a C kernel), the attention as two batched matmuls over strided views of the
 * projection and the caches (no copies; the scale as the first one's output scale) with a softmax
 * between them, the output projection, and the MLP with GELU fused into its up matmul. Weights in
 * oneDNN's layout, reordered once at set-up. fp32 and bf16 (where oneDNN has them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime-config.h"
#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif

#include "xformer-internal.h"
#include "xformer-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
enum {
    M_X,
    M_WQKV,
    M_QKV,
    M_Q,
    M_KC,
    M_KT,
    M_VC,
    M_S,
    M_O,
    M_O2,
    M_WO,
    M_A,
    M_W1,
    M_H,
    M_W2,
    M_Y,
    M_COUNT
};
enum { P_QKV, P_SCORES, P_SOFTMAX, P_VALUES, P_OUT, P_UP, P_DOWN, P_COUNT };

typedef struct decode_onednn {
    rt_study_case base;
    rt_decode_shape s;
    size_t esize;
    rt_dnnl_engine e;
    dnnl_memory_t m[M_COUNT];
    rt_xf_prim k[P_COUNT];
    rt_kernel_cost append;
} decode_onednn;

static void kv_append(decode_onednn *d)
{
    long B = d->s.batch, H = d->s.heads, D = d->s.hidden, Dh = D / H, n = d->s.cache + 1;
    size_t e = d->esize;
    char *qkv, *kc, *vc;
    dnnl_memory_get_data_handle(d->m[M_QKV], (void **)&qkv);
    dnnl_memory_get_data_handle(d->m[M_KC], (void **)&kc);
    dnnl_memory_get_data_handle(d->m[M_VC], (void **)&vc);
#pragma omp parallel for schedule(static)
    for (long bh = 0; bh < B * H; bh++) {
        long b = bh / H, h = bh % H;
        memcpy(kc + (size_t)((bh * n + n - 1) * Dh) * e, qkv + (size_t)(b * 3 * D + D + h * Dh) * e,
               (size_t)Dh * e);
        memcpy(vc + (size_t)((bh * n + n - 1) * Dh) * e,
               qkv + (size_t)(b * 3 * D + 2 * D + h * Dh) * e, (size_t)Dh * e);
    }
}

static int onednn_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    decode_onednn *d = (decode_onednn *)base;
    if (rt_xf_run(&d->k[P_QKV], &d->e, t, err) < 0)
        return -1;
    rt_timer_start(t);
    kv_append(d);
    rt_timer_stop(t, &d->append);
    for (int i = P_SCORES; i < P_COUNT; i++)
        if (rt_xf_run(&d->k[i], &d->e, t, err) < 0)
            return -1;
    return 0;
}

static float *onednn_out(rt_study_case *base, size_t *n)
{
    decode_onednn *d = (decode_onednn *)base;
    return rt_xf_read(&d->e, d->m[M_Y], n);
}

static void onednn_free(rt_study_case *base)
{
    decode_onednn *d = (decode_onednn *)base;
    for (int i = 0; i < P_COUNT; i++)
        rt_xf_prim_release(&d->k[i]);
    for (int i = 0; i < M_COUNT; i++)
        dnnl_memory_destroy(d->m[i]);
    rt_dnnl_engine_close(&d->e);
    free(d->base.impl);
    free(d->base.note);
    free(d);
}

/* A projection matmul src [B][K] x W [K][N] -> dst (post-op alg: GELU or none), its weights
 * filled from w in the layout oneDNN chose. */
static int projection(decode_onednn *d, int p, const char *name, int src, long K, long N,
                      const float *w, int wslot, int dst, dnnl_alg_kind_t alg, rt_precision prec,
                      rt_error *err)
{
    long B = d->s.batch;
    double e = (double)d->esize;
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    dnnl_memory_desc_t sm, wm, dm, chosen;
    rt_xf_md(&sm, 2, (dnnl_dim_t[]){B, K}, dt, NULL);
    rt_xf_md_any(&wm, 2, (dnnl_dim_t[]){K, N}, dt);
    rt_xf_md(&dm, 2, (dnnl_dim_t[]){B, N}, dt, NULL);
    rt_xf_count c = rt_xf_gemm_count((double)B, (double)N, (double)K, e);
    if (alg)
        c.flops += (double)B * N * RT_XF_GELU_FLOPS;
    dnnl_primitive_attr_t attr = rt_xf_attr(1.0f, alg, 0, 0, NULL);
    int rc = rt_xf_matmul(&d->k[p], &d->e, name, &sm, &wm, &dm, attr, prec, c, &chosen, err);
    dnnl_primitive_attr_destroy(attr);
    if (rc < 0 || rt_xf_mem(&d->e, &chosen, w, &d->m[wslot], err) < 0 ||
        (!d->m[dst] && rt_xf_mem(&d->e, &dm, NULL, &d->m[dst], err) < 0))
        return -1;
    rt_xf_arg(&d->k[p], DNNL_ARG_SRC, d->m[src]);
    rt_xf_arg(&d->k[p], DNNL_ARG_WEIGHTS, d->m[wslot]);
    rt_xf_arg(&d->k[p], DNNL_ARG_DST, d->m[dst]);
    return 0;
}

/* The attention's memories (caches, views) and its three primitives. */
static int attention(decode_onednn *d, const rt_decode_data *dd, rt_precision prec, rt_error *err)
{
    long B = d->s.batch, H = d->s.heads, D = d->s.hidden, Dh = D / H, n = d->s.cache + 1;
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    double e = (double)d->esize;
    dnnl_memory_desc_t q, kc, kt, sc, o, o2;
    rt_xf_md(&q, 4, (dnnl_dim_t[]){B, H, 1, Dh}, dt, (dnnl_dim_t[]){3 * D, Dh, Dh, 1});
    rt_xf_md(&kc, 4, (dnnl_dim_t[]){B, H, n, Dh}, dt, NULL);
    rt_xf_md(&kt, 4, (dnnl_dim_t[]){B, H, Dh, n}, dt, (dnnl_dim_t[]){H * n * Dh, n * Dh, 1, Dh});
    rt_xf_md(&sc, 4, (dnnl_dim_t[]){B, H, 1, n}, dt, NULL);
    rt_xf_md(&o, 4, (dnnl_dim_t[]){B, H, 1, Dh}, dt, NULL);
    rt_xf_md(&o2, 2, (dnnl_dim_t[]){B, D}, dt, NULL);
    if (rt_xf_view(&d->e, &q, d->m[M_QKV], &d->m[M_Q], err) < 0 ||
        rt_xf_mem(&d->e, &kc, dd->kc, &d->m[M_KC], err) < 0 ||
        rt_xf_view(&d->e, &kt, d->m[M_KC], &d->m[M_KT], err) < 0 ||
        rt_xf_mem(&d->e, &kc, dd->vc, &d->m[M_VC], err) < 0 ||
        rt_xf_mem(&d->e, &sc, NULL, &d->m[M_S], err) < 0 ||
        rt_xf_mem(&d->e, &o, NULL, &d->m[M_O], err) < 0 ||
        rt_xf_view(&d->e, &o2, d->m[M_O], &d->m[M_O2], err) < 0)
        return -1;
    rt_xf_count at[3];
    rt_decode_attn_counts(&d->s, e, e, true, at);
    dnnl_primitive_attr_t attr = rt_xf_attr(1.0f / sqrtf((float)Dh), 0, 0, 0, NULL);
    int rc = rt_xf_matmul(&d->k[P_SCORES], &d->e, "matmul_scores", &q, &kt, &sc, attr, prec, at[0],
                          NULL, err);
    dnnl_primitive_attr_destroy(attr);
    if (rc < 0 || rt_xf_softmax(&d->k[P_SOFTMAX], &d->e, "softmax", &sc, 3, prec, at[1], err) < 0 ||
        rt_xf_matmul(&d->k[P_VALUES], &d->e, "matmul_values", &sc, &kc, &o, NULL, prec, at[2], NULL,
                     err) < 0)
        return -1;
    rt_xf_arg(&d->k[P_SCORES], DNNL_ARG_SRC, d->m[M_Q]);
    rt_xf_arg(&d->k[P_SCORES], DNNL_ARG_WEIGHTS, d->m[M_KT]);
    rt_xf_arg(&d->k[P_SCORES], DNNL_ARG_DST, d->m[M_S]);
    rt_xf_arg(&d->k[P_SOFTMAX], DNNL_ARG_SRC, d->m[M_S]);
    rt_xf_arg(&d->k[P_SOFTMAX], DNNL_ARG_DST, d->m[M_S]);
    rt_xf_arg(&d->k[P_VALUES], DNNL_ARG_SRC, d->m[M_S]);
    rt_xf_arg(&d->k[P_VALUES], DNNL_ARG_WEIGHTS, d->m[M_VC]);
    rt_xf_arg(&d->k[P_VALUES], DNNL_ARG_DST, d->m[M_O]);
    return 0;
}

static int build(decode_onednn *d, const rt_decode_data *dd, rt_precision prec, rt_error *err)
{
    long B = d->s.batch, D = d->s.hidden, F = d->s.ffn;
    dnnl_memory_desc_t x;
    rt_xf_md(&x, 2, (dnnl_dim_t[]){B, D}, rt_dnnl_type(prec), NULL);
    if (rt_xf_mem(&d->e, &x, dd->x, &d->m[M_X], err) < 0 ||
        projection(d, P_QKV, "matmul_qkv", M_X, D, 3 * D, dd->wqkv, M_WQKV, M_QKV, 0, prec, err) <
            0 ||
        attention(d, dd, prec, err) < 0 ||
        projection(d, P_OUT, "matmul_out", M_O2, D, D, dd->wo, M_WO, M_A, 0, prec, err) < 0 ||
        projection(d, P_UP, "matmul_up_gelu", M_A, D, F, dd->w1, M_W1, M_H, dnnl_eltwise_gelu_erf,
                   prec, err) < 0 ||
        projection(d, P_DOWN, "matmul_down", M_H, F, D, dd->w2, M_W2, M_Y, 0, prec, err) < 0)
        return -1;
    d->append = rt_xf_cost("kv_append", (rt_xf_count){0, 4.0 * B * D * (double)d->esize, 0}, NULL);
#ifdef RT_HAVE_OPENMP
    /* rooftime's own copy in a parallel region, not a oneDNN primitive: it pays the fork/join */
    d->append.overhead = RT_OVERHEAD_OPENMP;
    d->append.overhead_threads = omp_get_max_threads();
#else
    d->append.overhead = RT_OVERHEAD_NONE;
#endif
    return 0;
}
#endif

int rt_decode_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                         rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_decode_shape_check(&pt->dec, err) < 0 ||
        rt_xformer_require("onednn decode", prec, pass, false, err) < 0)
        return -1;
#ifdef RT_HAVE_DNNL
    decode_onednn *d = rt_xcalloc(1, sizeof *d);
    d->base.run = onednn_run;
    d->base.out = onednn_out;
    d->base.free = onednn_free;
    d->s = pt->dec;
    d->esize = prec == RT_PREC_FP32 ? 4 : 2;
    rt_decode_data dd;
    rt_decode_data_init(&dd, &pt->dec, seed);
    int rc = rt_dnnl_engine_open(&d->e, err) < 0 ? -1 : build(d, &dd, prec, err);
    rt_decode_data_release(&dd);
    return rt_xf_case_done(&d->base, d->k, P_COUNT, rc, out);
#else
    (void)seed;
    return rt_dnnl_missing(err);
#endif
}
