/* The GPU study's correctness check: every client's forward Conv2D outputs on the deterministic
 * inputs, compared with rooftime's own direct NVRTC convolution (data/gpu/conv-direct.cu). The
 * inputs (NCHW x, OIHW w, no bias): u(i, s) = ((i * 2654435761 + s) mod 2^32) / 2^32 - 0.5,
 * x[i] = u(i, 0), w[j] = u(j, 12345) / sqrt(C*K*K), padding K / 2. A client writes its output of
 * check point i as DIR/<framework>-<precision>-<variant or 'plain'>-<i>.f32: the NCHW float32
 * values, little-endian, nothing else (docs/gpu-measure.md). */
#ifndef ROOFTIME_STUDY_GPU_CHECK_H
#define ROOFTIME_STUDY_GPU_CHECK_H

#include <stddef.h>
#include <stdint.h>

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

/* The comparison behind it, without a GPU: the reference `ref` (n values) against the file at
 * path, given that file's precision (`fp32`, `tf32`, `fp16`, `bf16`). Returns 0 and a line
 * "NAME: pass ..." in *line (malloc'd) when within the tolerance, 1 and "NAME: FAIL ..." when not
 * or when the file is missing, short, long or holds a non-finite value. NAME is the file's base
 * name. -1 with err for an unknown precision. *rel_err (when not NULL): the relative L2 error,
 * or -1 when none was computed. */
int rt_study_gpu_check_compare(const float *ref, size_t n, const char *path, const char *precision,
                               char **line, double *rel_err, rt_error *err);

/* The directory walk behind it, without a GPU: every .f32 file of dir against ref[i] (n_ref[i]
 * values) of the check point its name gives, sorted by name, one line each in *report (malloc'd);
 * a group (<framework>-<precision>-<variant>) that lacks one of the n points gets a FAIL line for
 * it, and so does a .f32 file whose name is not a check file's. 0 when every line passes, 1 when
 * one fails, -1 with err when dir cannot be read. */
int rt_study_gpu_check_dir(float *const *ref, const size_t *n_ref, size_t n, const char *dir,
                           char **report, rt_error *err);

/* The largest relative L2 error, ||y - ref|| / ||ref||, a precision passes with; -1 for a name
 * that is not one. fp32 1e-5, tf32 2e-3, fp16 and bf16 1e-2 (the reasons: docs/gpu-measure.md). */
double rt_study_gpu_check_tolerance(const char *precision);

/* The deterministic input on the host, value i of seed s over div (1 for the input, sqrt(C*K*K)
 * for the weights): the same steps as conv_fill on the device and the clients' generators. */
float rt_study_gpu_check_input(uint64_t i, uint32_t seed, double div);

#endif
