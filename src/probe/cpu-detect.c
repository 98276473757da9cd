/* Instruction-set detection for x86-64 from CPUID and XGETBV, and the Linux AMX permission request.
 */
#define _GNU_SOURCE
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define RT_X86 1
#endif
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

#ifdef RT_X86
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]))
        r[0] = r[1] = r[2] = r[3] = 0;
}

/* XCR0 says which register states the OS saves; without it the instructions fault. */
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

/* XCR0 state components (Intel SDM vol. 1, 13.1): SSE 1, AVX 2, opmask 5, ZMM_Hi256 6, Hi16_ZMM 7,
 * XTILECFG 17, XTILEDATA 18. */
#define RT_XCR0_YMM 0x6ull
#define RT_XCR0_ZMM 0xe0ull
#define RT_XCR0_TILE 0x60000ull

void rt_cpu_decode(const rt_cpuid_regs *r, rt_cpu_info *info)
{
    info->sse2 = info->avx = info->avx2 = info->fma = false;
    info->avx512f = info->avx512bw = info->avx512vl = info->avx512_vnni = info->avx512_bf16 =
        info->avx512_fp16 = false;
    info->amx_tile = info->amx_bf16 = info->amx_int8 = info->amx_cpu = false;
    if (r->max_leaf < 1)
        return;
    bool sse2 = r->leaf1_edx & (1u << 26), fma = r->leaf1_ecx & (1u << 12),
         osxsave = r->leaf1_ecx & (1u << 27), avx = r->leaf1_ecx & (1u << 28);
    /* Without OSXSAVE XGETBV faults and the OS saves no extended state: XCR0 counts as 0. */
    uint64_t xcr0 = osxsave ? r->xcr0 : 0;
    bool os_ymm = (xcr0 & RT_XCR0_YMM) == RT_XCR0_YMM;
    bool os_zmm = os_ymm && (xcr0 & RT_XCR0_ZMM) == RT_XCR0_ZMM;
    bool os_amx = (xcr0 & RT_XCR0_TILE) == RT_XCR0_TILE;
    info->sse2 = sse2;
    info->avx = avx && os_ymm;
    info->fma = fma && os_ymm;
    if (r->max_leaf < 7)
        return;
    unsigned ebx = r->leaf7_ebx, ecx = r->leaf7_ecx, edx = r->leaf7_edx;
    info->avx2 = (ebx & (1u << 5)) && os_ymm;
    info->avx512f = (ebx & (1u << 16)) && os_zmm;
    info->avx512bw = info->avx512f && (ebx & (1u << 30));
    info->avx512vl = info->avx512f && (ebx & (1u << 31));
    info->avx512_vnni = info->avx512f && (ecx & (1u << 11));
    info->avx512_fp16 = info->avx512f && (edx & (1u << 23));
    /* Leaf 7 EDX: AMX-BF16 bit 22, AMX-TILE bit 24, AMX-INT8 bit 25. */
    info->amx_cpu = edx & (1u << 24);
    info->amx_tile = info->amx_cpu && os_amx;
    info->amx_bf16 = info->amx_tile && (edx & (1u << 22));
    info->amx_int8 = info->amx_tile && (edx & (1u << 25));
    if (r->leaf7_max_sub >= 1)
        info->avx512_bf16 = info->avx512f && (r->leaf7_1_eax & (1u << 5));
}

void rt_cpu_detect(rt_cpu_info *info)
{
    memset(info, 0, sizeof *info);
#ifdef RT_X86
    unsigned r[4];
    rt_cpuid_regs regs = {0};
    cpuid(0, 0, r);
    regs.max_leaf = r[0];
    memcpy(info->vendor + 0, &r[1], 4);
    memcpy(info->vendor + 4, &r[3], 4);
    memcpy(info->vendor + 8, &r[2], 4);
    info->vendor[12] = '\0';

    cpuid(1, 0, r);
    unsigned fam = (r[0] >> 8) & 0xf, mod = (r[0] >> 4) & 0xf;
    if (fam == 0xf)
        fam += (r[0] >> 20) & 0xff;
    if (fam == 0x6 || fam >= 0xf)
        mod |= ((r[0] >> 16) & 0xf) << 4;
    info->family = (int)fam;
    info->model_id = (int)mod;
    regs.leaf1_ecx = r[2];
    regs.leaf1_edx = r[3];
    if (regs.leaf1_ecx & (1u << 27)) /* OSXSAVE: XGETBV may run */
        regs.xcr0 = xgetbv0();
    if (regs.max_leaf >= 7) {
        cpuid(7, 0, r);
        regs.leaf7_max_sub = r[0];
        regs.leaf7_ebx = r[1];
        regs.leaf7_ecx = r[2];
        regs.leaf7_edx = r[3];
        if (regs.leaf7_max_sub >= 1) {
            cpuid(7, 1, r);
            regs.leaf7_1_eax = r[0];
        }
    }
    rt_cpu_decode(&regs, info);

    cpuid(0x80000000u, 0, r);
    if (r[0] >= 0x80000004u) {
        char brand[49];
        for (unsigned i = 0; i < 3; i++) {
            cpuid(0x80000002u + i, 0, r);
            memcpy(brand + 16 * i, r, 16);
        }
        brand[48] = '\0';
        /* The brand string is padded with spaces on both sides on some CPUs. */
        char *s = brand;
        while (*s == ' ')
            s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0'))
            n--;
        if (n >= sizeof info->model)
            n = sizeof info->model - 1;
        memcpy(info->model, s, n);
        info->model[n] = '\0';
    }
#endif
    if (!info->model[0])
        snprintf(info->model, sizeof info->model, "unknown CPU");
}

void rt_cpu_limit(rt_cpu_info *info, rt_isa max)
{
    if (max < RT_ISA_AMX) /* amx_cpu stays: what the CPU has, not what may run */
        info->amx_tile = info->amx_bf16 = info->amx_int8 = false;
    if (max < RT_ISA_AVX512)
        info->avx512f = info->avx512bw = info->avx512vl = info->avx512_vnni = info->avx512_bf16 =
            info->avx512_fp16 = false;
    if (max < RT_ISA_AVX2)
        info->avx = info->avx2 = info->fma = false;
    if (max < RT_ISA_SSE)
        info->sse2 = false;
}

rt_isa rt_cpu_best_isa(const rt_cpu_info *info)
{
    /* Our AVX-512 kernels use F only, AVX2 kernels need FMA3 too. */
    if (info->avx512f)
        return RT_ISA_AVX512;
    if (info->avx2 && info->fma)
        return RT_ISA_AVX2;
    if (info->sse2)
        return RT_ISA_SSE;
    return RT_ISA_SCALAR;
}

static const char *const isa_names[] = {"scalar", "sse", "avx2", "avx512", "amx"};

const char *rt_isa_name(rt_isa isa)
{
    return (unsigned)isa < sizeof isa_names / sizeof *isa_names ? isa_names[isa] : "?";
}

int rt_isa_parse(const char *s, rt_isa *out, rt_error *err)
{
    for (unsigned i = RT_ISA_SSE; i < sizeof isa_names / sizeof *isa_names; i++)
        if (s && strcasecmp(s, isa_names[i]) == 0) {
            *out = (rt_isa)i;
            return 0;
        }
    rt_error_set(err, "unknown instruction set '%s' (expected sse, avx2, avx512 or amx)",
                 s ? s : "");
    return -1;
}

int rt_cpu_request_amx(rt_error *err)
{
#if defined(__linux__) && defined(__x86_64__)
    /* From arch/x86/include/uapi/asm/prctl.h and the XSAVE feature numbers. */
    const int ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18;
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) {
        rt_error_set(err, "Linux refused AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM): %s",
                     strerror(errno));
        return -1;
    }
    return 0;
#else
    rt_error_set(err, "AMX needs Linux on x86-64");
    return -1;
#endif
}

char *rt_cpu_flags_string(const rt_cpu_info *info)
{
    struct {
        bool on;
        const char *name;
    } f[] = {{info->sse2, "sse2"},
             {info->avx, "avx"},
             {info->avx2, "avx2"},
             {info->fma, "fma"},
             {info->avx512f, "avx512f"},
             {info->avx512bw, "avx512bw"},
             {info->avx512vl, "avx512vl"},
             {info->avx512_vnni, "avx512_vnni"},
             {info->avx512_bf16, "avx512_bf16"},
             {info->avx512_fp16, "avx512_fp16"},
             {info->amx_tile, "amx_tile"},
             {info->amx_bf16, "amx_bf16"},
             {info->amx_int8, "amx_int8"}};
    char buf[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (f[i].on)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", len ? "," : "", f[i].name);
    return rt_strdup(buf);
}

char *rt_cpu_describe(void)
{
    rt_cpu_info info;
    rt_cpu_detect(&info);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (info.family > 0)
        return rt_asprintf("%s (%s family %d model %d), %ld CPU%s", info.model, info.vendor,
                           info.family, info.model_id, n, n == 1 ? "" : "s");
    return rt_asprintf("%s, %ld CPU%s", info.model, n, n == 1 ? "" : "s");
}
