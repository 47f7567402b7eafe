#include <cuda_runtime.h>

#include <cstdlib>

#include "gpu/unified_alloc.hpp"

namespace gatemap::gpu {
namespace {

// Whether managed memory with prefetching is usable here, decided once.
bool managed_usable() {
  static const bool usable = [] {
    int count = 0, device = 0, concurrent = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return concurrent != 0;
  }();
  return usable;
}

}  // namespace

void* unified_malloc(size_t bytes) {
  if (bytes >= kUnifiedMinBytes && managed_usable()) {
    size_t free_b = 0, total_b = 0;
    void* p = nullptr;
    // Never more than half of what the card has free (oversubscription can hang it).
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && bytes <= free_b / 2 &&
        cudaMallocManaged(&p, bytes) == cudaSuccess) {
      return p;
    }
    cudaGetLastError();
  }
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

bool is_unified(const void* p) noexcept {
  if (!p || !managed_usable()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeManaged;
}

void unified_free(void* p) noexcept {
  if (!p) return;
  if (is_unified(p)) {
    cudaFree(p);
  } else {
    std::free(p);
  }
}

}  // namespace gatemap::gpu
