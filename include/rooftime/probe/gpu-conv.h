/* The GPU study's correctness reference: rooftime's own direct convolution on the GPU
 * (data/gpu/conv-direct.cu, compiled by NVRTC; the driver loaded at run time), on the study's
 * deterministic inputs, which it fills on the device (docs/gpu-measure.md). */
#ifndef ROOFTIME_PROBE_GPU_CONV_H
#define ROOFTIME_PROBE_GPU_CONV_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* One Conv2D: input batch x channels x size x size (NCHW), filters x channels x kernel x kernel
 * weights (OIHW), padding kernel / 2, the stride given, no bias. */
typedef struct rt_gpu_conv_shape {
    int batch, channels, size, filters, kernel, stride;
} rt_gpu_conv_shape;

/* The largest tensor (input, weights or output) the reference takes, in elements: the check runs
 * on small shapes. */
#define RT_GPU_CONV_MAX_ELEMS ((size_t)1 << 26)

/* The output's height and width, (size + 2 * (kernel / 2) - kernel) / stride + 1; 0 when a field
 * is below 1 or above 65536, or a tensor has more than RT_GPU_CONV_MAX_ELEMS elements (then err
 * says which, when not NULL). */
int rt_gpu_conv_out_side(const rt_gpu_conv_shape *s, rt_error *err);

/* Runs the direct convolution on GPU `device` for each of the n shapes: out[i] (malloc'd) holds
 * the NCHW float output of shape i, n_out[i] its element count; device_name (when not NULL) gets
 * the GPU's name. -1 with err when there is no driver, no such GPU, no NVRTC for it, a shape is
 * out of range, or a driver call fails; then every out[i] is NULL. */
int rt_gpu_conv_direct(int device, const rt_gpu_conv_shape *shapes, size_t n, float **out,
                       size_t *n_out, char *device_name, size_t name_len, rt_error *err);

#endif
