#pragma once
// RAII wrappers for device memory, unified (managed) memory, pinned host memory,
// streams and events (.cu files only). Managed allocations are checked against
// cudaMemGetInfo first: asking for more than the card has free can hang the GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace gatemap::gpu {

// Free and total bytes on the current device.
inline std::pair<size_t, size_t> mem_info() {
  size_t free_b = 0, total_b = 0;
  GATEMAP_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return {free_b, total_b};
}

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}

  void resize(size_t n) {  // discards contents
    if (n <= n_ && ptr_) return;
    release();
    if (n) GATEMAP_CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
    n_ = n;
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

// Unified memory. Capacity never exceeds `max_fraction` of the device's free memory.
template <typename T>
class ManagedBuffer {
 public:
  ManagedBuffer() = default;
  ~ManagedBuffer() { release(); }
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;

  void reserve(size_t n, double max_fraction = 0.5) {
    if (n <= cap_) return;
    release();
    const size_t bytes = n * sizeof(T);
    const auto [free_b, total_b] = mem_info();
    (void)total_b;
    if (bytes > static_cast<size_t>(max_fraction * static_cast<double>(free_b))) {
      throw CudaError("unified-memory request of " + std::to_string(bytes) + " bytes exceeds " +
                      std::to_string(static_cast<int>(max_fraction * 100)) + "% of the " +
                      std::to_string(free_b) + " bytes free on the device");
    }
    GATEMAP_CUDA_CHECK(cudaMallocManaged(&ptr_, bytes));
    cap_ = n;
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t capacity() const { return cap_; }
  T& operator[](size_t i) { return ptr_[i]; }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    cap_ = 0;
  }
  T* ptr_ = nullptr;
  size_t cap_ = 0;
};

// Page-locked host memory, so that cudaMemcpyAsync really runs asynchronously.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void resize(size_t n) {  // discards contents
    if (n <= n_ && ptr_) return;
    release();
    if (n) GATEMAP_CUDA_CHECK(cudaMallocHost(&ptr_, n * sizeof(T)));
    n_ = n;
  }
  T* data() { return ptr_; }
  size_t size() const { return n_; }

 private:
  void release() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

// Per-batch buffers: grown by half again when a batch outgrows them. Batches differ in
// size, and reallocating pinned or device memory at each new largest one (cudaFree
// synchronizes the device; pinning pages is slow) cost more than the kernels.
template <typename Buffer>
void grow(Buffer& buf, size_t n) {
  if (n > buf.size()) buf.resize(n + n / 2);
}

// A host array copied to a device buffer sized for it (at least one element, so that
// data() is never null), synchronously: for uploads made once.
template <typename T>
void upload(DeviceBuffer<T>& dst, const T* src, size_t n) {
  dst.resize(std::max<size_t>(n, 1));
  if (n) GATEMAP_CUDA_CHECK(cudaMemcpy(dst.data(), src, n * sizeof(T), cudaMemcpyHostToDevice));
}

class Stream {
 public:
  Stream() { GATEMAP_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { GATEMAP_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_{};
};

class Event {
 public:
  Event() { GATEMAP_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t s) { GATEMAP_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void sync() { GATEMAP_CUDA_CHECK(cudaEventSynchronize(e_)); }
  cudaEvent_t get() const { return e_; }
  // Milliseconds between two recorded events (both must have completed).
  static float elapsed_ms(const Event& start, const Event& stop) {
    float ms = 0;
    GATEMAP_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, stop.e_));
    return ms;
  }

 private:
  cudaEvent_t e_{};
};

// CUDA 13 takes a cudaMemLocation for prefetch/advice.
inline cudaMemLocation device_location(int dev) { return cudaMemLocation{cudaMemLocationTypeDevice, dev}; }
inline cudaMemLocation host_location() { return cudaMemLocation{cudaMemLocationTypeHost, 0}; }

}  // namespace gatemap::gpu
