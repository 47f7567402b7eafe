// BGZF compression on the GPU: one thread per block runs deflate_core's DEFLATE (the
// same code as the CPU twin, io/bgzf_deflate.cpp) with its hash table and tokens in
// device memory. A batch's blocks go up at a fixed stride, their streams come back
// the same way; the host threads copy them in and out and add the BGZF frame.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "io/bgzf_deflate.hpp"
#include "io/deflate_core.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kStride = 65536;         // bytes per block, in and out
constexpr int kThreadsPerBlock = 32;

__global__ void deflate_kernel(const uint8_t* in, const uint32_t* sizes, uint8_t* out, uint32_t* out_sizes,
                               uint64_t* buckets, uint32_t* tokens, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const deflate::Scratch s{buckets + size_t(i) * deflate::kBucketWords, tokens + size_t(i) * deflate::kMaxInput};
  out_sizes[i] = deflate::deflate_block(in + size_t(i) * kStride, sizes[i], s, out + size_t(i) * kStride);
}

}  // namespace

struct BgzfDeflateGpu::Impl {
  int device = 0;
  int threads = 1;
  size_t blocks_per_round = 0;
  gpu::Stream stream;
  gpu::PinnedBuffer<uint8_t> host_in, host_out;
  gpu::PinnedBuffer<uint32_t> host_sizes;
  gpu::DeviceBuffer<uint8_t> in, out;
  gpu::DeviceBuffer<uint32_t> sizes, out_sizes, tokens;
  gpu::DeviceBuffer<uint64_t> buckets;

  void reserve(size_t blocks) {
    if (in.size() >= blocks * kStride) return;
    host_in.resize(blocks * kStride);
    host_out.resize(blocks * kStride);
    host_sizes.resize(2 * blocks);
    in.resize(blocks * kStride);
    out.resize(blocks * kStride);
    sizes.resize(blocks);
    out_sizes.resize(blocks);
    tokens.resize(blocks * deflate::kMaxInput);
    buckets.resize(blocks * deflate::kBucketWords);
  }

  void round(BgzfJob* jobs, size_t count) {
    reserve(count);
    uint32_t* in_sizes = host_sizes.data();
    uint32_t* deflated = host_sizes.data() + count;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < count; ++i) {
      std::memcpy(host_in.data() + i * kStride, jobs[i].in, jobs[i].size);
      in_sizes[i] = jobs[i].size;
    }
    const cudaStream_t s = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(in.data(), host_in.data(), count * kStride, cudaMemcpyHostToDevice, s));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), in_sizes, count * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    const int grid = static_cast<int>((count + kThreadsPerBlock - 1) / kThreadsPerBlock);
    deflate_kernel<<<grid, kThreadsPerBlock, 0, s>>>(in.data(), sizes.data(), out.data(), out_sizes.data(),
                                                     buckets.data(), tokens.data(), static_cast<int>(count));
    GATEMAP_CUDA_CHECK_LAUNCH();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(deflated, out_sizes.data(), count * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_out.data(), out.data(), count * kStride, cudaMemcpyDeviceToHost, s));
    stream.sync();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < count; ++i) {
      std::memcpy(jobs[i].out + detail::kBgzfHeaderSize, host_out.data() + i * kStride, deflated[i]);
      jobs[i].out_size = detail::frame_bgzf_block(jobs[i].in, jobs[i].size, jobs[i].out, deflated[i]);
    }
  }
};

BgzfDeflateGpu::BgzfDeflateGpu(int device, int threads, size_t blocks_per_round) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // the stream is made on it
  impl_ = std::make_unique<Impl>();
  impl_->device = device;
  impl_->threads = std::max(1, threads);
  impl_->blocks_per_round = std::max<size_t>(1, blocks_per_round);
}

BgzfDeflateGpu::~BgzfDeflateGpu() = default;

void BgzfDeflateGpu::compress(BgzfJob* jobs, size_t count) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(impl_->device));
  const size_t per_round = impl_->blocks_per_round;
  for (size_t from = 0; from < count; from += per_round) {
    impl_->round(jobs + from, std::min(per_round, count - from));
  }
}

}  // namespace gatemap::io
