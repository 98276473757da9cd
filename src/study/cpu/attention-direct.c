/* Attention in plain C, one query row at a time (its scores never leave the cache): the
 * transformer study's correctness reference for attention, fp32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

typedef struct attn_direct {
    rt_study_case base;
    rt_attn_data d;
    float *o; /* [batch][heads][seq][head_dim] */
} attn_direct;

/* Row i of head bh: scores against the keys it sees, softmax, the weighted sum of the values. */
static void attn_row(const rt_attn_data *d, long bh, long i, float *s, float *o)
{
    long L = d->s.seq, D = d->s.head_dim, n = d->s.causal ? i + 1 : L;
    const float *q = d->q + (bh * L + i) * D, *k = d->k + bh * L * D, *v = d->v + bh * L * D;
    for (long j = 0; j < n; j++) {
        float acc = 0.0f;
        for (long c = 0; c < D; c++)
            acc += q[c] * k[j * D + c];
        s[j] = acc;
    }
    rt_xf_softmax_row(s, n, 1.0f / sqrtf((float)D));
    float *out = o + (bh * L + i) * D;
    memset(out, 0, (size_t)D * sizeof *out);
    for (long j = 0; j < n; j++)
        for (long c = 0; c < D; c++)
            out[c] += s[j] * v[j * D + c];
}

static int direct_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    attn_direct *a = (attn_direct *)base;
    const rt_attn_shape *s = &a->d.s;
    rt_xf_count c = rt_attn_direct_count(s, 4);
    rt_kernel_cost cost = {.name = "attention_direct",
                           .unit = "fp32",
                           .flops = c.flops,
                           .dram_bytes = c.bytes,
                           .l1_bytes = -1,
                           .impl = NULL};
    long rows = s->batch * s->heads * s->seq;
    rt_timer_start(t);
#pragma omp parallel
    {
        float *sc = rt_xmalloc((size_t)s->seq * sizeof *sc);
#pragma omp for schedule(dynamic, 16)
        for (long r = 0; r < rows; r++)
            attn_row(&a->d, r / s->seq, r % s->seq, sc, a->o);
        free(sc);
    }
    rt_timer_stop(t, &cost);
    return 0;
}

static float *direct_out(rt_study_case *base, size_t *n)
{
    attn_direct *a = (attn_direct *)base;
    return rt_xf_copy_out(a->o, rt_attn_out_elems(&a->d.s), n);
}

static void direct_free(rt_study_case *base)
{
    attn_direct *a = (attn_direct *)base;
    rt_attn_data_release(&a->d);
    free(a->o);
    free(a);
}

int rt_attn_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_attn_shape_check(&pt->attn, err) < 0 ||
        rt_xformer_require("direct attention", prec, pass, true, err) < 0)
        return -1;
    attn_direct *a = rt_xcalloc(1, sizeof *a);
    a->base.run = direct_run;
    a->base.out = direct_out;
    a->base.free = direct_free;
    rt_attn_data_init(&a->d, &pt->attn, seed);
    a->o = rt_xcalloc(rt_attn_out_elems(&pt->attn), sizeof *a->o);
    *out = &a->base;
    return 0;
}
