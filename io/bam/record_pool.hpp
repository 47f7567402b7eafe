#pragma once
// bam1_t records given back once written, for later batches to fill again (bam_set1
// keeps a record's data buffer when it is large enough): a run under way allocates and
// frees no records. Freeing a batch's records on the writer's thread (they were
// allocated on the mapping threads' heaps) was a fifth of its time.
#include <htslib/sam.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace gatemap::io {

class RecordPool {
 public:
  RecordPool() = default;
  ~RecordPool();
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  // Records to reuse (their contents are discarded); recs is left empty.
  void give(std::vector<bam1_t*>& recs);
  // Moves up to n spare records to the end of out.
  void take(std::vector<bam1_t*>& out, size_t n);

 private:
  std::mutex mutex_;
  std::vector<bam1_t*> spare_;
};

// One thread's spares, taken from a pool (if any) a block at a time.
class RecordCache {
 public:
  explicit RecordCache(RecordPool* pool = nullptr) : pool_(pool) {}
  ~RecordCache();
  RecordCache(const RecordCache&) = delete;
  RecordCache& operator=(const RecordCache&) = delete;
  RecordCache(RecordCache&& o) noexcept : pool_(o.pool_), spare_(std::move(o.spare_)) { o.spare_.clear(); }

  void set_pool(RecordPool* pool) { pool_ = pool; }
  // A record to fill: a spare, or a new one (null when out of memory).
  bam1_t* take();

  std::string seq, qual;  // the record being filled: its bases and qualities as stored

 private:
  RecordPool* pool_ = nullptr;
  std::vector<bam1_t*> spare_;
};

}  // namespace gatemap::io
