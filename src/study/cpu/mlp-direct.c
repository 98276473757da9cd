/* The MLP block in plain C, one token at a time (its hidden row never leaves the cache): the
 * transformer study's correctness reference for the MLP, fp32. */
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

typedef struct mlp_direct {
    rt_study_case base;
    rt_mlp_data d;
    float *y; /* [tokens][hidden] */
} mlp_direct;

/* Token t: h = act(x W) (gated: silu(x Wg) * (x Wu)), y = h Wd. */
static void mlp_token(const rt_mlp_data *d, long t, float *h, float *g, float *y)
{
    long D = d->s.hidden, F = d->s.ffn;
    const float *x = d->x + t * D;
    rt_xf_row_times(x, d->wu, D, F, h);
    if (d->s.gated) {
        rt_xf_row_times(x, d->wg, D, F, g);
        for (long f = 0; f < F; f++)
            h[f] = rt_xf_silu_mul(g[f], h[f]);
    } else {
        for (long f = 0; f < F; f++)
            h[f] = rt_xf_gelu(h[f]);
    }
    rt_xf_row_times(h, d->wd, F, D, y + t * D);
}

static int direct_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    mlp_direct *m = (mlp_direct *)base;
    const rt_mlp_shape *s = &m->d.s;
    rt_xf_count c = rt_mlp_count(s, 4);
    rt_kernel_cost cost = {.name = "mlp_direct",
                           .unit = "fp32",
                           .flops = c.flops,
                           .dram_bytes = c.bytes,
                           .l1_bytes = -1,
                           .impl = NULL};
    rt_timer_start(t);
#pragma omp parallel
    {
        float *h = rt_xmalloc((size_t)s->ffn * sizeof *h),
              *g = rt_xmalloc((size_t)s->ffn * sizeof *g);
#pragma omp for schedule(static)
        for (long tok = 0; tok < s->tokens; tok++)
            mlp_token(&m->d, tok, h, g, m->y);
        free(h);
        free(g);
    }
    rt_timer_stop(t, &cost);
    return 0;
}

static float *direct_out(rt_study_case *base, size_t *n)
{
    mlp_direct *m = (mlp_direct *)base;
    return rt_xf_copy_out(m->y, rt_mlp_out_elems(&m->d.s), n);
}

static void direct_free(rt_study_case *base)
{
    mlp_direct *m = (mlp_direct *)base;
    rt_mlp_data_release(&m->d);
    free(m->y);
    free(m);
}

int rt_mlp_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                      rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_mlp_shape_check(&pt->mlp, err) < 0 ||
        rt_xformer_require("direct mlp", prec, pass, true, err) < 0)
        return -1;
    mlp_direct *m = rt_xcalloc(1, sizeof *m);
    m->base.run = direct_run;
    m->base.out = direct_out;
    m->base.free = direct_free;
    rt_mlp_data_init(&m->d, &pt->mlp, seed);
    m->y = rt_xcalloc(rt_mlp_out_elems(&pt->mlp), sizeof *m->y);
    *out = &m->base;
    return 0;
}
