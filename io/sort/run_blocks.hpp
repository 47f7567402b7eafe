#pragma once
// The runs of an external sort on disk as zstd-compressed blocks (level 3: sorted records
// compress several-fold, faster than DEFLATE level 1 and a fifth smaller): the sorter's
// records (io/sort/record_runs.hpp), runs of the final BAM's size, and a genome's
// duplicate-marking ends (io/sort/spilled_sort.hpp), tens of GB raw.
// A block: raw bytes (uint32), compressed bytes (uint32), the compressed bytes; a run
// ends with a block of 0 and 0, so one cut at a block boundary is not taken as complete.
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace gatemap::io {

constexpr size_t kRunBlockBytes = size_t{64} << 10;  // raw bytes of a plain records' block at most

// `bytes` raw bytes as one block, header included.
std::vector<char> compress_run_block(const char* data, size_t bytes);
// `bytes` raw bytes cut in blocks of `block_bytes` (a whole number of records), each
// compressed on one of `threads` threads; in order.
std::vector<std::vector<char>> compress_run_blocks(const char* data, size_t bytes, size_t block_bytes, int threads);

class BlockRunWriter {
 public:
  explicit BlockRunWriter(const std::string& path);  // throws IoError
  ~BlockRunWriter();                                 // closes (a failed run: its owner removes it)
  BlockRunWriter(const BlockRunWriter&) = delete;
  BlockRunWriter& operator=(const BlockRunWriter&) = delete;
  void write(const char* data, size_t bytes);            // compresses it as one block
  void write_compressed(const std::vector<char>& block);  // a block from compress_run_block(s)
  void close();                                           // throws IoError (disk full)

 private:
  std::string path_;
  std::FILE* fp_ = nullptr;
  bool ok_ = true;
};

// A block as read, not yet decompressed (decompressed where the reader chooses: see
// io/sort/record_runs.cpp's read-ahead).
struct PackedBlock {
  std::vector<char> packed;
  size_t raw = 0;
};

class BlockRunReader {
 public:
  // Blocks of at most max_raw raw bytes (more: the run is damaged). Throws IoError.
  explicit BlockRunReader(const std::string& path, size_t max_raw = kRunBlockBytes);
  ~BlockRunReader();
  BlockRunReader(const BlockRunReader&) = delete;
  BlockRunReader& operator=(const BlockRunReader&) = delete;
  // The next block's raw bytes into `out` (at least max_raw); their count, 0 at the end.
  // Throws IoError for a damaged or unreadable run.
  size_t next(char* out);
  // The next block as read; false at the end. Throws IoError likewise.
  bool next_packed(PackedBlock& block);
  // A packed block's raw bytes into `out` (at least block.raw); false if damaged.
  static bool decompress(const PackedBlock& block, char* out);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  size_t max_raw_;
  std::FILE* fp_ = nullptr;
  PackedBlock block_;
  bool at_end_ = false;
};

}  // namespace gatemap::io
