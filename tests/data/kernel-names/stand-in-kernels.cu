#include <type_traits>
#include <array>
#include <cuda_bf16.h>
namespace at { namespace native {
template <typename T> struct FillFunctor { T v; __device__ T operator()() const { return v; } };
template <int vec_size, typename func_t, typename array_t>
__global__ void vectorized_elementwise_kernel(int N, func_t f, array_t data) { if (N < 0) data[0][0] = (char)f(); }
}}
template <typename T> struct cublasGemvTensorStridedBatched { T *p; long ld; };
template <typename I, typename A, typename B, typename C, typename S> struct cublasGemvParamsEx { A a; B b; C c; S alpha; I n; };
template <typename Ti, typename To, typename Ta, typename Tb, typename Tc, typename Ts, bool B7, int N8, int N9, int N10, int N11, int N12, typename P>
__global__ typename std::enable_if<!B7, void>::type kernel(P p) { if (p.n < 0) p.c.p[0] = p.a.p[0]; }
template __global__ void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1> >(int, at::native::FillFunctor<float>, std::array<char*, 1>);
template __global__ void kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, false, 1, 1, 0, 7, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>);
