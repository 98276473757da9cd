// Tensor Core ceiling on Hopper (sm_90a): wgmma.mma_async m64n256kK, A and B from shared memory
// through matrix descriptors, 128 f32 (s32) accumulators per thread. One block is one warpgroup
// (128 threads, RT_WG_THREADS); the host fills each SM with as many as fit. Every element of A
// and B is 0.125 (1 for INT8), so each wgmma adds K/64 (K) to every accumulator element; each
// loop of two takes it back to 0 (B, then -B), and the host checks the output of an odd loop
// count against meta[1] exactly. FLOPs per wgmma: 2 x 64 x 256 x K
// (K = 16 for FP16/BF16, 8 for TF32, 32 for FP8 and INT8). Compiled only for sm_90a; anything
// else (no __CUDA_ARCH_FEAT_SM90_ALL) writes meta[0] = 0: the instruction is absent.
#define RT_WG_THREADS 128
#define WG_UNROLL 4
#define WG_SMEM 16384 /* a tile: A is 64 rows x 32 B, B 256 rows x 32 B (8 KB), both from 0 */

/* The 128 accumulator operands %0..%127; the descriptors are %128 (A) and %129 (B). */
#define WG_D                                                                                       \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "   \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "   \
    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "   \
    "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "   \
    "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "     \
    "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "   \
    "%123, %124, %125, %126, %127}"
#define WG_ACC_F                                                                                   \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#define WG_ACC_R                                                                                   \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),            \
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),    \
        "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), \
        "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), \
        "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), \
        "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), \
        "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), \
        "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
        "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), \
        "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), \
        "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), \
        "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), \
        "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), \
        "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), \
        "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),          \
        "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]),        \
        "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]),        \
        "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]),        \
        "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])

/*
 * Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"; CUTLASS GmmaDescriptor):
 * bits 0-13 start address >> 4, 16-29 leading-dimension byte offset >> 4, 32-45 stride-dimension
 * byte offset >> 4, 49-51 base offset, 62-63 swizzle (0: none). Without swizzle the operand is
 * made of core matrices of 8 rows x 16 bytes (128 contiguous bytes); rows of 32 bytes (K x
 * element size is 32 bytes for every type here) hold two core matrices along K (leading offset
 * 128) and the next 8 rows start 256 bytes on (stride offset). All elements hold the same value,
 * so the result does not depend on the layout; only the addresses must stay inside WG_SMEM.
 */
__device__ __forceinline__ u64 wg_desc(const void *p)
{
    unsigned addr;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(addr) : "l"(p));
    u64 d = (u64)((addr >> 4) & 0x3fff);
    d |= (u64)(128 >> 4) << 16;
    d |= (u64)(256 >> 4) << 32;
    return d;
}

/* Every 32-bit word of the first tile holds `word`, of the second `neg`; then the async proxy may
 * read them. */
__device__ __forceinline__ void wg_fill(unsigned *s, unsigned word, unsigned neg)
{
    for (int i = threadIdx.x; i < 2 * WG_SMEM / 4; i += blockDim.x)
        s[i] = i < WG_SMEM / 4 ? word : neg;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
    __syncthreads();
}

/* One loop: fence, WG_UNROLL wgmma into the same accumulators, commit, keep one group in flight.
 * Even loops multiply A by B (+0.125), odd loops by -B, so the sum goes up by WG_UNROLL x K/64
 * and back to 0: an odd loop count leaves WG_UNROLL x K/64 (meta[1]) in every accumulator,
 * exactly, however long the run. A sum that grew with the loop count would lose its increments
 * where the Tensor Cores keep fewer accumulator bits than FP32 (Hopper's FP8: DeepSeek-V3
 * report, section 3.3.2); starting each loop afresh (scale-d 0) instead lets ptxas drop every
 * wgmma but the last as dead code. */
#define WG_LOOP(OP)                                                                                \
    for (int i = 0; i < iters; i++) {                                                              \
        const u64 db = i & 1 ? dbn : dbp;                                                          \
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                                    \
        _Pragma("unroll") for (int u = 0; u < WG_UNROLL; u++) OP;                                  \
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                             \
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");                             \
    }                                                                                              \
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory")

/* FLOPs one warp does per loop iteration: a quarter of the warpgroup's; meta[1]: the output of an
 * odd loop count (see WG_LOOP; the host runs odd counts). */
#define WG_META(K, INC) rt_meta(meta, WG_UNROLL * 2.0 * 64 * 256 * (K) / 4, WG_UNROLL * (INC))

/* One kernel: A and B the tile filled with WORD, -B the second tile (NEG), the loop of OP, the sum
 * of the accumulators kept live. */
#define WG_KERNEL(NAME, T, WORD, NEG, BODY)                                                        \
    extern "C" __global__ void __launch_bounds__(RT_WG_THREADS)                                    \
        NAME(double *meta, float *out, int iters)                                                  \
    {                                                                                              \
        __shared__ __align__(1024) unsigned smem[2 * WG_SMEM / 4];                                 \
        rt_clock clk;                                                                              \
        rt_clock_start(clk);                                                                       \
        T d[128];                                                                                  \
        _Pragma("unroll") for (int j = 0; j < 128; j++) d[j] = 0;                                  \
        wg_fill(smem, WORD, NEG);                                                                  \
        const u64 da = wg_desc(smem), dbp = wg_desc(smem), dbn = wg_desc(smem + WG_SMEM / 4);      \
        BODY T s = 0;                                                                              \
        _Pragma("unroll") for (int j = 1; j < 128; j++) s += d[j];                                 \
        out[blockIdx.x * blockDim.x + threadIdx.x] = s == (T)-1 ? (float)s : (float)d[0];          \
        rt_clock_stop(clk, meta);                                                                  \
    }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* SHAPE, the accumulators and descriptors, scale-d 1 (D = A x B + D), then TAIL (the
 * immediates); the accumulator operands last, as they hold commas once expanded */
#define WG_ASM(SHAPE, TAIL, ...)                                                                   \
    asm volatile(SHAPE " " WG_D ", %128, %129, 1" TAIL ";"                                         \
                 : __VA_ARGS__                                                                     \
                 : "l"(da), "l"(db)                                                                \
                 : "memory")
#define WG_BODY(SHAPE, TAIL, ACC, K, INC)                                                          \
    WG_LOOP(WG_ASM(SHAPE, TAIL, ACC));                                                             \
    WG_META(K, INC);
#else
#define WG_BODY(SHAPE, TAIL, ACC, K, INC)                                                          \
    (void)da;                                                                                      \
    (void)dbp;                                                                                     \
    (void)dbn;                                                                                     \
    (void)iters;                                                                                   \
    rt_meta(meta, 0, 0);
#endif

/* FP16 and BF16: scale-a 1, scale-b 1, A and B K-major (no transpose). Each adds 16 x 0.125 x
 * 0.125 = 0.25. */
WG_KERNEL(wgmma_fp16, float, 0x30003000u, 0xb000b000u,
          WG_BODY("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", ", 1, 1, 0, 0", WG_ACC_F,
                  16, 0.25))
WG_KERNEL(wgmma_bf16, float, 0x3e003e00u, 0xbe00be00u,
          WG_BODY("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0", WG_ACC_F,
                  16, 0.25))
/* TF32: K-major only (no transpose immediates); adds 8 x 0.125 x 0.125 = 0.125 */
WG_KERNEL(wgmma_tf32, float, 0x3e000000u, 0xbe000000u,
          WG_BODY("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", ", 1, 1", WG_ACC_F, 8,
                  0.125))
/* FP8 E4M3 (0x20 is 0.125): adds 32 x 0.125 x 0.125 = 0.5 */
WG_KERNEL(wgmma_fp8, float, 0x20202020u, 0xa0a0a0a0u,
          WG_BODY("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", ", 1, 1", WG_ACC_F, 32,
                  0.5))
/* INT8 with s32 accumulate, no scale immediates: adds 32 x 1 x 1 = 32 */
WG_KERNEL(wgmma_int8, int, 0x01010101u, 0xffffffffu,
          WG_BODY("wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "", WG_ACC_R, 32, 32.0))
