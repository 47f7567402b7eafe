#pragma once
// The runs of an external sort (io/sort/spilled_sort.hpp) on disk as DEFLATE-compressed blocks
// (libdeflate, level 1): sorted records compress several-fold, and a genome's duplicate-
// marking ends are tens of GB raw, beside runs of records the size of the final BAM.
// A block: raw bytes (uint32), compressed bytes (uint32), the compressed bytes; a run
// ends with a block of 0 and 0, so one cut at a block boundary is not taken as complete.
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace gatemap::io {

constexpr size_t kRunBlockBytes = size_t{64} << 10;  // raw bytes of a block at most

// `bytes` raw bytes cut in blocks of `block_bytes` (<= kRunBlockBytes: a whole number of
// records), each compressed on one of `threads` threads; in order.
std::vector<std::vector<char>> compress_run_blocks(const char* data, size_t bytes, size_t block_bytes, int threads);

class BlockRunWriter {
 public:
  explicit BlockRunWriter(const std::string& path);  // throws IoError
  ~BlockRunWriter();                                 // closes (a failed run: its owner removes it)
  BlockRunWriter(const BlockRunWriter&) = delete;
  BlockRunWriter& operator=(const BlockRunWriter&) = delete;
  void write(const char* data, size_t bytes);            // compresses it (<= kRunBlockBytes) as one block
  void write_compressed(const std::vector<char>& block);  // a block from compress_run_blocks
  void close();                                           // throws IoError (disk full)

 private:
  std::string path_;
  std::FILE* fp_ = nullptr;
  bool ok_ = true;
};

class BlockRunReader {
 public:
  explicit BlockRunReader(const std::string& path);  // throws IoError
  ~BlockRunReader();
  BlockRunReader(const BlockRunReader&) = delete;
  BlockRunReader& operator=(const BlockRunReader&) = delete;
  // The next block's raw bytes into `out` (at least kRunBlockBytes); their count, 0 at
  // the end. Throws IoError for a damaged or unreadable run.
  size_t next(char* out);

 private:
  std::string path_;
  std::FILE* fp_ = nullptr;
  std::vector<char> packed_;
  void* decompressor_ = nullptr;
  bool at_end_ = false;
};

}  // namespace gatemap::io
