#pragma once
// Error checking for CUDA calls (.cu files only): every failure becomes a CudaError
// holding the call text, file:line and cudaGetErrorString. With
// GATEMAP_CUDA_SYNC_CHECK the device is synchronized after each check (debugging).
#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"

namespace gatemap::gpu::detail {
[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorString(err));
}
}  // namespace gatemap::gpu::detail

#ifdef GATEMAP_CUDA_SYNC_CHECK
#define GATEMAP_SYNC_AFTER_CHECK() cudaDeviceSynchronize()
#else
#define GATEMAP_SYNC_AFTER_CHECK() cudaSuccess
#endif

#define GATEMAP_CUDA_CHECK(call)                                                      \
  do {                                                                                \
    cudaError_t gm_err_ = (call);                                                     \
    if (gm_err_ == cudaSuccess) gm_err_ = GATEMAP_SYNC_AFTER_CHECK();                 \
    if (gm_err_ != cudaSuccess) {                                                     \
      ::gatemap::gpu::detail::throw_cuda(gm_err_, #call, __FILE__, __LINE__);         \
    }                                                                                 \
  } while (0)

// After a kernel launch: launch-configuration errors surface here.
#define GATEMAP_CUDA_CHECK_LAUNCH() GATEMAP_CUDA_CHECK(cudaGetLastError())
