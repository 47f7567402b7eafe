// BGZF compression on the GPU: one warp per block finds every position's match, then
// runs deflate_core's parse and coding (the CPU twin's code, io/bgzf_deflate.cpp), with
// its hash table and tokens in device memory. A batch's blocks go up at a fixed stride,
// their streams come back the same way; host threads copy them and add the BGZF frame.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/log.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "io/bgzf_deflate.hpp"
#include "io/deflate_core.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kStride = 65536;  // bytes per block, in and out
constexpr int kWarpsPerBlock = 4;

// Bytes at c and p compared four at a time: each load of a byte waits on the cache, and
// a match's bytes are read one after another. A block's buffer has room past its end
// (kStride), and what lies there only ever extends a length capped at max_len.
struct WordCompare {
  const uint8_t* in;  // 4-byte aligned
  __device__ uint32_t word(uint32_t i) const {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(in) + (i >> 2);
    return __funnelshift_r(__ldg(w), __ldg(w + 1), (i & 3) * 8);
  }
  __device__ uint32_t operator()(uint32_t c, uint32_t p, uint32_t max_len) const {
    uint32_t len = 0;
    while (len < max_len) {
      const uint32_t differ = word(c + len) ^ word(p + len);
      if (differ) {
        len += (__ffs(differ) - 1) >> 3;
        break;
      }
      len += 4;
    }
    return len < max_len ? len : max_len;
  }
};

// The dynamic block's bits written by a warp: lane 0 the header, then 32 tokens at a
// time, each lane its token's bits at the offset a warp scan of their lengths gives,
// OR-ed into the zeroed 32-bit words of `out` (LSB-first: bit k is bit k % 32 of word
// k / 32 on this little-endian device). The same bits as the twin's BitWriter.
// Returns the block's size in bytes.
__device__ uint32_t write_tokens(const deflate::BlockPlan& plan, const deflate::Tables& t, const uint32_t* tokens,
                                 uint8_t* out, uint32_t lane) {
  uint32_t* words = reinterpret_cast<uint32_t*>(out);  // kStride-aligned
  const uint32_t word_count = static_cast<uint32_t>((plan.bits + 31) / 32) + 1;
  for (uint32_t i = lane; i < word_count; i += 32) words[i] = 0;
  __syncwarp();
  uint64_t at = 0;
  if (lane == 0) {
    deflate::BitWriter w{out};
    deflate::write_header(plan, t, w);
    at = uint64_t{w.pos} * 8 + static_cast<uint64_t>(w.bits);
    w.finish();  // the last partial byte; the tokens' bits are OR-ed past it
  }
  at = __shfl_sync(0xffffffffu, at, 0);
  __syncwarp();
  for (uint32_t first = 0; first <= plan.tokens; first += 32) {
    const uint32_t i = first + lane;
    int bits = 0;
    uint64_t v = 0;
    if (i < plan.tokens) {
      v = deflate::token_bits(tokens[i], plan, t, bits);
    } else if (i == plan.tokens) {
      v = deflate::token_bits(deflate::kEndOfBlock, plan, t, bits);
    }
    uint32_t end = static_cast<uint32_t>(bits);  // inclusive scan of the lengths
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t before = __shfl_up_sync(0xffffffffu, end, d);
      if (static_cast<int>(lane) >= d) end += before;
    }
    if (bits > 0) {
      const uint64_t offset = at + end - static_cast<uint32_t>(bits);
      const uint32_t w = static_cast<uint32_t>(offset >> 5), shift = static_cast<uint32_t>(offset & 31);
      const uint64_t low = v << shift;
      atomicOr(words + w, static_cast<uint32_t>(low));
      if (shift + bits > 32) atomicOr(words + w + 1, static_cast<uint32_t>(low >> 32));
      if (shift + bits > 64) atomicOr(words + w + 2, static_cast<uint32_t>(v >> (64 - shift)));
    }
    at += __shfl_sync(0xffffffffu, end, 31);
  }
  return static_cast<uint32_t>((at + 7) / 8);  // plan.bits also counts the codes' unused fillers
}

// One warp per BGZF block. The matches of 32 positions at a time: each lane hashes its
// position; lanes whose positions share a hash (__match_any_sync) see the bucket as the
// CPU twin's one-by-one order leaves it for them (the bucket before the 32, then the
// group's earlier positions shifted in), and the group's last lane writes the bucket
// back with them all. Then lane 0 parses and builds the codes (deflate_core.hpp) and the
// warp writes the block.
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    deflate_kernel(const uint8_t* in_all, const uint32_t* sizes, uint8_t* out_all, uint32_t* out_sizes,
                   uint64_t* buckets_all, uint32_t* tokens_all, int count) {
  __shared__ deflate::Tables tables[kWarpsPerBlock];
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
    const bool hashed = p + deflate::kHashBytes <= n;
    const uint32_t h = hashed ? deflate::hash4(in, p) : 0xffffffffu - lane;  // unhashed lanes stand alone
    const uint32_t group = __match_any_sync(0xffffffffu, h);
    deflate::Bucket bucket{};
    uint64_t* words = s.buckets + size_t(deflate::kBucketWordCount) * (hashed ? h : 0);
    if (hashed) {
      for (int i = 0; i < deflate::kBucketWordCount; i += 2) {  // 16-byte loads
        const ulonglong2 two = *reinterpret_cast<const ulonglong2*>(words + i);
        bucket.w[i] = two.x;
        bucket.w[i + 1] = two.y;
      }
    }
    __syncwarp();
    for (uint32_t earlier = group & ((1u << lane) - 1); earlier; earlier &= earlier - 1) {
      bucket.shift_in(base + __ffs(earlier) - 1);  // oldest first
    }
    const uint32_t match = hashed ? deflate::best_match(in, n, p, bucket, WordCompare{in}) : 0;
    if (hashed && (group >> lane) == 1) {  // the group's last lane
      bucket.shift_in(p);
      for (int i = 0; i < deflate::kBucketWordCount; i += 2) {
        *reinterpret_cast<ulonglong2*>(words + i) = make_ulonglong2(bucket.w[i], bucket.w[i + 1]);
      }
    }
    __syncwarp();
    if (p < n) s.tokens[p] = match;
  }
  __syncwarp();
  // Lane 0 parses and builds the codes; the block is then written by all lanes (below).
  deflate::Tables& t = tables[threadIdx.x / 32];
  __shared__ deflate::BlockPlan plans[kWarpsPerBlock];
  deflate::BlockPlan& plan = plans[threadIdx.x / 32];
  uint8_t* out = out_all + size_t(job) * kStride;
  if (lane == 0) plan = deflate::plan_block(in, n, s, t);
  __syncwarp();
  if (plan.stored) {
    if (lane == 0) out_sizes[job] = deflate::write_stored(in, n, out);
    return;
  }
  const uint32_t size = write_tokens(plan, t, s.tokens, out, lane);
  if (lane == 0) out_sizes[job] = size;
}

// One round's buffers and stream. Two of them alternate, so that one round's host copies
// and transfers run beside the other's kernel.
struct Round {
  gpu::Stream stream;
  // Pageable host buffers: pinning a few hundred MB held CUDA's driver lock for tenths of
  // a second and stalled the mapper's own GPU work (measured); the copies are fast enough.
  // Left uninitialised when made (zeroing a few hundred MB on one thread took 0.3 s of a
  // sorted BAM's tail); their pages are touched first by the copies, on all threads.
  std::unique_ptr<uint8_t[]> host_in, host_out;
  std::vector<uint32_t> host_sizes, host_deflated;
  gpu::DeviceBuffer<uint8_t> in, out;
  gpu::DeviceBuffer<uint32_t> sizes, out_sizes, tokens;
  gpu::DeviceBuffer<uint64_t> buckets;
  gpu::Event kernel_begin, kernel_end;
  double kernel_s = 0;  // summed over finished rounds
  // -v 4: the host's side of the rounds (making buffers, copying in, waiting for the GPU
  // and copying back, copying out and framing) and the blocks compressed.
  double alloc_s = 0, copy_in_s = 0, wait_s = 0, copy_out_s = 0;
  size_t blocks_done = 0;
  BgzfJob* jobs = nullptr;
  size_t count = 0;  // 0: nothing under way

  size_t most = 0;  // blocks a round holds at most

  void reserve(size_t blocks) {  // grown by half again (cudaFree synchronizes the device)
    if (in.size() >= blocks * kStride) return;
    blocks = std::min(most, blocks + blocks / 2);
    host_in.reset();  // the old buffers first: peak memory
    host_out.reset();
    host_in.reset(new uint8_t[blocks * kStride]);
    host_out.reset(new uint8_t[blocks * kStride]);
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
  void start(BgzfJob* round_jobs, size_t n, int threads) {
    {
      const log::StageTimer timing(alloc_s);
      reserve(n);
    }
    const log::StageTimer timing(copy_in_s);
    jobs = round_jobs;
    count = n;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(host_in.get() + i * kStride, jobs[i].in, jobs[i].size);
      host_sizes[i] = jobs[i].size;
    }
    const cudaStream_t s = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(in.data(), host_in.get(), n * kStride, cudaMemcpyHostToDevice, s));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), host_sizes.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    const int grid = static_cast<int>((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
    kernel_begin.record(s);
    deflate_kernel<<<grid, kWarpsPerBlock * 32, 0, s>>>(in.data(), sizes.data(), out.data(), out_sizes.data(),
                                                     buckets.data(), tokens.data(), static_cast<int>(n));
    GATEMAP_CUDA_CHECK_LAUNCH();
    kernel_end.record(s);
  }

  // Waits for the kernel, brings the streams back and frames them.
  void finish(int threads) {
    if (count == 0) return;
    const size_t n = count;
    count = 0;
    const cudaStream_t s = stream.get();
    {
      const log::StageTimer timing(wait_s);  // a copy to pageable memory returns when done
      GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_deflated.data(), out_sizes.data(), n * sizeof(uint32_t),
                                         cudaMemcpyDeviceToHost, s));
      GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_out.get(), out.data(), n * kStride, cudaMemcpyDeviceToHost, s));
      stream.sync();
    }
    kernel_s += gpu::Event::elapsed_ms(kernel_begin, kernel_end) / 1000.0;
    blocks_done += n;
    const log::StageTimer timing(copy_out_s);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(jobs[i].out + detail::kBgzfHeaderSize, host_out.get() + i * kStride, host_deflated[i]);
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
  for (Round& r : impl_->rounds) r.most = impl_->blocks_per_round;
}

BgzfDeflateGpu::~BgzfDeflateGpu() {
  const Round* r = impl_->rounds;
  if (r[0].blocks_done + r[1].blocks_done == 0) return;
  const auto sum = [&](double Round::*lap) { return std::to_string(r[0].*lap + r[1].*lap); };
  log::debug("bgzf", "device " + std::to_string(impl_->device) + ": " + std::to_string(r[0].blocks_done + r[1].blocks_done) +
                         " blocks; making buffers " + sum(&Round::alloc_s) + " s, copying in " + sum(&Round::copy_in_s) +
                         " s, waiting for the GPU and copying back " + sum(&Round::wait_s) + " s (kernels " + sum(&Round::kernel_s) +
                         " s), copying out and framing " + sum(&Round::copy_out_s) + " s");
}

double BgzfDeflateGpu::kernel_seconds() const { return impl_->rounds[0].kernel_s + impl_->rounds[1].kernel_s; }

// Rounds alternate between the two buffer sets: round k starts (its copies up, its
// kernel) while round k-1's kernel runs, then round k-1 is finished.
void BgzfDeflateGpu::compress_rounds(BgzfJob* jobs, const NextRound& next_round) {
  Impl& m = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(m.device));
  try {
    size_t k = 0, first = 0;
    for (size_t n; (n = next_round(m.blocks_per_round, first)) > 0; ++k) {
      m.rounds[k % 2].start(jobs + first, n, m.threads);
      m.rounds[(k + 1) % 2].finish(m.threads);
    }
    m.rounds[(k + 1) % 2].finish(m.threads);
  } catch (...) {
    m.rounds[0].count = m.rounds[1].count = 0;  // the twin redoes the batch
    throw;
  }
}

// A batch of more than a few hundred blocks is cut in at least two rounds so that they
// overlap.
void BgzfDeflateGpu::compress(BgzfJob* jobs, size_t count) {
  size_t at = 0;
  compress_rounds(jobs, [&](size_t most, size_t& first) {
    const size_t per_round = count >= 512 ? std::min(most, (count + 1) / 2) : most;
    first = at;
    const size_t n = std::min(per_round, count - at);
    at += n;
    return n;
  });
}

}  // namespace gatemap::io
