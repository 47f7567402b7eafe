#pragma once
// Host vectors that live in CUDA unified memory when a device can use it, so that the
// GateKeeper engine filters a batch's candidates where the mapper wrote them: no host
// copy, only prefetches (as GateKeeper-GPU allocates its buffers). Without a usable
// device, or for small arrays, plain malloc. Thread-safe.
#include <cstddef>
#include <new>
#include <vector>

namespace gatemap::gpu {

// Allocations of at least this many bytes go to unified memory when possible.
constexpr size_t kUnifiedMinBytes = size_t{1} << 20;

void* unified_malloc(size_t bytes);         // throws std::bad_alloc
void unified_free(void* p) noexcept;
bool is_unified(const void* p) noexcept;    // allocated in CUDA managed memory

template <typename T>
struct UnifiedAllocator {
  using value_type = T;
  UnifiedAllocator() = default;
  template <typename U>
  UnifiedAllocator(const UnifiedAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(unified_malloc(n * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { unified_free(p); }
  template <typename U>
  bool operator==(const UnifiedAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const UnifiedAllocator<U>&) const noexcept { return false; }
};

template <typename T>
using UnifiedVector = std::vector<T, UnifiedAllocator<T>>;

}  // namespace gatemap::gpu
