/* Measuring an NVIDIA GPU (gpu-measure.c): FLOP/s per precision and Tensor Cores, bandwidth per
 * level, launch overhead four ways; a machine for the model with the details in its typed
 * `gpu` record (core/gpu-measurement.h). */
#ifndef ROOFTIME_PROBE_GPU_MEASURE_H
#define ROOFTIME_PROBE_GPU_MEASURE_H

#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/gpu-arch.h"
#include "rooftime/core/gpu-measurement.h"
#include "rooftime/core/machine.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/error.h"

typedef struct rt_gpu_opts {
    int device;                /* CUDA device ordinal */
    int quick;                 /* under 30 s */
    rt_gpu_tau tau;            /* which definition is the model's tau (default: the paper's) */
    const rt_gpu_archs *archs; /* the GPU generations (rates, instructions); NULL: none known */
    /* an instruction family whose kernels are left out (fma, mma.sync, wgmma: the ceilings it
     * times stay unknown, said among the skipped lines); NULL: none */
    const char *skip_family;
    rt_progress_fn progress;
    void *progress_ctx;
} rt_gpu_opts;

/*
 * Measure GPU opts->device (opts may be NULL: device 0, full run, the paper's tau, no peak
 * data). On success *out is a new machine (source "measured"; units from fp64 to tensor_fp8 as
 * the GPU has them, each with its theoretical figure; levels L1, L2, HBM; the four launch
 * overheads in `overheads`, tau per opts->tau) whose `gpu` record holds every figure behind it.
 * What the GPU lacks is added to `skipped` (may be NULL). -1 with err naming what is missing
 * (driver, GPU, NVRTC, kernel sources) or what went wrong: a CUDA call that failed, a kernel
 * that computed a wrong result, a figure above its theoretical peak.
 */
int rt_gpu_measure(const rt_gpu_opts *opts, rt_machine **out, rt_warnings *skipped, rt_error *err);

/* 0 when name is an instruction family of the probe's compute kernels, else -1 with err naming
 * them. */
int rt_gpu_family_check(const char *name, rt_error *err);

/*
 * The collector's self-check (gpu-selfcheck.c): with the generations of archs (NULL: none known,
 * the vector kernels only), run every probe kernel GPU `device` has once,
 * with known work, and write one manifest line per kernel to out: "KERNEL<TAB>QUANTITY<TAB>
 * EXPECTED" (QUANTITY as data/ncu/metrics.json names it: flops.fp32, flops.tensor_fp16,
 * bytes.HBM ...), after a '#' comment line. *n_kernels: lines written. -1 with err as
 * rt_gpu_measure's (no driver, no GPU, a wrong result, a failed CUDA call).
 */
int rt_gpu_selfcheck_kernels(int device, const rt_gpu_archs *archs, FILE *out, int *n_kernels,
                             rt_error *err);

/* One kernel module of data/gpu/ (gpu-modules.c): its source file, the extern "C" kernels it
 * defines (NULL-terminated), and, when family is set, the instruction family its kernels time
 * ("wgmma"): it is compiled only for the generations whose entry in data/gpu/architectures.json
 * has that family reach a ceiling, as sm_<sm><feature> ("a": sm_90a). on_demand: not compiled by
 * the probe's measurement but by the one caller that uses it (conv-direct.cu: the GPU study's
 * check, gpu-conv.c). */
typedef struct rt_gpu_module {
    const char *source;
    const char *const *kernels;
    const char *family;
    const char *feature;
    int on_demand;
} rt_gpu_module;
/* Every module, ended by a row whose source is NULL. */
extern const rt_gpu_module rt_gpu_modules[];
/* Whether module m is compiled for a GPU of generation gen (NULL: none known): 1 or 0. */
int rt_gpu_module_applies(const rt_gpu_module *m, const rt_gpu_arch *gen);

/* One kernel source with the shared prelude in front, ready for NVRTC (malloc'd; NULL with err
 * when unreadable). */
char *rt_gpu_kernel_source(const char *name, rt_error *err);

#endif
