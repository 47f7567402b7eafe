// The GPU seeder (see seed_gpu.hpp). Per batch, one thread per read strand: count the
// hits of its looked-up k-mers, (scan), write them, (segmented sort), cluster them and
// keep the best --max-cand, (scan), gather the kept ones. Read strands whose hits exceed
// the device buffer are left to the CPU; a batch whose hits exceed it is done in chunks
// of read strands.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "gpu/buffers.cuh"
#include "gpu/staged_copy.hpp"
#include "mapper/seeding/seed_core.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::seeding {
namespace {

constexpr int kThreads = 128;
constexpr double kBufferShare = 0.25;               // of the free memory left after the index
constexpr int64_t kMinHitSlots = int64_t{1} << 20;  // hits a chunk holds at least
constexpr int64_t kMaxHitSlots = int64_t{1} << 27;  // ... and at most (1 GiB of keys)
// Per hit: its key, sorted, a cluster (16), the sort's scratch (about a key).
constexpr int64_t kSlotBytes = 3 * sizeof(uint64_t) + sizeof(detail::SeedCluster);
constexpr size_t kHeadroom = size_t{512} << 20;  // left free for the filter and the runtime

struct IndexView {
  const uint32_t* offsets;
  const uint32_t* positions;
  const uint64_t* hi;
  const uint64_t* lo;
  int64_t words;
  int k, shift, stride;
};

__device__ uint64_t key_at(const IndexView& ix, int64_t pos) {
  const int64_t w = pos >> 6;
  const int s = static_cast<int>(pos & 63);
  const uint64_t mask = (uint64_t{1} << ix.k) - 1;
  uint64_t h = __ldg(ix.hi + w) >> s, l = __ldg(ix.lo + w) >> s;
  if (s + ix.k > 64 && w + 1 < ix.words) {
    h |= __ldg(ix.hi + w + 1) << (64 - s);
    l |= __ldg(ix.lo + w + 1) << (64 - s);
  }
  return (h & mask) | ((l & mask) << ix.k);
}

// [first, last) of a key's positions: its bucket, then binary searches on the k-mers the
// positions hold (as Index::lookup).
__device__ void lookup(const IndexView& ix, uint64_t key, uint32_t& first, uint32_t& last) {
  const uint64_t b = key >> ix.shift;
  first = __ldg(ix.offsets + b);
  last = __ldg(ix.offsets + b + 1);
  if (ix.shift == 0) return;
  uint32_t lo = first, n = last - first;
  while (n > 0) {
    const uint32_t half = n / 2;
    if (key_at(ix, __ldg(ix.positions + lo + half)) < key) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  uint32_t hi = lo;
  n = last - lo;
  while (n > 0) {
    const uint32_t half = n / 2;
    if (key_at(ix, __ldg(ix.positions + hi + half)) <= key) {
      hi += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  first = lo;
  last = hi;
}

// Calls hits(first, last, start) for each looked-up k-mer of read strand t within
// max_occ; returns whether one was over it.
template <class Hits>
__device__ bool for_each_lookup(const IndexView& ix, const uint8_t* codes, const int64_t* begin, const int32_t* edits,
                                int64_t t, uint32_t max_occ, Hits hits) {
  const int64_t r = t >> 1;
  const int strand = static_cast<int>(t & 1);
  const int64_t len = begin[r + 1] - begin[r];
  if (len < ix.k || len >= kMaxSeedReadLen) return false;
  const int m = static_cast<int>(len);
  const uint8_t* rc = codes + begin[r];
  bool capped = false;
  for_each_query(
      m, ix.k, ix.stride, seed_step(m, edits[r], ix.k, ix.stride),
      [&](int q) -> uint8_t {
        if (strand == 0) return rc[q];
        const uint8_t c = rc[m - 1 - q];
        return c < 4 ? static_cast<uint8_t>(3 - c) : c;
      },
      [&](uint64_t key, int start) {
        uint32_t first, last;
        lookup(ix, key, first, last);
        if (last - first > max_occ) {
          capped = true;
        } else {
          hits(first, last, start);
        }
      });
  return capped;
}

// Per read strand: its hits, whether a k-mer was over max_occ, and the least support of
// a cluster that can hold a hit within the read's edits (SupportBound).
__global__ void count_hits_kernel(IndexView ix, const uint8_t* codes, const int64_t* begin, const int32_t* edits,
                                  int64_t n_strands, uint32_t max_occ, int64_t* counts, uint8_t* capped,
                                  int32_t* least) {
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= n_strands) return;
  int64_t total = 0;
  SupportBound bound(ix.k, ix.stride);
  capped[t] = for_each_lookup(ix, codes, begin, edits, t, max_occ, [&](uint32_t first, uint32_t last, int start) {
    total += last - first;
    bound.add(start);
  });
  counts[t] = total;
  least[t] = bound.least(edits[t >> 1]);
}

// Read strands [a, b): hits of strand t at offsets[t] - offsets[a]; rel gets the
// chunk's segment offsets (b - a + 1 of them).
__global__ void fill_hits_kernel(IndexView ix, const uint8_t* codes, const int64_t* begin, const int32_t* edits,
                                 int64_t a, int64_t b, uint32_t max_occ, const int64_t* offsets, uint64_t* hits,
                                 int64_t* rel) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (a + i > b) return;
  rel[i] = offsets[a + i] - offsets[a];
  if (a + i == b) return;
  uint64_t* out = hits + rel[i];
  for_each_lookup(ix, codes, begin, edits, a + i, max_occ, [&](uint32_t first, uint32_t last, int start) {
    for (uint32_t h = first; h < last; ++h) *out++ = pack_hit(__ldg(ix.positions + h), start);
  });
}

// Clusters of segment i, written where its hits are (a strand has no more clusters than
// hits); then the best supported max_cand of them kept there in diagonal order (the host
// orders a capped strand by support, as the CPU's cap does), and of those the ones
// keep_supported keeps (least[a + i]): kept[i] of them; cap_hit[i]'s bits say what the cap
// left out.
__global__ void cluster_select_kernel(const uint64_t* sorted, const int64_t* rel, const int32_t* edits,
                                      const int32_t* least, int64_t a, int64_t n_segments, uint32_t max_cand,
                                      detail::SeedCluster* scratch, int64_t* kept, uint8_t* cap_hit) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i > n_segments) return;
  if (i == n_segments) {  // the scan's last input: the total lands at its end
    kept[i] = 0;
    return;
  }
  detail::SeedCluster* c = scratch + rel[i];
  int64_t nc = 0, supported = 0;
  uint32_t top = 0;
  const int32_t fewest = least[a + i];
  cluster_hits(sorted + rel[i], rel[i + 1] - rel[i], edits[(a + i) >> 1],
               [&](int64_t diag, uint32_t offset, uint32_t support) {
                 c[nc++] = {diag, offset, support};
                 top = max(top, support);
                 supported += static_cast<int32_t>(support) >= fewest;
               });
  cap_hit[i] = (nc > max_cand ? kCapHit : 0) | (supported > max_cand ? kCapLeftHits : 0);
  if (nc > max_cand) {
    const auto at_least = [&](uint32_t s) {
      int64_t n = 0;
      for (int64_t j = 0; j < nc; ++j) n += c[j].support >= s;
      return n;
    };
    // The max_cand-th largest support: the largest s that max_cand clusters reach.
    uint32_t lo = 1, hi = top;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (at_least(mid) >= max_cand) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    // All above it, and the first of those at it (in diagonal order) up to max_cand.
    int64_t ties = max_cand - at_least(lo + 1), w = 0;
    for (int64_t j = 0; j < nc; ++j) {
      if (c[j].support > lo || (c[j].support == lo && ties-- > 0)) c[w++] = c[j];
    }
    nc = w;
  }
  int64_t w = 0;
  keep_supported(
      nc, [c](int64_t j) { return c[j].support; }, fewest, detail::kClipCandidates,
      [c, &w](int64_t j) { c[w++] = c[j]; });
  kept[i] = w;
}

// The kept clusters of each segment, one after another.
__global__ void gather_kernel(const detail::SeedCluster* scratch, const int64_t* rel, const int64_t* at,
                              int64_t n_segments, detail::SeedCluster* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n_segments) return;
  for (int64_t j = 0, n = at[i + 1] - at[i]; j < n; ++j) out[at[i] + j] = scratch[rel[i] + j];
}

// Segment i of the kept clusters, [from[i], from[i + 1]) of `seg` pairs (source begin,
// count), to out from to[i]: one thread per segment.
__global__ void copy_segments_kernel(const detail::SeedCluster* kept, const int64_t* seg, const int64_t* to,
                                     int64_t n_segments, detail::SeedCluster* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n_segments) return;
  for (int64_t j = 0, n = seg[2 * i + 1]; j < n; ++j) out[to[i] + j] = kept[seg[2 * i] + j];
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

struct SeedGpu::Impl {
  int device = 0;
  IndexView view{};
  int64_t index_bytes = 0;
  int64_t length = 0;  // reference bases
  int64_t slots = 0;   // hits a chunk holds
  int64_t batch_bytes_limit = 0;
  gpu::DeviceBuffer<uint32_t> offsets, positions;
  gpu::DeviceBuffer<uint64_t> hi, lo;
  gpu::Stream stream;
  gpu::Event start, stop;
  // Per batch.
  gpu::PinnedBuffer<uint8_t> h_codes;
  gpu::PinnedBuffer<int64_t> h_begin, h_offsets, h_at;
  gpu::PinnedBuffer<int32_t> h_edits;
  gpu::PinnedBuffer<detail::SeedCluster> h_clusters;  // copy_clusters: all kept clusters, for the caller
  // copy_clusters_of: (begin, count) per read, then offsets; the clusters copied.
  gpu::PinnedBuffer<int64_t> h_segments;
  gpu::DeviceBuffer<int64_t> d_segments;
  gpu::DeviceBuffer<detail::SeedCluster> d_copied;
  gpu::PinnedBuffer<detail::SeedCluster> h_copied;
  gpu::DeviceBuffer<uint8_t> d_codes, d_capped, d_cap_hit;
  gpu::DeviceBuffer<int64_t> d_begin, d_counts, d_offsets, d_rel, d_kept, d_at, d_first;
  gpu::DeviceBuffer<int32_t> d_edits, d_least;
  gpu::DeviceBuffer<uint64_t> d_hits, d_sorted;
  // All clusters of a chunk; the kept ones of the batch (for the verifier and the copies).
  gpu::DeviceBuffer<detail::SeedCluster> d_scratch, d_kept_clusters;
  int64_t n_reads = 0, n_clusters = 0;
  gpu::DeviceBuffer<unsigned char> d_temp;

  template <class F>
  void with_temp(F call) {  // a CUB call: size its scratch, grow it, run it
    size_t bytes = 0;
    GATEMAP_CUDA_CHECK(call(nullptr, bytes));
    gpu::grow(d_temp, bytes);
    GATEMAP_CUDA_CHECK(call(d_temp.data(), bytes));
  }
  void run_chunk(int64_t a, int64_t b, uint32_t max_occ, uint32_t max_cand, SeedClusters& out);
};

SeedGpu::SeedGpu(const index::Index& idx, int device, int64_t max_hit_slots, int64_t batch_bytes_limit) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // first: the stream and events belong to it
  impl_ = std::make_unique<Impl>();
  Impl& im = *impl_;
  im.device = device;
  im.batch_bytes_limit = batch_bytes_limit;
  im.length = idx.length();
  const int64_t buckets = (int64_t{1} << idx.bucket_bits()) + 1;
  const int64_t npos = idx.bucket_offsets()[buckets - 1];
  im.index_bytes = buckets * 4 + npos * 4 + 2 * idx.words64() * 8;
  const auto [free_b, total_b] = gpu::mem_info();
  (void)total_b;
  const int64_t need = im.index_bytes + kMinHitSlots * kSlotBytes + static_cast<int64_t>(kHeadroom);
  if (need > static_cast<int64_t>(free_b)) {
    throw CudaError("the index needs " + std::to_string(need >> 20) + " MiB of device memory with its buffers, " +
                    std::to_string(free_b >> 20) + " MiB are free");
  }
  std::vector<gpu::HostToDevice> pieces;
  const auto piece = [&](auto& buf, const auto* host, int64_t n) {
    buf.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
    pieces.push_back({buf.data(), host, static_cast<size_t>(n) * sizeof(*host)});
  };
  piece(im.offsets, idx.bucket_offsets(), buckets);
  piece(im.positions, idx.positions(), npos);
  piece(im.hi, idx.hi(), idx.words64());
  piece(im.lo, idx.lo(), idx.words64());
  gpu::copy_to_device(pieces);
  im.view = {im.offsets.data(),
             im.positions.data(),
             im.hi.data(),
             im.lo.data(),
             idx.words64(),
             idx.k(),
             2 * idx.k() - idx.bucket_bits(),
             idx.stride()};
  const int64_t left = static_cast<int64_t>(free_b) - im.index_bytes - static_cast<int64_t>(kHeadroom);
  im.slots = std::clamp<int64_t>(static_cast<int64_t>(kBufferShare * static_cast<double>(left)) / kSlotBytes,
                                 kMinHitSlots, kMaxHitSlots);
  if (max_hit_slots > 0) im.slots = std::min(im.slots, max_hit_slots);
}

SeedGpu::~SeedGpu() = default;

int64_t SeedGpu::index_bytes() const { return impl_->index_bytes; }

DeviceReads SeedGpu::device_reads() const {
  const Impl& im = *impl_;
  return {im.d_codes.data(), im.d_begin.data(), {im.hi.data(), im.lo.data(), im.length}};
}

// Read strands [a, b) whose hits fit the buffer: hits, sort, clusters, the cap; the kept
// clusters appended to out.
void SeedGpu::Impl::run_chunk(int64_t a, int64_t b, uint32_t max_occ, uint32_t max_cand, SeedClusters& out) {
  const cudaStream_t s = stream.get();
  const int64_t segments = b - a, items = h_offsets.data()[b] - h_offsets.data()[a];
  gpu::grow(d_rel, static_cast<size_t>(segments + 1));
  gpu::grow(d_kept, static_cast<size_t>(segments + 1));
  gpu::grow(d_at, static_cast<size_t>(segments + 1));
  gpu::grow(d_cap_hit, static_cast<size_t>(segments));
  // The hit buffers grow to what a chunk needs (at most `slots`): a batch of short reads
  // on a small genome does not hold gigabytes it never uses.
  if (static_cast<int64_t>(d_hits.size()) < items) {
    const auto grown = static_cast<size_t>(std::min(slots, items + items / 4));  // room for the next batches
    d_hits.resize(grown);
    d_sorted.resize(grown);
    d_scratch.resize(grown);
  }
  fill_hits_kernel<<<blocks_for(segments + 1), kThreads, 0, s>>>(view, d_codes.data(), d_begin.data(), d_edits.data(),
                                                                 a, b, max_occ, d_offsets.data(), d_hits.data(),
                                                                 d_rel.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  if (items > 0) {
    with_temp([&](void* temp, size_t& bytes) {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, d_hits.data(), d_sorted.data(), items, segments,
                                                d_rel.data(), d_rel.data() + 1, s);
    });
  }
  cluster_select_kernel<<<blocks_for(segments + 1), kThreads, 0, s>>>(d_sorted.data(), d_rel.data(), d_edits.data(),
                                                                      d_least.data(), a, segments, max_cand,
                                                                      d_scratch.data(), d_kept.data(),
                                                                      d_cap_hit.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  with_temp([&](void* temp, size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, d_kept.data(), d_at.data(), segments + 1, s);
  });
  gpu::grow(h_at, static_cast<size_t>(segments + 1));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(h_at.data(), d_at.data(), static_cast<size_t>(segments + 1) * sizeof(int64_t),
                                     cudaMemcpyDeviceToHost, s));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(out.cap_hit.data() + a, d_cap_hit.data(), static_cast<size_t>(segments),
                                     cudaMemcpyDeviceToHost, s));
  stream.sync();
  const int64_t total = h_at.data()[segments];
  const int64_t base = out.n_clusters;
  for (int64_t i = 0; i < segments; ++i) out.first[a + i + 1] = base + h_at.data()[i + 1];
  if (total == 0) return;
  gather_kernel<<<blocks_for(segments), kThreads, 0, s>>>(d_scratch.data(), d_rel.data(), d_at.data(), segments,
                                                          d_kept_clusters.data() + base);
  GATEMAP_CUDA_CHECK_LAUNCH();
  out.n_clusters = base + total;  // sized for the batch's bound in seed()
}

void SeedGpu::seed(const std::vector<detail::SeededRead>& reads, uint32_t max_occ, uint32_t max_cand,
                   SeedClusters& out) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const int64_t n = static_cast<int64_t>(reads.size()), strands = 2 * n;
  out.first.assign(static_cast<size_t>(strands + 1), 0);
  out.capped.assign(static_cast<size_t>(strands), 0);
  out.cap_hit.assign(static_cast<size_t>(strands), 0);
  out.on_cpu.assign(static_cast<size_t>(n), 0);
  out.clusters = nullptr;
  out.n_clusters = 0;
  out.kernel_ms = 0;
  im.n_reads = 0, im.n_clusters = 0;
  if (n == 0) return;
  // The reads' forward codes, one after another (the kernels complement them).
  gpu::grow(im.h_begin, static_cast<size_t>(n + 1));
  int64_t* begin = im.h_begin.data();
  begin[0] = 0;
  for (int64_t r = 0; r < n; ++r) begin[r + 1] = begin[r] + reads[r].length();
  const int64_t bases = begin[n];
  const int64_t batch_bytes = bases + n * (2 * sizeof(int64_t) + sizeof(int32_t)) + strands * 3 * sizeof(int64_t);
  if (im.batch_bytes_limit > 0 && batch_bytes > im.batch_bytes_limit) {
    throw CudaError("a batch of " + std::to_string(n) + " reads needs " + std::to_string(batch_bytes) +
                    " bytes of device memory, over the limit of " + std::to_string(im.batch_bytes_limit));
  }
  gpu::grow(im.h_codes, static_cast<size_t>(std::max<int64_t>(bases, 1)));
  gpu::grow(im.h_edits, static_cast<size_t>(n));
#pragma omp parallel for schedule(static, 1024)
  for (int64_t r = 0; r < n; ++r) {
    std::memcpy(im.h_codes.data() + begin[r], reads[r].codes[0].data(), static_cast<size_t>(reads[r].length()));
    im.h_edits.data()[r] = reads[r].max_edits;
  }
  const cudaStream_t s = im.stream.get();
  gpu::grow(im.d_codes, im.h_codes.size());
  gpu::grow(im.d_begin, static_cast<size_t>(n + 1));
  gpu::grow(im.d_edits, static_cast<size_t>(n));
  gpu::grow(im.d_counts, static_cast<size_t>(strands));
  gpu::grow(im.d_offsets, static_cast<size_t>(strands + 1));
  gpu::grow(im.d_capped, static_cast<size_t>(strands));
  gpu::grow(im.d_least, static_cast<size_t>(strands));
  im.start.record(s);
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.d_codes.data(), im.h_codes.data(), static_cast<size_t>(bases), cudaMemcpyHostToDevice, s));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.d_begin.data(), begin, static_cast<size_t>(n + 1) * sizeof(int64_t),
                                     cudaMemcpyHostToDevice, s));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.d_edits.data(), im.h_edits.data(), static_cast<size_t>(n) * sizeof(int32_t),
                                     cudaMemcpyHostToDevice, s));
  count_hits_kernel<<<blocks_for(strands), kThreads, 0, s>>>(im.view, im.d_codes.data(), im.d_begin.data(),
                                                             im.d_edits.data(), strands, max_occ, im.d_counts.data(),
                                                             im.d_capped.data(), im.d_least.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.d_offsets.data(), 0, sizeof(int64_t), s));
  im.with_temp([&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, im.d_counts.data(), im.d_offsets.data() + 1, strands, s);
  });
  gpu::grow(im.h_offsets, static_cast<size_t>(strands + 1));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_offsets.data(), im.d_offsets.data(),
                                     static_cast<size_t>(strands + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(out.capped.data(), im.d_capped.data(), static_cast<size_t>(strands), cudaMemcpyDeviceToHost, s));
  im.stream.sync();
  // Chunks of read strands whose hits fit the buffer; a strand alone over it: its read on the CPU.
  const int64_t* off = im.h_offsets.data();
  const auto bound = static_cast<size_t>(std::max<int64_t>(1, std::min(off[strands], strands * int64_t{max_cand})));
  gpu::grow(im.d_kept_clusters, bound);
  for (int64_t a = 0; a < strands;) {
    if (off[a + 1] - off[a] > im.slots) {
      out.on_cpu[static_cast<size_t>(a >> 1)] = 1;
      out.first[a + 1] = out.first[a];
      ++a;
      continue;
    }
    int64_t b = a + 1;
    while (b < strands && off[b + 1] - off[a] <= im.slots) ++b;
    im.run_chunk(a, b, max_occ, max_cand, out);
    a = b;
  }
  gpu::grow(im.d_first, static_cast<size_t>(strands + 1));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.d_first.data(), out.first.data(),
                                     static_cast<size_t>(strands + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  im.n_reads = n, im.n_clusters = out.n_clusters;
  im.stop.record(s);
  im.stop.sync();
  out.kernel_ms = gpu::Event::elapsed_ms(im.start, im.stop);
}

void SeedGpu::copy_clusters(SeedClusters& out) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const auto n = static_cast<size_t>(im.n_clusters);
  gpu::grow(im.h_clusters, std::max<size_t>(n, 1));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_clusters.data(), im.d_kept_clusters.data(), n * sizeof(detail::SeedCluster),
                                     cudaMemcpyDeviceToHost, im.stream.get()));
  im.stream.sync();
  out.clusters = im.h_clusters.data();
}

void SeedGpu::copy_clusters_of(const std::vector<uint32_t>& reads, const SeedClusters& batch,
                               std::vector<detail::SeedCluster>& out) {
  Impl& im = *impl_;
  out.clear();
  const auto n = static_cast<int64_t>(reads.size());
  if (n == 0) return;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  // (begin, count) per read, then where each goes.
  gpu::grow(im.h_segments, static_cast<size_t>(3 * n));
  int64_t* seg = im.h_segments.data();
  int64_t* to = seg + 2 * n;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = reads[static_cast<size_t>(i)];
    seg[2 * i] = batch.first[static_cast<size_t>(2 * r)];
    seg[2 * i + 1] = batch.first[static_cast<size_t>(2 * r + 2)] - seg[2 * i];
    to[i] = total;
    total += seg[2 * i + 1];
  }
  if (total == 0) return;
  const cudaStream_t s = im.stream.get();
  gpu::grow(im.d_segments, static_cast<size_t>(3 * n));
  gpu::grow(im.d_copied, static_cast<size_t>(total));
  gpu::grow(im.h_copied, static_cast<size_t>(total));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.d_segments.data(), seg, static_cast<size_t>(3 * n) * sizeof(int64_t),
                                     cudaMemcpyHostToDevice, s));
  copy_segments_kernel<<<blocks_for(n), kThreads, 0, s>>>(im.d_kept_clusters.data(), im.d_segments.data(),
                                                          im.d_segments.data() + 2 * n, n, im.d_copied.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_copied.data(), im.d_copied.data(),
                                     static_cast<size_t>(total) * sizeof(detail::SeedCluster), cudaMemcpyDeviceToHost,
                                     s));
  im.stream.sync();
  out.assign(im.h_copied.data(), im.h_copied.data() + total);
}

DeviceClusters SeedGpu::device_clusters() const {
  const Impl& im = *impl_;
  return {im.d_kept_clusters.data(), im.d_first.data(), im.d_edits.data(), im.n_clusters, im.n_reads};
}

}  // namespace gatemap::mapper::seeding
