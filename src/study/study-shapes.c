/* The study's sweeps (the paper's defaults and values) and the validation of shapes and names. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const op_names[RT_OP_COUNT] = {"conv2d", "lstm", "attention", "mlp", "decode"};
static const char *const prec_names[RT_PREC_COUNT] = {"fp32", "bf16", "fp16"};
static const char *const pass_names[RT_PASS_COUNT] = {"forward", "backward-data",
                                                      "backward-weights", "backward"};

const char *rt_study_op_name(rt_study_op op)
{
    return (unsigned)op < RT_OP_COUNT ? op_names[op] : "?";
}

bool rt_study_op_is_xformer(rt_study_op op)
{
    return op == RT_OP_ATTENTION || op == RT_OP_MLP || op == RT_OP_DECODE;
}

const char *rt_study_op_phase(rt_study_op op)
{
    return op == RT_OP_ATTENTION ? "prefill" : op == RT_OP_DECODE ? "decode" : NULL;
}

int rt_study_point_check(const rt_study_point *p, rt_error *err)
{
    if (rt_study_op_is_xformer(p->op))
        return rt_xformer_point_check(p, err);
    return p->op == RT_OP_CONV2D ? rt_conv_shape_check(&p->conv, err)
                                 : rt_lstm_shape_check(&p->lstm, err);
}

const char *rt_precision_name(rt_precision p)
{
    return (unsigned)p < RT_PREC_COUNT ? prec_names[p] : "?";
}

const char *rt_pass_name(rt_pass p)
{
    return (unsigned)p < RT_PASS_COUNT ? pass_names[p] : "?";
}

/* The index of s among names (any case), or -1 with "unknown WHAT 'S' (known: ...)". */
static int parse_name(const char *s, const char *const *names, int n, const char *what,
                      rt_error *err)
{
    char known[256];
    size_t k = 0;
    known[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (s && strcasecmp(s, names[i]) == 0)
            return i;
        if (k < sizeof known)
            k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", names[i]);
    }
    rt_error_set(err, "unknown %s '%s' (known: %s)", what, s ? s : "", known);
    return -1;
}

int rt_precision_parse(const char *s, rt_precision *out, rt_error *err)
{
    int i = parse_name(s, prec_names, RT_PREC_COUNT, "precision", err);
    if (i < 0)
        return -1;
    *out = (rt_precision)i;
    return 0;
}

int rt_study_op_parse(const char *s, rt_study_op *out, rt_error *err)
{
    int i = parse_name(s, op_names, RT_OP_COUNT, "operation", err);
    if (i < 0)
        return -1;
    *out = (rt_study_op)i;
    return 0;
}

long rt_conv_out_h(const rt_conv_shape *s)
{
    return (s->h + 2 * s->pad - s->r) / s->stride + 1;
}

long rt_conv_out_w(const rt_conv_shape *s)
{
    return (s->w + 2 * s->pad - s->s) / s->stride + 1;
}

int rt_conv_shape_check(const rt_conv_shape *s, rt_error *err)
{
    const struct {
        const char *name;
        long v;
    } pos[] = {{"batch", s->n},        {"channels", s->c},   {"height", s->h},
               {"width", s->w},        {"filters", s->k},    {"kernel height", s->r},
               {"kernel width", s->s}, {"stride", s->stride}};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i].v <= 0) {
            rt_error_set(err, "conv2d: %s must be positive, got %ld", pos[i].name, pos[i].v);
            return -1;
        }
    if (s->pad < 0) {
        rt_error_set(err, "conv2d: padding must not be negative, got %ld", s->pad);
        return -1;
    }
    if (s->r > s->h + 2 * s->pad || s->s > s->w + 2 * s->pad) {
        rt_error_set(err,
                     "conv2d: kernel %ldx%ld is larger than the padded input %ldx%ld (padding %ld)",
                     s->r, s->s, s->h + 2 * s->pad, s->w + 2 * s->pad, s->pad);
        return -1;
    }
    /* A padding as wide as the kernel would give output rows that see only zeros. */
    if (s->pad >= s->r || s->pad >= s->s) {
        rt_error_set(err, "conv2d: padding %ld must be smaller than the kernel %ldx%ld", s->pad,
                     s->r, s->s);
        return -1;
    }
    /* Keep every index and element count well inside a long and a size_t. */
    double elems = fmax(fmax((double)s->n * s->c * s->h * s->w, (double)s->k * s->c * s->r * s->s),
                        (double)s->n * s->k * rt_conv_out_h(s) * rt_conv_out_w(s));
    if (elems > 1e10) {
        rt_error_set(err, "conv2d: a tensor of %.3g elements is too large", elems);
        return -1;
    }
    return 0;
}

int rt_lstm_shape_check(const rt_lstm_shape *s, rt_error *err)
{
    const struct {
        const char *name;
        long v;
    } pos[] = {{"batch", s->batch},
               {"sequence length", s->seq},
               {"features", s->features},
               {"hidden size", s->hidden}};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i].v <= 0) {
            rt_error_set(err, "lstm: %s must be positive, got %ld", pos[i].name, pos[i].v);
            return -1;
        }
    double elems = (double)s->seq * s->batch * fmax(s->features, 4.0 * s->hidden);
    if (elems > 1e10) {
        rt_error_set(err, "lstm: a tensor of %.3g elements is too large", elems);
        return -1;
    }
    return 0;
}

/* method.md section 4: input 112x112x64, kernel 3x3x64x64, stride 2, batch 16; "same" padding. */
rt_conv_shape rt_conv_default(void)
{
    rt_conv_shape s = {
        .n = 16, .c = 64, .h = 112, .w = 112, .k = 64, .r = 3, .s = 3, .stride = 2, .pad = 1};
    return s;
}

rt_lstm_shape rt_lstm_default(void)
{
    rt_lstm_shape s = {.batch = 16, .seq = 16, .features = 32, .hidden = 16};
    return s;
}

static const char *const conv_params[] = {"batch", "filters", "kernel", "stride"};
static const char *const lstm_params[] = {"batch", "seq", "features", "hidden"};

/* The sweep values of method.md section 4, in the order of the params above. */
static const long conv_sweep[4][5] = {
    {16, 32, 64, 0}, {64, 128, 256, 512, 0}, {3, 7, 9, 0}, {1, 2, 3, 0}};
static const long lstm_sweep[4][5] = {
    {16, 32, 64, 128, 0}, {16, 32, 64, 128, 0}, {32, 64, 128, 0}, {16, 32, 64, 128, 0}};

const char *const *rt_study_params(rt_study_op op, size_t *n)
{
    if (rt_study_op_is_xformer(op))
        return rt_xformer_params(op, n);
    *n = 4;
    return op == RT_OP_CONV2D ? conv_params : lstm_params;
}

long rt_study_point_param(const rt_study_point *p, const char *param)
{
    if (rt_study_op_is_xformer(p->op))
        return rt_xformer_point_param(p, param);
    if (p->op == RT_OP_CONV2D) {
        if (strcmp(param, "batch") == 0)
            return p->conv.n;
        if (strcmp(param, "filters") == 0)
            return p->conv.k;
        if (strcmp(param, "kernel") == 0)
            return p->conv.r;
        if (strcmp(param, "stride") == 0)
            return p->conv.stride;
    } else {
        if (strcmp(param, "batch") == 0)
            return p->lstm.batch;
        if (strcmp(param, "seq") == 0)
            return p->lstm.seq;
        if (strcmp(param, "features") == 0)
            return p->lstm.features;
        if (strcmp(param, "hidden") == 0)
            return p->lstm.hidden;
    }
    return -1;
}

static long scaled(long v, double scale)
{
    long s = lround(v * scale);
    return s < 1 ? 1 : s;
}

static void set_param(rt_study_point *p, int which, long v)
{
    if (p->op == RT_OP_CONV2D) {
        switch (which) {
        case 0:
            p->conv.n = v;
            break;
        case 1:
            p->conv.k = v;
            break;
        case 2:
            p->conv.r = p->conv.s = v;
            p->conv.pad = v / 2;
            break;
        default:
            p->conv.stride = v;
            break;
        }
    } else {
        switch (which) {
        case 0:
            p->lstm.batch = v;
            break;
        case 1:
            p->lstm.seq = v;
            break;
        case 2:
            p->lstm.features = v;
            break;
        default:
            p->lstm.hidden = v;
            break;
        }
    }
}

/* Shrink a point for tests: spatial size, channels and filters (conv; kernel and stride keep
 * their values so the algorithms stay the same), every size (lstm). Batch shrinks too. */
static void scale_point(rt_study_point *p, double scale)
{
    if (scale >= 1)
        return;
    if (p->op == RT_OP_CONV2D) {
        rt_conv_shape *c = &p->conv;
        c->n = scaled(c->n, scale);
        c->c = scaled(c->c, scale);
        c->k = scaled(c->k, scale);
        c->h = c->w = scaled(c->h, scale) < c->r ? c->r : scaled(c->h, scale);
    } else {
        rt_lstm_shape *l = &p->lstm;
        l->batch = scaled(l->batch, scale);
        l->seq = scaled(l->seq, scale);
        l->features = scaled(l->features, scale);
        l->hidden = scaled(l->hidden, scale);
    }
}

rt_study_point *rt_study_points(rt_study_op op, bool quick, double scale, size_t *n)
{
    if (rt_study_op_is_xformer(op))
        return rt_xformer_points(op, quick, scale, n);
    const long(*sweep)[5] = op == RT_OP_CONV2D ? conv_sweep : lstm_sweep;
    rt_study_point def = {.op = op, .varied = "default"};
    def.conv = rt_conv_default();
    def.lstm = rt_lstm_default();
    rt_study_point *pts = rt_xcalloc(32, sizeof *pts);
    size_t m = 0;
    pts[m++] = def;
    size_t nparams;
    const char *const *params = rt_study_params(op, &nparams);
    for (int which = 0; which < 4; which++) {
        long defv = rt_study_point_param(&def, params[which]);
        for (int j = 0; sweep[which][j]; j++) {
            if (sweep[which][j] == defv)
                continue; /* the default is run once and belongs to every family */
            if (quick && j != 1 && !(j == 0 && sweep[which][1] == defv))
                continue;
            rt_study_point p = def;
            p.varied = params[which];
            set_param(&p, which, sweep[which][j]);
            pts[m++] = p;
            if (quick)
                break;
        }
    }
    for (size_t i = 0; i < m; i++)
        scale_point(&pts[i], scale);
    *n = m;
    return pts;
}
