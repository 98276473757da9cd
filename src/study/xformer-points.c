/* The transformer study's sweeps: one parameter varied at a time around the default, which values
 * a quick run keeps, and the small shapes of the correctness checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/study/xformer-shapes.h"
#include "rooftime/util/strings.h"

typedef struct sweep {
    const char *param;
    long values[8];
    int n;
    unsigned quick; /* bit j: a quick run keeps values[j] */
} sweep;

/* Attention: the sequence from 128 to 4096 (a quick run keeps both ends: the short one's
 * launches, the long one's compute); MLP: from one token (a decode step's) to 512; decode: the
 * batch from 1 to 256 (every value in a quick run too: the crossovers are found on them) and the
 * cache from 32 to 2048 tokens. */
static const sweep attn_sweeps[] = {{"batch", {1, 4}, 2, 2u},
                                    {"heads", {4, 16}, 2, 2u},
                                    {"seq", {128, 512, 1024, 4096}, 4, 1u | 8u},
                                    {"head_dim", {64, 128}, 2, 2u},
                                    {"causal", {1, 0}, 2, 2u}};
static const sweep mlp_sweeps[] = {
    {"tokens", {1, 16, 128, 512}, 4, 1u}, {"hidden", {512, 1024}, 2, 1u}, {"gated", {0, 1}, 2, 2u}};
static const sweep decode_sweeps[] = {{"batch", {1, 4, 16, 64, 256}, 5, 31u},
                                      {"cache", {32, 128, 512, 2048}, 4, 8u}};

static const char *const attn_params[] = {"batch", "heads", "seq", "head_dim", "causal"};
static const char *const mlp_params[] = {"tokens", "hidden", "gated"};
static const char *const decode_params[] = {"batch", "cache"};

static const sweep *sweeps_of(rt_study_op op, size_t *n)
{
    switch (op) {
    case RT_OP_ATTENTION:
        *n = sizeof attn_sweeps / sizeof attn_sweeps[0];
        return attn_sweeps;
    case RT_OP_MLP:
        *n = sizeof mlp_sweeps / sizeof mlp_sweeps[0];
        return mlp_sweeps;
    default:
        *n = sizeof decode_sweeps / sizeof decode_sweeps[0];
        return decode_sweeps;
    }
}

const char *const *rt_xformer_params(rt_study_op op, size_t *n)
{
    switch (op) {
    case RT_OP_ATTENTION:
        *n = sizeof attn_params / sizeof attn_params[0];
        return attn_params;
    case RT_OP_MLP:
        *n = sizeof mlp_params / sizeof mlp_params[0];
        return mlp_params;
    default:
        *n = sizeof decode_params / sizeof decode_params[0];
        return decode_params;
    }
}

/* Where parameter `param` of op lives in a point; NULL when op has no such parameter. */
static long *param_slot(rt_study_point *p, const char *param)
{
    struct {
        rt_study_op op;
        const char *name;
        long *slot;
    } slots[] = {{RT_OP_ATTENTION, "batch", &p->attn.batch},
                 {RT_OP_ATTENTION, "heads", &p->attn.heads},
                 {RT_OP_ATTENTION, "seq", &p->attn.seq},
                 {RT_OP_ATTENTION, "head_dim", &p->attn.head_dim},
                 {RT_OP_ATTENTION, "causal", &p->attn.causal},
                 {RT_OP_MLP, "tokens", &p->mlp.tokens},
                 {RT_OP_MLP, "hidden", &p->mlp.hidden},
                 {RT_OP_MLP, "gated", &p->mlp.gated},
                 {RT_OP_DECODE, "batch", &p->dec.batch},
                 {RT_OP_DECODE, "cache", &p->dec.cache}};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (slots[i].op == p->op && strcmp(slots[i].name, param) == 0)
            return slots[i].slot;
    return NULL;
}

long rt_xformer_point_param(const rt_study_point *p, const char *param)
{
    long *slot = param_slot((rt_study_point *)p, param);
    return slot ? *slot : -1;
}

static long scaled(long v, double scale)
{
    long s = lround(v * scale);
    return s < 1 ? 1 : s;
}

/* Shrink a point for tests: every size (the flags keep their values); the MLP's ffn and decode's
 * hidden size stay what the defaults make them (4 x hidden, a multiple of the heads). */
static void scale_point(rt_study_point *p, double scale)
{
    if (scale >= 1)
        return;
    if (p->op == RT_OP_ATTENTION) {
        rt_attn_shape *a = &p->attn;
        a->batch = scaled(a->batch, scale);
        a->heads = scaled(a->heads, scale);
        a->seq = scaled(a->seq, scale);
        a->head_dim = scaled(a->head_dim, scale);
    } else if (p->op == RT_OP_MLP) {
        rt_mlp_shape *m = &p->mlp;
        m->tokens = scaled(m->tokens, scale);
        m->hidden = scaled(m->hidden, scale);
        m->ffn = 4 * m->hidden;
    } else {
        rt_decode_shape *d = &p->dec;
        d->batch = scaled(d->batch, scale);
        d->cache = scaled(d->cache, scale);
        d->heads = scaled(d->heads, scale);
        d->hidden = scaled(d->hidden, scale) / d->heads * d->heads;
        if (d->hidden < d->heads)
            d->hidden = d->heads;
        d->ffn = 4 * d->hidden;
    }
}

rt_study_point *rt_xformer_points(rt_study_op op, bool quick, double scale, size_t *n)
{
    rt_study_point def = {.op = op, .varied = "default"};
    def.attn = rt_attn_default();
    def.mlp = rt_mlp_default();
    def.dec = rt_decode_default();
    size_t ns;
    const sweep *sw = sweeps_of(op, &ns);
    size_t cap = 1;
    for (size_t i = 0; i < ns; i++)
        cap += (size_t)sw[i].n;
    rt_study_point *pts = rt_xcalloc(cap, sizeof *pts);
    size_t m = 0;
    pts[m++] = def;
    for (size_t i = 0; i < ns; i++) {
        long defv = rt_xformer_point_param(&def, sw[i].param);
        for (int j = 0; j < sw[i].n; j++) {
            if (sw[i].values[j] == defv)
                continue; /* the default is run once and belongs to every family */
            if (quick && !(sw[i].quick & (1u << j)))
                continue;
            rt_study_point p = def;
            p.varied = sw[i].param;
            *param_slot(&p, sw[i].param) = sw[i].values[j];
            pts[m++] = p;
        }
    }
    for (size_t i = 0; i < m; i++)
        scale_point(&pts[i], scale);
    *n = m;
    return pts;
}

rt_study_point rt_xformer_small_point(rt_study_op op)
{
    rt_study_point p = {.op = op, .varied = "check"};
    /* odd sizes, a causal mask, several heads and batches; the decode cache not a multiple of
     * anything */
    p.attn = (rt_attn_shape){.batch = 2, .heads = 3, .seq = 13, .head_dim = 8, .causal = 1};
    p.mlp = (rt_mlp_shape){.tokens = 5, .hidden = 12, .ffn = 20, .gated = 1};
    p.dec = (rt_decode_shape){.batch = 3, .cache = 11, .hidden = 16, .heads = 2, .ffn = 24};
    return p;
}

int rt_xformer_point_check(const rt_study_point *p, rt_error *err)
{
    switch (p->op) {
    case RT_OP_ATTENTION:
        return rt_attn_shape_check(&p->attn, err);
    case RT_OP_MLP:
        return rt_mlp_shape_check(&p->mlp, err);
    default:
        return rt_decode_shape_check(&p->dec, err);
    }
}

double rt_xformer_nominal_ai(const rt_study_point *p)
{
    rt_xf_count c = p->op == RT_OP_ATTENTION ? rt_attn_direct_count(&p->attn, 1)
                    : p->op == RT_OP_MLP     ? rt_mlp_count(&p->mlp, 1)
                                             : rt_decode_count(&p->dec, 1);
    return c.bytes > 0 ? c.flops / c.bytes : NAN;
}
