// The GPU verifier (see verify_gpu.hpp): one thread per candidate.
#include <omp.h>

#include <string>

#include "gpu/buffers.cuh"
#include "mapper/myers_core.hpp"
#include "mapper/seeding/verify_gpu.hpp"

namespace gatemap::mapper::seeding {
namespace {

constexpr int kThreads = 128;

__global__ void verify_kernel(PlaneRef ref, const uint8_t* codes, const int64_t* begin, const VerifyJob* jobs,
                              int64_t n, BandResult* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const VerifyJob j = jobs[i];
  if (j.band == kSkipJob) {
    out[i] = BandResult{};
    return;
  }
  const uint8_t* rc = codes + begin[j.read];
  const int m = static_cast<int>(begin[j.read + 1] - begin[j.read]);
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

}  // namespace

struct VerifyGpu::Impl {
  int device = 0;
  gpu::Stream stream;
  gpu::Event start, stop;
  gpu::PinnedBuffer<VerifyJob> h_jobs;
  gpu::PinnedBuffer<BandResult> h_out;
  gpu::DeviceBuffer<VerifyJob> d_jobs;
  gpu::DeviceBuffer<BandResult> d_out;
};

VerifyGpu::VerifyGpu(int device) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));
  impl_ = std::make_unique<Impl>();
  impl_->device = device;
}

VerifyGpu::~VerifyGpu() = default;

void VerifyGpu::verify(const DeviceReads& reads, const std::vector<VerifyJob>& jobs, std::vector<BandResult>& out,
                       double* ms) {
  Impl& im = *impl_;
  const size_t n = jobs.size();
  out.resize(n);
  if (n == 0) return;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));
  const cudaStream_t s = im.stream.get();
  im.h_jobs.resize(n);
  im.h_out.resize(n);
  im.d_jobs.resize(n);
  im.d_out.resize(n);
  const int64_t count = static_cast<int64_t>(n);
  VerifyJob* h_jobs = im.h_jobs.data();
#pragma omp parallel for schedule(static, 65536)
  for (int64_t i = 0; i < count; ++i) h_jobs[i] = jobs[i];  // into pinned memory, for an asynchronous copy
  im.start.record(s);
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.d_jobs.data(), im.h_jobs.data(), n * sizeof(VerifyJob), cudaMemcpyHostToDevice, s));
  verify_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      reads.planes, reads.codes, reads.begin, im.d_jobs.data(), static_cast<int64_t>(n), im.d_out.data());
  GATEMAP_CUDA_CHECK_LAUNCH();
  GATEMAP_CUDA_CHECK(
      cudaMemcpyAsync(im.h_out.data(), im.d_out.data(), n * sizeof(BandResult), cudaMemcpyDeviceToHost, s));
  im.stop.record(s);
  im.stop.sync();
  const BandResult* h_out = im.h_out.data();
#pragma omp parallel for schedule(static, 65536)
  for (int64_t i = 0; i < count; ++i) out[i] = h_out[i];
  if (ms) *ms = gpu::Event::elapsed_ms(im.start, im.stop);
}

}  // namespace gatemap::mapper::seeding
