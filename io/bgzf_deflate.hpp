#pragma once
// BGZF blocks compressed many at a time by gatemap's own DEFLATE (io/deflate_core.hpp):
// on the GPU one warp per block (io/bgzf_deflate.cu), or by its CPU twin, byte for
// byte the same. With `map --bgzf-gpu`, BAM output's deflate leaves the CPU cores (at
// htslib's level 6 it takes two thirds of a BAM run's CPU time) to the mapper; files are
// ~4% larger than level 6's (docs/BENCHMARKS.md "map").
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
  double kernel_seconds() const;  // the kernels' time so far (CUDA events)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The GPU's compressor, falling back to the twin (said on stderr) when a batch fails;
// null when no GPU can be used (the caller keeps htslib's compression).
std::shared_ptr<BlockCompressor> make_gpu_block_compressor(int device, int threads);

namespace detail {
constexpr uint32_t kBgzfHeaderSize = 18, kBgzfFooterSize = 8;
// Writes the BGZF header and footer around out[18, 18 + deflate_size); returns the block's size.
uint32_t frame_bgzf_block(const uint8_t* in, uint32_t size, uint8_t* out, uint32_t deflate_size);
}  // namespace detail

}  // namespace gatemap::io
