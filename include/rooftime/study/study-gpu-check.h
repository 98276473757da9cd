/* The GPU study's correctness check (study-gpu-check.c): rooftime's direct NVRTC convolution as
 * the reference every framework's forward conv2d output is compared against, on small shapes. */
#ifndef ROOFTIME_STUDY_STUDY_GPU_CHECK_H
#define ROOFTIME_STUDY_STUDY_GPU_CHECK_H

#include <stddef.h>

#include "rooftime/util/error.h"

typedef struct rt_study_gpu_check_point {
    int batch, channels, size, filters, kernel, stride;
} rt_study_gpu_check_point;

/* Runs the direct NVRTC convolution on each point and compares every
 * DIR/<framework>-<precision>-<variant>-<i>.f32 present against it (relative L2 error within a
 * per-precision tolerance). Writes one line per file to *report (malloc'd). Returns 0 when all
 * present files pass, 1 when one fails (report says which), -1 with err when the reference cannot
 * run (no GPU, NVRTC missing). */
int rt_study_gpu_check(int device, const rt_study_gpu_check_point *pts, size_t n, const char *dir,
                       char **report, rt_error *err);

#endif
