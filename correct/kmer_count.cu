// The k-mer count table on the GPU (see kmer_count_gpu.hpp). One thread per read rolls
// its canonical k-mers as the CPU twin does (a window counts when its last k bases hold
// no N) and inserts those of the table's part by linear probing.
#include <omp.h>

#include <algorithm>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/split_threads.hpp"
#include "correct/kmer_correct_core.hpp"
#include "correct/kmer_count_gpu.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"

namespace gatemap::correct {

namespace {

using Key = unsigned long long;
constexpr Key kEmpty = ~Key(0);
constexpr int kThreads = 256;
enum Counter { kUsed, kSeen, kScratch, kTooFar, kCounters };

struct Table {
  Key* keys;
  uint32_t* counts;
  uint64_t mask;
  Key* used;
};

__device__ void insert(const Table& t, Key key, uint32_t n) {
  for (uint64_t slot = detail::mix64(key) & t.mask;; slot = (slot + 1) & t.mask) {
    Key cur = t.keys[slot];
    if (cur == kEmpty) {
      cur = atomicCAS(&t.keys[slot], kEmpty, key);
      if (cur == kEmpty) atomicAdd(t.used, Key(1));
    }
    if (cur == kEmpty || cur == key) {
      atomicAdd(&t.counts[slot], n);
      return;
    }
  }
}

__global__ void count_kernel(const uint8_t* codes, const int64_t* offset, int n_reads, int k, KmerPart part, Table t,
                             Key* seen) {
  const uint64_t kmask = (uint64_t(1) << (2 * k)) - 1;
  Key my_seen = 0;
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n_reads; r += gridDim.x * blockDim.x) {
    uint64_t fwd = 0, rc = 0;
    int valid = 0;  // bases since the last N
    for (int64_t i = offset[r]; i < offset[r + 1]; ++i) {
      const uint8_t c = codes[i];
      if (c > 3) {
        valid = 0;
        continue;
      }
      fwd = ((fwd << 2) | c) & kmask;
      rc = (rc >> 2) | (static_cast<uint64_t>(3 - c) << (2 * (k - 1)));
      if (++valid < k) continue;
      const uint64_t x = detail::canonical(fwd, rc);
      ++my_seen;
      if (part.holds(x)) insert(t, x, 1);
    }
  }
  if (my_seen) atomicAdd(seen, my_seen);
}

// Entries of `part` (or, with threshold > 0, entries counted at least that often) to
// the scratch arrays, in no particular order.
__global__ void compact_kernel(Table t, uint64_t slots, KmerPart part, uint32_t threshold, Key* out_keys,
                               uint32_t* out_counts, Key* n_out) {
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < slots; s += uint64_t(gridDim.x) * blockDim.x) {
    const Key key = t.keys[s];
    if (key == kEmpty || !part.holds(key) || t.counts[s] < threshold) continue;
    const Key at = atomicAdd(n_out, Key(1));
    out_keys[at] = key;
    if (out_counts) out_counts[at] = t.counts[s];
  }
}

// Every k-mer counted at least `threshold` times into an exact set, claimed as the CPU
// twin claims them (kmer_correct_core.hpp), counting the k-mers a compact set could not
// place near their home.
__global__ void exact_set_kernel(Table t, uint64_t slots, uint32_t threshold, Key* words, detail::SpectrumView set,
                                 Key* n_added, Key* n_too_far) {
  Key mine = 0, far = 0;
  uint64_t* set_words = reinterpret_cast<uint64_t*>(words);
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < slots; s += uint64_t(gridDim.x) * blockDim.x) {
    const Key key = t.keys[s];
    if (key == kEmpty || t.counts[s] < threshold) continue;
    const SlotClaim c = set.kind == KmerSpectrum::Kind::compact
                            ? detail::compact_claim(set_words, set.mask, set.rem_bits, set.k, key)
                            : detail::exact_claim(set_words, set.mask, key);
    mine += c == SlotClaim::added;
    far += c == SlotClaim::too_far;
  }
  if (mine) atomicAdd(n_added, mine);
  if (far) atomicAdd(n_too_far, far);
}

// The Bloom bits of every k-mer counted at least `threshold` times.
__global__ void bloom_kernel(Table t, uint64_t slots, uint32_t threshold, Key* words, uint64_t mask, int hashes,
                             Key* n_solid) {
  Key mine = 0;
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < slots; s += uint64_t(gridDim.x) * blockDim.x) {
    const Key key = t.keys[s];
    if (key == kEmpty || t.counts[s] < threshold) continue;
    ++mine;
    for (int h = 0; h < hashes; ++h) {
      const uint64_t bit = detail::bloom_bit(key, h, mask);
      atomicOr(&words[bit >> 6], Key(1) << (bit & 63));
    }
  }
  if (mine) atomicAdd(n_solid, mine);
}

__global__ void reinsert_kernel(Table t, const Key* keys, const uint32_t* counts, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    insert(t, keys[i], counts[i]);
  }
}

// Every entry of the old table into the new one (twice the slots).
__global__ void grow_kernel(Table old_t, uint64_t old_slots, Table t) {
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < old_slots;
       s += uint64_t(gridDim.x) * blockDim.x) {
    if (old_t.keys[s] != kEmpty) insert(t, old_t.keys[s], old_t.counts[s]);
  }
}

__global__ void histogram_kernel(Table t, uint64_t slots, uint32_t max_count, Key* hist) {
  extern __shared__ uint32_t bins[];
  for (uint32_t b = threadIdx.x; b <= max_count; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (uint64_t s = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; s < slots; s += uint64_t(gridDim.x) * blockDim.x) {
    if (t.keys[s] != kEmpty) atomicAdd(&bins[min(t.counts[s], max_count)], 1u);
  }
  __syncthreads();
  for (uint32_t b = threadIdx.x; b <= max_count; b += blockDim.x) {
    if (bins[b]) atomicAdd(&hist[b], Key(bins[b]));
  }
}

}  // namespace

struct KmerCountGpu::Impl {
  int k = 21, device = 0, blocks = 1;
  // The table starts small and doubles as the k-mers come, up to max_slots (the budget's);
  // full at that size, it narrows. (Allocated at the budget's size, a small input's table
  // spent more time being cleared, scanned and freed than counting: 45 GB for E. coli.)
  uint64_t slots = 0, max_slots = 0;
  uint64_t limit = 0;  // grow or narrow before a chunk could take the table past it
  KmerPart part;
  gpu::DeviceBuffer<Key> keys, scratch_keys, counters;
  gpu::DeviceBuffer<uint32_t> counts, scratch_counts;
  gpu::PinnedBuffer<Key> counters_h;
  // Two sets of chunk buffers: a chunk is encoded into one while the GPU counts the last
  // chunk from the other.
  struct Staging {
    gpu::PinnedBuffer<uint8_t> codes_h;
    gpu::PinnedBuffer<int64_t> offset_h;
    gpu::DeviceBuffer<uint8_t> codes_d;
    gpu::DeviceBuffer<int64_t> offset_d;
    gpu::Event start, stop;
    bool in_flight = false;  // its copies and kernel enqueued, not yet waited for
  };
  Staging staging[2];
  int next_staging = 0;
  gpu::Stream stream;
  double kernel_ms = 0;
  uint64_t used = 0, seen = 0;
  uint64_t pending = 0;  // windows counted since the counters were read: used + pending bounds the keys

  Table table() { return {keys.data(), counts.data(), slots - 1, counters.data() + kUsed}; }
  int grid(uint64_t items) const {
    return static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>((items + kThreads - 1) / kThreads, blocks)));
  }
  void read_counters() {
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(counters_h.data(), counters.data(), kCounters * sizeof(Key),
                                       cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    used = counters_h.data()[kUsed];
    seen = counters_h.data()[kSeen];
    pending = 0;
    for (Staging& sb : staging) finish(sb);
  }
  // After its kernel ended: its time counted, its buffers free.
  void finish(Staging& sb) {
    if (!sb.in_flight) return;
    sb.stop.sync();
    kernel_ms += gpu::Event::elapsed_ms(sb.start, sb.stop);
    sb.in_flight = false;
  }
  // Every chunk counted, the counters exact.
  void settle() {
    if (pending || staging[0].in_flight || staging[1].in_flight) read_counters();
  }
  void clear_table() {
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(keys.data(), 0xff, slots * sizeof(Key), stream.get()));
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, slots * sizeof(uint32_t), stream.get()));
  }
  // Twice the slots, the entries rehashed into them (old and new fit the budget: 18 bytes
  // a slot of the new size, the table and its scratch 21).
  void grow() {
    gpu::DeviceBuffer<Key> old_keys = std::move(keys);
    gpu::DeviceBuffer<uint32_t> old_counts = std::move(counts);
    const Table old_t{old_keys.data(), old_counts.data(), slots - 1, nullptr};
    const uint64_t old_slots = slots;
    slots *= 2;
    limit = slots / 4 * 3;
    keys.resize(slots);
    counts.resize(slots);
    clear_table();
    const cudaStream_t st = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(counters.data() + kUsed, 0, sizeof(Key), st));
    grow_kernel<<<grid(old_slots), kThreads, 0, st>>>(old_t, old_slots, table());
    GATEMAP_CUDA_CHECK(cudaGetLastError());
    read_counters();  // before the old table goes
  }
  // The scratch for the table's entries, made when first needed (narrowing happens at the
  // largest size only).
  void make_scratch() {
    scratch_keys.resize(limit);
    scratch_counts.resize(limit);
  }
  // Keeps the first half of the part: its entries move to scratch and back.
  void narrow() {
    make_scratch();
    part = part.child(0);
    const cudaStream_t st = stream.get();
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(counters.data() + kScratch, 0, sizeof(Key), st));
    compact_kernel<<<grid(slots), kThreads, 0, st>>>(table(), slots, part, 0, scratch_keys.data(),
                                                     scratch_counts.data(), counters.data() + kScratch);
    GATEMAP_CUDA_CHECK(cudaGetLastError());
    clear_table();
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(counters.data() + kUsed, 0, sizeof(Key), st));
    read_counters();
    const uint64_t n = counters_h.data()[kScratch];
    reinsert_kernel<<<grid(n), kThreads, 0, st>>>(table(), scratch_keys.data(), scratch_counts.data(), n);
    GATEMAP_CUDA_CHECK(cudaGetLastError());
    read_counters();
  }
  // Reads [b, e) (`windows` k-mer windows at most) to the device and counted; not waited for.
  void count_chunk(const std::vector<io::Read>& reads, size_t b, size_t e, uint64_t windows) {
    const cudaStream_t st = stream.get();
    const size_t n = e - b;
    Staging& sb = staging[next_staging];
    next_staging ^= 1;
    finish(sb);
    auto& offset_h = sb.offset_h;
    auto& codes_h = sb.codes_h;
    auto& codes_d = sb.codes_d;
    auto& offset_d = sb.offset_d;
    gpu::grow(offset_h, n + 1);
    int64_t total = 0;
    for (size_t i = b; i < e; ++i) {
      offset_h.data()[i - b] = total;
      total += static_cast<int64_t>(reads[i].seq.size());
    }
    offset_h.data()[n] = total;
    gpu::grow(codes_h, static_cast<size_t>(total));
    uint8_t* codes = codes_h.data();
    const int64_t* offset = offset_h.data();
    split_threads(n, omp_get_max_threads(), [&](size_t begin, size_t end) {
      for (size_t i = b + begin; i < b + end; ++i) {
        uint8_t* out = codes + offset[i - b];
        for (char c : reads[i].seq) *out++ = base_code(c);
      }
    });
    gpu::grow(codes_d, static_cast<size_t>(total));
    gpu::grow(offset_d, n + 1);
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(codes_d.data(), codes, static_cast<size_t>(total), cudaMemcpyHostToDevice, st));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(offset_d.data(), offset, (n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, st));
    sb.start.record(st);
    count_kernel<<<grid(n), kThreads, 0, st>>>(codes_d.data(), offset_d.data(), static_cast<int>(n), k, part, table(),
                                               counters.data() + kSeen);
    GATEMAP_CUDA_CHECK(cudaGetLastError());
    sb.stop.record(st);
    sb.in_flight = true;
    pending += windows;
  }
};

KmerCountGpu::KmerCountGpu(int k, size_t budget_bytes, int device, size_t first_slots) : impl_(nullptr) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));
  auto im = std::make_unique<Impl>();
  im->k = k;
  im->device = device;
  const auto [free_b, total_b] = gpu::mem_info();
  (void)total_b;
  size_t budget = budget_bytes ? budget_bytes : free_b / 2;
  if (budget > free_b * 3 / 4) {
    log::warn("correct", "--count-mem is more than the device has free; counting in " +
                             std::to_string((free_b * 3 / 4) >> 20) + " MiB");
    budget = free_b * 3 / 4;
  }
  // Per slot: key and count (12 bytes), and scratch for 3/4 of them (9 bytes).
  constexpr size_t kBytesPerSlot = 21;
  im->max_slots = 1 << 12;
  while (im->max_slots * 2 * kBytesPerSlot <= budget) im->max_slots *= 2;
  im->slots = std::min<uint64_t>(im->max_slots, std::max<uint64_t>(first_slots ? first_slots : kFirstSlots, 1 << 12));
  if ((im->slots & (im->slots - 1)) != 0) throw Error("k-mer counting: the first table size must be a power of two");
  im->limit = im->slots / 4 * 3;
  im->keys.resize(im->slots);
  im->counts.resize(im->slots);
  im->counters.resize(kCounters);
  im->counters_h.resize(kCounters);
  int sms = 1;
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  im->blocks = sms * 16;
  impl_ = im.release();
  reset(KmerPart{});
}

KmerCountGpu::~KmerCountGpu() { delete impl_; }

void KmerCountGpu::reset(KmerPart part) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  im.part = part;
  im.clear_table();
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.counters.data(), 0, kCounters * sizeof(Key), im.stream.get()));
  im.read_counters();
}

void KmerCountGpu::add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const uint64_t chunk_max = im.slots / 5;  // limit + a chunk stays below the slots
  for (size_t b = 0; b < reads.size();) {
    // A chunk: reads whose windows (an upper bound on new keys) fit chunk_max, at least one.
    uint64_t windows = 0;
    size_t e = b;
    for (; e < reads.size(); ++e) {
      const size_t L = reads[e].seq.size();
      const uint64_t w = L >= static_cast<size_t>(im.k) ? L - im.k + 1 : 0;
      if (e > b && windows + w > chunk_max) break;
      windows += w;
    }
    // The counters are read only when the chunks since could have filled the table.
    if (im.used + im.pending + windows > im.limit) im.settle();
    while (im.used + windows > im.limit && im.slots < im.max_slots) im.grow();
    while (im.used > 0 && im.used + windows > im.limit) {
      if (im.part.depth == KmerPart::kMaxDepth) throw Error("k-mer counting: the memory budget is too small");
      dropped.push_back(im.part.child(1));
      im.narrow();
    }
    if (im.used + windows >= im.slots) {
      throw Error("k-mer counting: a read of " + std::to_string(reads[b].seq.size()) +
                  " bases has more k-mers than the count table holds (raise --count-mem)");
    }
    im.count_chunk(reads, b, e, windows);
    b = e;
  }
}

int KmerCountGpu::k() const { return impl_->k; }
KmerPart KmerCountGpu::part() const { return impl_->part; }
uint64_t KmerCountGpu::kmers_seen() const {
  impl_->settle();
  return impl_->seen;
}
uint64_t KmerCountGpu::distinct() const {
  impl_->settle();
  return impl_->used;
}
size_t KmerCountGpu::slots() const { return impl_->slots; }
size_t KmerCountGpu::bytes() const {
  return (impl_->slots + impl_->scratch_keys.size()) * (sizeof(Key) + sizeof(uint32_t));
}
double KmerCountGpu::kernel_ms() const {
  impl_->settle();
  return impl_->kernel_ms;
}

std::vector<uint64_t> KmerCountGpu::histogram(uint32_t max_count) const {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  if (max_count > 8191) throw Error("k-mer histogram: at most 8191 bins on the GPU");
  const cudaStream_t st = im.stream.get();
  gpu::DeviceBuffer<Key> hist_d(max_count + 1);
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(hist_d.data(), 0, (max_count + 1) * sizeof(Key), st));
  histogram_kernel<<<im.grid(im.slots), kThreads, (max_count + 1) * sizeof(uint32_t), st>>>(im.table(), im.slots,
                                                                                            max_count, hist_d.data());
  GATEMAP_CUDA_CHECK(cudaGetLastError());
  std::vector<uint64_t> hist(max_count + 1);
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(hist.data(), hist_d.data(), hist.size() * sizeof(Key), cudaMemcpyDeviceToHost, st));
  im.stream.sync();
  return hist;
}

void KmerCountGpu::for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const cudaStream_t st = im.stream.get();
  im.make_scratch();
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.counters.data() + kScratch, 0, sizeof(Key), st));
  compact_kernel<<<im.grid(im.slots), kThreads, 0, st>>>(im.table(), im.slots, im.part, std::max(threshold, 1u),
                                                         im.scratch_keys.data(), im.scratch_counts.data(),
                                                         im.counters.data() + kScratch);
  GATEMAP_CUDA_CHECK(cudaGetLastError());
  im.read_counters();
  const uint64_t n = im.counters_h.data()[kScratch];
  std::vector<uint64_t> keys(std::min<uint64_t>(n, uint64_t(1) << 22));
  std::vector<uint32_t> counts(keys.size());
  for (uint64_t at = 0; at < n; at += keys.size()) {
    const uint64_t m = std::min<uint64_t>(keys.size(), n - at);
    GATEMAP_CUDA_CHECK(cudaMemcpy(keys.data(), im.scratch_keys.data() + at, m * sizeof(Key), cudaMemcpyDeviceToHost));
    GATEMAP_CUDA_CHECK(
        cudaMemcpy(counts.data(), im.scratch_counts.data() + at, m * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < m; ++i) fn(keys[i], counts[i]);
  }
}

KmerSpectrum KmerCountGpu::take_exact_spectrum(uint32_t threshold, uint64_t solid, bool compact) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const cudaStream_t st = im.stream.get();
  KmerSpectrum spectrum = KmerSpectrum::make_exact(im.k, solid, compact);
  for (;;) {
    gpu::DeviceBuffer<Key> words(spectrum.words.size());
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(words.data(), 0xff, spectrum.bytes(), st));  // every slot empty
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.counters.data() + kScratch, 0, 2 * sizeof(Key), st));  // and kTooFar
    exact_set_kernel<<<im.grid(im.slots), kThreads, 0, st>>>(im.table(), im.slots, std::max(threshold, 1u),
                                                             words.data(), detail::view_of(spectrum),
                                                             im.counters.data() + kScratch,
                                                             im.counters.data() + kTooFar);
    GATEMAP_CUDA_CHECK(cudaGetLastError());
    GATEMAP_CUDA_CHECK(
        cudaMemcpyAsync(spectrum.words.data(), words.data(), spectrum.bytes(), cudaMemcpyDeviceToHost, st));
    im.read_counters();
    if (im.counters_h.data()[kTooFar] == 0) break;
    // k-mers crowding one place of a compact set (never by chance): whole k-mers instead.
    spectrum = KmerSpectrum::make_exact(im.k, solid, /*compact=*/false);
  }
  spectrum.n_kmers = im.counters_h.data()[kScratch];
  if (spectrum.n_kmers > solid) throw Error("internal: more solid k-mers than the histogram counted");
  reset(KmerPart{});
  return spectrum;
}

void KmerCountGpu::insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const {
  if (spectrum.kind != KmerSpectrum::Kind::bloom) return CountTable::insert_solid(threshold, spectrum);
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const cudaStream_t st = im.stream.get();
  const size_t bytes = spectrum.bytes();
  gpu::DeviceBuffer<Key> words(spectrum.words.size());  // the bits so far (other parts), then these
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(words.data(), spectrum.words.data(), bytes, cudaMemcpyHostToDevice, st));
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.counters.data() + kScratch, 0, sizeof(Key), st));
  bloom_kernel<<<im.grid(im.slots), kThreads, 0, st>>>(im.table(), im.slots, std::max(threshold, 1u), words.data(),
                                                       spectrum.mask, spectrum.hashes, im.counters.data() + kScratch);
  GATEMAP_CUDA_CHECK(cudaGetLastError());
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(spectrum.words.data(), words.data(), bytes, cudaMemcpyDeviceToHost, st));
  im.read_counters();
  spectrum.n_kmers += im.counters_h.data()[kScratch];
}

}  // namespace gatemap::correct
