/* Exact FLOP and byte counts of the study's kernels, for the loops as they are written. */
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/sliding-window.h"

long rt_conv_valid_taps(long in, long ksize, long stride, long pad, long out)
{
    int64_t t = rt_window_taps(out, in, ksize, stride, 1, pad);
    return t < 0 ? 0 : (long)t;
}

static double taps_h(const rt_conv_shape *s)
{
    return (double)rt_conv_valid_taps(s->h, s->r, s->stride, s->pad, rt_conv_out_h(s));
}

static double taps_w(const rt_conv_shape *s)
{
    return (double)rt_conv_valid_taps(s->w, s->s, s->stride, s->pad, rt_conv_out_w(s));
}

double rt_conv_macs_valid(const rt_conv_shape *s)
{
    return (double)s->n * s->k * s->c * taps_h(s) * taps_w(s);
}

double rt_conv_macs_padded(const rt_conv_shape *s)
{
    return (double)s->n * s->k * s->c * s->r * s->s * rt_conv_out_h(s) * rt_conv_out_w(s);
}

/* Winograd F(m x m, r x r) multiplies, per output tile of m x m and per input and output channel
 * pair, the (m + r - 1)^2 transformed elements once: the tiles cover the pass's output (the
 * input's gradient for backward-data; the output's gradient for backward-weights). Applies to
 * stride 1 and an r x r filter; -1 otherwise. */
double rt_conv_macs_winograd(const rt_conv_shape *s, rt_pass pass, int m, int r)
{
    if (m <= 0 || r <= 0 || s->stride != 1 || s->r != r || s->s != r)
        return -1;
    long oh = pass == RT_PASS_BWD_DATA ? s->h : rt_conv_out_h(s);
    long ow = pass == RT_PASS_BWD_DATA ? s->w : rt_conv_out_w(s);
    double tiles = (double)s->n * (double)((oh + m - 1) / m) * (double)((ow + m - 1) / m);
    double t = (double)(m + r - 1);
    return tiles * s->c * s->k * t * t;
}

double rt_conv_src_elems(const rt_conv_shape *s)
{
    return (double)s->n * s->c * s->h * s->w;
}

double rt_conv_wei_elems(const rt_conv_shape *s)
{
    return (double)s->k * s->c * s->r * s->s;
}

double rt_conv_dst_elems(const rt_conv_shape *s)
{
    return (double)s->n * s->k * rt_conv_out_h(s) * rt_conv_out_w(s);
}

/* Every pass touches the three tensors once: two read, one written. */
double rt_conv_pass_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes)
{
    (void)pass;
    return (rt_conv_src_elems(s) + rt_conv_wei_elems(s) + rt_conv_dst_elems(s)) * elem_bytes;
}

/* conv-direct.c loads two operands per multiply-add and stores each result element once. */
double rt_conv_direct_l1_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes)
{
    double stores = pass == RT_PASS_FWD        ? rt_conv_dst_elems(s)
                    : pass == RT_PASS_BWD_DATA ? rt_conv_src_elems(s)
                                               : rt_conv_wei_elems(s);
    return (2 * rt_conv_macs_valid(s) + stores) * elem_bytes;
}

/* Per image: one load per column entry that falls inside the input, one store per entry. */
double rt_im2col_loads(const rt_conv_shape *s)
{
    return (double)s->c * taps_h(s) * taps_w(s);
}

double rt_im2col_stores(const rt_conv_shape *s)
{
    return (double)s->c * s->r * s->s * rt_conv_out_h(s) * rt_conv_out_w(s);
}

/* Per image: one addition into the image per column entry that falls inside it. */
double rt_col2im_adds(const rt_conv_shape *s)
{
    return (double)s->c * taps_h(s) * taps_w(s);
}

double rt_gemm_flops(long m, long n, long k, bool accumulate)
{
    return 2.0 * m * n * k + (accumulate ? (double)m * n : 0.0);
}

/* Per time step, the kernels of lstm-unfused.c (lstm-direct.c does the same arithmetic). */
double rt_lstm_flops(const rt_lstm_shape *s, rt_pass pass)
{
    double N = s->batch, F = s->features, H = s->hidden, G = 4 * H, T = s->seq;
    double step;
    if (pass == RT_PASS_FWD)
        step = rt_gemm_flops(s->batch, 4 * s->hidden, s->features, false) +
               rt_gemm_flops(s->batch, 4 * s->hidden, s->hidden, true) +
               N * H *
                   (RT_LSTM_SIGMOID_FLOPS + RT_LSTM_TANH_FLOPS + RT_LSTM_CELL_FLOPS +
                    RT_LSTM_HIDDEN_FLOPS);
    else
        step = N * H * (RT_LSTM_BWD_CELL_FLOPS + RT_LSTM_BWD_GATES_FLOPS) +
               rt_gemm_flops(s->batch, s->features, 4 * s->hidden, false) + /* dx */
               rt_gemm_flops(s->batch, s->hidden, 4 * s->hidden, false) +   /* dh */
               rt_gemm_flops(s->features, 4 * s->hidden, s->batch, true) +  /* dW */
               rt_gemm_flops(s->hidden, 4 * s->hidden, s->batch, true) +    /* dU */
               N * G;                                                       /* db */
    (void)F;
    return T * step;
}

double rt_lstm_pass_bytes(const rt_lstm_shape *s, rt_pass pass, double elem_bytes)
{
    double N = s->batch, F = s->features, H = s->hidden, G = 4 * H, T = s->seq;
    double weights = F * G + H * G + G;
    double e;
    if (pass == RT_PASS_FWD) /* x, weights, h0, c0 in; h for every step, final c out */
        e = T * N * F + weights + 2 * N * H + T * N * H + N * H;
    else /* x, weights, saved gates, c and h, dy in; dx, weight gradients, dh0, dc0 out */
        e = T * N * F + weights + T * N * G + 2 * T * N * H + 2 * N * H + T * N * H + T * N * F +
            weights + 2 * N * H;
    return e * elem_bytes;
}
