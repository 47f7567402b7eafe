// --gpu-mem for CUDA builds: the free memory beyond the cap held in device allocations.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "common/log.hpp"
#include "gpu/memory_cap.hpp"

namespace gatemap::gpu {

namespace {

std::string gib(size_t bytes) {  // as --gpu-mem's G (io::parse_memory)
  char text[32];
  std::snprintf(text, sizeof text, "%.1fG", static_cast<double>(bytes) / 1073741824.0);
  return text;
}

}  // namespace

MemoryCap::MemoryCap(const std::vector<int>& devices, size_t cap_bytes, const std::string& command) {
  if (cap_bytes == 0) return;
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  for (const int device : std::set<int>(devices.begin(), devices.end())) {
    if (cudaSetDevice(device) != cudaSuccess) continue;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) continue;
    const size_t had = free_b;
    // In pieces of at most 4 GB (one huge piece may not be had where many smaller are).
    size_t piece = size_t{4} << 30;
    while (free_b > cap_bytes && piece >= (size_t{64} << 20)) {
      void* p = nullptr;
      if (cudaMalloc(&p, std::min(piece, free_b - cap_bytes)) == cudaSuccess) {
        held_.emplace_back(device, p);
      } else {
        cudaGetLastError();
        piece /= 2;
      }
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) break;
    }
    log::info(command, "GPU " + std::to_string(device) + ": " + gib(std::min(had, free_b)) + " of its " + gib(had) +
                           " free left to this run (--gpu-mem " + gib(cap_bytes) + ")");
    if (free_b > cap_bytes + (size_t{64} << 20)) {
      log::warn(command, "GPU " + std::to_string(device) + ": could hold back only part of the memory beyond --gpu-mem");
    }
  }
  cudaSetDevice(previous);
  cudaGetLastError();
}

MemoryCap::~MemoryCap() {
  for (const auto& [device, p] : held_) {
    cudaSetDevice(device);
    cudaFree(p);
  }
  cudaGetLastError();
}

}  // namespace gatemap::gpu
