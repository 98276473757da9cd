/* The study's shapes and sweeps (study-shapes.c): Conv2D and LSTM shapes, operations, precisions
 * and passes, the paper's defaults and sweep points. */
#ifndef ROOFTIME_STUDY_STUDY_SHAPES_H
#define ROOFTIME_STUDY_STUDY_SHAPES_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/study/xformer-shapes.h"
#include "rooftime/util/error.h"

/* A 2-D convolution, NCHW input, KCRS weights, symmetric padding. */
typedef struct rt_conv_shape {
    long n, c, h, w; /* batch, input channels, input height and width */
    long k, r, s;    /* filters (output channels), kernel height and width */
    long stride, pad;
} rt_conv_shape;

/* Output height and width (valid only for a shape that passed rt_conv_shape_check). */
long rt_conv_out_h(const rt_conv_shape *s);
long rt_conv_out_w(const rt_conv_shape *s);
/* Sizes positive, kernel no larger than the padded input, padding smaller than the kernel. */
int rt_conv_shape_check(const rt_conv_shape *s, rt_error *err);

/* One LSTM layer, one direction, time-major input [seq][batch][features]. */
typedef struct rt_lstm_shape {
    long batch, seq, features, hidden;
} rt_lstm_shape;

int rt_lstm_shape_check(const rt_lstm_shape *s, rt_error *err);

/* Conv2D and LSTM (the paper's), then the transformer study's: attention in prefill, the MLP
 * block, one decode step (rt_study_op_is_xformer). */
typedef enum rt_study_op {
    RT_OP_CONV2D = 0,
    RT_OP_LSTM = 1,
    RT_OP_ATTENTION = 2,
    RT_OP_MLP = 3,
    RT_OP_DECODE = 4,
    RT_OP_COUNT
} rt_study_op;
typedef enum rt_precision {
    RT_PREC_FP32 = 0,
    RT_PREC_BF16 = 1,
    RT_PREC_FP16 = 2,
    RT_PREC_COUNT
} rt_precision;
/* Conv2D has forward, backward-data and backward-weights; the LSTM forward and backward. */
typedef enum rt_pass {
    RT_PASS_FWD = 0,
    RT_PASS_BWD_DATA = 1,
    RT_PASS_BWD_WEIGHTS = 2,
    RT_PASS_BWD = 3,
    RT_PASS_COUNT
} rt_pass;

const char *rt_study_op_name(rt_study_op op);
const char *rt_precision_name(rt_precision p);
const char *rt_pass_name(rt_pass p);
int rt_precision_parse(const char *s, rt_precision *out, rt_error *err);
int rt_study_op_parse(const char *s, rt_study_op *out, rt_error *err);

/* The paper's defaults and sweeps (method.md section 4). */
rt_conv_shape rt_conv_default(void);
rt_lstm_shape rt_lstm_default(void);

/* One point of a sweep: the shape and the parameter varied from the default ("default" for it). */
typedef struct rt_study_point {
    rt_study_op op;
    rt_conv_shape conv;
    rt_lstm_shape lstm;
    rt_attn_shape attn; /* the transformer study's shapes (xformer-shapes.h) */
    rt_mlp_shape mlp;
    rt_decode_shape dec;
    const char *varied;
} rt_study_point;

/* Whether op is one of the transformer study's (attention, mlp, decode). */
bool rt_study_op_is_xformer(rt_study_op op);
/* The phase of a generation loop op belongs to: "prefill" (attention over a whole sequence),
 * "decode" (one token per step), or NULL (conv2d, lstm, and the MLP, which runs in both). */
const char *rt_study_op_phase(rt_study_op op);
/* The check of a point's shape (rt_conv_shape_check, rt_lstm_shape_check ...): 0 or -1. */
int rt_study_point_check(const rt_study_point *p, rt_error *err);

/*
 * The distinct points of the sweeps of op, the default first, one parameter varied at a
 * time. quick keeps the default and the second value of each sweep. scale (0 < scale <= 1)
 * shrinks the spatial size, channels and filters (conv) or every size (lstm) for tests;
 * 1 is the paper's shapes. Caller frees the array.
 */
rt_study_point *rt_study_points(rt_study_op op, bool quick, double scale, size_t *n);

/* The swept parameters of op, in the order of their tags (attention: batch, heads, seq,
 * head_dim, causal; mlp: tokens, hidden, gated; decode: batch, cache). */
const char *const *rt_study_params(rt_study_op op, size_t *n);
/* The value of parameter `param` of a point (batch, filters, kernel, stride; batch, seq, ...). */
long rt_study_point_param(const rt_study_point *p, const char *param);

#endif
