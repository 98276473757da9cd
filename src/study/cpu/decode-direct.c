/* One decode step of one layer in plain C, one sequence at a time: the transformer study's
 * correctness reference for decode, fp32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/strings.h"

typedef struct decode_direct {
    rt_study_case base;
    rt_decode_data d;
    float *y; /* [batch][hidden] */
} decode_direct;

/* Scratch of one sequence's step: qkv [3 hidden], scores [cache + 1], o and a [hidden], h [ffn]. */
typedef struct scratch {
    float *qkv, *s, *o, *a, *h;
} scratch;

static void decode_seq(rt_decode_data *d, long b, scratch *w, float *y)
{
    long D = d->s.hidden, H = d->s.heads, Dh = D / H, F = d->s.ffn, n = d->s.cache + 1;
    rt_xf_row_times(d->x + b * D, d->wqkv, D, 3 * D, w->qkv);
    for (long h = 0; h < H; h++) {
        float *kc = d->kc + (b * H + h) * n * Dh, *vc = d->vc + (b * H + h) * n * Dh;
        memcpy(kc + (n - 1) * Dh, w->qkv + D + h * Dh, (size_t)Dh * sizeof(float));
        memcpy(vc + (n - 1) * Dh, w->qkv + 2 * D + h * Dh, (size_t)Dh * sizeof(float));
        const float *q = w->qkv + h * Dh;
        for (long j = 0; j < n; j++) {
            float acc = 0.0f;
            for (long c = 0; c < Dh; c++)
                acc += q[c] * kc[j * Dh + c];
            w->s[j] = acc;
        }
        rt_xf_softmax_row(w->s, n, 1.0f / sqrtf((float)Dh));
        float *o = w->o + h * Dh;
        memset(o, 0, (size_t)Dh * sizeof *o);
        for (long j = 0; j < n; j++)
            for (long c = 0; c < Dh; c++)
                o[c] += w->s[j] * vc[j * Dh + c];
    }
    rt_xf_row_times(w->o, d->wo, D, D, w->a);
    rt_xf_row_times(w->a, d->w1, D, F, w->h);
    for (long f = 0; f < F; f++)
        w->h[f] = rt_xf_gelu(w->h[f]);
    rt_xf_row_times(w->h, d->w2, F, D, y + b * D);
}

static int direct_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    decode_direct *dd = (decode_direct *)base;
    const rt_decode_shape *s = &dd->d.s;
    rt_xf_count c = rt_decode_count(s, 4);
    rt_kernel_cost cost = {.name = "decode_direct",
                           .unit = "fp32",
                           .flops = c.flops,
                           .dram_bytes = c.bytes,
                           .l1_bytes = -1,
                           .impl = NULL};
    size_t D = (size_t)s->hidden;
    rt_timer_start(t);
#pragma omp parallel
    {
        scratch w = {rt_xmalloc(3 * D * sizeof(float)),
                     rt_xmalloc((size_t)(s->cache + 1) * sizeof(float)),
                     rt_xmalloc(D * sizeof(float)), rt_xmalloc(D * sizeof(float)),
                     rt_xmalloc((size_t)s->ffn * sizeof(float))};
#pragma omp for schedule(static)
        for (long b = 0; b < s->batch; b++)
            decode_seq(&dd->d, b, &w, dd->y);
        free(w.qkv);
        free(w.s);
        free(w.o);
        free(w.a);
        free(w.h);
    }
    rt_timer_stop(t, &cost);
    return 0;
}

static float *direct_out(rt_study_case *base, size_t *n)
{
    decode_direct *dd = (decode_direct *)base;
    return rt_xf_copy_out(dd->y, rt_decode_out_elems(&dd->d.s), n);
}

static void direct_free(rt_study_case *base)
{
    decode_direct *dd = (decode_direct *)base;
    rt_decode_data_release(&dd->d);
    free(dd->y);
    free(dd);
}

int rt_decode_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                         rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_decode_shape_check(&pt->dec, err) < 0 ||
        rt_xformer_require("direct decode", prec, pass, true, err) < 0)
        return -1;
    decode_direct *dd = rt_xcalloc(1, sizeof *dd);
    dd->base.run = direct_run;
    dd->base.out = direct_out;
    dd->base.free = direct_free;
    rt_decode_data_init(&dd->d, &pt->dec, seed);
    dd->y = rt_xcalloc(rt_decode_out_elems(&pt->dec), sizeof *dd->y);
    *out = &dd->base;
    return 0;
}
