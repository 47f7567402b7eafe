#pragma once
// The sorter's runs of BAM records (io/sort/bam_sorter.hpp): records packed as in its
// arena (io/sort/record_arena.hpp) in blocks of about block_bytes, compressed on all
// threads (io/sort/run_blocks.hpp): a fifth smaller than BAM at level 1, whose runs took
// 1.15-1.3x the final BAM's disk. Read back without parsing, a record as a view into its
// block; a merge decompresses every run's next blocks ahead on a pool of threads, so that
// the merging thread only compares and copies.
#include <htslib/sam.h>
#include <htslib/thread_pool.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/sort/run_blocks.hpp"

namespace gatemap::io {

class RecordRunWriter {
 public:
  RecordRunWriter(const std::string& path, size_t block_bytes, int threads);  // throws IoError
  // n records in order, record i stored at at(i) in the arena's layout: cut in blocks and
  // compressed on all threads.
  void write_stored(size_t n, const std::function<const uint8_t*(size_t)>& at);
  // One record (a merge's): packed here, compressed with the next blocks on all threads.
  void add(const bam1_t* b);
  void finish();  // throws IoError (disk full)
  const std::string& path() const { return path_; }

 private:
  void compress_full();
  void compress_and_write(size_t n, const std::function<std::string_view(size_t, std::vector<char>&)>& raw);
  std::string path_;
  BlockRunWriter out_;
  size_t block_bytes_;
  int threads_;
  std::vector<char> filling_;
  std::vector<std::vector<char>> full_;  // packed blocks waiting to be compressed together
};

// The threads that decompress runs ahead (htslib's pool); none where they cannot start.
class ReadAheadPool {
 public:
  ReadAheadPool(int threads, const std::string& what);
  ~ReadAheadPool();
  ReadAheadPool(const ReadAheadPool&) = delete;
  ReadAheadPool& operator=(const ReadAheadPool&) = delete;
  hts_tpool* get() const { return pool_; }

 private:
  hts_tpool* pool_ = nullptr;
};

class RecordRunReader {
 public:
  // pool null: blocks decompressed on the calling thread. Throws IoError.
  RecordRunReader(const std::string& path, hts_tpool* pool);
  ~RecordRunReader();
  RecordRunReader(const RecordRunReader&) = delete;
  RecordRunReader& operator=(const RecordRunReader&) = delete;
  // The next record, a view valid until the next call; null at the end. Throws IoError.
  bam1_t* next();

 private:
  struct Job;
  void read_ahead();
  bool next_block();
  BlockRunReader in_;
  hts_tpool_process* queue_ = nullptr;
  hts_tpool* pool_;
  int in_flight_ = 0;
  bool read_all_ = false;
  std::vector<char> block_;  // the current block's raw bytes
  size_t used_ = 0, at_ = 0;
  bam1_t view_{};
};

}  // namespace gatemap::io
