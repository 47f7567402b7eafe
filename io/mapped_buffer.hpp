#pragma once
// A growing array of plain records (moved as bytes) in anonymous memory of its own, grown
// with mremap: the kernel moves a large block's pages instead of copying its bytes, and
// no page is touched twice (a std::vector that doubles copies everything it holds each
// time, which made collecting duplicate marking's read ends slow).
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace gatemap::io {

template <class T>
class MappedBuffer {
  static_assert(std::is_trivially_copy_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "records are moved as bytes");

 public:
  MappedBuffer() = default;
  ~MappedBuffer() { release(); }
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;

  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }

  // Appends x, doubling the block when full, not past `most` records unless full at it.
  void push_back(const T& x, size_t most) {
    if (size_ == capacity_) grow(std::min(most, std::max<size_t>(kFirst, capacity_ * 2)));
    data_[size_++] = x;
  }
  // n records, those past the old size left to be filled (the block doubles as needed).
  void resize(size_t n) {
    if (n > capacity_) grow(std::max({n, kFirst, capacity_ * 2}));
    size_ = n;
  }
  void clear() { size_ = 0; }  // keeps the memory for the next records
  void swap(MappedBuffer& other) {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }
  void release() {
    if (data_) munmap(data_, capacity_ * sizeof(T));
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  static constexpr size_t kFirst = (size_t{1} << 20) / sizeof(T) + 1;  // about a megabyte
  void grow(size_t records) {
    if (records <= capacity_) records = capacity_ + 1;
    void* p = data_ ? mremap(data_, capacity_ * sizeof(T), records * sizeof(T), MREMAP_MAYMOVE)
                    : mmap(nullptr, records * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, records * sizeof(T), MADV_HUGEPAGE);  // fewer page faults; a hint the kernel may ignore
    data_ = static_cast<T*>(p);
    capacity_ = records;
  }

  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace gatemap::io
