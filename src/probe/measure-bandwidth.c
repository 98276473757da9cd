/* Memory bandwidth kernels (read, copy, triad, update) with SSE, AVX2 or AVX-512 loads, each
 * checked against what it must have computed, and their table. */
#include <stdint.h>
#include <stddef.h>

#include "measure-internal.h"
#include "rooftime/probe/cpu-detect.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Keeps the compiler from merging or hoisting passes: memory may have changed in between. */
#define RT_CLOBBER() __asm__ volatile("" ::: "memory")

static const char *const kind_names[] = {"read", "copy", "triad", "update"};

const char *rt_bw_kind_name(rt_bw_kind k)
{
    return (unsigned)k < RT_BW_NKINDS ? kind_names[k] : "?";
}

double rt_bw_traffic(rt_bw_kind k)
{
    return k == RT_BW_UPDATE ? 2.0 : 1.0;
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

/* Update: x = s x + t in place over the whole buffer (the Empirical Roofline Toolkit's kernel: each
 * element read and written back), with s = 1 and t = 0 read through a volatile, so the values stay
 * and the compiler cannot know it. */
#define RT_UPDATE_KERNEL(NAME, TARGET, VT, LOAD, STORE, SET1, MULADD)                              \
    __attribute__((target(TARGET))) static void NAME(void *buf, size_t bytes, long passes)         \
    {                                                                                              \
        VT *x = (VT *)buf;                                                                         \
        size_t n = bytes / sizeof(VT);                                                             \
        volatile double sv = 1.0, tv = 0.0;                                                        \
        VT s = SET1(sv), t = SET1(tv);                                                             \
        for (long r = 0; r < passes; r++) {                                                        \
            for (size_t i = 0; i < n; i += 4) {                                                    \
                STORE((void *)(x + i), MULADD(LOAD((const void *)(x + i)), s, t));                 \
                STORE((void *)(x + i + 1), MULADD(LOAD((const void *)(x + i + 1)), s, t));         \
                STORE((void *)(x + i + 2), MULADD(LOAD((const void *)(x + i + 2)), s, t));         \
                STORE((void *)(x + i + 3), MULADD(LOAD((const void *)(x + i + 3)), s, t));         \
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
RT_UPDATE_KERNEL(update_sse, "sse2", __m128d, _mm_load_pd, _mm_store_pd, _mm_set1_pd, RT_SSE_MULADD)
RT_UPDATE_KERNEL(update_avx2, "avx2,fma", __m256d, _mm256_load_pd, _mm256_store_pd, _mm256_set1_pd,
                 _mm256_fmadd_pd)
RT_UPDATE_KERNEL(update_avx512, "avx512f", __m512d, _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd,
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

static void update_scalar(void *buf, size_t bytes, long passes)
{
    double *x = buf;
    volatile double sv = 1.0, tv = 0.0;
    double s = sv, t = tv;
    for (long r = 0; r < passes; r++) {
        for (size_t i = 0; i < bytes / 8; i++)
            x[i] = s * x[i] + t;
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
    } else if (kind == RT_BW_UPDATE) {
        double *x = buf;
        for (size_t j = 0; j < bytes / 8; j++)
            x[j] = (double)(j & 1023);
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

/* The update leaves every element as filled: j mod 1024. */
static int check_update(const void *buf, size_t bytes)
{
    const double *x = buf;
    size_t n = bytes / 8;
    for (size_t j = 0; j < n; j += 1021)
        if (x[j] != (double)(j & 1023))
            return -1;
    return x[n - 1] == (double)((n - 1) & 1023) ? 0 : -1;
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

/* Each kernel with its check: 0 when what it computed is right. */
#define RT_CHECKED(NAME, CHECK)                                                                    \
    static int NAME##_checked(void *buf, size_t bytes, long passes)                                \
    {                                                                                              \
        NAME(buf, bytes, passes);                                                                  \
        return CHECK(buf, bytes);                                                                  \
    }
/* A read kernel with `lanes` 64-bit lanes: its sum against the closed form. */
#define RT_READ_CHECKED(NAME, LANES)                                                               \
    static int NAME##_checked(void *buf, size_t bytes, long passes)                                \
    {                                                                                              \
        return NAME(buf, bytes, passes) == (uint64_t)passes * read_vector_sum(bytes / 8, LANES)    \
                   ? 0                                                                             \
                   : -1;                                                                           \
    }

static int read_scalar_checked(void *buf, size_t bytes, long passes)
{
    return read_scalar(buf, bytes, passes) == (uint64_t)passes * read_pattern_sum(bytes / 8) ? 0
                                                                                             : -1;
}
RT_CHECKED(copy_scalar, check_copy)
RT_CHECKED(triad_scalar, check_triad)
RT_CHECKED(update_scalar, check_update)
#if defined(__x86_64__)
RT_READ_CHECKED(read_sse, 2)
RT_READ_CHECKED(read_avx2, 4)
RT_READ_CHECKED(read_avx512, 8)
/* The SSE, AVX2 and AVX-512 kernels of one kind with its check. */
#define RT_CHECKED_VECTOR(NAME, CHECK)                                                             \
    RT_CHECKED(NAME##_sse, CHECK) RT_CHECKED(NAME##_avx2, CHECK) RT_CHECKED(NAME##_avx512, CHECK)
RT_CHECKED_VECTOR(copy, check_copy)
RT_CHECKED_VECTOR(triad, check_triad)
RT_CHECKED_VECTOR(update, check_update)
/* A kind's kernels, lowest ISA first. */
/* clang-format off */
#define RT_BW_ROWS(KIND, NAME)                                                                     \
    {KIND, RT_ISA_SCALAR, NAME##_scalar_checked}, {KIND, RT_ISA_SSE, NAME##_sse_checked},          \
    {KIND, RT_ISA_AVX2, NAME##_avx2_checked}, {KIND, RT_ISA_AVX512, NAME##_avx512_checked}
#else
#define RT_BW_ROWS(KIND, NAME) {KIND, RT_ISA_SCALAR, NAME##_scalar_checked}
/* clang-format on */
#endif

static const rt_bw_kernel kernels[] = {
    RT_BW_ROWS(RT_BW_READ, read),
    RT_BW_ROWS(RT_BW_COPY, copy),
    RT_BW_ROWS(RT_BW_TRIAD, triad),
    RT_BW_ROWS(RT_BW_UPDATE, update),
};

const rt_bw_kernel *rt_bw_kernels(size_t *n)
{
    *n = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const rt_bw_kernel *rt_bw_kernel_find(const rt_bw_kernel *ks, size_t n, rt_bw_kind kind, rt_isa isa)
{
    const rt_bw_kernel *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (ks[i].kind == kind && ks[i].isa <= isa && (!best || ks[i].isa > best->isa))
            best = &ks[i];
    return best;
}

int rt_bw_run(const rt_bw_kernel *k, void *buf, size_t bytes, long passes)
{
    if (bytes == 0 || bytes % RT_BW_GRAIN != 0 || passes < 1)
        return -1;
    return k->run(buf, bytes, passes);
}
