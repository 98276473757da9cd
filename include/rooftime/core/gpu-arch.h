/* GPU generations (gpu-arch.c; read from data/gpu/architectures.json by formats/gpu-arch-json.c):
 * per generation its peak rates (theoretical = SMs x clock x rate), the instruction family that
 * reaches each Tensor Core ceiling (what the probe times it with), the quantity under which the
 * counters report a unit's work where it is not the unit's own, and the part whose peak stands for
 * the generation; the parts whose spec sheets the presets hold. */
#ifndef ROOFTIME_CORE_GPU_ARCH_H
#define ROOFTIME_CORE_GPU_ARCH_H

#include <stddef.h>

#define RT_GPU_MAX_UNITS 24

/* A unit and a name that goes with it (an instruction family, a quantity's unit). */
typedef struct rt_gpu_pair {
    char unit[24];
    char name[24];
} rt_gpu_pair;

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
    /* the instruction family that reaches the Tensor Core ceilings (tensor_*): "mma.sync",
     * "wgmma", "tcgen05.mma"; timed_by: units reached by another one (tensor_fp64: "mma.sync") */
    char tensor_instruction[24];
    rt_gpu_pair timed_by[RT_GPU_MAX_UNITS];
    size_t n_timed_by;
    /* a unit whose work the counters report under another unit's quantity (tensor_fp16 ->
     * "tensor" on Volta, mma_fp8 -> "tensor_fp16" where FP8 mma.sync runs as FP16 HMMA) */
    rt_gpu_pair counted_as[RT_GPU_MAX_UNITS];
    size_t n_counted_as;
    char reference_part[64]; /* the part whose peaks stand for the generation ("": none) */
} rt_gpu_arch;

/* A part whose spec sheet a machine preset holds, to check the rates against. */
typedef struct rt_gpu_part {
    char name[64];
    int sm, sms;
    double clock_hz, tensor_clock_hz; /* vector units, Tensor Cores */
    char preset[64];                  /* data/machines/<preset>.json ("": none) */
} rt_gpu_part;

typedef struct rt_gpu_archs {
    rt_gpu_arch *arch;
    size_t n;
    rt_gpu_part *part;
    size_t n_parts;
} rt_gpu_archs;

void rt_gpu_archs_release(rt_gpu_archs *a);

/* The entry for sm_<sm> exactly (its rates are that chip's); NULL when the file has none. */
const rt_gpu_arch *rt_gpu_arch_find(const rt_gpu_archs *a, int sm);
/* The generation of sm_<sm>: its entry, else the nearest one below it (sm_103 is sm_100's, sm_121
 * sm_120's: the same instructions); NULL below every entry. */
const rt_gpu_arch *rt_gpu_arch_generation(const rt_gpu_archs *a, int sm);
/* The instruction family that reaches unit's ceiling on this generation: its timed_by entry, else
 * tensor_instruction for tensor_*, "mma.sync" for mma_* (mma.sync where another instruction
 * reaches the ceiling), "fma" for the vector units. */
const char *rt_gpu_arch_timed_by(const rt_gpu_arch *arch, const char *unit);
/* The unit under whose quantity the counters report unit's work: its counted_as entry, else the
 * unit itself. */
const char *rt_gpu_arch_counted_as(const rt_gpu_arch *arch, const char *unit);
/* The peak of `unit` in FLOP/s of the reference part of sm_<sm>'s generation
 * (rt_gpu_arch_generation); 0 when it names none or lacks the unit. */
double rt_gpu_generation_peak(const rt_gpu_archs *a, int sm, const char *unit);
/* FLOPs per SM per cycle of `unit`; 0 when the architecture lacks it. */
double rt_gpu_arch_rate(const rt_gpu_arch *arch, const char *unit);
/* SMs x clock x rate; tensor_* and "tensor" units use tensor_clock_hz. 0 when the unit is absent.
 */
double rt_gpu_theoretical(const rt_gpu_arch *arch, const char *unit, int sms, double clock_hz,
                          double tensor_clock_hz);

#endif
