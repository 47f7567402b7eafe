#include "io/bam/record_pool.hpp"

#include <algorithm>

namespace gatemap::io {

namespace {
constexpr size_t kBlock = 256;  // records a cache takes from the pool at a time
}  // namespace

RecordPool::~RecordPool() {
  for (bam1_t* b : spare_) bam_destroy1(b);
}

void RecordPool::give(std::vector<bam1_t*>& recs) {
  const std::lock_guard<std::mutex> lock(mutex_);
  spare_.insert(spare_.end(), recs.begin(), recs.end());
  recs.clear();
}

void RecordPool::take(std::vector<bam1_t*>& out, size_t n) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t k = std::min(n, spare_.size());
  out.insert(out.end(), spare_.end() - static_cast<std::ptrdiff_t>(k), spare_.end());
  spare_.resize(spare_.size() - k);
}

RecordCache::~RecordCache() {
  for (bam1_t* b : spare_) bam_destroy1(b);
}

bam1_t* RecordCache::take() {
  if (spare_.empty() && pool_) pool_->take(spare_, kBlock);
  if (spare_.empty()) return bam_init1();
  bam1_t* b = spare_.back();
  spare_.pop_back();
  return b;
}

}  // namespace gatemap::io
