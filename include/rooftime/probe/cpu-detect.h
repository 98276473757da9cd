/* What the x86-64 CPU we run on can execute: instruction sets from CPUID and XGETBV, model name. */
#ifndef ROOFTIME_PROBE_CPU_DETECT_H
#define ROOFTIME_PROBE_CPU_DETECT_H

#include <stdbool.h>
#include <stdint.h>

#include "rooftime/util/error.h"

/* Vector instruction-set levels, ordered: a limit at one level forbids every level above it. */
typedef enum rt_isa {
    RT_ISA_SCALAR = 0,
    RT_ISA_SSE,    /* SSE2, 128-bit, no FMA */
    RT_ISA_AVX2,   /* AVX2 + FMA3, 256-bit */
    RT_ISA_AVX512, /* AVX-512F/BW/VL, 512-bit */
    RT_ISA_AMX     /* AMX tiles: the matrix unit, above every vector level */
} rt_isa;

/*
 * Each flag is true only when the CPU reports the feature AND the operating
 * system saves its registers (XCR0 from XGETBV), so a true flag means the
 * instructions can run here.
 */
typedef struct rt_cpu_info {
    char vendor[13];
    char model[64]; /* brand string, trimmed */
    int family, model_id;
    bool sse2, avx, avx2, fma;
    bool avx512f, avx512bw, avx512vl, avx512_vnni, avx512_bf16, avx512_fp16;
    bool amx_tile, amx_bf16, amx_int8;
    bool amx_cpu; /* CPUID reports AMX tiles, whether or not the OS enables their state */
} rt_cpu_info;

/* The CPUID and XCR0 values the flags are decoded from. */
typedef struct rt_cpuid_regs {
    uint32_t max_leaf;             /* leaf 0 EAX */
    uint32_t leaf1_ecx, leaf1_edx; /* leaf 1 */
    uint32_t leaf7_max_sub;        /* leaf 7 subleaf 0 EAX */
    uint32_t leaf7_ebx, leaf7_ecx, leaf7_edx;
    uint32_t leaf7_1_eax; /* leaf 7 subleaf 1 EAX (AVX512-BF16: bit 5) */
    uint64_t xcr0;        /* XGETBV(0), read only when leaf 1 ECX has OSXSAVE */
} rt_cpuid_regs;

/* Fill info from CPUID/XGETBV; on a non-x86 build every flag is false. */
void rt_cpu_detect(rt_cpu_info *info);

/* The instruction-set flags of info (not vendor, model, family) from CPUID and XCR0 values: a
 * feature counts only where the OS saves its registers (XCR0), so a CPU with AMX whose kernel
 * leaves the tile state out of XCR0 (Linux before 5.16) has amx_cpu but not amx_tile. */
void rt_cpu_decode(const rt_cpuid_regs *regs, rt_cpu_info *info);

/* Clear every flag above `max` (so kernels above it are never chosen). */
void rt_cpu_limit(rt_cpu_info *info, rt_isa max);

/* The highest vector level (SCALAR..AVX512) info allows; AMX is reported by its flags. */
rt_isa rt_cpu_best_isa(const rt_cpu_info *info);

/* "sse", "avx2", "avx512", "amx"; case-insensitive. Returns -1 with a message on anything else. */
int rt_isa_parse(const char *s, rt_isa *out, rt_error *err);
const char *rt_isa_name(rt_isa isa);

/*
 * Ask Linux for permission to use the AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA); needed once per process before the first tile instruction.
 */
int rt_cpu_request_amx(rt_error *err);

/* Comma-separated names of the true flags ("sse2,avx2,fma,..."); caller frees. */
char *rt_cpu_flags_string(const rt_cpu_info *info);

/* This machine as a profile names the machine it ran on: "AMD EPYC (AuthenticAMD family 25
 * model 17), 2 CPUs" (brand, vendor, family and model from CPUID, the CPUs online); caller frees.
 */
char *rt_cpu_describe(void);

#endif
