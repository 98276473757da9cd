/* The MLP block unfused: each GEMM through OpenBLAS and the activation (GELU, or silu times up)
 * as a C kernel of its own, the hidden activations going to memory and back between them. fp32
 * (Debian's OpenBLAS has no bf16 GEMM). */
#include <stdlib.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

typedef struct mlp_unfused {
    rt_study_case base;
    rt_mlp_data d;
    float *u, *g, *y; /* [tokens][ffn] up and gate, [tokens][hidden] */
    rt_kernel_cost up, gate, act, down;
} mlp_unfused;

static int unfused_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    mlp_unfused *m = (mlp_unfused *)base;
    const rt_mlp_shape *s = &m->d.s;
    long T = s->tokens, D = s->hidden, F = s->ffn, n = T * F;
    rt_timer_start(t);
    rt_xf_sgemm(false, T, F, D, m->d.x, D, m->d.wu, F, m->u, F);
    rt_timer_stop(t, &m->up);
    if (s->gated) {
        rt_timer_start(t);
        rt_xf_sgemm(false, T, F, D, m->d.x, D, m->d.wg, F, m->g, F);
        rt_timer_stop(t, &m->gate);
        rt_timer_start(t);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            m->u[i] = rt_xf_silu_mul(m->g[i], m->u[i]);
        rt_timer_stop(t, &m->act);
    } else {
        rt_timer_start(t);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            m->u[i] = rt_xf_gelu(m->u[i]);
        rt_timer_stop(t, &m->act);
    }
    rt_timer_start(t);
    rt_xf_sgemm(false, T, D, F, m->u, F, m->d.wd, D, m->y, D);
    rt_timer_stop(t, &m->down);
    return 0;
}

static float *unfused_out(rt_study_case *base, size_t *n)
{
    mlp_unfused *m = (mlp_unfused *)base;
    return rt_xf_copy_out(m->y, rt_mlp_out_elems(&m->d.s), n);
}

static void unfused_free(rt_study_case *base)
{
    mlp_unfused *m = (mlp_unfused *)base;
    rt_mlp_data_release(&m->d);
    free(m->u);
    free(m->g);
    free(m->y);
    free(m);
}

int rt_mlp_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    const rt_mlp_shape *s = &pt->mlp;
    if (rt_mlp_shape_check(s, err) < 0 ||
        rt_xformer_require("unfused mlp (OpenBLAS has no bf16 GEMM here)", prec, pass, true, err) <
            0)
        return -1;
    mlp_unfused *m = rt_xcalloc(1, sizeof *m);
    m->base.run = unfused_run;
    m->base.out = unfused_out;
    m->base.free = unfused_free;
    rt_mlp_data_init(&m->d, s, seed);
    double T = (double)s->tokens, D = (double)s->hidden, F = (double)s->ffn;
    m->u = rt_xcalloc((size_t)(T * F), sizeof *m->u);
    m->g = s->gated ? rt_xcalloc((size_t)(T * F), sizeof *m->g) : NULL;
    m->y = rt_xcalloc((size_t)(T * D), sizeof *m->y);
    const char *blas = rt_xf_blas_name();
    m->up = rt_xf_cost("gemm_up", rt_xf_gemm_count(T, F, D, 4), blas);
    m->gate = rt_xf_cost("gemm_gate", rt_xf_gemm_count(T, F, D, 4), blas);
    m->act =
        s->gated
            ? rt_xf_cost("silu_mul", rt_xf_elementwise_count(T * F, RT_XF_SILU_MUL_FLOPS, 2, 1, 4),
                         NULL)
            : rt_xf_cost("gelu", rt_xf_elementwise_count(T * F, RT_XF_GELU_FLOPS, 1, 1, 4), NULL);
    m->down = rt_xf_cost("gemm_down", rt_xf_gemm_count(T, D, F, 4), blas);
    *out = &m->base;
    return 0;
}
