// --gpu-mem without CUDA: no device memory to cap.
#include "gpu/memory_cap.hpp"

namespace gatemap::gpu {

MemoryCap::MemoryCap(const std::vector<int>&, size_t, const std::string&) {}
MemoryCap::~MemoryCap() = default;

}  // namespace gatemap::gpu
