// BGZF compression on the GPU: one warp per block finds every position's match, then
// runs deflate_core's parse and coding (the CPU twin's code, io/bgzf_deflate.cpp), with
// its hash table and tokens in device memory. A batch's blocks go up at a fixed stride, their streams come back
// the same way; the host threads copy them in and out and add the BGZF frame.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "io/bgzf_deflate.hpp"
#include "io/deflate_core.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kStride = 65536;         // bytes per block, in and out
constexpr int kWarpsPerBlock = 4;

// One warp per BGZF block. The matches of 32 positions at a time: each lane hashes its
// position; lanes whose positions share a hash (__match_any_sync) see the bucket as the
// CPU twin's one-by-one order leaves it for them (the bucket before the 32, then the
// group's earlier positions shifted in), and the group's last lane writes the bucket
// back with them all. Then lane 0 parses and codes the block (deflate_core.hpp).
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    deflate_kernel(const uint8_t* in_all, const uint32_t* sizes, uint8_t* out_all, uint32_t* out_sizes,
                   uint64_t* buckets_all, uint32_t* tokens_all, int count) {
  const int job = blockIdx.x * kWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
  const uint32_t lane = threadIdx.x % 32;
  if (job >= count) return;  // whole warps
  const uint8_t* in = in_all + size_t(job) * kStride;
  const uint32_t n = sizes[job];
  const deflate::Scratch s{buckets_all + size_t(job) * deflate::kBucketWords, tokens_all + size_t(job) * deflate::kMaxInput};
  for (uint32_t i = lane; i < deflate::kBucketWords; i += 32) s.buckets[i] = 0;
  __syncwarp();
  for (uint32_t base = 0; base < n; base += 32) {
    const uint32_t p = base + lane;
    const bool hashed = p + deflate::kMinMatch <= n;
    const uint32_t h = hashed ? deflate::hash3(in, p) : 0xffffffffu - lane;  // unhashed lanes stand alone
    const uint32_t group = __match_any_sync(0xffffffffu, h);
    uint64_t w0 = 0, w1 = 0;
    if (hashed) {
      w0 = s.buckets[2 * h];
      w1 = s.buckets[2 * h + 1];
    }
    __syncwarp();
    for (uint32_t earlier = group & ((1u << lane) - 1); earlier; earlier &= earlier - 1) {
      deflate::shift_in(w0, w1, base + __ffs(earlier) - 1);  // oldest first
    }
    const uint32_t match = hashed ? deflate::best_match(in, n, p, w0, w1) : 0;
    if (hashed && (group >> lane) == 1) {  // the group's last lane
      deflate::shift_in(w0, w1, p);
      s.buckets[2 * h] = w0;
      s.buckets[2 * h + 1] = w1;
    }
    __syncwarp();
    if (p < n) s.tokens[p] = match;
  }
  __syncwarp();
  if (lane == 0) out_sizes[job] = deflate::encode_block(in, n, s, out_all + size_t(job) * kStride);
}

// One round's buffers and stream. Two of them alternate, so that one round's host copies
// and transfers run beside the other's kernel.
struct Round {
  gpu::Stream stream;
  // Pageable host buffers: pinning a few hundred MB held CUDA's driver lock for tenths of
  // a second and stalled the mapper's own GPU work (measured); the copies are fast enough.
  std::vector<uint8_t> host_in, host_out;
  std::vector<uint32_t> host_sizes, host_deflated;
  gpu::DeviceBuffer<uint8_t> in, out;
  gpu::DeviceBuffer<uint32_t> sizes, out_sizes, tokens;
  gpu::DeviceBuffer<uint64_t> buckets;
  BgzfJob* jobs = nullptr;
  size_t count = 0;  // 0: nothing under way

  void reserve(size_t blocks, size_t most) {  // grown by half again (cudaFree synchronizes the device)
    if (in.size() >= blocks * kStride) return;
    blocks = std::min(most, blocks + blocks / 2);
    host_in.resize(blocks * kStride);
    host_out.resize(blocks * kStride);
    host_sizes.resize(blocks);
    host_deflated.resize(blocks);
    in.resize(blocks * kStride);
    out.resize(blocks * kStride);
    sizes.resize(blocks);
    out_sizes.resize(blocks);
    tokens.resize(blocks * deflate::kMaxInput);
    buckets.resize(blocks * deflate::kBucketWords);
  }

  // The blocks up and the kernel started. (A copy from pageable memory returns when the
  // bytes are on their way; the kernel runs on.)
  void start(BgzfJob* round_jobs, size_t n, size_t most, int threads) {
    reserve(n, most);
    jobs = round_jobs;
    count = n;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(host_in.data() + i * kStride, jobs[i].in, jobs[i].size);
      host_sizes[i] = jobs[i].size;
    }
    const cudaStream_t s = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(in.data(), host_in.data(), n * kStride, cudaMemcpyHostToDevice, s));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), host_sizes.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    const int grid = static_cast<int>((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
    deflate_kernel<<<grid, kWarpsPerBlock * 32, 0, s>>>(in.data(), sizes.data(), out.data(), out_sizes.data(),
                                                     buckets.data(), tokens.data(), static_cast<int>(n));
    GATEMAP_CUDA_CHECK_LAUNCH();
  }

  // Waits for the kernel, brings the streams back and frames them.
  void finish(int threads) {
    if (count == 0) return;
    const size_t n = count;
    count = 0;
    const cudaStream_t s = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_deflated.data(), out_sizes.data(), n * sizeof(uint32_t),
                                       cudaMemcpyDeviceToHost, s));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_out.data(), out.data(), n * kStride, cudaMemcpyDeviceToHost, s));
    stream.sync();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(jobs[i].out + detail::kBgzfHeaderSize, host_out.data() + i * kStride, host_deflated[i]);
      jobs[i].out_size = detail::frame_bgzf_block(jobs[i].in, jobs[i].size, jobs[i].out, host_deflated[i]);
    }
  }
};

}  // namespace

struct BgzfDeflateGpu::Impl {
  int device = 0;
  int threads = 1;
  size_t blocks_per_round = 0;
  Round rounds[2];
};

BgzfDeflateGpu::BgzfDeflateGpu(int device, int threads, size_t blocks_per_round) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // the streams are made on it
  impl_ = std::make_unique<Impl>();
  impl_->device = device;
  impl_->threads = std::max(1, threads);
  impl_->blocks_per_round = std::max<size_t>(1, blocks_per_round);
}

BgzfDeflateGpu::~BgzfDeflateGpu() = default;

// Rounds alternate between the two buffer sets: round k starts (its copies up, its
// kernel) while round k-1's kernel runs, then round k-1 is finished. A batch of more
// than a few hundred blocks is cut in at least two rounds so that they overlap.
void BgzfDeflateGpu::compress(BgzfJob* jobs, size_t count) {
  Impl& m = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(m.device));
  size_t per_round = m.blocks_per_round;
  if (count >= 512) per_round = std::min(per_round, (count + 1) / 2);
  try {
    size_t k = 0;
    for (size_t from = 0; from < count; from += per_round, ++k) {
      m.rounds[k % 2].start(jobs + from, std::min(per_round, count - from), m.blocks_per_round, m.threads);
      m.rounds[(k + 1) % 2].finish(m.threads);
    }
    m.rounds[(k + 1) % 2].finish(m.threads);
  } catch (...) {
    m.rounds[0].count = m.rounds[1].count = 0;  // the twin redoes the batch
    throw;
  }
}

}  // namespace gatemap::io
