/* The probe's kernel modules, one row each: the source under data/gpu/, the kernels it defines,
 * and the instruction family that decides where it is compiled. Adding a module is one row here
 * and one .cu file; its compute kernels get a row in rt_gpu_compute_kernels (gpu-kernels.c) naming
 * their family and type, and data/gpu/architectures.json says on which generations that family
 * reaches which ceiling.
 */
#include <string.h>

#include "gpu-internal.h"

/* Indexed by the MOD_* handles of gpu-internal.h, so the order cannot drift. The FLOPs of a compute
 * kernel are not listed: each kernel writes its FLOPs per warp per iteration into meta[0], and
 * rt_gpu_run_compute checks the result it computed against them. */
const rt_gpu_module rt_gpu_modules[] = {
    [MOD_FMA] = {.source = "fma.cu",
                 .kernels =
                     (const char *const[]){"fma_fp64", "fma_fp32", "fma_fp16", "fma_bf16", NULL}},
    [MOD_MMA] = {.source = "mma.cu",
                 .kernels = (const char *const[]){"mma_fp16", "mma_bf16", "mma_tf32", "mma_int8",
                                                  "mma_fp8", "mma_fp64", NULL}},
    [MOD_MEM] = {.source = "memory.cu",
                 .kernels = (const char *const[]){"bw_read", "bw_read_l2", "bw_rmw", "bw_l1",
                                                  "bw_shared", NULL}},
    [MOD_LAUNCH] = {.source = "launch.cu", .kernels = (const char *const[]){"empty_kernel", NULL}},
    /* wgmma: an architecture-specific instruction (sm_90a), where a generation names it */
    [MOD_WGMMA] = {.source = "wgmma.cu",
                   .kernels = (const char *const[]){"wgmma_fp16", "wgmma_bf16", "wgmma_tf32",
                                                    "wgmma_fp8", "wgmma_int8", NULL},
                   .family = "wgmma",
                   .feature = "a"},
    /* the GPU study's correctness reference, compiled when its check runs (gpu-conv.c) */
    [MOD_CONV] = {.source = "conv-direct.cu",
                  .kernels = (const char *const[]){"conv_fill", "conv_direct", NULL},
                  .on_demand = 1},
    {0},
};

_Static_assert(sizeof rt_gpu_modules / sizeof *rt_gpu_modules == N_MODS + 1,
               "one row in rt_gpu_modules per MOD_* handle, then the terminator");

int rt_gpu_module_applies(const rt_gpu_module *m, const rt_gpu_arch *gen)
{
    if (!m->family)
        return 1;
    for (size_t i = 0; gen && i < gen->n_units; i++)
        if (strcmp(rt_gpu_arch_timed_by(gen, gen->units[i].name), m->family) == 0)
            return 1;
    return 0;
}
