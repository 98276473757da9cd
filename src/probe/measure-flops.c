/* Peak compute throughput kernels (FMA, dot-product and AMX tile instructions) and their threaded
 * timing. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "measure-internal.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime-config.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * Every FMA kernel iterates c = c * m + a with m = a = 0.5 on independent
 * accumulators, so each converges to 1 as c_n = 1 + (c_0 - 1) 0.5^n: values
 * stay finite and normal (no denormal slow path), and the result is checked
 * against that closed form, which also keeps the compiler from deleting the
 * loop. Twelve accumulators cover FMA latency (4 cycles) x 2 pipes with room.
 */
#define RT_NACC 12

static int check_fma(const double *lanes, int nlanes, long iters, double tol)
{
    double decay = pow(0.5, (double)(iters < 2000 ? iters : 2000));
    for (int k = 0; k < RT_NACC; k++) {
        double want = 1.0 + (1.0 + 0.125 * k) * decay;
        for (int l = 0; l < nlanes; l++)
            if (!(fabs(lanes[k * nlanes + l] - want) <= tol * want))
                return -1;
    }
    return 0;
}

/* Accumulator k starts at 2 + k/8, exact in every format. */
#define RT_INIT(SET1, ET)                                                                          \
    VT c0 = SET1((ET)2.0), c1 = SET1((ET)2.125), c2 = SET1((ET)2.25), c3 = SET1((ET)2.375),        \
       c4 = SET1((ET)2.5), c5 = SET1((ET)2.625), c6 = SET1((ET)2.75), c7 = SET1((ET)2.875),        \
       c8 = SET1((ET)3.0), c9 = SET1((ET)3.125), c10 = SET1((ET)3.25), c11 = SET1((ET)3.375)
#define RT_STEP(F)                                                                                 \
    c0 = F(c0, m, a);                                                                              \
    c1 = F(c1, m, a);                                                                              \
    c2 = F(c2, m, a);                                                                              \
    c3 = F(c3, m, a);                                                                              \
    c4 = F(c4, m, a);                                                                              \
    c5 = F(c5, m, a);                                                                              \
    c6 = F(c6, m, a);                                                                              \
    c7 = F(c7, m, a);                                                                              \
    c8 = F(c8, m, a);                                                                              \
    c9 = F(c9, m, a);                                                                              \
    c10 = F(c10, m, a);                                                                            \
    c11 = F(c11, m, a)

#define RT_FMA_KERNEL(NAME, TARGET, VTYPE, ET, LANES, SET1, FMA, STORE, TOL)                       \
    __attribute__((target(TARGET))) static int NAME(long iters)                                    \
    {                                                                                              \
        typedef VTYPE VT;                                                                          \
        volatile ET half = (ET)0.5; /* volatile: the compiler cannot know m and a */               \
        VT m = SET1(half), a = SET1(half);                                                         \
        RT_INIT(SET1, ET);                                                                         \
        for (long i = 0; i < iters; i++) {                                                         \
            RT_STEP(FMA);                                                                          \
        }                                                                                          \
        ET out[RT_NACC][LANES];                                                                    \
        STORE(out[0], c0);                                                                         \
        STORE(out[1], c1);                                                                         \
        STORE(out[2], c2);                                                                         \
        STORE(out[3], c3);                                                                         \
        STORE(out[4], c4);                                                                         \
        STORE(out[5], c5);                                                                         \
        STORE(out[6], c6);                                                                         \
        STORE(out[7], c7);                                                                         \
        STORE(out[8], c8);                                                                         \
        STORE(out[9], c9);                                                                         \
        STORE(out[10], c10);                                                                       \
        STORE(out[11], c11);                                                                       \
        double d[RT_NACC * LANES];                                                                 \
        for (int k = 0; k < RT_NACC; k++)                                                          \
            for (int l = 0; l < LANES; l++)                                                        \
                d[k * LANES + l] = (double)out[k][l];                                              \
        return check_fma(d, LANES, iters, TOL);                                                    \
    }

#if defined(__x86_64__)
/* SSE2 has no FMA: a multiply and an add, 2 FLOPs per lane for two instructions. */
#define RT_SSE_PD(c, m, a) _mm_add_pd(_mm_mul_pd(c, m), a)
#define RT_SSE_PS(c, m, a) _mm_add_ps(_mm_mul_ps(c, m), a)
RT_FMA_KERNEL(fp64_sse, "sse2", __m128d, double, 2, _mm_set1_pd, RT_SSE_PD, _mm_storeu_pd, 1e-9)
RT_FMA_KERNEL(fp32_sse, "sse2", __m128, float, 4, _mm_set1_ps, RT_SSE_PS, _mm_storeu_ps, 1e-5)
RT_FMA_KERNEL(fp64_avx2, "avx2,fma", __m256d, double, 4, _mm256_set1_pd, _mm256_fmadd_pd,
              _mm256_storeu_pd, 1e-9)
RT_FMA_KERNEL(fp32_avx2, "avx2,fma", __m256, float, 8, _mm256_set1_ps, _mm256_fmadd_ps,
              _mm256_storeu_ps, 1e-5)
RT_FMA_KERNEL(fp64_avx512, "avx512f", __m512d, double, 8, _mm512_set1_pd, _mm512_fmadd_pd,
              _mm512_storeu_pd, 1e-9)
RT_FMA_KERNEL(fp32_avx512, "avx512f", __m512, float, 16, _mm512_set1_ps, _mm512_fmadd_ps,
              _mm512_storeu_ps, 1e-5)
#ifdef RT_HAVE_FP16_KERNELS
RT_FMA_KERNEL(fp16_avx512, "avx512f,avx512fp16", __m512h, _Float16, 32, _mm512_set1_ph,
              _mm512_fmadd_ph, _mm512_storeu_ph, 2e-3)
#endif

/*
 * Dot-product kernels: each iteration adds a.b and then a.(-b) to 16
 * accumulators (16 cover a 6-8 cycle latency on 2 pipes), so an exact result
 * must come back to where it started; values are powers of two, exact in
 * fp32. Int8 accumulates in wrapping 32-bit integers and is checked exactly.
 */
#define RT_DOT16(F, x)                                                                             \
    d0 = F(d0, a, x);                                                                              \
    d1 = F(d1, a, x);                                                                              \
    d2 = F(d2, a, x);                                                                              \
    d3 = F(d3, a, x);                                                                              \
    d4 = F(d4, a, x);                                                                              \
    d5 = F(d5, a, x);                                                                              \
    d6 = F(d6, a, x);                                                                              \
    d7 = F(d7, a, x);                                                                              \
    d8 = F(d8, a, x);                                                                              \
    d9 = F(d9, a, x);                                                                              \
    d10 = F(d10, a, x);                                                                            \
    d11 = F(d11, a, x);                                                                            \
    d12 = F(d12, a, x);                                                                            \
    d13 = F(d13, a, x);                                                                            \
    d14 = F(d14, a, x);                                                                            \
    d15 = F(d15, a, x)
/* Different starting values, or the compiler would merge identical accumulators into one. */
#define RT_DOT_DECL(T, INIT)                                                                       \
    T d0 = INIT(0), d1 = INIT(1), d2 = INIT(2), d3 = INIT(3), d4 = INIT(4), d5 = INIT(5),          \
      d6 = INIT(6), d7 = INIT(7), d8 = INIT(8), d9 = INIT(9), d10 = INIT(10), d11 = INIT(11),      \
      d12 = INIT(12), d13 = INIT(13), d14 = INIT(14), d15 = INIT(15)
#define RT_DOT_SUM(add)                                                                            \
    add(add(add(add(d0, d1), add(d2, d3)), add(add(d4, d5), add(d6, d7))),                         \
        add(add(add(d8, d9), add(d10, d11)), add(add(d12, d13), add(d14, d15))))

__attribute__((target("avx512f,avx512bf16"))) static int bf16_avx512(long iters)
{
    volatile uint16_t one = 0x3f80, small = 0x3a80, msmall = 0xba80; /* 1, 2^-10, -2^-10 */
    __m512bh a = (__m512bh)_mm512_set1_epi16((short)one);
    __m512bh bp = (__m512bh)_mm512_set1_epi16((short)small);
    __m512bh bn = (__m512bh)_mm512_set1_epi16((short)msmall);
#define RT_INIT_PS(k) _mm512_set1_ps(1.0f + (float)(k))
    RT_DOT_DECL(__m512, RT_INIT_PS);
    for (long i = 0; i < iters; i++) {
        RT_DOT16(_mm512_dpbf16_ps, bp);
        RT_DOT16(_mm512_dpbf16_ps, bn);
    }
    float out[16];
    _mm512_storeu_ps(out, RT_DOT_SUM(_mm512_add_ps));
    for (int l = 0; l < 16; l++)
        if (out[l] != 136.0f) /* sum of 1 + k, k = 0..15 */
            return -1;
    return 0;
}

__attribute__((target("avx512f,avx512vnni"))) static int int8_avx512(long iters)
{
    volatile int8_t one = 1;
    __m512i a = _mm512_set1_epi8(one), b = _mm512_set1_epi8(one);
#define RT_INIT_EPI32(k) _mm512_set1_epi32(k)
    RT_DOT_DECL(__m512i, RT_INIT_EPI32);
    for (long i = 0; i < iters; i++) {
        RT_DOT16(_mm512_dpbusd_epi32, b);
        RT_DOT16(_mm512_dpbusd_epi32, b);
    }
    uint32_t out[16];
    _mm512_storeu_si512(out, RT_DOT_SUM(_mm512_add_epi32));
    /* 32 instructions per iteration, each adds 4 per lane; 32-bit wrap-around is exact. */
    uint32_t want = (uint32_t)((uint64_t)iters * 128u + 120u); /* + sum of k = 0..15 */
    for (int l = 0; l < 16; l++)
        if (out[l] != want)
            return -1;
    return 0;
}

#ifdef RT_HAVE_AMX_KERNELS
/* AMX: palette 1, eight tiles of 16 rows x 64 bytes. LDTILECFG's 64-byte operand (Intel SDM vol. 2,
 * LDTILECFG): byte 0 palette, byte 1 start_row, 2-15 reserved (0), 16-47 colsb of tiles 0-15 (2
 * bytes each), 48-63 rows of tiles 0-15; unused tiles 0 x 0. */
struct rt_tilecfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};
_Static_assert(sizeof(struct rt_tilecfg) == 64 && offsetof(struct rt_tilecfg, colsb) == 16 &&
                   offsetof(struct rt_tilecfg, rows) == 48,
               "LDTILECFG's memory layout");

static void tilecfg_init(struct rt_tilecfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->palette = 1;
    for (int t = 0; t < 8; t++) {
        cfg->colsb[t] = 64;
        cfg->rows[t] = 16;
    }
}

/*
 * Tiles 0-3 accumulate (16x16 fp32 or int32), tile 4 is A, tiles 5 and 6 are B
 * and -B (bf16) or B twice (int8). Four independent accumulators hide the
 * tile multiply latency. One tdpbf16ps: 16x16 outputs x 32 products x 2 FLOPs.
 */
__attribute__((target("amx-tile,amx-bf16"))) static int amx_bf16(long iters)
{
    struct rt_tilecfg cfg;
    tilecfg_init(&cfg);
    static _Thread_local float c[16 * 16];
    static _Thread_local uint16_t a[16 * 32], bp[16 * 32], bn[16 * 32];
    for (int i = 0; i < 16 * 16; i++)
        c[i] = 1.0f;
    for (int i = 0; i < 16 * 32; i++) {
        a[i] = 0x3f80;  /* 1 */
        bp[i] = 0x3a80; /* 2^-10 */
        bn[i] = 0xba80; /* -2^-10 */
    }
    _tile_loadconfig(&cfg);
    _tile_loadd(0, c, 64);
    _tile_loadd(1, c, 64);
    _tile_loadd(2, c, 64);
    _tile_loadd(3, c, 64);
    _tile_loadd(4, a, 64);
    _tile_loadd(5, bp, 64);
    _tile_loadd(6, bn, 64);
    for (long i = 0; i < iters; i++) {
        _tile_dpbf16ps(0, 4, 5);
        _tile_dpbf16ps(1, 4, 5);
        _tile_dpbf16ps(2, 4, 5);
        _tile_dpbf16ps(3, 4, 5);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 6);
        _tile_dpbf16ps(2, 4, 6);
        _tile_dpbf16ps(3, 4, 6);
    }
    int bad = 0;
    _tile_stored(0, c, 64);
    for (int i = 0; i < 16 * 16; i++)
        bad |= c[i] != 1.0f;
    _tile_stored(3, c, 64);
    for (int i = 0; i < 16 * 16; i++)
        bad |= c[i] != 1.0f;
    _tile_release();
    return bad ? -1 : 0;
}

/* One tdpbssd: 16x16 outputs x 64 int8 products x 2 ops. */
__attribute__((target("amx-tile,amx-int8"))) static int amx_int8(long iters)
{
    struct rt_tilecfg cfg;
    tilecfg_init(&cfg);
    static _Thread_local int32_t c[16 * 16];
    static _Thread_local int8_t a[16 * 64];
    memset(c, 0, sizeof c);
    memset(a, 1, sizeof a);
    _tile_loadconfig(&cfg);
    _tile_loadd(0, c, 64);
    _tile_loadd(1, c, 64);
    _tile_loadd(2, c, 64);
    _tile_loadd(3, c, 64);
    _tile_loadd(4, a, 64);
    _tile_loadd(5, a, 64);
    _tile_loadd(6, a, 64);
    for (long i = 0; i < iters; i++) {
        _tile_dpbssd(0, 4, 5);
        _tile_dpbssd(1, 4, 5);
        _tile_dpbssd(2, 4, 5);
        _tile_dpbssd(3, 4, 5);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbssd(1, 4, 6);
        _tile_dpbssd(2, 4, 6);
        _tile_dpbssd(3, 4, 6);
    }
    uint32_t want = (uint32_t)((uint64_t)iters * 128u); /* 2 instructions x 64 per iteration */
    int bad = 0;
    _tile_stored(2, c, 64);
    for (int i = 0; i < 16 * 16; i++)
        bad |= (uint32_t)c[i] != want;
    _tile_release();
    return bad ? -1 : 0;
}
#endif /* RT_HAVE_AMX_KERNELS */
#endif /* __x86_64__ */

static bool has_sse(const rt_cpu_info *c)
{
    return c->sse2;
}
static bool has_avx2(const rt_cpu_info *c)
{
    return c->avx2 && c->fma;
}
static bool has_avx512(const rt_cpu_info *c)
{
    return c->avx512f;
}
#ifdef RT_HAVE_FP16_KERNELS
static bool has_fp16(const rt_cpu_info *c)
{
    return c->avx512f && c->avx512_fp16;
}
#endif
static bool has_bf16(const rt_cpu_info *c)
{
    return c->avx512f && c->avx512_bf16;
}
static bool has_vnni(const rt_cpu_info *c)
{
    return c->avx512f && c->avx512_vnni;
}
#ifdef RT_HAVE_AMX_KERNELS
static bool has_amx_bf16(const rt_cpu_info *c)
{
    return c->amx_tile && c->amx_bf16;
}
static bool has_amx_int8(const rt_cpu_info *c)
{
    return c->amx_tile && c->amx_int8;
}
#endif

static const rt_flops_kernel kernels[] = {
#if defined(__x86_64__)
    {"fp64", RT_ISA_SSE, "mulpd+addpd xmm", 2, 2 * RT_NACC, has_sse, fp64_sse},
    {"fp64", RT_ISA_AVX2, "vfmadd231pd ymm", 8, RT_NACC, has_avx2, fp64_avx2},
    {"fp64", RT_ISA_AVX512, "vfmadd231pd zmm", 16, RT_NACC, has_avx512, fp64_avx512},
    {"fp32", RT_ISA_SSE, "mulps+addps xmm", 4, 2 * RT_NACC, has_sse, fp32_sse},
    {"fp32", RT_ISA_AVX2, "vfmadd231ps ymm", 16, RT_NACC, has_avx2, fp32_avx2},
    {"fp32", RT_ISA_AVX512, "vfmadd231ps zmm", 32, RT_NACC, has_avx512, fp32_avx512},
#ifdef RT_HAVE_FP16_KERNELS
    {"fp16", RT_ISA_AVX512, "vfmadd231ph zmm", 64, RT_NACC, has_fp16, fp16_avx512},
#endif
    /* 16 fp32 lanes x 2 bf16 pairs x 2 FLOPs */
    {"bf16", RT_ISA_AVX512, "vdpbf16ps zmm", 64, 32, has_bf16, bf16_avx512},
    /* 16 int32 lanes x 4 int8 products x 2 ops */
    {"int8", RT_ISA_AVX512, "vpdpbusd zmm", 128, 32, has_vnni, int8_avx512},
#ifdef RT_HAVE_AMX_KERNELS
    {"amx_bf16", RT_ISA_AMX, "tdpbf16ps 16x16x32", 16384, 8, has_amx_bf16, amx_bf16},
    {"amx_int8", RT_ISA_AMX, "tdpbssd 16x16x64", 32768, 8, has_amx_int8, amx_int8},
#endif
#endif
};

const rt_flops_kernel *rt_flops_kernels(size_t *n)
{
    *n = sizeof kernels / sizeof kernels[0];
    return kernels;
}

int rt_flops_kernel_check(const rt_flops_kernel *k, long iters, rt_error *err)
{
    if (k->run(iters) != 0) {
        rt_error_set(err, "%s kernel (%s, %s) computed a wrong result", k->unit,
                     rt_isa_name(k->isa), k->instr);
        return -1;
    }
    return 0;
}

typedef struct flops_job {
    const rt_flops_kernel *k;
    long iters;
} flops_job;

static int flops_job_run(void *ctx, int tid)
{
    (void)tid;
    flops_job *j = ctx;
    return j->k->run(j->iters);
}

/* Run k on `threads` threads at once; seconds from the first start to the last finish, or where
 * each thread has a core of its own the threads' own times' harmonic mean (the rate is then the
 * sum of the threads' rates: a core the host slowed costs its own share, not every thread's). A
 * run over slow_after seconds (0: no limit) is retried as disturbed. */
static double timed_run(const rt_flops_kernel *k, int threads, long iters, double slow_after,
                        int *bad, int *used, bool *clean)
{
    flops_job j = {k, iters};
    rt_team_timing tm;
    bool balanced = threads > 1 && rt_team_distinct_cores(threads);
    *bad = rt_team_run_synced(threads, flops_job_run, &j, slow_after, balanced, &tm) != 0;
    *used = tm.threads;
    if (clean)
        *clean = !tm.disturbed;
    return balanced ? tm.own : tm.wall;
}

/*
 * The wall time over which a run of `per_thread` FLOPs per thread counts as slow: below
 * RT_SLOW_SAME of the best clean rate per thread on as many threads (same), or below RT_SLOW_CROSS
 * of one thread's rate (one) where each thread has a core of its own. 0: no reference.
 */
static double slow_limit(double per_thread, double same, double one, bool cross)
{
    double lim = INFINITY;
    if (same > 0)
        lim = fmin(lim, per_thread / (RT_SLOW_SAME * same));
    if (cross && one > 0)
        lim = fmin(lim, per_thread / (RT_SLOW_CROSS * one));
    return isfinite(lim) ? lim : 0;
}

int rt_flops_measure(const rt_flops_kernel *k, int threads, int trials, double seconds,
                     double one_thread, rt_stat *flops, rt_error *err)
{
    int bad = 0, used = 1;
    long iters = 256;
    double t = timed_run(k, 1, iters, 0, &bad, &used, NULL);
    while (!bad && t < seconds / 8 && iters < (1L << 40)) {
        iters *= 4;
        t = timed_run(k, 1, iters, 0, &bad, &used, NULL);
    }
    /* The fastest of three: a run stretched by another process would give too few iterations. */
    for (int r = 0; r < 2 && !bad; r++)
        t = fmin(t, timed_run(k, 1, iters, 0, &bad, &used, NULL));
    if (bad)
        return rt_flops_kernel_check(k, iters, err);
    /* The calibration ran on one thread: a rate for the slow-run limits (RT_SLOW_SAME). */
    double flops_per_iter = k->instr_per_iter * k->flops_per_instr;
    double calib = t > 0 ? (double)iters * flops_per_iter / t : 0;
    double one = fmax(one_thread, calib), same = threads == 1 ? calib : 0;
    bool cross = threads > 1 && rt_team_distinct_cores(threads);
    iters = (long)((double)iters * seconds / (t > 0 ? t : 1e-9)) + 1;
    double per_thread = (double)iters * flops_per_iter;
    double v[64];
    bool clean[64];
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    for (int i = 0; i < trials; i++) {
        double s = timed_run(k, threads, iters, slow_limit(per_thread, same, one, cross), &bad,
                             &used, &clean[i]);
        if (bad) {
            rt_error_set(err, "%s kernel (%s, %s) computed a wrong result on %d threads", k->unit,
                         rt_isa_name(k->isa), k->instr, threads);
            return -1;
        }
        if (used != threads) {
            rt_error_set(err, "asked OpenMP for %d threads, got %d", threads, used);
            return -1;
        }
        v[i] = (double)used * per_thread / s;
        if (clean[i])
            same = fmax(same, v[i] / used);
    }
    *flops = rt_stat_of_clean(v, clean, (size_t)trials);
    return 0;
}
