/* The GPU study's ncu run (study-gpu-ncu.c): three configs' clients once more under Nsight Compute,
 * each compared with the study's own profile of it (rt_study_gpu_crosscheck). */
#ifndef ROOFTIME_STUDY_STUDY_GPU_NCU_H
#define ROOFTIME_STUDY_STUDY_GPU_NCU_H

#include <stdbool.h>

#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-run.h"

/* Run the default point's forward pass of up to three configs that ran (conv2d at fp32 and fp16,
 * the LSTM at fp32; JAX's where PyTorch's did not run) under ncu ($ROOFTIME_NCU, else PATH, else
 * /usr/local/cuda/bin/ncu) with the throughput metrics of compute capability sm (90 for 9.0),
 * --clock-control base (ncu's default: the clocks locked; where that fails, none, said) or with
 * clock_base false none alone (the clocks left as they are), writing g->dir/ncu/, and add the
 * comparison's lines to r->crosscheck; each client under ncu is told to g->progress as mode "ncu".
 * Without ncu, or when none of the configs ran, one "Skipped:" line says why. */
void rt_study_gpu_ncu_crosscheck(const rt_study_gpu_runner *g, int sm, bool clock_base,
                                 rt_study_gpu_result *r);

#endif
