/* Private: the LSTM tensors every implementation of the study starts from (lstm-data.c). */
#ifndef ROOFTIME_STUDY_LSTM_DATA_H
#define ROOFTIME_STUDY_LSTM_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/study/study-shapes.h"

/* Gate order i, f, g, o (oneDNN's ldigo): W [F][4][H], U [H][4][H], b [4][H]. */
typedef struct rt_lstm_data {
    rt_lstm_shape s;
    float *x;       /* [T][N][F] */
    float *h0, *c0; /* [N][H] */
    float *W, *U, *b;
    float *dy; /* [T][N][H]: gradient of the loss with respect to every output h_t */
} rt_lstm_data;

/* Fill from seed in a fixed order, so every implementation sees the same tensors. */
void rt_lstm_data_init(rt_lstm_data *d, const rt_lstm_shape *s, uint64_t seed);
void rt_lstm_data_release(rt_lstm_data *d);
/* Elements of the result of a pass: forward h for every step and the final c; backward dx,
 * dW, dU, db, dh0, dc0 (in that order, concatenated). */
size_t rt_lstm_out_elems(const rt_lstm_shape *s, rt_pass pass);

#endif
