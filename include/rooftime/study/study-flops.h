/* Exact FLOP and byte counts of the study's kernels (study-flops.c), for the loops actually run. */
#ifndef ROOFTIME_STUDY_STUDY_FLOPS_H
#define ROOFTIME_STUDY_STUDY_FLOPS_H

#include <stdbool.h>

#include "rooftime/study/study-shapes.h"

/* Sum over output positions of the kernel taps that land inside the input along one dimension. */
long rt_conv_valid_taps(long in, long ksize, long stride, long pad, long out);
/* Multiply-adds of a convolution that skips padding (direct loops, oneDNN jit direct). */
double rt_conv_macs_valid(const rt_conv_shape *s);
/* Multiply-adds of a convolution over the padded input (im2col + GEMM): N K C R S P Q. */
double rt_conv_macs_padded(const rt_conv_shape *s);
/* Multiply-adds of Winograd F(m x m, r x r) in its tile products (the transforms not counted: a
 * lower bound of its FLOPs); -1 for a stride or filter it does not apply to. */
double rt_conv_macs_winograd(const rt_conv_shape *s, rt_pass pass, int m, int r);
/* Element counts of the tensors. */
double rt_conv_src_elems(const rt_conv_shape *s);
double rt_conv_wei_elems(const rt_conv_shape *s);
double rt_conv_dst_elems(const rt_conv_shape *s);
/* Compulsory bytes of one pass: the tensors it reads and writes, each once. */
double rt_conv_pass_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes);
/* Bytes the direct loops load and store at L1 in one pass (conv-direct.c's loop structure). */
double rt_conv_direct_l1_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes);
/* im2col of one image: valid loads and stores of the column buffer, in elements. */
double rt_im2col_loads(const rt_conv_shape *s);
double rt_im2col_stores(const rt_conv_shape *s);
/* col2im of one image: additions (one per valid column entry) and element loads/stores. */
double rt_col2im_adds(const rt_conv_shape *s);
/* GEMM C = A B (+ C when accumulate): 2 M N K, plus M N additions when accumulating. */
double rt_gemm_flops(long m, long n, long k, bool accumulate);

/* Per-element FLOPs of the LSTM elementwise kernels (each libm call counts as one FLOP). */
enum {
    RT_LSTM_SIGMOID_FLOPS = 12,  /* i, f, o: bias add + expf + add + divide, 4 each */
    RT_LSTM_TANH_FLOPS = 2,      /* g: bias add + tanhf */
    RT_LSTM_CELL_FLOPS = 3,      /* c = f c + i g */
    RT_LSTM_HIDDEN_FLOPS = 2,    /* h = o tanh(c) */
    RT_LSTM_BWD_CELL_FLOPS = 11, /* dh = dy + dh', do, dc (lstm-unfused.c) */
    RT_LSTM_BWD_GATES_FLOPS = 13 /* di, df, dg with their derivatives, dc_prev */
};
/* FLOPs of the whole LSTM (forward or backward) as the reference and unfused loops run it. */
double rt_lstm_flops(const rt_lstm_shape *s, rt_pass pass);
/* Compulsory bytes of a whole LSTM pass (inputs, weights, outputs; saved states for backward). */
double rt_lstm_pass_bytes(const rt_lstm_shape *s, rt_pass pass, double elem_bytes);

#endif
