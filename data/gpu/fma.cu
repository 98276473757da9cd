// FMA chains for the vector units: FP64, FP32, FP16x2 and BF16x2, NACC independent accumulators
// per thread so the pipelines stay full. Each accumulator runs a = a * b + c, which converges to
// c / (1 - b): the host checks the outputs against it.
#define NACC 8
#define UNROLL 8

extern "C" __global__ void fma_fp64(double *meta, float *out, int iters, float bf, float cf)
{
    rt_clock clk;
    rt_clock_start(clk);
    double b = bf, c = cf, a[NACC];
#pragma unroll
    for (int j = 0; j < NACC; j++)
        a[j] = 0.001 * (threadIdx.x % 7 + j);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int j = 0; j < NACC; j++)
                asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(a[j]) : "d"(a[j]), "d"(b), "d"(c));
    }
    double s = 0;
#pragma unroll
    for (int j = 0; j < NACC; j++)
        s += a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(s / NACC);
    rt_meta(meta, 32.0 * UNROLL * NACC * 2, 0);
    rt_clock_stop(clk, meta);
}

extern "C" __global__ void fma_fp32(double *meta, float *out, int iters, float b, float c)
{
    rt_clock clk;
    rt_clock_start(clk);
    float a[NACC];
#pragma unroll
    for (int j = 0; j < NACC; j++)
        a[j] = 0.001f * (threadIdx.x % 7 + j);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int j = 0; j < NACC; j++)
                asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(a[j]) : "f"(a[j]), "f"(b), "f"(c));
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < NACC; j++)
        s += a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s / NACC;
    rt_meta(meta, 32.0 * UNROLL * NACC * 2, 0);
    rt_clock_stop(clk, meta);
}

__device__ __forceinline__ unsigned rt_f16x2(float x)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return (unsigned)h | ((unsigned)h << 16);
}

__device__ __forceinline__ float rt_f16_lo(unsigned v)
{
    float f;
    unsigned short h = (unsigned short)(v & 0xffff);
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

extern "C" __global__ void fma_fp16(double *meta, float *out, int iters, float bf, float cf)
{
    rt_clock clk;
    rt_clock_start(clk);
    unsigned b = rt_f16x2(bf), c = rt_f16x2(cf), a[NACC];
#pragma unroll
    for (int j = 0; j < NACC; j++)
        a[j] = rt_f16x2(0.001f * (threadIdx.x % 7 + j));
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int j = 0; j < NACC; j++)
                asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(a[j]) : "r"(a[j]), "r"(b), "r"(c));
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < NACC; j++)
        s += rt_f16_lo(a[j]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s / NACC;
    rt_meta(meta, 32.0 * UNROLL * NACC * 4, 0); /* two lanes, two FLOPs each */
    rt_clock_stop(clk, meta);
}

extern "C" __global__ void fma_bf16(double *meta, float *out, int iters, float bf, float cf)
{
#if __CUDA_ARCH__ >= 800
    rt_clock clk;
    rt_clock_start(clk);
    unsigned b, c, a[NACC];
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(bf));
    b = (unsigned)h | ((unsigned)h << 16);
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(cf));
    c = (unsigned)h | ((unsigned)h << 16);
#pragma unroll
    for (int j = 0; j < NACC; j++) {
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(0.001f * (threadIdx.x % 7 + j)));
        a[j] = (unsigned)h | ((unsigned)h << 16);
    }
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int j = 0; j < NACC; j++)
                asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(a[j]) : "r"(a[j]), "r"(b), "r"(c));
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < NACC; j++) {
        float f;
        asm("mov.b32 %0, %1;" : "=f"(f) : "r"(a[j] << 16));
        s += f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s / NACC;
    rt_meta(meta, 32.0 * UNROLL * NACC * 4, 0);
    rt_clock_stop(clk, meta);
#else
    rt_meta(meta, 0, 0); /* no BF16 FMA before sm_80 */
#endif
}
