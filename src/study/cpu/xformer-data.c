/* The tensors the transformer study's implementations start from: fp32, from a seed, the same for
 * every implementation (16-bit ones convert their own copies), weights scaled as a layer is
 * initialised so that activations keep their magnitude. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/util/strings.h"

static float *random_f32(size_t n, uint64_t *seed, double fan_in)
{
    float *x = rt_xmalloc((n ? n : 1) * sizeof *x);
    rt_study_fill_random(x, n, seed);
    if (fan_in > 0) {
        float k = (float)(1.0 / sqrt(fan_in));
        for (size_t i = 0; i < n; i++)
            x[i] *= k;
    }
    return x;
}

void rt_attn_data_init(rt_attn_data *d, const rt_attn_shape *s, uint64_t seed)
{
    size_t n = (size_t)(s->batch * s->heads * s->seq * s->head_dim);
    d->s = *s;
    d->q = random_f32(n, &seed, 0);
    d->k = random_f32(n, &seed, 0);
    d->v = random_f32(n, &seed, 0);
}

void rt_attn_data_release(rt_attn_data *d)
{
    free(d->q);
    free(d->k);
    free(d->v);
    memset(d, 0, sizeof *d);
}

void rt_mlp_data_init(rt_mlp_data *d, const rt_mlp_shape *s, uint64_t seed)
{
    size_t T = (size_t)s->tokens, D = (size_t)s->hidden, F = (size_t)s->ffn;
    d->s = *s;
    d->x = random_f32(T * D, &seed, 0);
    d->wu = random_f32(D * F, &seed, (double)D);
    d->wg = s->gated ? random_f32(D * F, &seed, (double)D) : NULL;
    d->wd = random_f32(F * D, &seed, (double)F);
}

void rt_mlp_data_release(rt_mlp_data *d)
{
    free(d->x);
    free(d->wu);
    free(d->wg);
    free(d->wd);
    memset(d, 0, sizeof *d);
}

void rt_decode_data_init(rt_decode_data *d, const rt_decode_shape *s, uint64_t seed)
{
    size_t B = (size_t)s->batch, D = (size_t)s->hidden, F = (size_t)s->ffn;
    size_t H = (size_t)s->heads, Dh = D / H, n = (size_t)s->cache + 1;
    d->s = *s;
    d->x = random_f32(B * D, &seed, 0);
    d->wqkv = random_f32(D * 3 * D, &seed, (double)D);
    d->wo = random_f32(D * D, &seed, (double)D);
    d->w1 = random_f32(D * F, &seed, (double)D);
    d->w2 = random_f32(F * D, &seed, (double)F);
    d->kc = random_f32(B * H * n * Dh, &seed, 0);
    d->vc = random_f32(B * H * n * Dh, &seed, 0);
    /* the slot the step writes starts empty: a step that did not write it shows */
    for (size_t bh = 0; bh < B * H; bh++) {
        memset(d->kc + (bh * n + n - 1) * Dh, 0, Dh * sizeof(float));
        memset(d->vc + (bh * n + n - 1) * Dh, 0, Dh * sizeof(float));
    }
}

void rt_decode_data_release(rt_decode_data *d)
{
    free(d->x);
    free(d->wqkv);
    free(d->wo);
    free(d->w1);
    free(d->w2);
    free(d->kc);
    free(d->vc);
    memset(d, 0, sizeof *d);
}

size_t rt_attn_out_elems(const rt_attn_shape *s)
{
    return (size_t)(s->batch * s->heads * s->seq * s->head_dim);
}

size_t rt_mlp_out_elems(const rt_mlp_shape *s)
{
    return (size_t)(s->tokens * s->hidden);
}

size_t rt_decode_out_elems(const rt_decode_shape *s)
{
    return (size_t)(s->batch * s->hidden);
}

float *rt_xf_copy_out(const float *src, size_t n, size_t *out_n)
{
    if (!src) {
        float *f = rt_xmalloc(sizeof *f);
        f[0] = NAN;
        *out_n = 1;
        return f;
    }
    float *f = rt_xmalloc((n ? n : 1) * sizeof *f);
    memcpy(f, src, n * sizeof *f);
    *out_n = n;
    return f;
}
