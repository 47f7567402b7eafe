// Device discovery for CUDA builds.
#include <cuda_runtime.h>

#include "gpu/device.hpp"

namespace gatemap::gpu {

bool built_with_cuda() { return true; }

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  int count = 0;
  // No driver gives cudaErrorInsufficientDriver, not cudaErrorNoDevice: any error means none.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (int id = 0; id < count; ++id) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) continue;
    DeviceInfo info;
    info.id = id;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_bytes = prop.totalGlobalMem;
    int managed = 0;
    cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, id);
    info.concurrent_managed = managed != 0;
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(id) == cudaSuccess) {
      size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) info.free_bytes = free_b;
      cudaSetDevice(previous);
    }
    out.push_back(info);
  }
  cudaGetLastError();
  return out;
}

}  // namespace gatemap::gpu
