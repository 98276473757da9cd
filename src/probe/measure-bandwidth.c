/* Memory bandwidth kernels (read, copy, triad) with SSE, AVX2 or AVX-512 loads, and the working-set
 * sweep. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "measure-internal.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#ifdef RT_HAVE_OPENMP
#include <omp.h>
#endif

/* Keeps the compiler from merging or hoisting passes: memory may have changed in between. */
#define RT_CLOBBER() __asm__ volatile("" ::: "memory")

static const char *const kind_names[] = {"read", "copy", "triad"};

const char *rt_bw_kind_name(rt_bw_kind k)
{
    return (unsigned)k < RT_BW_NKINDS ? kind_names[k] : "?";
}

/*
 * Read loads every vector of the buffer and sums one in four of them as 64-bit integers (the sum
 * is checked against a closed form, so a kernel that skipped its work fails); the other three are
 * loaded by an asm the compiler cannot drop and nothing consumes them. A loop that adds every load
 * is bound by the vector ALU ports rather than the load ports (on Intel a 512-bit add takes port
 * 0 or 5, shared with the loop's own work: 0.65 of the loads alone on the development machine);
 * this one, like likwid-bench's load kernels, is bound by the loads.
 */
#define RT_READ_KERNEL(NAME, TARGET, VT, LOAD, ADD, ZERO, STOREU, TOUCH)                           \
    __attribute__((target(TARGET))) static uint64_t NAME(const void *buf, size_t bytes,            \
                                                         long passes)                              \
    {                                                                                              \
        const VT *p = (const VT *)buf;                                                             \
        size_t n = bytes / sizeof(VT);                                                             \
        VT s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                                     \
        size_t n8 = n & ~(size_t)7; /* eight loads per iteration, two of them summed */            \
        for (long r = 0; r < passes; r++) {                                                        \
            size_t i = 0;                                                                          \
            for (; i < n8; i += 8) {                                                               \
                s0 = ADD(s0, LOAD((const void *)(p + i)));                                         \
                TOUCH(p + i + 1);                                                                  \
                TOUCH(p + i + 2);                                                                  \
                TOUCH(p + i + 3);                                                                  \
                s1 = ADD(s1, LOAD((const void *)(p + i + 4)));                                     \
                TOUCH(p + i + 5);                                                                  \
                TOUCH(p + i + 6);                                                                  \
                TOUCH(p + i + 7);                                                                  \
            }                                                                                      \
            for (; i < n; i += 4) { /* the rest: every vector summed */                            \
                s0 = ADD(s0, LOAD((const void *)(p + i)));                                         \
                s1 = ADD(s1, LOAD((const void *)(p + i + 1)));                                     \
                s2 = ADD(s2, LOAD((const void *)(p + i + 2)));                                     \
                s3 = ADD(s3, LOAD((const void *)(p + i + 3)));                                     \
            }                                                                                      \
            RT_CLOBBER();                                                                          \
        }                                                                                          \
        uint64_t out[sizeof(VT) / 8], sum = 0;                                                     \
        STOREU((VT *)out, ADD(ADD(s0, s1), ADD(s2, s3)));                                          \
        for (size_t l = 0; l < sizeof(VT) / 8; l++)                                                \
            sum += out[l];                                                                         \
        return sum;                                                                                \
    }

/* A load nothing consumes, kept by the asm: the load port's work without an ALU's. */
#define RT_TOUCH_ZMM(ptr)                                                                          \
    do {                                                                                           \
        __m512i t_;                                                                                \
        __asm__ volatile("vmovdqa64 %1, %0" : "=v"(t_) : "m"(*(const __m512i *)(ptr)));            \
    } while (0)
#define RT_TOUCH_YMM(ptr)                                                                          \
    do {                                                                                           \
        __m256i t_;                                                                                \
        __asm__ volatile("vmovdqa %1, %0" : "=x"(t_) : "m"(*(const __m256i *)(ptr)));              \
    } while (0)
#define RT_TOUCH_XMM(ptr)                                                                          \
    do {                                                                                           \
        __m128i t_;                                                                                \
        __asm__ volatile("movdqa %1, %0" : "=x"(t_) : "m"(*(const __m128i *)(ptr)));               \
    } while (0)

/* Copy: the second half of the buffer gets the first half, whole vectors. */
#define RT_COPY_KERNEL(NAME, TARGET, VT, LOAD, STORE)                                              \
    __attribute__((target(TARGET))) static void NAME(void *buf, size_t bytes, long passes)         \
    {                                                                                              \
        const VT *a = (const VT *)buf;                                                             \
        VT *b = (VT *)((char *)buf + bytes / 2);                                                   \
        size_t n = bytes / 2 / sizeof(VT);                                                         \
        for (long r = 0; r < passes; r++) {                                                        \
            for (size_t i = 0; i < n; i += 4) {                                                    \
                STORE((void *)(b + i), LOAD((const void *)(a + i)));                               \
                STORE((void *)(b + i + 1), LOAD((const void *)(a + i + 1)));                       \
                STORE((void *)(b + i + 2), LOAD((const void *)(a + i + 2)));                       \
                STORE((void *)(b + i + 3), LOAD((const void *)(a + i + 3)));                       \
            }                                                                                      \
            RT_CLOBBER();                                                                          \
        }                                                                                          \
    }

/* Triad: x = y + s z over three thirds of the buffer (the STREAM triad). */
#define RT_TRIAD_KERNEL(NAME, TARGET, VT, LOAD, STORE, SET1, MULADD)                               \
    __attribute__((target(TARGET))) static void NAME(void *buf, size_t bytes, long passes)         \
    {                                                                                              \
        size_t third = bytes / 3;                                                                  \
        VT *x = (VT *)buf;                                                                         \
        const VT *y = (const VT *)((char *)buf + third),                                           \
                 *z = (const VT *)((char *)buf + 2 * third);                                       \
        size_t n = third / sizeof(VT);                                                             \
        volatile double sv = 0.5;                                                                  \
        VT s = SET1(sv);                                                                           \
        for (long r = 0; r < passes; r++) {                                                        \
            for (size_t i = 0; i < n; i += 4) {                                                    \
                STORE((void *)(x + i),                                                             \
                      MULADD(LOAD((const void *)(z + i)), s, LOAD((const void *)(y + i))));        \
                STORE((void *)(x + i + 1), MULADD(LOAD((const void *)(z + i + 1)), s,              \
                                                  LOAD((const void *)(y + i + 1))));               \
                STORE((void *)(x + i + 2), MULADD(LOAD((const void *)(z + i + 2)), s,              \
                                                  LOAD((const void *)(y + i + 2))));               \
                STORE((void *)(x + i + 3), MULADD(LOAD((const void *)(z + i + 3)), s,              \
                                                  LOAD((const void *)(y + i + 3))));               \
            }                                                                                      \
            RT_CLOBBER();                                                                          \
        }                                                                                          \
    }

#if defined(__x86_64__)
#define RT_SSE_MULADD(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c)
RT_READ_KERNEL(read_sse, "sse2", __m128i, _mm_load_si128, _mm_add_epi64, _mm_setzero_si128,
               _mm_storeu_si128, RT_TOUCH_XMM)
RT_READ_KERNEL(read_avx2, "avx2", __m256i, _mm256_load_si256, _mm256_add_epi64,
               _mm256_setzero_si256, _mm256_storeu_si256, RT_TOUCH_YMM)
RT_READ_KERNEL(read_avx512, "avx512f", __m512i, _mm512_load_si512, _mm512_add_epi64,
               _mm512_setzero_si512, _mm512_storeu_si512, RT_TOUCH_ZMM)
RT_COPY_KERNEL(copy_sse, "sse2", __m128d, _mm_load_pd, _mm_store_pd)
RT_COPY_KERNEL(copy_avx2, "avx2", __m256d, _mm256_load_pd, _mm256_store_pd)
RT_COPY_KERNEL(copy_avx512, "avx512f", __m512d, _mm512_load_pd, _mm512_store_pd)
RT_TRIAD_KERNEL(triad_sse, "sse2", __m128d, _mm_load_pd, _mm_store_pd, _mm_set1_pd, RT_SSE_MULADD)
RT_TRIAD_KERNEL(triad_avx2, "avx2,fma", __m256d, _mm256_load_pd, _mm256_store_pd, _mm256_set1_pd,
                _mm256_fmadd_pd)
RT_TRIAD_KERNEL(triad_avx512, "avx512f", __m512d, _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd,
                _mm512_fmadd_pd)
#endif

/* Portable versions for the scalar level (builds on other architectures). */
static uint64_t read_scalar(const void *buf, size_t bytes, long passes)
{
    const uint64_t *p = buf;
    size_t n = bytes / 8;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (long r = 0; r < passes; r++) {
        for (size_t i = 0; i < n; i += 4) {
            s0 += p[i];
            s1 += p[i + 1];
            s2 += p[i + 2];
            s3 += p[i + 3];
        }
        RT_CLOBBER();
    }
    return s0 + s1 + s2 + s3;
}

static void copy_scalar(void *buf, size_t bytes, long passes)
{
    const double *a = buf;
    double *b = (double *)((char *)buf + bytes / 2);
    for (long r = 0; r < passes; r++) {
        for (size_t i = 0; i < bytes / 16; i++)
            b[i] = a[i];
        RT_CLOBBER();
    }
}

static void triad_scalar(void *buf, size_t bytes, long passes)
{
    size_t third = bytes / 3;
    double *x = buf;
    const double *y = (const double *)((char *)buf + third),
                 *z = (const double *)((char *)buf + 2 * third);
    volatile double sv = 0.5;
    double s = sv;
    for (long r = 0; r < passes; r++) {
        for (size_t i = 0; i < third / 8; i++)
            x[i] = y[i] + s * z[i];
        RT_CLOBBER();
    }
}

/* The read pattern: element j holds j mod 65536; its sum has a closed form. */
static uint64_t read_pattern_sum(size_t n)
{
    uint64_t full = n / 65536, rest = n % 65536;
    return full * (65536ull * 65535ull / 2) + rest * (rest - 1) / 2;
}

/*
 * What one pass of a vector read kernel with `lanes` 64-bit lanes sums over n elements: vectors
 * 0 and 4 of every eight, then every vector of the rest. Vector i holds lanes x (lanes i mod
 * 65536) + 0 + 1 + ... + (lanes - 1), since 65536 is a multiple of the lanes. The last answer is
 * kept: every trial of a point asks the same.
 */
static uint64_t read_vector_sum(size_t n, size_t lanes)
{
    static _Thread_local size_t last_n, last_lanes;
    static _Thread_local uint64_t last_sum;
    if (n == last_n && lanes == last_lanes)
        return last_sum;
    size_t nv = n / lanes, n8 = nv & ~(size_t)7;
    uint64_t sum = 0, inner = lanes * (lanes - 1) / 2;
    for (size_t i = 0; i < nv; i++) {
        if (i < n8 && i % 8 != 0 && i % 8 != 4)
            continue;
        sum += lanes * ((lanes * i) & 0xffff) + inner;
    }
    last_n = n;
    last_lanes = lanes;
    last_sum = sum;
    return sum;
}

void rt_bw_fill(rt_bw_kind kind, void *buf, size_t bytes)
{
    if (kind == RT_BW_READ) {
        uint64_t *p = buf;
        for (size_t j = 0; j < bytes / 8; j++)
            p[j] = j & 0xffff;
    } else if (kind == RT_BW_COPY) {
        double *a = buf, *b = (double *)((char *)buf + bytes / 2);
        for (size_t j = 0; j < bytes / 16; j++) {
            a[j] = (double)(j & 1023);
            b[j] = -1.0;
        }
    } else {
        size_t n = bytes / 3 / 8;
        double *x = buf, *y = x + n, *z = y + n;
        for (size_t j = 0; j < n; j++) {
            x[j] = 0.0;
            y[j] = 1.0;
            z[j] = 2.0;
        }
    }
}

/* Spot checks every 1021st element (prime: no alignment with vector or line size) and the last. */
static int check_copy(const void *buf, size_t bytes)
{
    const double *a = buf, *b = (const double *)((const char *)buf + bytes / 2);
    size_t n = bytes / 16;
    for (size_t j = 0; j < n; j += 1021)
        if (b[j] != a[j] || a[j] != (double)(j & 1023))
            return -1;
    return b[n - 1] == a[n - 1] ? 0 : -1;
}

static int check_triad(const void *buf, size_t bytes)
{
    const double *x = buf;
    size_t n = bytes / 3 / 8;
    for (size_t j = 0; j < n; j += 1021)
        if (x[j] != 2.0)
            return -1;
    return x[n - 1] == 2.0 ? 0 : -1;
}

int rt_bw_run(rt_bw_kind kind, rt_isa isa, void *buf, size_t bytes, long passes)
{
    if (bytes == 0 || bytes % RT_BW_GRAIN != 0 || passes < 1)
        return -1;
    if (kind == RT_BW_READ) {
        uint64_t (*f)(const void *, size_t, long) = read_scalar;
        size_t lanes = 0; /* 0: the scalar kernel, which sums every element */
#if defined(__x86_64__)
        f = isa >= RT_ISA_AVX512 ? read_avx512
            : isa >= RT_ISA_AVX2 ? read_avx2
            : isa >= RT_ISA_SSE  ? read_sse
                                 : read_scalar;
        lanes = isa >= RT_ISA_AVX512 ? 8 : isa >= RT_ISA_AVX2 ? 4 : isa >= RT_ISA_SSE ? 2 : 0;
#endif
        uint64_t one = lanes ? read_vector_sum(bytes / 8, lanes) : read_pattern_sum(bytes / 8);
        uint64_t want = (uint64_t)passes * one;
        return f(buf, bytes, passes) == want ? 0 : -1;
    }
    void (*g)(void *, size_t, long) = kind == RT_BW_COPY ? copy_scalar : triad_scalar;
#if defined(__x86_64__)
    if (kind == RT_BW_COPY)
        g = isa >= RT_ISA_AVX512 ? copy_avx512
            : isa >= RT_ISA_AVX2 ? copy_avx2
            : isa >= RT_ISA_SSE  ? copy_sse
                                 : copy_scalar;
    else
        g = isa >= RT_ISA_AVX512 ? triad_avx512
            : isa >= RT_ISA_AVX2 ? triad_avx2
            : isa >= RT_ISA_SSE  ? triad_sse
                                 : triad_scalar;
#endif
    g(buf, bytes, passes);
    return kind == RT_BW_COPY ? check_copy(buf, bytes) : check_triad(buf, bytes);
}

/* ---- the sweep ---- */

typedef struct sweep_ctx {
    rt_bw_kind kind;
    rt_isa isa;
    int threads;
    void **bufs; /* one per thread, allocated and first touched by that thread */
    size_t cap;
} sweep_ctx;

/* Fill (first call: allocate) each thread's buffer; 0 when every thread got memory. */
static int sweep_fill(sweep_ctx *c, size_t bytes, int alloc)
{
    int fail = 0;
#ifdef RT_HAVE_OPENMP
#pragma omp parallel num_threads(c->threads) reduction(| : fail)
#endif
    {
        int tid = 0;
#ifdef RT_HAVE_OPENMP
        tid = omp_get_thread_num();
#endif
        if (alloc) {
            /*
             * Whole huge pages, aligned to them: fewer TLB misses at the DRAM end of the sweep
             * (harmless where THP is off), and every working set, which starts at the buffer's
             * start, in pages of one size. A buffer only 4 KiB aligned began in the small pages
             * before its first huge page: on the AMD Zen 3 VM a 12 KiB read across that boundary
             * ran at half the L1 rate (95-110 against 150-200 GB/s, for seconds, on whichever
             * core's buffer began so), which was the two-thread L1 stretch at one core's rate.
             */
            void *p = NULL;
            size_t huge = (size_t)2 << 20, size = (c->cap + huge - 1) / huge * huge;
            if (posix_memalign(&p, huge, size) != 0)
                p = NULL;
#ifdef MADV_HUGEPAGE
            if (p)
                madvise(p, size, MADV_HUGEPAGE);
#endif
            c->bufs[tid] = p;
        }
        if (c->bufs[tid])
            rt_bw_fill(c->kind, c->bufs[tid], bytes);
        else
            fail = 1;
    }
    return fail ? -1 : 0;
}

typedef struct sweep_job {
    sweep_ctx *c;
    size_t bytes;
    long passes;
} sweep_job;

static int sweep_job_run(void *ctx, int tid)
{
    sweep_job *j = ctx;
    return rt_bw_run(j->c->kind, j->c->isa, j->c->bufs[tid], j->bytes, j->passes);
}

/*
 * All threads run `passes` passes at once. Returns the wall time (first start
 * to last finish) for a trial, or for calibration (calib) the longest thread's
 * own time: scheduling delays on a busy machine must not shrink the pass count.
 */
static double sweep_time(sweep_ctx *c, size_t bytes, long passes, int *bad, int calib, bool *clean)
{
    sweep_job j = {c, bytes, passes};
    rt_team_timing tm;
    *bad = (calib ? rt_team_run(c->threads, sweep_job_run, &j, &tm)
                  : rt_team_run_synced(c->threads, sweep_job_run, &j, &tm)) != 0;
    if (!*bad && tm.threads != c->threads)
        *bad = 1;
    if (clean)
        *clean = !tm.disturbed;
    return calib ? tm.thread_max : tm.wall;
}

size_t rt_bw_grid_sizes(const rt_bw_grid *g, size_t *sizes, size_t cap)
{
    if (!(g->step > 1.0) || !(g->min >= RT_BW_GRAIN) || !(g->max >= g->min))
        return 0;
    size_t np = 0;
    for (size_t i = 0; np < cap; i++) {
        double want = g->min * pow(g->step, (double)i);
        if (want > g->max * 1.0001)
            break;
        if (g->skip_to > g->skip_from && want > g->skip_from && want <= g->skip_to)
            continue;
        size_t b = (size_t)llround(want / RT_BW_GRAIN) * RT_BW_GRAIN;
        if (b < RT_BW_GRAIN)
            b = RT_BW_GRAIN;
        if (np == 0 || b > sizes[np - 1])
            sizes[np++] = b;
    }
    return np;
}

int rt_bw_sweep(rt_bw_kind kind, rt_isa isa, int threads, const rt_bw_grid *grid, int trials,
                double seconds, rt_bw_point **pts, size_t *n,
                void (*progress)(void *ctx, double fraction), void *pctx, rt_error *err)
{
    *pts = NULL;
    *n = 0;
    size_t cap_pts = grid->step > 1.0 && grid->max >= grid->min && grid->min >= RT_BW_GRAIN
                         ? (size_t)(log(grid->max / grid->min) / log(grid->step)) + 2
                         : 0;
    if (threads < 1 || cap_pts == 0) {
        rt_error_set(err, "bandwidth sweep: bad parameters");
        return -1;
    }
#ifndef RT_HAVE_OPENMP
    threads = 1;
#endif
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    /* Sizes first, rounded to whole kernel steps and deduplicated. */
    size_t *sizes = rt_xcalloc(cap_pts, sizeof *sizes);
    size_t np = rt_bw_grid_sizes(grid, sizes, cap_pts);
    if (np == 0) {
        free(sizes);
        rt_error_set(err, "bandwidth sweep: no working set between %.0f and %.0f bytes", grid->min,
                     grid->max);
        return -1;
    }
    sweep_ctx c = {kind, isa, threads, rt_xcalloc((size_t)threads, sizeof(void *)), sizes[np - 1]};
    rt_bw_point *out = rt_xcalloc(np, sizeof *out);
    int rc = -1;
    /* The read pattern depends on the position only: filled once, whole, for every size. */
    if (sweep_fill(&c, kind == RT_BW_READ ? c.cap : sizes[0], 1) != 0) {
        rt_error_set(err, "cannot allocate %zu bytes per thread for the bandwidth sweep", c.cap);
        goto done;
    }
    for (size_t i = 0; i < np; i++) {
        size_t bytes = sizes[i];
        int bad = 0;
        if (i > 0 && kind != RT_BW_READ)
            sweep_fill(&c, bytes, 0);
        /*
         * Calibrate: grow the pass count until a run lasts an eighth of the target. Not needed
         * where the last point's fastest trial says one pass lasts two trials or more (rates
         * only fall as working sets grow): one pass each.
         */
        long passes = 1;
        double t = INFINITY;
        if (i == 0 || !(out[i - 1].bw.max > 0) ||
            (double)threads * (double)bytes / out[i - 1].bw.max < 2 * seconds)
            t = sweep_time(&c, bytes, passes, &bad, 1, NULL);
        while (!bad && t < seconds / 8 && passes < (1L << 40)) {
            passes *= 4;
            t = sweep_time(&c, bytes, passes, &bad, 1, NULL);
        }
        /* The fastest of three: a run stretched by another process would give too few passes
         * (not needed when one pass already lasts a trial: the count stays 1). */
        for (int k = 0; k < 2 && !bad && t < seconds; k++)
            t = fmin(t, sweep_time(&c, bytes, passes, &bad, 1, NULL));
        if (!bad && t < seconds)
            passes = (long)((double)passes * seconds / (t > 0 ? t : 1e-9)) + 1;
        double v[64];
        bool clean[64];
        for (int k = 0; k < trials && !bad; k++) {
            double s = sweep_time(&c, bytes, passes, &bad, 0, &clean[k]);
            v[k] = (double)threads * (double)bytes * (double)passes / s;
        }
        if (bad) {
            rt_error_set(err, "%s kernel (%s) computed a wrong result at %zu bytes",
                         rt_bw_kind_name(kind), rt_isa_name(isa), bytes);
            goto done;
        }
        out[i].bytes = (double)bytes;
        out[i].bw = rt_stat_of_clean(v, clean, (size_t)trials);
        if (progress)
            progress(pctx, (double)(i + 1) / (double)np);
    }
    *pts = out;
    *n = np;
    out = NULL;
    rc = 0;
done:
    for (int k = 0; k < threads; k++)
        free(c.bufs[k]);
    free(c.bufs);
    free(out);
    free(sizes);
    return rc;
}
