// The CPU twin of the GPU's BGZF compression, the BGZF framing both share, and the
// choice between them.
#include "io/deflate/bgzf_deflate.hpp"

#include <htslib/bgzf.h>
#include <libdeflate.h>

#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "gpu/fallback.hpp"
#include "io/deflate/deflate_core.hpp"
#include "io/deflate/deflate_lazy.hpp"

namespace gatemap::io {

namespace detail {

uint32_t frame_bgzf_block(const uint8_t* in, uint32_t size, uint8_t* out, uint32_t deflate_size) {
  // gzip with the BC extra field (SAM/BAM spec 4.1): the block's size - 1 at bytes 16-17.
  static const uint8_t kHeader[16] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0};
  const uint32_t total = kBgzfHeaderSize + deflate_size + kBgzfFooterSize;
  std::memcpy(out, kHeader, sizeof kHeader);
  out[16] = static_cast<uint8_t>(total - 1);
  out[17] = static_cast<uint8_t>((total - 1) >> 8);
  const uint32_t crc = static_cast<uint32_t>(libdeflate_crc32(0, in, size));
  uint8_t* footer = out + kBgzfHeaderSize + deflate_size;
  for (int i = 0; i < 4; ++i) {
    footer[i] = static_cast<uint8_t>(crc >> (8 * i));
    footer[4 + i] = static_cast<uint8_t>(size >> (8 * i));
  }
  return total;
}

}  // namespace detail

void BgzfDeflateCpu::compress(BgzfJob* jobs, size_t count) {
#pragma omp parallel num_threads(threads_)
  {
    std::vector<uint64_t> buckets(deflate::kBucketWords);
    std::vector<uint32_t> tokens(deflate::kMaxInput);
#pragma omp for schedule(dynamic, 1)
    for (size_t i = 0; i < count; ++i) {
      BgzfJob& job = jobs[i];
      const uint32_t size = deflate::deflate_block_lazy(job.in, job.size, {buckets.data(), tokens.data()},
                                                        job.out + detail::kBgzfHeaderSize);
      job.out_size = detail::frame_bgzf_block(job.in, job.size, job.out, size);
    }
  }
}

void LevelDeflateCpu::compress(BgzfJob* jobs, size_t count) {
  bool failed = false;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads_) reduction(|| : failed)
  for (size_t i = 0; i < count; ++i) {
    size_t size = BGZF_MAX_BLOCK_SIZE;  // out's room
    failed = failed || bgzf_compress(jobs[i].out, &size, jobs[i].in, jobs[i].size, level_) != 0;
    jobs[i].out_size = static_cast<uint32_t>(size);
  }
  if (failed) throw IoError("BGZF compression failed");
}

namespace {

// The GPU for every batch, the fallback for a batch the GPU fails and all after it:
// with start(), every batch not yet known complete (the last one started, and the new one).
class GpuOrFallback : public BlockCompressor {
 public:
  GpuOrFallback(std::unique_ptr<BgzfDeflateGpu> gpu, std::unique_ptr<BlockCompressor> fallback)
      : gpu_(std::move(gpu)), fallback_(std::move(fallback)) {}
  void compress(BgzfJob* jobs, size_t count) override {
    start(jobs, count);
    finish();
  }
  void start(BgzfJob* jobs, size_t count) override {
    unfinished_.push_back({jobs, count});
    on_gpu([&] { gpu_->start(jobs, count); });
    if (!unfinished_.empty()) unfinished_.erase(unfinished_.begin(), unfinished_.end() - 1);  // all but this one
  }
  void finish() override {
    on_gpu([&] { gpu_->finish(); });
    unfinished_.clear();
  }

 private:
  struct Batch {
    BgzfJob* jobs;
    size_t count;
  };
  // Runs the GPU's step; when there is no GPU or it fails, the unfinished batches on the fallback.
  template <class Step>
  void on_gpu(Step&& step) {
    const auto on_cpu = [&] {
      for (const Batch& b : unfinished_) fallback_->compress(b.jobs, b.count);
      unfinished_.clear();
    };
    if (!gpu_) return on_cpu();
    if (!gpu::run_or_fall_back("bgzf", "BAM compression", step, on_cpu)) gpu_.reset();
  }

  std::unique_ptr<BgzfDeflateGpu> gpu_;
  std::unique_ptr<BlockCompressor> fallback_;
  std::vector<Batch> unfinished_;  // started, not yet known complete
};

}  // namespace

std::shared_ptr<BlockCompressor> make_gpu_block_compressor(int device, int threads,
                                                           std::unique_ptr<BlockCompressor> fallback) {
  std::unique_ptr<BgzfDeflateGpu> gpu = gpu::make_engine_or_null<BgzfDeflateGpu>("bgzf", device, threads);
  if (!gpu) return nullptr;
  return std::make_shared<GpuOrFallback>(std::move(gpu), std::move(fallback));
}

}  // namespace gatemap::io
