// GateKeeper-GPU kernels and the batch engine (see gatekeeper.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "gpu/buffers.cuh"
#include "gpu/unified_alloc.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "mapper/filter/gatekeeper_core.hpp"
#include "mapper/filter/gatekeeper_kernel.cuh"

namespace gatemap::mapper::filter {
namespace {

constexpr int kThreads = 256;

// The filter stage's candidates: two arrays, as FilterCandidates holds them.
struct CandidateArrays {
  const uint32_t* read_strand;
  const uint32_t* diagonal;
  __device__ void operator()(int64_t i, uint32_t& rs, uint32_t& d) const {
    rs = read_strand[i];
    d = diagonal[i];
  }
};

// One thread per read: 2-bit encoding of both strands on the device.
__global__ void pack_reads_kernel(const char* __restrict__ ascii, const int64_t* __restrict__ offset,
                                  const int32_t* __restrict__ len, int64_t n, int stride, uint32_t* hi,
                                  uint32_t* lo, uint8_t* has_n) {
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (r >= n) return;
  const int m = min(len[r], kMaxReadLen);
  uint32_t* fh = hi + 2 * r * stride;
  uint32_t* fl = lo + 2 * r * stride;
  detail::pack_read(ascii + offset[r], m, fh, fl, fh + stride, fl + stride, stride, &has_n[r]);
  if (len[r] > kMaxReadLen) has_n[r] = 0;
}

// Host copy in parallel chunks, in or out of managed memory.
void parallel_copy(void* dst, const void* src, size_t bytes) {
  constexpr int64_t kChunk = 1 << 22;
  const int64_t n = static_cast<int64_t>(bytes);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < n; b += kChunk) {
    std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, std::min(kChunk, n - b));
  }
}

// The host side of "filling a batch": a host array into the slot's managed buffer.
template <typename T, typename Alloc>
void fill(gpu::ManagedBuffer<T>& dst, const std::vector<T, Alloc>& src) {
  dst.reserve(std::max<size_t>(src.size(), 1), 0.2);
  parallel_copy(dst.data(), src.data(), src.size() * sizeof(T));
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct GateKeeperGpu::Impl {
  struct Slot {
    gpu::ManagedBuffer<uint32_t> read_hi, read_lo, cand_read_strand, cand_diagonal;
    gpu::ManagedBuffer<int32_t> len;
    gpu::ManagedBuffer<uint8_t> has_n, out;
    gpu::ManagedBuffer<char> ascii;
    gpu::ManagedBuffer<int64_t> offset;
    gpu::Stream stream;
    gpu::Stream copy[2];
    gpu::Event kernel_start, kernel_stop, done;
    gpu::Event copied[2];
    // The candidate arrays the kernel reads: the slot's copies, or the caller's own
    // arrays when they are in unified memory.
    const uint32_t* k_read_strand = nullptr;
    const uint32_t* k_diagonal = nullptr;
    bool in_place = false;
    size_t n = 0, nreads = 0, words = 0, ascii_bytes = 0;
    bool device_encoded = false;
    int ticket = -1;
    double host_start_ms = 0, fill_ms = 0;
  };
  int device = 0;
  bool managed_hints = false;
  gpu::DeviceBuffer<uint32_t> hi, lo;
  gpu::DeviceBuffer<int64_t> contig_begin, contig_end, n_begin, n_end;
  FilterReference dref;
  std::unique_ptr<Slot> slots[2];
  int next_ticket = 0;

  // Advise a buffer to live on the device and start moving it there on `stream`.
  // Bulk-migrates a buffer back to the host after use, so that filling the next batch
  // writes host-resident pages instead of faulting them back one by one.
  template <typename T>
  void to_host(const T* p, size_t n, cudaStream_t stream) {
    if (!managed_hints || n == 0) return;
    GATEMAP_CUDA_CHECK(cudaMemPrefetchAsync(p, n * sizeof(T), gpu::host_location(), 0, stream));
  }
  template <typename T>
  void to_host(gpu::ManagedBuffer<T>& buf, size_t n, cudaStream_t stream) {
    to_host(buf.data(), n, stream);
  }

  // Advises a buffer to live on the device and starts moving it there on `stream`.
  template <typename T>
  void to_device(const T* p, size_t n, cudaStream_t stream) {
    if (!managed_hints || n == 0) return;
    GATEMAP_CUDA_CHECK(cudaMemAdvise(p, n * sizeof(T), cudaMemAdviseSetPreferredLocation, gpu::device_location(device)));
    GATEMAP_CUDA_CHECK(cudaMemPrefetchAsync(p, n * sizeof(T), gpu::device_location(device), 0, stream));
  }
  template <typename T>
  void to_device(gpu::ManagedBuffer<T>& buf, size_t n, cudaStream_t stream) {
    to_device(buf.data(), n, stream);
  }
};

GateKeeperGpu::GateKeeperGpu(const FilterReference& ref, int device) : impl_(new Impl) {
  try {
    impl_->device = device;
    GATEMAP_CUDA_CHECK(cudaSetDevice(device));
    int managed = 0;
    GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, device));
    impl_->managed_hints = managed != 0;
    gpu::upload(impl_->hi, ref.hi, ref.words);
    gpu::upload(impl_->lo, ref.lo, ref.words);
    gpu::upload(impl_->contig_begin, ref.contig_begin, ref.n_contigs);
    gpu::upload(impl_->contig_end, ref.contig_end, ref.n_contigs);
    gpu::upload(impl_->n_begin, ref.n_begin, ref.n_runs);
    gpu::upload(impl_->n_end, ref.n_end, ref.n_runs);
    impl_->dref = ref;
    impl_->dref.hi = impl_->hi.data();
    impl_->dref.lo = impl_->lo.data();
    impl_->dref.contig_begin = impl_->contig_begin.data();
    impl_->dref.contig_end = impl_->contig_end.data();
    impl_->dref.n_begin = impl_->n_begin.data();
    impl_->dref.n_end = impl_->n_end.data();
    for (auto& s : impl_->slots) s = std::make_unique<Impl::Slot>();
  } catch (...) {
    delete impl_;
    throw;
  }
}

GateKeeperGpu::~GateKeeperGpu() {
  if (impl_) cudaDeviceSynchronize();
  delete impl_;
}

int GateKeeperGpu::submit(const FilterReads& reads, const FilterCandidates& cand, int e, bool encode_on_device) {
  if (e < 0 || e > kMaxEdits) throw UsageError("GateKeeper: -e must be in 0.." + std::to_string(kMaxEdits));
  const int ticket = impl_->next_ticket;
  Impl::Slot& s = *impl_->slots[ticket % 2];
  if (s.ticket >= 0) throw Error("GateKeeperGpu: two batches already in flight; collect one first");
  impl_->next_ticket++;
  s.ticket = ticket;
  s.host_start_ms = now_ms();
  s.n = cand.size();
  const size_t nreads = reads.size();
  const int stride = reads.stride_words;
  const size_t words = 2 * nreads * static_cast<size_t>(stride);

  GATEMAP_CUDA_CHECK(cudaSetDevice(impl_->device));
  s.copy[0].sync();  // the previous batch's buffers are back on the host
  s.copy[1].sync();
  s.nreads = nreads;
  s.words = words;
  s.ascii_bytes = reads.ascii.size();
  s.device_encoded = encode_on_device;
  fill(s.len, reads.len);
  s.in_place = s.n > 0 && gpu::is_unified(cand.read_strand.data()) && gpu::is_unified(cand.diagonal.data());
  if (s.in_place) {
    s.k_read_strand = cand.read_strand.data();
    s.k_diagonal = cand.diagonal.data();
  } else {
    fill(s.cand_read_strand, cand.read_strand);
    fill(s.cand_diagonal, cand.diagonal);
    s.k_read_strand = s.cand_read_strand.data();
    s.k_diagonal = s.cand_diagonal.data();
  }
  s.out.reserve(std::max<size_t>(s.n, 1), 0.2);
  s.read_hi.reserve(std::max<size_t>(words, 1), 0.2);
  s.read_lo.reserve(std::max<size_t>(words, 1), 0.2);
  s.has_n.reserve(std::max<size_t>(nreads, 1), 0.2);
  if (encode_on_device) {
    fill(s.ascii, reads.ascii);
    fill(s.offset, reads.offset);
  } else {
    if (reads.hi.size() != words) throw Error("GateKeeperGpu: reads were not packed on the host");
    fill(s.read_hi, reads.hi);
    fill(s.read_lo, reads.lo);
    fill(s.has_n, reads.has_n);
  }
  s.fill_ms = now_ms() - s.host_start_ms;
  // Inputs move to the device on two copy streams; the compute stream waits for both.
  cudaStream_t c0 = s.copy[0].get(), c1 = s.copy[1].get();
  impl_->to_device(s.len, nreads, c0);
  impl_->to_device(s.k_read_strand, s.n, c0);
  impl_->to_device(s.k_diagonal, s.n, c1);
  if (encode_on_device) {
    impl_->to_device(s.ascii, reads.ascii.size(), c1);
    impl_->to_device(s.offset, nreads, c0);
  } else {
    impl_->to_device(s.read_hi, words, c1);
    impl_->to_device(s.read_lo, words, c0);
    impl_->to_device(s.has_n, nreads, c1);
  }
  s.copied[0].record(c0);
  s.copied[1].record(c1);
  cudaStream_t st = s.stream.get();
  GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(st, s.copied[0].get(), 0));
  GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(st, s.copied[1].get(), 0));

  s.kernel_start.record(st);
  if (encode_on_device && nreads) {
    const int blocks = static_cast<int>((nreads + kThreads - 1) / kThreads);
    pack_reads_kernel<<<blocks, kThreads, 0, st>>>(s.ascii.data(), s.offset.data(), s.len.data(),
                                                   static_cast<int64_t>(nreads), stride, s.read_hi.data(),
                                                   s.read_lo.data(), s.has_n.data());
    GATEMAP_CUDA_CHECK_LAUNCH();
  }
  if (s.n) {
    int max_len = 1;
    for (int32_t l : reads.len) max_len = std::max(max_len, std::min<int>(l, kMaxReadLen));
    const auto kernel = gatekeeper_kernel_for<CandidateArrays>(detail::window_words(max_len, e));
    kernel<<<gatekeeper_blocks(static_cast<int64_t>(s.n), kThreads), kThreads, 0, st>>>(
        impl_->dref, s.read_hi.data(), s.read_lo.data(), s.len.data(), s.has_n.data(), stride,
        CandidateArrays{s.k_read_strand, s.k_diagonal}, static_cast<int64_t>(s.n), e, s.out.data());
    GATEMAP_CUDA_CHECK_LAUNCH();
  }
  s.kernel_stop.record(st);
  if (impl_->managed_hints && s.n) {
    GATEMAP_CUDA_CHECK(cudaMemPrefetchAsync(s.out.data(), s.n, gpu::host_location(), 0, st));
  }
  s.done.record(st);
  return ticket;
}

void GateKeeperGpu::collect(int ticket, std::vector<uint8_t>& out, FilterTiming* timing) {
  Impl::Slot& s = *impl_->slots[ticket % 2];
  if (s.ticket != ticket) throw Error("GateKeeperGpu: unknown or already collected ticket");
  s.done.sync();
  out.resize(s.n);
  parallel_copy(out.data(), s.out.data(), s.n);
  if (timing) {
    timing->kernel_ms = gpu::Event::elapsed_ms(s.kernel_start, s.kernel_stop);
    timing->total_ms = now_ms() - s.host_start_ms;
    timing->fill_ms = s.fill_ms;
  }
  // Inputs go back to the host in bulk while the caller prepares the next batch.
  impl_->to_host(s.len, s.nreads, s.copy[0].get());
  // Not the caller's own arrays: when the host rewrites them for the next batch, faulting
  // the pages back as it goes measured faster than a bulk prefetch first
  // (an H100 experiment of 2026-11-22).
  if (!s.in_place) {
    impl_->to_host(s.k_read_strand, s.n, s.copy[0].get());
    impl_->to_host(s.k_diagonal, s.n, s.copy[1].get());
  }
  if (s.device_encoded) {
    impl_->to_host(s.ascii, s.ascii_bytes, s.copy[0].get());
    impl_->to_host(s.offset, s.nreads, s.copy[1].get());
  } else {
    impl_->to_host(s.read_hi, s.words, s.copy[0].get());
    impl_->to_host(s.read_lo, s.words, s.copy[1].get());
    impl_->to_host(s.has_n, s.nreads, s.copy[0].get());
  }
  s.ticket = -1;
}

void GateKeeperGpu::filter(const FilterReads& reads, const FilterCandidates& cand, int e, std::vector<uint8_t>& out,
                           bool encode_on_device, FilterTiming* timing) {
  collect(submit(reads, cand, e, encode_on_device), out, timing);
}

}  // namespace gatemap::mapper::filter
