/* Taps of a sliding window (sliding-window.c): how many (output position, kernel tap) pairs read
 * a real input element rather than padding, in closed form. Convolution and pooling FLOPs in the
 * oneDNN importer and in the study both count with it. */
#ifndef ROOFTIME_UTIL_SLIDING_WINDOW_H
#define ROOFTIME_UTIL_SLIDING_WINDOW_H

#include <stdint.h>

/* The largest size, stride, dilation or padding the counter takes (in absolute value). */
#define RT_WINDOW_MAX_DIM ((int64_t)1 << 31)

/*
 * Pairs (o, k), 0 <= o < out, 0 <= k < kern, whose input index o*stride - pad + k*step lies in
 * [0, in); step is the distance between taps (1 = dense; oneDNN's 0-based dilation d is d + 1).
 * O(log) time whatever the sizes. Returns -1 when stride or step is below 1 or any argument is
 * beyond RT_WINDOW_MAX_DIM; 0 when out, in or kern is below 1.
 */
int64_t rt_window_taps(int64_t out, int64_t in, int64_t kern, int64_t stride, int64_t step,
                       int64_t pad);

#endif
