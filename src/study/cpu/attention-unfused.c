/* Attention unfused, as a framework's math path runs it: S = Q K^T (one OpenBLAS GEMM per head,
 * one kernel for all heads), the softmax of every row in C (the causal mask: only the keys a query
 * sees, zeros written past them), O = S V; the scores go to memory and back. fp32 (Debian's
 * OpenBLAS has no bf16 GEMM). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

typedef struct attn_unfused {
    rt_study_case base;
    rt_attn_data d;
    float *s; /* [batch * heads][seq][seq] scores */
    float *o;
    rt_kernel_cost qk, sm, pv;
} attn_unfused;

static int unfused_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    attn_unfused *u = (attn_unfused *)base;
    const rt_attn_shape *s = &u->d.s;
    long L = s->seq, D = s->head_dim, BH = s->batch * s->heads;
    size_t LL = (size_t)L * (size_t)L;
    rt_timer_start(t);
    for (long bh = 0; bh < BH; bh++)
        rt_xf_sgemm(true, L, L, D, u->d.q + bh * L * D, D, u->d.k + bh * L * D, D, u->s + bh * LL,
                    L);
    rt_timer_stop(t, &u->qk);
    float scale = 1.0f / sqrtf((float)D);
    rt_timer_start(t);
#pragma omp parallel for schedule(static)
    for (long r = 0; r < BH * L; r++) {
        float *row = u->s + (size_t)r * (size_t)L;
        long n = s->causal ? r % L + 1 : L;
        rt_xf_softmax_row(row, n, scale);
        if (n < L)
            memset(row + n, 0, (size_t)(L - n) * sizeof *row);
    }
    rt_timer_stop(t, &u->sm);
    rt_timer_start(t);
    for (long bh = 0; bh < BH; bh++)
        rt_xf_sgemm(false, L, D, L, u->s + bh * LL, L, u->d.v + bh * L * D, D, u->o + bh * L * D,
                    D);
    rt_timer_stop(t, &u->pv);
    return 0;
}

static float *unfused_out(rt_study_case *base, size_t *n)
{
    attn_unfused *u = (attn_unfused *)base;
    return rt_xf_copy_out(u->o, rt_attn_out_elems(&u->d.s), n);
}

static void unfused_free(rt_study_case *base)
{
    attn_unfused *u = (attn_unfused *)base;
    rt_attn_data_release(&u->d);
    free(u->s);
    free(u->o);
    free(u);
}

int rt_attn_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                        rt_study_case **out, rt_error *err)
{
    *out = NULL;
    const rt_attn_shape *s = &pt->attn;
    if (rt_attn_shape_check(s, err) < 0 ||
        rt_xformer_require("unfused attention (OpenBLAS has no bf16 GEMM here)", prec, pass, true,
                           err) < 0)
        return -1;
    attn_unfused *u = rt_xcalloc(1, sizeof *u);
    u->base.run = unfused_run;
    u->base.out = unfused_out;
    u->base.free = unfused_free;
    rt_attn_data_init(&u->d, s, seed);
    u->s =
        rt_xcalloc((size_t)(s->batch * s->heads) * (size_t)s->seq * (size_t)s->seq, sizeof *u->s);
    u->o = rt_xcalloc(rt_attn_out_elems(s), sizeof *u->o);
    u->qk = rt_xf_cost("gemm_qk", rt_attn_qk_count(s, 4, 4, false, false), rt_xf_blas_name());
    u->sm = rt_xf_cost("softmax", rt_attn_softmax_count(s, 4, true, true), NULL); /* C */
    u->pv = rt_xf_cost("gemm_pv", rt_attn_pv_count(s, 4, 4), rt_xf_blas_name());
    *out = &u->base;
    return 0;
}
