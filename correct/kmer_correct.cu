// The corrector on the GPU: one warp per read (Mangal and Jain's layout). The read,
// its windows' k-mers, its weak windows and its votes live in shared memory, sized by the
// batch's longest read; votes for the four bases of a position share one 32-bit word (8
// bits each: at most k <= 31 votes), so a vote is one shared-memory atomicAdd. The best
// vote and its uniqueness come from warp reductions.
// The steps are those of the CPU twin (kmer_correct_cpu.cpp), hence identical output.
#include <algorithm>
#include <climits>
#include <memory>

#include "common/error.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/kmer_correct_core.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/warp_reduce.cuh"

namespace gatemap::correct {

namespace {

constexpr int kMaxWarps = 4;  // warps (reads) per block, fewer where shared memory is short

// One warp's shared memory for reads of up to `stride` bases (a multiple of 8): per
// window its k-mers and Ns (rolled once a round, read by every vote), per position the
// read, the votes and the weak windows' starts.
struct WarpShared {
  uint64_t* fwd;
  uint64_t* rc;
  uint32_t* votes;  // byte b: votes for base b at this position
  int16_t* weak;
  int8_t* n_n;  // Ns in the window (counting stops at 2)
  int8_t* n_at;
  uint8_t* codes;
  static constexpr int kBytesPerBase = 8 + 8 + 4 + 2 + 1 + 1 + 1;
  __device__ WarpShared(unsigned char* base, int stride)
      : fwd(reinterpret_cast<uint64_t*>(base)),
        rc(fwd + stride),
        votes(reinterpret_cast<uint32_t*>(rc + stride)),
        weak(reinterpret_cast<int16_t*>(votes + stride)),
        n_n(reinterpret_cast<int8_t*>(weak + stride)),
        n_at(n_n + stride),
        codes(reinterpret_cast<uint8_t*>(n_at + stride)) {}
};

__global__ void __launch_bounds__(kMaxWarps * 32) correct_kernel(detail::SpectrumView s, int max_corrections, int stride,
                                                                 uint8_t* codes_g, const int64_t* offset,
                                                                 const int32_t* len, int n_reads, uint8_t* status,
                                                                 uint8_t* changed) {
  extern __shared__ __align__(8) unsigned char shared_bytes[];
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  WarpShared sh(shared_bytes + static_cast<size_t>(warp) * stride * WarpShared::kBytesPerBase, stride);
  const int k = s.k;
  for (int r = blockIdx.x * warps + warp; r < n_reads; r += gridDim.x * warps) {
    const int L = len[r];
    uint8_t* read = codes_g + offset[r];
    if (L > stride || L < k) {
      if (lane == 0) {
        status[r] = static_cast<uint8_t>(L > kCorrectMaxReadLen ? CorrectStatus::too_long : CorrectStatus::clean);
        changed[r] = 0;
      }
      continue;
    }
    for (int j = lane; j < L; j += 32) sh.codes[j] = read[j];
    __syncwarp();
    const int n_windows = L - k + 1;
    CorrectStatus result = CorrectStatus::uncorrectable;
    int n_weak = 0;
    for (int round = 0;; ++round) {
      // Weak windows, compacted in order with a ballot per 32 windows.
      n_weak = 0;
      for (int base = 0; base < n_windows; base += 32) {
        const int i = base + lane;
        bool weak = false;
        if (i < n_windows) {
          uint64_t f, rc;
          int n_at;
          const int n = detail::window_kmers_n(sh.codes, i, k, f, rc, n_at);
          weak = n == 1 || (n == 0 && !detail::spectrum_contains(s, detail::canonical(f, rc)));
          sh.fwd[i] = f, sh.rc[i] = rc, sh.n_n[i] = static_cast<int8_t>(n), sh.n_at[i] = static_cast<int8_t>(n_at);
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, weak);
        if (weak) sh.weak[n_weak + __popc(ballot & ((1u << lane) - 1u))] = static_cast<int16_t>(i);
        n_weak += __popc(ballot);
      }
      if (n_weak == 0) {
        result = round == 0 ? CorrectStatus::clean : CorrectStatus::corrected;
        break;
      }
      if (n_weak > k * (max_corrections - round)) break;  // more than the corrections left can fix
      for (int j = lane; j < L; j += 32) sh.votes[j] = 0;
      __syncwarp();
      for (int t = lane; t < n_weak * k; t += 32) {
        const int i = sh.weak[t / k], d = t % k;
        const uint64_t f = sh.fwd[i], rc = sh.rc[i];  // a weak window holds at most one N
        const int n = sh.n_n[i];
        if (n && d != sh.n_at[i]) continue;  // a window with an N can only be fixed there
        const uint8_t old_b = sh.codes[i + d] > 3 ? 0 : sh.codes[i + d];
        uint32_t add = 0;
        for (uint8_t b = 0; b < 4; ++b) {
          if ((b != old_b || n) && detail::spectrum_contains(s, detail::substituted(f, rc, k, d, old_b, b))) {
            add += 1u << (8 * b);
          }
        }
        if (add) atomicAdd(&sh.votes[i + d], add);
      }
      __syncwarp();
      // Best (position, base): the largest vote at its first index; ambiguous when
      // another base of that position holds it too.
      int best = 0, best_at = INT_MAX;
      for (int j = lane; j < L; j += 32) {
        const uint32_t w = sh.votes[j];
        for (int b = 0; b < 4; ++b) {
          const int v = static_cast<int>((w >> (8 * b)) & 255u);
          if (v > best) best = v, best_at = j * 4 + b;
        }
      }
      const int top = gpu::warp_max(best);
      if (top == 0) break;
      const int at = gpu::warp_min(best == top ? best_at : INT_MAX);
      const uint32_t w = sh.votes[at / 4];
      int n_top = 0;
      for (int b = 0; b < 4; ++b) n_top += static_cast<int>((w >> (8 * b)) & 255u) == top;
      if (n_top > 1) break;
      if (lane == 0) sh.codes[at / 4] = static_cast<uint8_t>(at % 4);
      __syncwarp();
    }
    if (result == CorrectStatus::uncorrectable) {
      // Keep only the corrections no remaining weak window covers (sh.weak is the list
      // of the current sequence, ascending); put the rest back.
      int kept = 0;
      for (int j = lane; j < L; j += 32) {
        if (sh.codes[j] == read[j]) continue;
        int lo = 0, hi = n_weak;  // first weak window starting at or after j - k + 1
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          if (sh.weak[mid] < j - k + 1) lo = mid + 1;
          else hi = mid;
        }
        if (lo < n_weak && sh.weak[lo] <= j) {
          sh.codes[j] = read[j];
        } else {
          kept = 1;
        }
      }
      if (gpu::warp_any(kept != 0)) result = CorrectStatus::corrected;
      __syncwarp();
    }
    if (result == CorrectStatus::corrected) {  // an indel's rewrites near the ends undone (one lane: a few dozen bases)
      int undone = 0;
      if (lane == 0) undone = detail::undo_indel_shifts(sh.codes, read, L, k);
      __syncwarp();
      if (__shfl_sync(0xffffffffu, undone, 0)) {
        int kept = 0;
        for (int j = lane; j < L; j += 32) kept |= sh.codes[j] != read[j];
        if (!gpu::warp_any(kept != 0)) result = CorrectStatus::uncorrectable;
      }
    }
    int n_changed = 0;
    if (result == CorrectStatus::corrected) {
      for (int j = lane; j < L; j += 32) {
        n_changed += sh.codes[j] != read[j];
        read[j] = sh.codes[j];
      }
      n_changed = gpu::warp_sum(n_changed);
    }
    if (lane == 0) {
      status[r] = static_cast<uint8_t>(result);
      changed[r] = static_cast<uint8_t>(min(n_changed, 255));
    }
    __syncwarp();
  }
}

}  // namespace

struct KmerCorrectGpu::Impl {
  std::shared_ptr<const gpu::DeviceBuffer<uint64_t>> spectrum_d;  // shared by the engines of a device
  detail::SpectrumView view;
  gpu::DeviceBuffer<uint8_t> codes_d, status_d, changed_d;
  gpu::DeviceBuffer<int64_t> offset_d;
  gpu::DeviceBuffer<int32_t> len_d;
  gpu::Stream stream;
  gpu::Event start, stop;
  int sm_count = 1;
  int device = 0;
  size_t shared_optin = 48 << 10;   // shared memory a block may have on this device
  size_t shared_allowed = 48 << 10;  // what the kernel is allowed now (past 48 KB: opted in)
};

KmerCorrectGpu::KmerCorrectGpu(const KmerSpectrum& spectrum, int device) : impl_(nullptr) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // the stream and buffers live there
  impl_ = new Impl;
  Impl& im = *impl_;
  im.device = device;
  const auto [free_b, total_b] = gpu::mem_info();
  (void)total_b;
  if (spectrum.bytes() > free_b / 2) {
    throw CudaError("k-mer spectrum of " + std::to_string(spectrum.bytes()) + " bytes exceeds half the " +
                    std::to_string(free_b) + " bytes free on the device");
  }
  auto words = std::make_shared<gpu::DeviceBuffer<uint64_t>>(spectrum.words.size());
  GATEMAP_CUDA_CHECK(cudaMemcpy(words->data(), spectrum.words.data(), spectrum.bytes(), cudaMemcpyHostToDevice));
  im.view = detail::view_of(spectrum);
  im.view.words = words->data();
  im.spectrum_d = std::move(words);
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&im.sm_count, cudaDevAttrMultiProcessorCount, device));
  int optin = 0;
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  im.shared_optin = std::max<size_t>(static_cast<size_t>(optin), im.shared_optin);
}

KmerCorrectGpu::KmerCorrectGpu(SharingSpectrum, const KmerCorrectGpu& same_spectrum) : impl_(nullptr) {
  const Impl& other = *same_spectrum.impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(other.device));
  impl_ = new Impl;
  impl_->device = other.device;
  impl_->spectrum_d = other.spectrum_d;
  impl_->view = other.view;
  impl_->sm_count = other.sm_count;
  impl_->shared_optin = other.shared_optin;
}

KmerCorrectGpu::~KmerCorrectGpu() { delete impl_; }

void KmerCorrectGpu::correct(const CorrectOptions& opt, CorrectBatch& batch, double* kernel_ms) {
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));  // the calling thread's device
  const size_t n = batch.size();
  batch.status.assign(n, 0);
  batch.changed.assign(n, 0);
  if (n == 0) return;
  im.codes_d.resize(batch.codes.size());
  im.offset_d.resize(n);
  im.len_d.resize(n);
  im.status_d.resize(n);
  im.changed_d.resize(n);
  const cudaStream_t st = im.stream.get();
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.codes_d.data(), batch.codes.data(), batch.codes.size(), cudaMemcpyHostToDevice, st));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.offset_d.data(), batch.offset.data(), n * sizeof(int64_t), cudaMemcpyHostToDevice, st));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(im.len_d.data(), batch.len.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice, st));
  // Shared memory for the longest read corrected (150 bp reads: 4 KB a warp; 1 kbp: 26 KB).
  int longest = 1;
  for (int32_t L : batch.len) {
    if (L <= kCorrectMaxReadLen) longest = std::max(longest, L);
  }
  const int stride = (longest + 7) / 8 * 8;
  const size_t warp_bytes = static_cast<size_t>(stride) * WarpShared::kBytesPerBase;
  const int warps = static_cast<int>(std::clamp<size_t>(im.shared_optin / warp_bytes, 1, kMaxWarps));
  const size_t shared = warps * warp_bytes;
  if (shared > im.shared_allowed) {
    GATEMAP_CUDA_CHECK(cudaFuncSetAttribute(correct_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared)));
    im.shared_allowed = shared;
  }
  const int blocks = static_cast<int>(std::min<size_t>((n + warps - 1) / warps, static_cast<size_t>(im.sm_count) * 64));
  im.start.record(st);
  correct_kernel<<<blocks, warps * 32, shared, st>>>(im.view, opt.max_corrections, stride, im.codes_d.data(),
                                                     im.offset_d.data(), im.len_d.data(), static_cast<int>(n),
                                                     im.status_d.data(), im.changed_d.data());
  GATEMAP_CUDA_CHECK(cudaGetLastError());
  im.stop.record(st);
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(batch.codes.data(), im.codes_d.data(), batch.codes.size(), cudaMemcpyDeviceToHost, st));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(batch.status.data(), im.status_d.data(), n, cudaMemcpyDeviceToHost, st));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(batch.changed.data(), im.changed_d.data(), n, cudaMemcpyDeviceToHost, st));
  im.stream.sync();
  if (kernel_ms) *kernel_ms += gpu::Event::elapsed_ms(im.start, im.stop);
}

}  // namespace gatemap::correct
