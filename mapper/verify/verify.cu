// The GPU verifier (see verify_gpu.hpp): one thread per candidate.
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "common/error.hpp"
#include "gpu/buffers.cuh"
#include "mapper/align/myers_core.hpp"
#include "mapper/filter/gatekeeper_core.hpp"
#include "mapper/filter/gatekeeper_kernel.cuh"
#include "mapper/verify/verify_gpu.hpp"

namespace gatemap::mapper::verifying {
namespace {

constexpr int kThreads = 128;

unsigned blocks_for(int64_t items) { return static_cast<unsigned>((items + kThreads - 1) / kThreads); }

// One thread per read: both strands 2-bit packed from the seeder's codes, as the filter
// packs a read's bases (filter::detail::pack_read: the first kMaxReadLen bases; N read
// as A and flagged; longer reads pass unfiltered and are not flagged).
__global__ void pack_codes_kernel(const uint8_t* __restrict__ codes, const int64_t* __restrict__ begin, int64_t n,
                                  int stride, uint32_t* hi, uint32_t* lo, int32_t* len, uint8_t* has_n) {
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (r >= n) return;
  const int full = static_cast<int>(begin[r + 1] - begin[r]);
  const int m = min(full, filter::kMaxReadLen);
  const uint8_t* rc = codes + begin[r];
  uint32_t* fh = hi + 2 * r * stride;
  uint32_t* fl = lo + 2 * r * stride;
  filter::detail::pack_read_codes([rc](int i) -> uint32_t { return rc[i]; }, m, fh, fl, fh + stride, fl + stride,
                                  stride, &has_n[r]);
  len[r] = full;
  if (full > filter::kMaxReadLen) has_n[r] = 0;
}

// The verifier's jobs as the GateKeeper kernel reads candidates (FilterCandidates::set's
// encoding): the filter's codes for them are the filter stage's.
struct JobCands {
  const VerifyJob* jobs;
  __device__ void operator()(int64_t i, uint32_t& read_strand, uint32_t& diagonal) const {
    const VerifyJob j = jobs[i];
    const bool outside = j.diag < 0 || j.diag > int64_t{0xffffffff};
    read_strand = (j.read << 1) | j.strand | (outside ? filter::FilterCandidates::kOutside : 0u);
    diagonal = outside ? 0u : static_cast<uint32_t>(j.diag);
  }
};

// Verifier::myers_applies on the device: the band's window inside one contig (the one
// holding the read's middle base, the only one it can lie in), free of N.
__device__ bool bit_vector_applies(const filter::FilterReference& ref, int64_t diag, int m, int band) {
  if (band > kMyersMaxBand) return false;
  const int32_t contig = filter::detail::filter_contig(ref, diag, m);
  const int64_t begin = diag - band, end = diag + m + band;
  return begin >= ref.contig_begin[contig] && end <= ref.contig_end[contig] &&
         !filter::detail::overlaps_n(ref, begin, end);
}

// codes: the filter's per job, or null (filter off).
__global__ void verify_kernel(filter::FilterReference fref, PlaneRef ref, const uint8_t* codes, const int64_t* begin,
                              const VerifyJob* jobs, int64_t n, const uint8_t* filter_codes, int e, BandResult* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const VerifyJob j = jobs[i];
  const bool accepted = !filter_codes || (filter_codes[i] & filter::kFilterUnfiltered) || filter_codes[i] <= e;
  if (j.band == kSkipJob || !accepted) {
    out[i] = BandResult{};
    return;
  }
  const uint8_t* rc = codes + begin[j.read];
  const int m = static_cast<int>(begin[j.read + 1] - begin[j.read]);
  if (!bit_vector_applies(fref, j.diag, m, j.band)) {
    BandResult skipped;
    skipped.edits = kNotVerified;
    out[i] = skipped;
    return;
  }
  if (j.strand == 0) {
    out[i] = myers::banded_distance([rc](int q) { return rc[q]; }, m, ref, j.diag, j.band, j.max_edits);
  } else {
    out[i] = myers::banded_distance(
        [rc, m](int q) -> uint8_t {
          const uint8_t c = rc[m - 1 - q];
          return c < 4 ? static_cast<uint8_t>(3 - c) : c;
        },
        m, ref, j.diag, j.band, j.max_edits);
  }
}

// The jobs of the seeder's kept clusters, in their order: one thread per read strand.
__global__ void jobs_from_clusters_kernel(DeviceClusters c, VerifyJob* jobs) {
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= 2 * c.n_reads) return;
  const auto read = static_cast<uint32_t>(t >> 1);
  const auto edits = static_cast<uint8_t>(c.max_edits[read]);
  for (int64_t g = c.first[t]; g < c.first[t + 1]; ++g) {
    jobs[g] = {c.clusters[g].diag, read, static_cast<uint8_t>(t & 1), edits, edits};
  }
}

// Which clusters the host needs (verify_clusters): keep[g] (and keep[n] = 0, for the
// scan's total), and the batch's counts, a block's at a time.
__global__ void keep_kernel(const uint8_t* filter_codes, const BandResult* results, int64_t n, int e, int64_t* keep,
                            unsigned long long* counts) {
  const int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const uint8_t code = g < n && filter_codes ? filter_codes[g] : 0;
  const bool accepted = g < n && filter::filter_accepts(code, e);
  const int edits = accepted ? results[g].edits : -1;
  const bool needed = edits >= 0 || edits == kNotVerified;
  if (g <= n) keep[g] = needed;
  // Every thread of the block reaches these.
  const int rejected = __syncthreads_count(g < n && !accepted);
  const int unfiltered = __syncthreads_count(g < n && (code & filter::kFilterUnfiltered));
  const int passed = __syncthreads_count(accepted);
  const int on_gpu = __syncthreads_count(accepted && edits != kNotVerified);
  if (threadIdx.x == 0) {
    atomicAdd(counts, static_cast<unsigned long long>(rejected));
    atomicAdd(counts + 1, static_cast<unsigned long long>(unfiltered));
    atomicAdd(counts + 2, static_cast<unsigned long long>(passed));
    atomicAdd(counts + 3, static_cast<unsigned long long>(on_gpu));
  }
}

__global__ void scatter_kept_kernel(const detail::SeedCluster* clusters, const BandResult* results,
                                    const int64_t* keep, const int64_t* at, int64_t n, VerifiedCluster* out) {
  const int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (g >= n || !keep[g]) return;
  out[at[g]] = {clusters[g], results[g], static_cast<uint32_t>(g)};
}

// banded_distance with clipping (mapper/align/banded_dp.cpp), one thread per job: the same
// DP over keys (cost, start row), two rows at a time, and the same best end (its scan
// goes down the rows: here, going up, a later row wins a full tie).
constexpr int kClipMaxWidth = 2 * kMaxClipBand + 1;

__device__ uint64_t clip_key(int cost, int start) {
  return (static_cast<uint64_t>(cost) << 32) | static_cast<uint32_t>(start);
}

__global__ void clip_kernel(filter::FilterReference fref, PlaneRef ref, const uint8_t* __restrict__ codes,
                            const int64_t* __restrict__ begin, const ClipJob* __restrict__ jobs, int64_t n,
                            ClipResult* __restrict__ out) {
  const int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const ClipJob j = jobs[k];
  constexpr int kInf = INT_MAX / 4;  // banded_dp's
  constexpr uint64_t kOneEdit = uint64_t{1} << 32;
  const uint8_t* rc = codes + begin[j.read];
  const int m = static_cast<int>(begin[j.read + 1] - begin[j.read]);
  const int band = j.band, w = 2 * band + 1;
  // The window Reference::window fetches, clipped to the contig and the reference.
  const int64_t lo = max(j.contig_begin, max(j.diag - band, int64_t{0}));
  const int64_t hi = max(lo, min(j.contig_end, min(j.diag + m + band, ref.length)));
  const bool any_n = lo < hi && filter::detail::overlaps_n(fref, lo, hi);
  const auto ref_code = [&](int64_t p) -> uint8_t {
    if (any_n && filter::detail::overlaps_n(fref, p, p + 1)) return 4;
    const int s = static_cast<int>(p & 63);
    return static_cast<uint8_t>((((ref.hi[p >> 6] >> s) & 1) << 1) | ((ref.lo[p >> 6] >> s) & 1));
  };
  const auto clip_cost = [](int bases) { return bases > 0 ? mapper::detail::kClipPenalty + bases / 4 : 0; };
  uint64_t rows[2][kClipMaxWidth];
  uint64_t* prev = rows[0];
  uint64_t* cur = rows[1];
  for (int t = 0; t < w; ++t) {
    const int64_t g = j.diag - band + t;
    prev[t] = clip_key(g >= lo && g <= hi ? 0 : kInf, 0);
  }
  int best_c = kInf, best_len = -1, best_dist = 0, best_i = m, best_t = -1, best_start = 0;
  for (int i = 1; i <= m; ++i) {
    uint8_t code = rc[j.strand == 0 ? i - 1 : m - i];
    if (j.strand == 1 && code < 4) code = static_cast<uint8_t>(3 - code);
    const int64_t g0 = j.diag - band + i;  // cell t ends at reference position g0 + t
    const int t_first = static_cast<int>(min(max(lo - g0, int64_t{0}), int64_t{w}));
    const int t_last = static_cast<int>(min(max(hi - g0 + 1, int64_t{0}), int64_t{w}));
    const int t_diag = static_cast<int>(min(max(lo + 1 - g0, int64_t{0}), int64_t{w}));
    const uint64_t none = clip_key(kInf, i), clipped_start = clip_key(clip_cost(i), i);
    for (int t = 0; t < w; ++t) cur[t] = clip_key(kInf, 0);
    for (int t = t_first; t < t_last; ++t) {
      uint64_t best = none;
      const bool has_diag = t >= t_diag;
      if (has_diag) {
        const uint8_t fc = ref_code(g0 + t - 1);
        best = min(best, prev[t] + ((code == fc && code < 4) ? 0 : kOneEdit));
      }
      if (t + 1 < w) best = min(best, prev[t + 1] + kOneEdit);
      if (has_diag && t > 0) best = min(best, cur[t - 1] + kOneEdit);
      cur[t] = min(best, clipped_start);
    }
    const int end_cost = clip_cost(m - i);
    for (int t = t_first; t < t_last; ++t) {
      const int d = static_cast<int>(cur[t] >> 32);
      if (d >= kInf) continue;
      const int c = d + end_cost, len = i - static_cast<int>(cur[t] & 0xffffffffu), dist = abs(t - band);
      if (c < best_c ||
          (c == best_c && (len > best_len || (len == best_len && (dist < best_dist || (dist == best_dist && i > best_i)))))) {
        best_c = c;
        best_len = len;
        best_dist = dist;
        best_i = i;
        best_t = t;
        best_start = i - len;
      }
    }
    uint64_t* swap = prev;
    prev = cur;
    cur = swap;
  }
  ClipResult r;
  if (best_t >= 0 && best_c <= j.max_cost) {
    r.band.edits = best_c;
    r.band.ref_end = j.diag - band + best_i + best_t;
    r.first_row = best_start;
    r.last_row = best_i;
  }
  out[k] = r;
}


}  // namespace

struct VerifyGpu::Impl {
  int device = 0;
  int64_t max_jobs = 0;
  // fref over the seeder's bases (its planes as 32-bit words).
  filter::FilterReference reference_of(const DeviceReads& reads) const {
    filter::FilterReference r = fref;
    r.hi = reinterpret_cast<const uint32_t*>(reads.planes.hi);
    r.lo = reinterpret_cast<const uint32_t*>(reads.planes.lo);
    return r;
  }
  gpu::Stream stream;
  gpu::Event start, filtered, stop;
  filter::FilterReference fref;  // contig bounds and N runs here; planes set per batch (the seeder's)
  gpu::DeviceBuffer<int64_t> contig_begin, contig_end, n_begin, n_end;
  gpu::PinnedBuffer<VerifyJob> h_jobs;
  gpu::PinnedBuffer<BandResult> h_out;
  gpu::PinnedBuffer<uint8_t> h_codes;
  gpu::DeviceBuffer<VerifyJob> d_jobs;
  gpu::DeviceBuffer<BandResult> d_out;
  gpu::DeviceBuffer<uint8_t> d_codes, d_has_n;
  gpu::DeviceBuffer<uint32_t> d_hi, d_lo;
  gpu::DeviceBuffer<int32_t> d_len;
  // verify_clusters: which clusters come back, where, the counts.
  gpu::DeviceBuffer<int64_t> d_keep, d_at;
  gpu::DeviceBuffer<unsigned long long> d_counts;
  gpu::PinnedBuffer<unsigned long long> h_counts;
  gpu::PinnedBuffer<int64_t> h_total;
  gpu::DeviceBuffer<VerifiedCluster> d_kept;
  gpu::PinnedBuffer<VerifiedCluster> h_kept;
  gpu::DeviceBuffer<unsigned char> d_temp;
  // clip_distances
  gpu::PinnedBuffer<ClipJob> h_clip_jobs;
  gpu::DeviceBuffer<ClipJob> d_clip_jobs;
  gpu::PinnedBuffer<ClipResult> h_clip_out;
  gpu::DeviceBuffer<ClipResult> d_clip_out;
};

VerifyGpu::VerifyGpu(int device, const filter::FilterReference& ref, int64_t max_jobs) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));
  impl_ = std::make_unique<Impl>();
  Impl& im = *impl_;
  im.device = device;
  im.max_jobs = max_jobs;
  gpu::upload(im.contig_begin, ref.contig_begin, static_cast<size_t>(ref.n_contigs));
  gpu::upload(im.contig_end, ref.contig_end, static_cast<size_t>(ref.n_contigs));
  gpu::upload(im.n_begin, ref.n_begin, static_cast<size_t>(ref.n_runs));
  gpu::upload(im.n_end, ref.n_end, static_cast<size_t>(ref.n_runs));
  im.fref = ref;
  im.fref.contig_begin = im.contig_begin.data();
  im.fref.contig_end = im.contig_end.data();
  im.fref.n_begin = im.n_begin.data();
  im.fref.n_end = im.n_end.data();
  im.fref.hi = im.fref.lo = nullptr;  // the host's: each batch takes the seeder's device copy
}

VerifyGpu::~VerifyGpu() = default;

void VerifyGpu::verify(const DeviceReads& reads, const std::vector<VerifyJob>& jobs, const JobFilter& filter,
                       std::vector<uint8_t>& codes, std::vector<BandResult>& out, VerifyTiming* timing) {
  Impl& im = *impl_;
  const size_t n = jobs.size();
  if (out.capacity() < n) out.reserve(n + n / 2);  // see grow()
  if (codes.capacity() < n) codes.reserve(n + n / 2);
  out.resize(n);
  codes.assign(n, 0);
  if (n == 0) return;
  prepare(n, filter);
  gpu::grow(im.h_jobs, n);
  gpu::grow(im.h_out, n);
  gpu::grow(im.h_codes, n);
  const int64_t count = static_cast<int64_t>(n);
  VerifyJob* h_jobs = im.h_jobs.data();
  int64_t reads_n = 0;
#pragma omp parallel for schedule(static, 65536) reduction(max : reads_n)
  for (int64_t i = 0; i < count; ++i) {
    h_jobs[i] = jobs[i];  // into pinned memory, for an asynchronous copy
    reads_n = std::max<int64_t>(reads_n, int64_t{jobs[i].read} + 1);
  }
  const cudaStream_t s = im.stream.get();
  im.start.record(s);
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.d_jobs.data(), im.h_jobs.data(), n * sizeof(VerifyJob), cudaMemcpyHostToDevice, s));
  const bool filtered = run_jobs(reads, count, reads_n, filter);
  if (filtered) GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_codes.data(), im.d_codes.data(), n, cudaMemcpyDeviceToHost, s));
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.h_out.data(), im.d_out.data(), n * sizeof(BandResult), cudaMemcpyDeviceToHost, s));
  im.stop.record(s);
  im.stop.sync();
  const BandResult* h_out = im.h_out.data();
  const uint8_t* h_codes = filtered ? im.h_codes.data() : nullptr;
#pragma omp parallel for schedule(static, 65536)
  for (int64_t i = 0; i < count; ++i) {
    out[i] = h_out[i];
    if (h_codes) codes[i] = h_codes[i];
  }
  if (timing) {
    timing->filter_ms = gpu::Event::elapsed_ms(im.start, im.filtered);
    timing->verify_ms = gpu::Event::elapsed_ms(im.filtered, im.stop);
  }
}

void VerifyGpu::verify_clusters(const DeviceReads& reads, const DeviceClusters& clusters, const JobFilter& filter,
                                std::vector<VerifiedCluster>& out, VerifyCounts& counts, VerifyTiming* timing) {
  Impl& im = *impl_;
  out.clear();
  counts = {};
  const int64_t n = clusters.n_clusters;
  if (n == 0) return;
  prepare(static_cast<size_t>(n), filter);
  const cudaStream_t s = im.stream.get();
  im.start.record(s);
  jobs_from_clusters_kernel<<<blocks_for(2 * clusters.n_reads), kThreads, 0, s>>>(clusters, im.d_jobs.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  const bool filtered = run_jobs(reads, n, clusters.n_reads, filter);
  gpu::grow(im.d_keep, static_cast<size_t>(n + 1));
  gpu::grow(im.d_at, static_cast<size_t>(n + 1));
  gpu::grow(im.d_counts, 4);
  gpu::grow(im.h_counts, 4);
  gpu::grow(im.h_total, 1);
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(im.d_counts.data(), 0, 4 * sizeof(unsigned long long), s));
  keep_kernel<<<blocks_for(n + 1), kThreads, 0, s>>>(filtered ? im.d_codes.data() : nullptr, im.d_out.data(), n, filter.e,
                                                 im.d_keep.data(), im.d_counts.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  size_t bytes = 0;
  const auto scan = [&](void* temp) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, im.d_keep.data(), im.d_at.data(), n + 1, s);
  };
  GATEMAP_CUDA_CHECK(scan(nullptr));
  gpu::grow(im.d_temp, bytes);
  GATEMAP_CUDA_CHECK(scan(im.d_temp.data()));
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.h_total.data(), im.d_at.data() + n, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_counts.data(), im.d_counts.data(), 4 * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, s));
  im.stream.sync();
  const int64_t total = im.h_total.data()[0];
  const unsigned long long* c = im.h_counts.data();
  counts = {static_cast<int64_t>(c[0]), static_cast<int64_t>(c[1]), static_cast<int64_t>(c[2]),
            static_cast<int64_t>(c[3])};
  if (total > 0) {
    gpu::grow(im.d_kept, static_cast<size_t>(total));
    gpu::grow(im.h_kept, static_cast<size_t>(total));
    scatter_kept_kernel<<<blocks_for(n), kThreads, 0, s>>>(clusters.clusters, im.d_out.data(), im.d_keep.data(),
                                                       im.d_at.data(), n, im.d_kept.data());
    GATEMAP_CUDA_CHECK_LAUNCH();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.h_kept.data(), im.d_kept.data(),
                                       static_cast<size_t>(total) * sizeof(VerifiedCluster), cudaMemcpyDeviceToHost,
                                       s));
  }
  im.stop.record(s);
  im.stop.sync();
  out.assign(im.h_kept.data(), im.h_kept.data() + total);
  if (timing) {
    timing->filter_ms = gpu::Event::elapsed_ms(im.start, im.filtered);
    timing->verify_ms = gpu::Event::elapsed_ms(im.filtered, im.stop);
  }
}

void VerifyGpu::clip_distances(const DeviceReads& reads, const std::vector<ClipJob>& jobs,
                               std::vector<ClipResult>& out) {
  Impl& im = *impl_;
  const size_t n = jobs.size();
  out.assign(n, ClipResult{});
  if (n == 0) return;
  for (const ClipJob& j : jobs) {
    if (j.band > kMaxClipBand) throw Error("internal: a clipped job's band over " + std::to_string(kMaxClipBand));
  }
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  gpu::grow(im.h_clip_jobs, n);
  gpu::grow(im.d_clip_jobs, n);
  gpu::grow(im.h_clip_out, n);
  gpu::grow(im.d_clip_out, n);
  std::copy(jobs.begin(), jobs.end(), im.h_clip_jobs.data());
  const cudaStream_t s = im.stream.get();
  const filter::FilterReference fref = im.reference_of(reads);
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.d_clip_jobs.data(), im.h_clip_jobs.data(), n * sizeof(ClipJob), cudaMemcpyHostToDevice, s));
  clip_kernel<<<blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(
      fref, reads.planes, reads.codes, reads.begin, im.d_clip_jobs.data(), static_cast<int64_t>(n),
      im.d_clip_out.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.h_clip_out.data(), im.d_clip_out.data(), n * sizeof(ClipResult), cudaMemcpyDeviceToHost, s));
  im.stream.sync();
  std::copy(im.h_clip_out.data(), im.h_clip_out.data() + n, out.begin());
}

void VerifyGpu::prepare(size_t n, const JobFilter& filter) {
  Impl& im = *impl_;
  if (filter.on && (filter.e < 0 || filter.e > filter::kMaxEdits)) {
    throw UsageError("GateKeeper: -e must be in 0.." + std::to_string(filter::kMaxEdits));
  }
  if (im.max_jobs > 0 && static_cast<int64_t>(n) > im.max_jobs) {
    throw CudaError("a batch of " + std::to_string(n) + " candidates is over the GPU verifier's limit of " +
                    std::to_string(im.max_jobs));
  }
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  gpu::grow(im.d_jobs, n);
  gpu::grow(im.d_out, n);
}

// The jobs on the device (d_jobs, after the start event): filtered and verified there.
bool VerifyGpu::run_jobs(const DeviceReads& reads, int64_t count, int64_t reads_n, const JobFilter& filter) {
  Impl& im = *impl_;
  const auto n = static_cast<size_t>(count);
  const cudaStream_t s = im.stream.get();
  const uint8_t* filter_codes = nullptr;
  const filter::FilterReference fref = im.reference_of(reads);
  if (filter.on) {
    // The longest read sets the words per read strand and the kernel's width.
    const int max_len = std::clamp(filter.max_len, 1, filter::kMaxReadLen);
    const int stride = (max_len + 31) / 32;
    gpu::grow(im.d_hi, static_cast<size_t>(2 * reads_n * stride));
    gpu::grow(im.d_lo, static_cast<size_t>(2 * reads_n * stride));
    gpu::grow(im.d_len, static_cast<size_t>(reads_n));
    gpu::grow(im.d_has_n, static_cast<size_t>(reads_n));
    gpu::grow(im.d_codes, n);
    pack_codes_kernel<<<blocks_for(reads_n), kThreads, 0, s>>>(reads.codes, reads.begin, reads_n, stride, im.d_hi.data(),
                                                           im.d_lo.data(), im.d_len.data(), im.d_has_n.data());
    GATEMAP_CUDA_CHECK_LAUNCH();

    const auto kernel = filter::gatekeeper_kernel_for<JobCands>((max_len + 2 * filter.e + 31) / 32);
    kernel<<<filter::gatekeeper_blocks(count, kThreads), kThreads, 0, s>>>(
        fref, im.d_hi.data(), im.d_lo.data(), im.d_len.data(), im.d_has_n.data(), stride, JobCands{im.d_jobs.data()},
        count, filter.e, im.d_codes.data());
    GATEMAP_CUDA_CHECK_LAUNCH();
    filter_codes = im.d_codes.data();
  }
  im.filtered.record(s);
  verify_kernel<<<blocks_for(count), kThreads, 0, s>>>(fref, reads.planes, reads.codes, reads.begin, im.d_jobs.data(),
                                                   count, filter_codes, filter.e, im.d_out.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  return filter.on;
}

}  // namespace gatemap::mapper::verifying
