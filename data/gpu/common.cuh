// Shared by every kernel source (prepended before NVRTC compiles each): the run record.
// meta[0]: FLOPs one warp does per loop iteration (0: the instruction is absent on this
// architecture); meta[1]: what one loop iteration adds to the output value (tensor kernels);
// meta[2]: SM cycles and meta[3]: nanoseconds that block 0 ran, so the host gets the clock.
typedef unsigned long long u64;

__device__ __forceinline__ u64 rt_globaltimer()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ u64 rt_clock64()
{
    u64 t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}

struct rt_clock {
    u64 c0, t0;
};

__device__ __forceinline__ void rt_clock_start(rt_clock &c)
{
    c.c0 = rt_clock64();
    c.t0 = rt_globaltimer();
}

__device__ __forceinline__ void rt_clock_stop(const rt_clock &c, double *meta)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        u64 c1 = rt_clock64();
        u64 t1 = rt_globaltimer();
        meta[2] = (double)(c1 - c.c0);
        meta[3] = (double)(t1 - c.t0);
    }
}

__device__ __forceinline__ void rt_meta(double *meta, double flops_per_warp_iter, double inc)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        meta[0] = flops_per_warp_iter;
        meta[1] = inc;
    }
}
