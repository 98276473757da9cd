/* The C kernels the transformer study's direct and unfused implementations share: a softmax row
 * with its scale, the direct loops' row times matrix, GELU, the gated unit's silu times up, and the
 * GEMM and GEMV of the unfused ones (OpenBLAS, or plain loops in a build without it). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "rooftime-config.h"
#include "xformer-internal.h"

/* 2 n (scale, max) + 3 n (subtract, exp, sum) + 1 (reciprocal) + n (times it): 6 n + 1. */
void rt_xf_softmax_row(float *s, long n, float scale)
{
    float m = -INFINITY;
    for (long j = 0; j < n; j++) {
        float x = s[j] * scale;
        s[j] = x;
        m = x > m ? x : m;
    }
    float sum = 0.0f;
    for (long j = 0; j < n; j++) {
        float e = expf(s[j] - m);
        s[j] = e;
        sum += e;
    }
    float r = 1.0f / sum;
    for (long j = 0; j < n; j++)
        s[j] *= r;
}

void rt_xf_row_times(const float *x, const float *w, long K, long N, float *out)
{
    memset(out, 0, (size_t)N * sizeof *out);
    for (long k = 0; k < K; k++) {
        float xv = x[k];
        const float *wr = w + k * N;
        for (long n = 0; n < N; n++)
            out[n] += xv * wr[n];
    }
}

float rt_xf_gelu(float x)
{
    return 0.5f * x * (1.0f + erff(x * (float)M_SQRT1_2));
}

float rt_xf_silu_mul(float g, float u)
{
    return g / (1.0f + expf(-g)) * u;
}

#ifdef RT_HAVE_OPENBLAS
#include <cblas.h>
#endif

rt_kernel_cost rt_xf_cost(const char *name, rt_xf_count c, const char *impl)
{
    return (rt_kernel_cost){.name = name,
                            .unit = "fp32",
                            .flops = c.flops,
                            .dram_bytes = c.bytes,
                            .l1_bytes = -1,
                            .impl = impl,
                            .working_set = c.ws};
}

const char *rt_xf_blas_name(void)
{
#ifdef RT_HAVE_OPENBLAS
    return "openblas";
#else
    return "c loops (no OpenBLAS at configure time)";
#endif
}

void rt_xf_sgemm(bool tb, long M, long N, long K, const float *A, long lda, const float *B,
                 long ldb, float *C, long ldc)
{
#ifdef RT_HAVE_OPENBLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K,
                1.0f, A, (int)lda, B, (int)ldb, 0.0f, C, (int)ldc);
#else
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float v = 0.0f;
            for (long p = 0; p < K; p++)
                v += A[i * lda + p] * (tb ? B[j * ldb + p] : B[p * ldb + j]);
            C[i * ldc + j] = v;
        }
#endif
}

void rt_xf_sgemv(bool ta, long M, long N, const float *A, long lda, const float *x, float *y)
{
#ifdef RT_HAVE_OPENBLAS
    cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, (int)M, (int)N, 1.0f, A, (int)lda, x,
                1, 0.0f, y, 1);
#else
    long ny = ta ? N : M;
    for (long i = 0; i < ny; i++)
        y[i] = 0.0f;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            if (ta)
                y[j] += A[i * lda + j] * x[i];
            else
                y[i] += A[i * lda + j] * x[j];
        }
#endif
}
