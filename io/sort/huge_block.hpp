#pragma once
// A large block of anonymous memory on 2 MB pages where the kernel grants them
// (madvise(MADV_HUGEPAGE), which transparent huge pages in "madvise" mode, a common
// default, need): it is faulted in 2 MB at a time instead of 4 KB. Filling 1 GB took
// 4.0-4.4 s of page faults on 4 KB pages and 1.4-1.8 s on huge pages (2-core VM).
// Used for the sorter's record arena and the corrector's kept FASTQ text.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>

namespace gatemap::io {

class HugeBlock {
 public:
  HugeBlock() = default;
  explicit HugeBlock(size_t bytes) : bytes_(bytes) {  // throws std::bad_alloc
    if (bytes == 0) return;
    mapped_ = bytes + kHuge;  // room to start on a 2 MB boundary
    base_ = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t at = (reinterpret_cast<uintptr_t>(base_) + kHuge - 1) / kHuge * kHuge;
    data_ = reinterpret_cast<uint8_t*>(at);
    madvise(data_, bytes, MADV_HUGEPAGE);  // a hint: without it, 4 KB pages as before
  }
  ~HugeBlock() {
    if (base_) munmap(base_, mapped_);
  }
  HugeBlock(HugeBlock&& o) noexcept
      : base_(std::exchange(o.base_, nullptr)), mapped_(o.mapped_), data_(o.data_), bytes_(o.bytes_) {}
  HugeBlock& operator=(HugeBlock&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(mapped_, o.mapped_);
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  HugeBlock(const HugeBlock&) = delete;
  HugeBlock& operator=(const HugeBlock&) = delete;

  uint8_t* data() const { return data_; }
  char* chars() const { return reinterpret_cast<char*>(data_); }
  size_t size() const { return bytes_; }
  std::string_view view() const { return {chars(), bytes_}; }

 private:
  static constexpr size_t kHuge = size_t{2} << 20;
  void* base_ = nullptr;
  size_t mapped_ = 0;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace gatemap::io
