// The GPU study's correctness reference (src/study/gpu/study-gpu-check.c): a direct convolution,
// one thread per output element, summed in double, on the study's deterministic inputs (filled on
// the device by conv_fill, so nothing is copied in). Layouts: input NCHW, weights OIHW, output
// NCHW; square images, padding kernel / 2, no bias. Clients write their outputs for the same
// inputs.

// u(i, s) = ((i * 2654435761 + s) mod 2^32) / 2^32 - 0.5: exact in double; the value stored is
// u(i, s) / div rounded once to float (div: 1 for the input, sqrt(C*K*K) for the weights), the
// same steps numpy or torch take in float64 before casting to float32.
__device__ __forceinline__ double rt_conv_u(u64 i, unsigned s)
{
    unsigned h = (unsigned)(i * 2654435761ull) + s; /* both wrap mod 2^32 */
    return (double)h / 4294967296.0 - 0.5;
}

extern "C" __global__ void conv_fill(float *p, u64 n, unsigned seed, double div)
{
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x)
        p[i] = (float)(rt_conv_u(i, seed) / div);
}

// y[n][f][oy][ox] = sum over c, ky, kx of x[n][c][oy*S-P+ky][ox*S-P+kx] * w[f][c][ky][kx], the
// taps outside the image being zero; OH = (H + 2P - K) / S + 1.
extern "C" __global__ void conv_direct(const float *x, const float *w, float *y, int N, int C,
                                       int H, int F, int K, int S, int P, int OH)
{
    u64 total = (u64)N * F * OH * OH;
    for (u64 o = (u64)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (u64)gridDim.x * blockDim.x) {
        int ox = (int)(o % OH), oy = (int)(o / OH % OH), f = (int)(o / ((u64)OH * OH) % F);
        int n = (int)(o / ((u64)OH * OH * F));
        double acc = 0;
        for (int c = 0; c < C; c++) {
            const float *xc = x + ((u64)n * C + c) * H * H;
            const float *wc = w + ((u64)f * C + c) * K * K;
            for (int ky = 0; ky < K; ky++) {
                int iy = oy * S - P + ky;
                if (iy < 0 || iy >= H)
                    continue;
                for (int kx = 0; kx < K; kx++) {
                    int ix = ox * S - P + kx;
                    if (ix >= 0 && ix < H)
                        acc += (double)xc[(u64)iy * H + ix] * (double)wc[ky * K + kx];
                }
            }
        }
        y[o] = (float)acc;
    }
}
