// Bandwidth kernels: each block streams its own slice of the working set `reps` times (ERT-like),
// read-only (bw_read: loads cached in L1; bw_read_l2: ld.global.cg, L2 only) or read-modify-write
// (bw_rmw: x = x * 0.5 + 0.5, loads through L2 only); bw_l1 re-reads a 16 KB slice per block (L1
// hits) and bw_shared a per-block shared-memory array.
struct rt_f4 {
    float x, y, z, w;
};

extern "C" __global__ void bw_read(double *meta, const rt_f4 *x, u64 slice, int reps, float *out)
{
    rt_clock clk;
    rt_clock_start(clk);
    const rt_f4 *p = x + (u64)blockIdx.x * slice;
    float s0 = 0, s1 = 0;
    for (int r = 0; r < reps; r++) {
#pragma unroll 4
        for (u64 i = threadIdx.x; i < slice; i += blockDim.x) {
            rt_f4 v = p[i];
            s0 += v.x + v.y;
            s1 += v.z + v.w;
        }
    }
    if (s0 + s1 == 1.2345e-30f) /* never true: keeps the loads */
        out[blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1;
    rt_meta(meta, 0, 0);
    rt_clock_stop(clk, meta);
}

extern "C" __global__ void bw_read_l2(double *meta, const rt_f4 *x, u64 slice, int reps,
                                      float *out)
{
    rt_clock clk;
    rt_clock_start(clk);
    const rt_f4 *p = x + (u64)blockIdx.x * slice;
    float s0 = 0, s1 = 0;
    for (int r = 0; r < reps; r++) {
#pragma unroll 4
        for (u64 i = threadIdx.x; i < slice; i += blockDim.x) {
            rt_f4 v;
            asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                         : "l"(p + i));
            s0 += v.x + v.y;
            s1 += v.z + v.w;
        }
    }
    if (s0 + s1 == 1.2345e-30f)
        out[blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1;
    rt_meta(meta, 0, 0);
    rt_clock_stop(clk, meta);
}

extern "C" __global__ void bw_rmw(double *meta, rt_f4 *x, u64 slice, int reps, float *out)
{
    rt_clock clk;
    rt_clock_start(clk);
    rt_f4 *p = x + (u64)blockIdx.x * slice;
    for (int r = 0; r < reps; r++) {
#pragma unroll 4
        for (u64 i = threadIdx.x; i < slice; i += blockDim.x) {
            rt_f4 v;
            asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                         : "l"(p + i));
            v.x = v.x * 0.5f + 0.5f;
            v.y = v.y * 0.5f + 0.5f;
            v.z = v.z * 0.5f + 0.5f;
            v.w = v.w * 0.5f + 0.5f;
            p[i] = v;
        }
    }
    (void)out;
    rt_meta(meta, 0, 0);
    rt_clock_stop(clk, meta);
}

/* L1 hits: each thread re-reads its 4 float4 of the block's 16 KB slice (ld.global.ca), at addresses
 * that depend on the data read before, so that no compiler hoists or merges loads across reps. */
extern "C" __global__ void bw_l1(double *meta, const rt_f4 *x, int reps, float *out)
{
    rt_clock clk;
    rt_clock_start(clk);
    const rt_f4 *p = x + (u64)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int r = 0; r < reps; r++) {
        /* depends on the sums so far: no compiler can merge the loads of two reps */
        int j = r + (s0 == 1.2345e-30f ? 1 : 0);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            rt_f4 v;
            asm volatile("ld.global.ca.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                         : "l"(p + ((k + j) & 3) * blockDim.x));
            s0 += v.x;
            s1 += v.y;
            s2 += v.z;
            s3 += v.w;
        }
    }
    if (s0 + s1 + s2 + s3 == 1.2345e-30f)
        out[blockIdx.x * blockDim.x + threadIdx.x] = s0;
    rt_meta(meta, 0, 0);
    rt_clock_stop(clk, meta);
}

/* Dynamic shared memory: 16 floats per thread, read with volatile 32-bit loads, conflict-free. */
extern "C" __global__ void bw_shared(double *meta, int reps, float *out)
{
    extern __shared__ float smem[];
    rt_clock clk;
    rt_clock_start(clk);
    const unsigned n = blockDim.x * 16;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        smem[i] = (float)(i & 7);
    __syncthreads();
    volatile float *v = smem;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (unsigned k = 0; k < 16; k += 4) {
            s0 += v[(k + 0) * blockDim.x + threadIdx.x];
            s1 += v[(k + 1) * blockDim.x + threadIdx.x];
            s2 += v[(k + 2) * blockDim.x + threadIdx.x];
            s3 += v[(k + 3) * blockDim.x + threadIdx.x];
        }
    }
    if (s0 + s1 + s2 + s3 == 1.2345e-30f)
        out[blockIdx.x * blockDim.x + threadIdx.x] = s0;
    rt_meta(meta, 0, 0);
    rt_clock_stop(clk, meta);
}
