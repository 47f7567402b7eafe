#pragma once
// Large host-to-device copies from pageable memory (the index, mapped from its file).
// cudaMemcpy from pageable memory stages through one driver buffer at 6-8 GB/s (GRCh37's
// 10.6 GB index took 1.3-1.6 s on an H200); here a few host threads copy chunks into
// pinned buffers of their own while the copy engines move the chunks before them (0.4 s).
#include <cstddef>
#include <vector>

namespace gatemap::gpu {

struct HostToDevice {
  void* device;      // device memory of the current device
  const void* host;  // any host memory
  size_t bytes;
};

// Copies every piece; returns when all arrived. Throws CudaError when a CUDA call fails.
// CUDA builds only.
void copy_to_device(const std::vector<HostToDevice>& pieces);

}  // namespace gatemap::gpu
