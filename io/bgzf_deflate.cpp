// The CPU twin of the GPU's BGZF compression, the BGZF framing both share, and the
// choice between them.
#include "io/bgzf_deflate.hpp"

#include <htslib/bgzf.h>
#include <libdeflate.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/fallback.hpp"
#include "io/deflate_core.hpp"
#include "io/deflate_lazy.hpp"

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

namespace {

// One thread's twin: its hash table and tokens, kept between blocks.
struct TwinScratch {
  std::vector<uint64_t> buckets = std::vector<uint64_t>(deflate::kBucketWords);
  std::vector<uint32_t> tokens = std::vector<uint32_t>(deflate::kMaxInput);
  void compress(BgzfJob& job) {
    const uint32_t size = deflate::deflate_block_lazy(job.in, job.size, {buckets.data(), tokens.data()},
                                                      job.out + detail::kBgzfHeaderSize);
    job.out_size = detail::frame_bgzf_block(job.in, job.size, job.out, size);
  }
};

}  // namespace

void BgzfDeflateCpu::compress(BgzfJob* jobs, size_t count) {
#pragma omp parallel num_threads(threads_)
  {
    TwinScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (size_t i = 0; i < count; ++i) scratch.compress(jobs[i]);
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

// A batch shared by the GPU, taking rounds from the front, and `helpers` threads running
// the twin on the blocks from the back, one at a time, until the two meet. The GPU's
// rounds are half of what is left (as BgzfDeflateGpu::compress cuts a batch) while more
// than a few hundred blocks are left, the rest in one.
// Returns how many blocks the helpers compressed.
size_t compress_shared(BgzfDeflateGpu& gpu, BgzfJob* jobs, size_t count, int helpers) {
  std::mutex m;
  size_t front = 0, back = count;
  std::atomic<bool> stop{false};
  std::vector<std::exception_ptr> failed(static_cast<size_t>(helpers));
  std::vector<std::thread> threads;
  const auto join = [&] {
    stop = true;
    for (std::thread& t : threads) t.join();
  };
  for (int h = 0; h < helpers; ++h) {
    threads.emplace_back([&, h] {
      try {
        TwinScratch scratch;
        while (!stop) {
          size_t i;
          {
            const std::lock_guard<std::mutex> lock(m);
            if (front >= back) return;
            i = --back;
          }
          scratch.compress(jobs[i]);
        }
      } catch (...) {
        failed[static_cast<size_t>(h)] = std::current_exception();
      }
    });
  }
  try {
    gpu.compress_rounds(jobs, [&](size_t most, size_t& first) {
      const std::lock_guard<std::mutex> lock(m);
      const size_t left = back - front;
      const size_t n = left >= 512 ? std::min(most, (left + 1) / 2) : left;
      first = front;
      front += n;
      return n;
    });
  } catch (...) {
    join();
    throw;
  }
  join();
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  return count - back;
}

// The GPU for every batch, the fallback for a batch the GPU fails and all after it.
class GpuOrFallback : public BlockCompressor {
 public:
  GpuOrFallback(std::unique_ptr<BgzfDeflateGpu> gpu, std::unique_ptr<BlockCompressor> fallback, int helpers)
      : gpu_(std::move(gpu)), fallback_(std::move(fallback)), helpers_(helpers) {}
  ~GpuOrFallback() override {
    if (helped_) log::debug("bgzf", std::to_string(helped_) + " blocks compressed by the cores beside the GPU");
  }
  void compress(BgzfJob* jobs, size_t count) override {
    if (!gpu_) {
      fallback_->compress(jobs, count);
      return;
    }
    const bool on_gpu = gpu::run_or_fall_back(
        "bgzf", "BAM compression",
        [&] {
          if (helpers_ == 0) return gpu_->compress(jobs, count);
          helped_ += compress_shared(*gpu_, jobs, count, helpers_);
        },
        [&] { fallback_->compress(jobs, count); });
    if (!on_gpu) gpu_.reset();
  }

 private:
  std::unique_ptr<BgzfDeflateGpu> gpu_;
  std::unique_ptr<BlockCompressor> fallback_;
  int helpers_;
  size_t helped_ = 0;
};

}  // namespace

std::shared_ptr<BlockCompressor> make_gpu_block_compressor(int device, int threads,
                                                           std::unique_ptr<BlockCompressor> fallback,
                                                           bool share_cores) {
  std::unique_ptr<BgzfDeflateGpu> gpu = gpu::make_engine_or_null<BgzfDeflateGpu>("bgzf", device, threads);
  if (!gpu) return nullptr;
  return std::make_shared<GpuOrFallback>(std::move(gpu), std::move(fallback), share_cores ? threads - 1 : 0);
}

}  // namespace gatemap::io
