// CPU-only build: unified vectors are plain heap memory.
#include <cstdlib>

#include "gpu/unified_alloc.hpp"

namespace gatemap::gpu {

void* unified_malloc(size_t bytes) {
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void unified_free(void* p) noexcept { std::free(p); }
bool is_unified(const void*) noexcept { return false; }

}  // namespace gatemap::gpu
