#pragma once
// BAM chunks compressed on worker threads of their own, each with its own compressor (a
// GPU's: the kernels of several batches run at once, and the thread that encoded a batch
// goes on mapping while it is compressed). Batches are taken by the workers in turn.
#include <future>
#include <memory>
#include <vector>

#include "common/serial_worker.hpp"
#include "io/bam/bam_encode.hpp"
#include "io/deflate/bgzf_deflate.hpp"

namespace gatemap::io {

class CompressPool {
 public:
  // A worker per compressor.
  explicit CompressPool(std::vector<std::shared_ptr<BlockCompressor>> compressors);
  // Compresses chunks[0, count) (encoded, their blocks not yet compressed); the future
  // says when they are, or rethrows what failed. The chunks must outlive it.
  std::future<void> submit(EncodedChunk* chunks, size_t count);

 private:
  struct Worker {
    std::shared_ptr<BlockCompressor> compressor;
    SerialWorker thread;
  };
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_ = 0;
};

}  // namespace gatemap::io
