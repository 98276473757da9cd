/* Per-architecture GPU peak rates (gpu-arch.c; read from data/gpu/architectures.json by
 * formats/gpu-arch-json.c): theoretical = SMs x clock x rate. */
#ifndef ROOFTIME_CORE_GPU_ARCH_H
#define ROOFTIME_CORE_GPU_ARCH_H

#include <stddef.h>

#define RT_GPU_MAX_UNITS 16

typedef struct rt_gpu_rate {
    char name[24];             /* fp64, fp32, fp16, bf16, tensor, tensor_bf16, ... */
    double flops_per_sm_clock; /* FLOPs per SM per cycle, dense */
} rt_gpu_rate;

typedef struct rt_gpu_arch {
    int sm; /* compute capability as XY: 70, 80, 90 */
    char name[32];
    double l1_bytes_per_sm, l1_bytes_per_clock_per_sm;
    rt_gpu_rate units[RT_GPU_MAX_UNITS];
    size_t n_units;
} rt_gpu_arch;

/* A part whose spec sheet a machine preset holds, to check the rates against. */
typedef struct rt_gpu_part {
    char name[64];
    int sm, sms;
    double clock_hz, tensor_clock_hz; /* vector units, Tensor Cores */
    char preset[64];                  /* data/machines/<preset>.json */
} rt_gpu_part;

typedef struct rt_gpu_archs {
    rt_gpu_arch *arch;
    size_t n;
    rt_gpu_part *part;
    size_t n_parts;
} rt_gpu_archs;

void rt_gpu_archs_release(rt_gpu_archs *a);

/* The entry for sm_<sm> exactly; NULL when the file has none. */
const rt_gpu_arch *rt_gpu_arch_find(const rt_gpu_archs *a, int sm);
/* FLOPs per SM per cycle of `unit`; 0 when the architecture lacks it. */
double rt_gpu_arch_rate(const rt_gpu_arch *arch, const char *unit);
/* SMs x clock x rate; tensor_* and "tensor" units use tensor_clock_hz. 0 when the unit is absent.
 */
double rt_gpu_theoretical(const rt_gpu_arch *arch, const char *unit, int sms, double clock_hz,
                          double tensor_clock_hz);

#endif
