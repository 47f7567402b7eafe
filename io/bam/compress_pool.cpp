#include "io/bam/compress_pool.hpp"

namespace gatemap::io {

CompressPool::CompressPool(std::vector<std::shared_ptr<BlockCompressor>> compressors) {
  for (std::shared_ptr<BlockCompressor>& c : compressors) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->compressor = std::move(c);
  }
}

std::future<void> CompressPool::submit(EncodedChunk* chunks, size_t count) {
  Worker& w = *workers_[next_];
  next_ = (next_ + 1) % workers_.size();
  return w.thread.submit([&w, chunks, count] { compress_chunks(chunks, count, *w.compressor); });
}

}  // namespace gatemap::io
