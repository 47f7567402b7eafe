// BGZF compression on the GPU: one warp per block finds every position's match (one
// kernel), then runs deflate_core's parse and coding (a second kernel; the CPU twin's
// code, io/deflate/bgzf_deflate_cpu.cpp), with its hash table and tokens in device memory. A batch's
// blocks go up at a fixed stride through pinned buffers, their streams come back the
// same way; host threads copy them and add the BGZF frame.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/log.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "io/deflate/bgzf_deflate.hpp"
#include "io/deflate/deflate_core.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kStride = 65536;  // bytes per block, in and out
constexpr int kWarpsPerBlock = 4;

// Bytes at c and p compared four at a time: each load of a byte waits on the cache, and
// a match's bytes are read one after another. Each side's words are read aligned, one a
// step, the last one kept for the next step's shift (the finding of matches is bound by
// its loads). A block's buffer has room past its end (kStride), and what lies there only
// ever extends a length capped at max_len.
struct WordCompare {
  const uint8_t* in;  // 4-byte aligned
  __device__ uint32_t operator()(uint32_t c, uint32_t p, uint32_t max_len) const {
    const uint32_t* at_c = reinterpret_cast<const uint32_t*>(in) + (c >> 2);
    const uint32_t* at_p = reinterpret_cast<const uint32_t*>(in) + (p >> 2);
    const uint32_t shift_c = (c & 3) * 8, shift_p = (p & 3) * 8;
    uint32_t low_c = __ldg(at_c), low_p = __ldg(at_p), len = 0;
    while (len < max_len) {
      const uint32_t high_c = __ldg(++at_c), high_p = __ldg(++at_p);
      const uint32_t differ = __funnelshift_r(low_c, high_c, shift_c) ^ __funnelshift_r(low_p, high_p, shift_p);
      if (differ) {
        len += (__ffs(differ) - 1) >> 3;
        break;
      }
      len += 4;
      low_c = high_c;
      low_p = high_p;
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

// parse()'s match source on the GPU, for lane 0 alone: the matches and bytes of 48
// positions from a 16-aligned base, kept in shared memory and fetched again with 16-byte
// loads when the parse leaves them, not each from global memory (twice a token: its
// match, the next one's). The parse and the codes took 37% of the kernel's time; this
// made the kernel ~5% faster (H200, 2026-11-29). The matches are read
// before the parse's tokens overwrite them (a token never lies past its position).
constexpr uint32_t kParseWindow = 48;
struct WindowedMatches {
  const uint32_t* tokens;  // 16-byte aligned, readable kParseWindow past the block's end
  const uint8_t* in;       // the same
  uint32_t* window_tokens;  // shared, kParseWindow each
  uint8_t* window_bytes;
  uint32_t base = 0;
  __device__ WindowedMatches(const uint32_t* t, const uint8_t* i, uint32_t* wt, uint8_t* wb)
      : tokens(t), in(i), window_tokens(wt), window_bytes(wb) {
    fetch(0);
  }
  __device__ void fetch(uint32_t p) {
    base = p & ~15u;
    const uint4* t = reinterpret_cast<const uint4*>(tokens + base);
    for (uint32_t i = 0; i < kParseWindow / 4; ++i) reinterpret_cast<uint4*>(window_tokens)[i] = t[i];
    const uint4* b = reinterpret_cast<const uint4*>(in + base);
    for (uint32_t i = 0; i < kParseWindow / 16; ++i) reinterpret_cast<uint4*>(window_bytes)[i] = b[i];
  }
  __device__ uint32_t operator()(uint32_t p) {
    if (p - base >= kParseWindow) fetch(p);
    return window_tokens[p - base];
  }
  __device__ uint8_t literal(uint32_t p) {
    if (p - base >= kParseWindow) fetch(p);
    return window_bytes[p - base];
  }
};

// deflate::best_match's answer (the first way of the longest match) with fewer waits. The
// twin reads, way after way, the byte at the best length so far (a way that differs there
// cannot be longer) and compares the rare way that agrees: a lane's loads one behind the
// other (sorted BAM: 9.7 ways a position, 16 at 41% of them, 1.5 compared). Here the
// bytes of eight ways are loaded at once, at the best length of the
// group's start; a way that differs there still cannot be longer, and one that agrees is
// checked again at the best length of its turn, as the twin would.
constexpr int kWaysAtOnce = 8;
__device__ uint32_t best_match_grouped(const uint8_t* in, uint32_t n, uint32_t p, const deflate::Bucket& bucket,
                                       const WordCompare& common_length) {
  using namespace deflate;
  const uint32_t max_len = n - p < kNiceLength ? n - p : kNiceLength;
  uint32_t best = kMinMatch - 1, dist = 0;
  uint8_t at_best = in[p + best];
#pragma unroll
  for (int group = 0; group < kWays; group += kWaysAtOnce) {
    const auto candidate = [&](int k) { return bucket.entry(group + k) - 1; };  // (registers: not kept)
    int ways = 0;  // the twin's ways in this group: before the first empty or too far one
#pragma unroll
    for (int k = 0; k < kWaysAtOnce; ++k) {
      if (ways == k && bucket.entry(group + k) != 0 && p - candidate(k) <= kWindow) ++ways;
    }
    uint8_t byte[kWaysAtOnce];
#pragma unroll
    for (int k = 0; k < kWaysAtOnce; ++k) byte[k] = k < ways ? in[candidate(k) + best] : 0;
    const uint32_t group_best = best;
    const uint8_t at_group_best = at_best;
#pragma unroll
    for (int k = 0; k < kWaysAtOnce; ++k) {
      if (k >= ways) break;
      if (byte[k] != at_group_best) continue;  // cannot be longer than the best
      const uint32_t c = candidate(k);
      if (best != group_best && in[c + best] != at_best) continue;
      const uint32_t len = common_length(c, p, max_len);
      if (len > best) {
        best = len;
        dist = p - c;
        if (len == max_len) return match_token(best, dist);
        at_best = in[p + best];
      }
    }
    if (ways < kWaysAtOnce) break;
  }
  return match_token(best, dist);
}

// The matches, one warp per BGZF block, 32 positions at a time: each lane hashes its
// position; lanes whose positions share a hash (__match_any_sync) see the bucket as the
// CPU twin's one-by-one order leaves it for them (the bucket before the 32, then the
// group's earlier positions shifted in), and the group's last lane writes the bucket
// back with them all. A kernel of its own, without the coding's shared memory: more
// warps per SM wait on the cache at once. `bench bgzf` on an H200 (2026-11-29): one
// kernel 3,535-3,560 MB/s; two 3,983-3,998; with the grouped
// loads 4,505-4,572; with the carried words 4,639-4,654.
constexpr int kMatchBlocksPerSm = 8;  // 32 warps (at most 56 registers a thread): 10 and 6 measured alike
__global__ void __launch_bounds__(kWarpsPerBlock * 32, kMatchBlocksPerSm)
    match_kernel(const uint8_t* in_all, const uint32_t* sizes, uint64_t* buckets_all, uint32_t* tokens_all, int count) {
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
    const uint32_t match = hashed ? best_match_grouped(in, n, p, bucket, WordCompare{in}) : 0;
    if (hashed && (group >> lane) == 1) {  // the group's last lane
      bucket.shift_in(p);
      for (int i = 0; i < deflate::kBucketWordCount; i += 2) {
        *reinterpret_cast<ulonglong2*>(words + i) = make_ulonglong2(bucket.w[i], bucket.w[i + 1]);
      }
    }
    __syncwarp();
    if (p < n) s.tokens[p] = match;
  }
}

// One warp per BGZF block, after match_kernel: lane 0 parses the matches and builds the
// codes (deflate_core.hpp), then the warp writes the block.
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    code_kernel(const uint8_t* in_all, const uint32_t* sizes, uint8_t* out_all, uint32_t* out_sizes,
                uint32_t* tokens_all, int count) {
  __shared__ deflate::Tables tables[kWarpsPerBlock];
  __shared__ deflate::BlockPlan plans[kWarpsPerBlock];
  __shared__ __align__(16) uint32_t window_tokens[kWarpsPerBlock][kParseWindow];
  __shared__ __align__(16) uint8_t window_bytes[kWarpsPerBlock][kParseWindow];
  const int w = static_cast<int>(threadIdx.x / 32);
  const int job = blockIdx.x * kWarpsPerBlock + w;
  const uint32_t lane = threadIdx.x % 32;
  if (job >= count) return;  // whole warps
  const uint8_t* in = in_all + size_t(job) * kStride;
  const uint32_t n = sizes[job];
  uint32_t* tokens = tokens_all + size_t(job) * deflate::kMaxInput;
  deflate::Tables& t = tables[w];
  deflate::BlockPlan& plan = plans[w];
  uint8_t* out = out_all + size_t(job) * kStride;
  if (lane == 0) plan = deflate::plan_block(in, n, WindowedMatches(tokens, in, window_tokens[w], window_bytes[w]), tokens, t);
  __syncwarp();
  if (plan.stored) {
    if (lane == 0) out_sizes[job] = deflate::write_stored(in, n, out);
    return;
  }
  const uint32_t size = write_tokens(plan, t, tokens, out, lane);
  if (lane == 0) out_sizes[job] = size;
}

// Two pinned buffers that a round's blocks go up and come back through, a group at a
// time (the host copies one group while the copy engine moves the other). From pageable
// memory cudaMemcpy stages through one driver buffer on one thread: a sorted BAM's 700
// MB up and back took 0.4 of the 0.64 s its compression took. Pinning whole rounds'
// buffers (hundreds of MB) held CUDA's driver lock for tenths of a second and stalled the
// mapper's GPU work; these 16 MB are pinned once.
constexpr size_t kGroupBlocks = 128;
struct Staging {
  gpu::PinnedBuffer<uint8_t> buffer[2];
  gpu::Event emptied[2];  // each buffer's last copy done
  size_t next = 0;
  // The next buffer, once its last copy is done.
  size_t take() {
    const size_t b = next++ % 2;
    emptied[b].sync();
    buffer[b].resize(kGroupBlocks * kStride);
    return b;
  }
};

// One round's buffers and stream. Two of them alternate, so that one round's host copies
// and transfers run beside the other's kernel.
struct Round {
  gpu::Stream stream;
  std::vector<uint32_t> host_sizes, host_deflated;
  gpu::DeviceBuffer<uint8_t> in, out;
  gpu::DeviceBuffer<uint32_t> sizes, out_sizes, tokens;
  gpu::DeviceBuffer<uint64_t> buckets;
  gpu::Event kernel_begin, matches_found, kernel_end;
  double kernel_s = 0, match_s = 0;  // summed over finished rounds
  // -v 4: the host's side of the rounds (making buffers, copying in, waiting for the GPU,
  // copying back and framing) and the blocks compressed.
  double alloc_s = 0, copy_in_s = 0, wait_s = 0, copy_out_s = 0;
  size_t blocks_done = 0;
  BgzfJob* jobs = nullptr;
  size_t count = 0;  // 0: nothing under way

  size_t most = 0;  // blocks a round holds at most

  void reserve(size_t blocks) {  // grown by half again (cudaFree synchronizes the device)
    if (in.size() >= blocks * kStride) return;
    blocks = std::min(most, blocks + blocks / 2);
    host_sizes.resize(blocks);
    host_deflated.resize(blocks);
    in.resize(blocks * kStride);
    out.resize(blocks * kStride);
    sizes.resize(blocks);
    out_sizes.resize(blocks);
    tokens.resize(blocks * deflate::kMaxInput + kParseWindow);  // (the last block's window reads past it)
    buckets.resize(blocks * deflate::kBucketWords);
  }

  // The blocks up, a group at a time through the staging buffers, and the kernel
  // started; returns while they move.
  void start(BgzfJob* round_jobs, size_t n, int threads, Staging& staging) {
    {
      const log::StageTimer timing(alloc_s);
      reserve(n);
    }
    const log::StageTimer timing(copy_in_s);
    jobs = round_jobs;
    count = n;
    const cudaStream_t s = stream.get();
    for (size_t first = 0; first < n; first += kGroupBlocks) {
      const size_t m = std::min(kGroupBlocks, n - first), b = staging.take();
      uint8_t* pinned = staging.buffer[b].data();
#pragma omp parallel for num_threads(threads) schedule(static)
      for (size_t i = 0; i < m; ++i) std::memcpy(pinned + i * kStride, jobs[first + i].in, jobs[first + i].size);
      GATEMAP_CUDA_CHECK(cudaMemcpyAsync(in.data() + first * kStride, pinned, m * kStride, cudaMemcpyHostToDevice, s));
      staging.emptied[b].record(s);
    }
    for (size_t i = 0; i < n; ++i) host_sizes[i] = jobs[i].size;
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), host_sizes.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    const int grid = static_cast<int>((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
    kernel_begin.record(s);
    match_kernel<<<grid, kWarpsPerBlock * 32, 0, s>>>(in.data(), sizes.data(), buckets.data(), tokens.data(),
                                                   static_cast<int>(n));
    GATEMAP_CUDA_CHECK_LAUNCH();
    matches_found.record(s);
    code_kernel<<<grid, kWarpsPerBlock * 32, 0, s>>>(in.data(), sizes.data(), out.data(), out_sizes.data(),
                                                  tokens.data(), static_cast<int>(n));
    GATEMAP_CUDA_CHECK_LAUNCH();
    kernel_end.record(s);
  }

  // Waits for the kernel, brings the streams back (the next group moving while one is
  // copied out) and frames them.
  void finish(int threads, Staging& staging) {
    if (count == 0) return;
    const size_t n = count;
    count = 0;
    const cudaStream_t s = stream.get();
    {
      const log::StageTimer timing(wait_s);  // a copy to pageable memory returns when done
      GATEMAP_CUDA_CHECK(cudaMemcpyAsync(host_deflated.data(), out_sizes.data(), n * sizeof(uint32_t),
                                         cudaMemcpyDeviceToHost, s));
    }
    kernel_s += gpu::Event::elapsed_ms(kernel_begin, kernel_end) / 1000.0;
    match_s += gpu::Event::elapsed_ms(kernel_begin, matches_found) / 1000.0;
    blocks_done += n;
    const log::StageTimer timing(copy_out_s);
    const size_t groups = (n + kGroupBlocks - 1) / kGroupBlocks;
    size_t buffer_of[2] = {0, 0};  // by group parity
    const auto fetch = [&](size_t g) {
      const size_t first = g * kGroupBlocks, m = std::min(kGroupBlocks, n - first), b = staging.take();
      GATEMAP_CUDA_CHECK(cudaMemcpyAsync(staging.buffer[b].data(), out.data() + first * kStride, m * kStride,
                                         cudaMemcpyDeviceToHost, s));
      staging.emptied[b].record(s);
      buffer_of[g % 2] = b;
    };
    fetch(0);
    for (size_t g = 0; g < groups; ++g) {
      if (g + 1 < groups) fetch(g + 1);
      const size_t b = buffer_of[g % 2], first = g * kGroupBlocks, m = std::min(kGroupBlocks, n - first);
      staging.emptied[b].sync();
      const uint8_t* pinned = staging.buffer[b].data();
#pragma omp parallel for num_threads(threads) schedule(static)
      for (size_t i = 0; i < m; ++i) {
        BgzfJob& job = jobs[first + i];
        const uint32_t deflated = host_deflated[first + i];
        std::memcpy(job.out + detail::kBgzfHeaderSize, pinned + i * kStride, deflated);
        job.out_size = detail::frame_bgzf_block(job.in, job.size, job.out, deflated);
      }
    }
  }
};

}  // namespace

struct BgzfDeflateGpu::Impl {
  int device = 0;
  int threads = 1;
  size_t blocks_per_round = 0;
  Round rounds[2];
  size_t started = 0;  // rounds started: the next one goes to rounds[started % 2]
  Staging staging;
};

BgzfDeflateGpu::BgzfDeflateGpu(int device, int threads, size_t blocks_per_round) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // the streams are made on it
  // The coding kernel: 80% of the SM's on-chip memory as shared memory (six blocks of
  // four warps), the rest as L1 for the blocks' bytes: `gatemap bench bgzf` on an H200
  // 3,545 MB/s, against 3,280 at 65%, 3,012 at 50% and 2,788 at 35% (one kernel then,
  // 2026-11-29). The match kernel has no shared memory:
  // all of it as L1, for the bytes and the hash buckets.
  GATEMAP_CUDA_CHECK(cudaFuncSetAttribute(code_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 80));
  GATEMAP_CUDA_CHECK(cudaFuncSetAttribute(match_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
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
                         " s, waiting for the GPU " + sum(&Round::wait_s) + " s (kernels " + sum(&Round::kernel_s) +
                         " s, of which finding matches " + sum(&Round::match_s) + " s), copying back and framing " +
                         sum(&Round::copy_out_s) + " s");
}

double BgzfDeflateGpu::kernel_seconds() const { return impl_->rounds[0].kernel_s + impl_->rounds[1].kernel_s; }
double BgzfDeflateGpu::match_seconds() const { return impl_->rounds[0].match_s + impl_->rounds[1].match_s; }

// Rounds alternate between the two buffer sets: round k starts (its copies up, its
// kernel) while round k-1's kernel runs, then round k-1 is finished, across batches too.
// A batch goes up in one round (of at most blocks_per_round blocks): the next batch's round
// overlaps it. The sorted writer's windows, cut in two rounds each and drained one by one,
// were compressed in 0.26-0.30 s; in one round each, started beside the one before, in
// 0.19 s (1 M pairs, H200, 2026-11-29).
void BgzfDeflateGpu::start(BgzfJob* jobs, size_t count) {
  Impl& m = *impl_;
  if (count == 0) return finish();
  GATEMAP_CUDA_CHECK(cudaSetDevice(m.device));
  try {
    for (size_t from = 0; from < count; from += m.blocks_per_round) {
      Round& now = m.rounds[m.started % 2];
      Round& before = m.rounds[(m.started + 1) % 2];  // this batch's last round, or the batch before's
      ++m.started;
      now.start(jobs + from, std::min(m.blocks_per_round, count - from), m.threads, m.staging);
      before.finish(m.threads, m.staging);
    }
  } catch (...) {
    m.rounds[0].count = m.rounds[1].count = 0;  // the twin redoes the batches not yet complete
    throw;
  }
}

void BgzfDeflateGpu::finish() {
  Impl& m = *impl_;
  try {
    GATEMAP_CUDA_CHECK(cudaSetDevice(m.device));
    m.rounds[(m.started + 1) % 2].finish(m.threads, m.staging);  // the last round started
  } catch (...) {
    m.rounds[0].count = m.rounds[1].count = 0;
    throw;
  }
}

void BgzfDeflateGpu::compress(BgzfJob* jobs, size_t count) {
  start(jobs, count);
  finish();
}

}  // namespace gatemap::io
