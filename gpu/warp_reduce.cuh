#pragma once
// Reductions over the 32 lanes of a full warp, every lane getting the result: the
// sm_80 instructions where the card has them, shuffles on Volta and Turing (which
// lack __reduce_*_sync). The same results either way.
#include <cuda_runtime.h>

namespace gatemap::gpu {

constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(kFullWarp, v);
#else
  for (int d = 16; d > 0; d >>= 1) v = max(v, __shfl_xor_sync(kFullWarp, v, d));
  return v;
#endif
}

__device__ __forceinline__ int warp_min(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFullWarp, v);
#else
  for (int d = 16; d > 0; d >>= 1) v = min(v, __shfl_xor_sync(kFullWarp, v, d));
  return v;
#endif
}

__device__ __forceinline__ int warp_sum(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(kFullWarp, v);
#else
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(kFullWarp, v, d);
  return v;
#endif
}

// Whether any lane's v is true.
__device__ __forceinline__ bool warp_any(bool v) { return __any_sync(kFullWarp, v); }

}  // namespace gatemap::gpu
