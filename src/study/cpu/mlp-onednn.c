/* The MLP block through oneDNN, fused where oneDNN fuses: the up projection's matmul with GELU as
 * its post-op (gated: the up matmul, then the gate matmul with silu and the multiply by up as
 * post-ops), then the down matmul. The weights in the layout oneDNN chose, reordered once at set-up
 * as an inference engine packs them. fp32 and bf16 (where oneDNN has them). */
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
enum { M_X, M_WU, M_WG, M_WD, M_U, M_H, M_Y, M_COUNT };

typedef struct mlp_onednn {
    rt_study_case base;
    rt_mlp_shape s;
    rt_dnnl_engine e;
    dnnl_memory_t m[M_COUNT];
    rt_xf_prim k[3]; /* up (+GELU), gate (+silu, *up: gated only), down */
} mlp_onednn;

static int onednn_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    mlp_onednn *m = (mlp_onednn *)base;
    for (int i = 0; i < 3; i++)
        if (m->k[i].p && rt_xf_run(&m->k[i], &m->e, t, err) < 0)
            return -1;
    return 0;
}

static float *onednn_out(rt_study_case *base, size_t *n)
{
    mlp_onednn *m = (mlp_onednn *)base;
    return rt_xf_read(&m->e, m->m[M_Y], n);
}

static void onednn_free(rt_study_case *base)
{
    mlp_onednn *m = (mlp_onednn *)base;
    for (int i = 0; i < 3; i++)
        rt_xf_prim_release(&m->k[i]);
    for (int i = 0; i < M_COUNT; i++)
        dnnl_memory_destroy(m->m[i]);
    rt_dnnl_engine_close(&m->e);
    free(m->base.impl);
    free(m->base.note);
    free(m);
}

/* A weight matrix [rows][cols] in the layout matmul k chose (*chosen), filled from w. */
static int weights(mlp_onednn *m, const dnnl_memory_desc_t *chosen, const float *w, int slot,
                   rt_error *err)
{
    return rt_xf_mem(&m->e, chosen, w, &m->m[slot], err);
}

static int build(mlp_onednn *m, const rt_mlp_data *d, rt_precision prec, rt_error *err)
{
    const rt_mlp_shape *s = &m->s;
    long T = s->tokens, D = s->hidden, F = s->ffn;
    double e = prec == RT_PREC_FP32 ? 4 : 2, Td = (double)T, Dd = (double)D, Fd = (double)F;
    dnnl_data_type_t dt = rt_dnnl_type(prec);
    dnnl_memory_desc_t x, wu, wd, u, y, cu, cd, cg;
    rt_xf_md(&x, 2, (dnnl_dim_t[]){T, D}, dt, NULL);
    rt_xf_md_any(&wu, 2, (dnnl_dim_t[]){D, F}, dt);
    rt_xf_md_any(&wd, 2, (dnnl_dim_t[]){F, D}, dt);
    rt_xf_md(&u, 2, (dnnl_dim_t[]){T, F}, dt, NULL);
    rt_xf_md(&y, 2, (dnnl_dim_t[]){T, D}, dt, NULL);
    rt_xf_count up = rt_xf_gemm_count(Td, Fd, Dd, e), down = rt_xf_gemm_count(Td, Dd, Fd, e);
    if (!s->gated) /* GELU fused: its FLOPs, no traffic of its own */
        up.flops += Td * Fd * RT_XF_GELU_FLOPS;
    dnnl_primitive_attr_t attr = rt_xf_attr(1.0f, s->gated ? 0 : dnnl_eltwise_gelu_erf, 0, 0, NULL);
    int rc = rt_xf_matmul(&m->k[0], &m->e, s->gated ? "matmul_up" : "matmul_up_gelu", &x, &wu, &u,
                          attr, prec, up, &cu, err);
    dnnl_primitive_attr_destroy(attr);
    if (rc < 0 ||
        rt_xf_matmul(&m->k[2], &m->e, "matmul_down", &u, &wd, &y, NULL, prec, down, &cd, err) < 0)
        return -1;
    if (rt_xf_mem(&m->e, &x, d->x, &m->m[M_X], err) < 0 || weights(m, &cu, d->wu, M_WU, err) < 0 ||
        weights(m, &cd, d->wd, M_WD, err) < 0 || rt_xf_mem(&m->e, &u, NULL, &m->m[M_U], err) < 0 ||
        rt_xf_mem(&m->e, &y, NULL, &m->m[M_Y], err) < 0)
        return -1;
    dnnl_memory_t hidden = m->m[M_U];
    if (s->gated) {
        /* h = silu(x Wg) * u, fused into the gate matmul: u read, h written */
        rt_xf_count g = rt_xf_gemm_count(Td, Fd, Dd, e);
        g.flops += Td * Fd * RT_XF_SILU_MUL_FLOPS;
        g.bytes += Td * Fd * e;
        attr = rt_xf_attr(1.0f, dnnl_eltwise_swish, 1.0f, dnnl_binary_mul, &u);
        rc = rt_xf_matmul(&m->k[1], &m->e, "matmul_gate_silu_mul", &x, &wu, &u, attr, prec, g, &cg,
                          err);
        dnnl_primitive_attr_destroy(attr);
        if (rc < 0 || weights(m, &cg, d->wg, M_WG, err) < 0 ||
            rt_xf_mem(&m->e, &u, NULL, &m->m[M_H], err) < 0)
            return -1;
        rt_xf_arg(&m->k[1], DNNL_ARG_SRC, m->m[M_X]);
        rt_xf_arg(&m->k[1], DNNL_ARG_WEIGHTS, m->m[M_WG]);
        rt_xf_arg(&m->k[1], DNNL_ARG_DST, m->m[M_H]);
        rt_xf_arg(&m->k[1], RT_XF_ARG_BINARY(1), m->m[M_U]);
        hidden = m->m[M_H];
    }
    rt_xf_arg(&m->k[0], DNNL_ARG_SRC, m->m[M_X]);
    rt_xf_arg(&m->k[0], DNNL_ARG_WEIGHTS, m->m[M_WU]);
    rt_xf_arg(&m->k[0], DNNL_ARG_DST, m->m[M_U]);
    rt_xf_arg(&m->k[2], DNNL_ARG_SRC, hidden);
    rt_xf_arg(&m->k[2], DNNL_ARG_WEIGHTS, m->m[M_WD]);
    rt_xf_arg(&m->k[2], DNNL_ARG_DST, m->m[M_Y]);
    return 0;
}
#endif

int rt_mlp_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                      rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_mlp_shape_check(&pt->mlp, err) < 0 ||
        rt_xformer_require("onednn mlp", prec, pass, false, err) < 0)
        return -1;
#ifdef RT_HAVE_DNNL
    mlp_onednn *m = rt_xcalloc(1, sizeof *m);
    m->base.run = onednn_run;
    m->base.out = onednn_out;
    m->base.free = onednn_free;
    m->s = pt->mlp;
    rt_mlp_data d;
    rt_mlp_data_init(&d, &pt->mlp, seed);
    int rc = rt_dnnl_engine_open(&m->e, err) < 0 ? -1 : build(m, &d, prec, err);
    rt_mlp_data_release(&d);
    return rt_xf_case_done(&m->base, m->k, 3, rc, out);
#else
    (void)seed;
    return rt_dnnl_missing(err);
#endif
}
