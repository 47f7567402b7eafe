#pragma once
// BGZF blocks compressed many at a time by gatemap's own DEFLATE (io/deflate/deflate_core.hpp):
// on the GPU one warp per block (io/deflate/bgzf_deflate.cu), or by its CPU twin, byte for
// byte the same. When `map` runs on a GPU and writes BAM without -l (or with
// --bgzf-gpu), BAM's deflate leaves the CPU cores (at htslib's level 6 it takes two thirds
// of a BAM run's CPU time) to the mapper; files are within ~1.5% of level 6's
// (docs/BENCHMARKS.md "map").
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gatemap::io {

// One block: in[0, size) (size <= 0xff00, BGZF_BLOCK_SIZE) -> the whole BGZF block (header,
// DEFLATE stream, CRC-32, size) in out, which has room for 65536 bytes; out_size set.
struct BgzfJob {
  const uint8_t* in = nullptr;
  uint32_t size = 0;
  uint8_t* out = nullptr;
  uint32_t out_size = 0;
};

// Compresses a batch of blocks (SamWriter gives it every block of a window of records).
class BlockCompressor {
 public:
  virtual ~BlockCompressor() = default;
  virtual void compress(BgzfJob* jobs, size_t count) = 0;
  // Batches one after another, each one's start beside the last one's end (a GPU's
  // kernel then never waits for a batch's copies): start() begins a batch and returns
  // once every batch started before it is compressed; finish() completes the last one.
  // A batch's jobs must stay until it is complete. Here: start() compresses it whole.
  virtual void start(BgzfJob* jobs, size_t count) { compress(jobs, count); }
  virtual void finish() {}
};

// The CPU twin, on `threads` OpenMP threads.
class BgzfDeflateCpu : public BlockCompressor {
 public:
  explicit BgzfDeflateCpu(int threads) : threads_(threads) {}
  void compress(BgzfJob* jobs, size_t count) override;

 private:
  int threads_;
};

// On one GPU (throws CudaError when it cannot be made or a batch fails); `threads` copy
// the blocks in and out and frame them. A batch goes up in rounds of at most
// `blocks_per_round` blocks (each takes ~450 KB of device memory).
class BgzfDeflateGpu : public BlockCompressor {
 public:
  BgzfDeflateGpu(int device, int threads, size_t blocks_per_round = 4096);
  ~BgzfDeflateGpu() override;
  void compress(BgzfJob* jobs, size_t count) override;
  void start(BgzfJob* jobs, size_t count) override;
  void finish() override;
  double kernel_seconds() const;  // the kernels' time so far (CUDA events)
  double match_seconds() const;   // of which finding the matches

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// htslib's compression (libdeflate) at `level` (-1: its default, 6), on `threads`
// OpenMP threads: what a GPU's batches fall back to when their bytes need not be the twin's.
class LevelDeflateCpu : public BlockCompressor {
 public:
  LevelDeflateCpu(int threads, int level) : threads_(threads), level_(level) {}
  void compress(BgzfJob* jobs, size_t count) override;

 private:
  int threads_, level_;
};

// The GPU's compressor, handing a batch it fails (said on stderr), and every one after
// it, to `fallback`; null when no GPU can be used.
std::shared_ptr<BlockCompressor> make_gpu_block_compressor(int device, int threads,
                                                           std::unique_ptr<BlockCompressor> fallback);

namespace detail {
constexpr uint32_t kBgzfHeaderSize = 18, kBgzfFooterSize = 8;
// Writes the BGZF header and footer around out[18, 18 + deflate_size); returns the block's size.
uint32_t frame_bgzf_block(const uint8_t* in, uint32_t size, uint8_t* out, uint32_t deflate_size);
}  // namespace detail

}  // namespace gatemap::io
