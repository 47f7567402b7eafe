#include "io/sort/run_blocks.hpp"

#include <libdeflate.h>
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include "common/error.hpp"
#include "common/parallel.hpp"

namespace gatemap::io {

namespace {

std::vector<char> compress_block(const char* data, size_t bytes) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(1);
  if (!c) throw std::bad_alloc();
  std::vector<char> out(8 + libdeflate_deflate_compress_bound(c, bytes));
  const size_t n = libdeflate_deflate_compress(c, data, bytes, out.data() + 8, out.size() - 8);
  libdeflate_free_compressor(c);
  if (n == 0) throw Error("internal: a sort run's block did not compress");
  const uint32_t header[2] = {static_cast<uint32_t>(bytes), static_cast<uint32_t>(n)};
  std::memcpy(out.data(), header, sizeof header);
  out.resize(8 + n);
  return out;
}

}  // namespace

std::vector<std::vector<char>> compress_run_blocks(const char* data, size_t bytes, size_t block_bytes, int threads) {
  const size_t n = (bytes + block_bytes - 1) / block_bytes;
  std::vector<std::vector<char>> blocks(n);
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 16) num_threads(std::max(1, threads))
  for (size_t b = 0; b < n; ++b) errors.run([&] {
    const size_t at = b * block_bytes;
    blocks[b] = compress_block(data + at, std::min(block_bytes, bytes - at));
  });
  errors.rethrow();
  return blocks;
}

BlockRunWriter::BlockRunWriter(const std::string& path) : path_(path), fp_(std::fopen(path.c_str(), "wb")) {
  if (!fp_) throw IoError("cannot write the temporary file '" + path + "': " + std::strerror(errno) + " (see --tmp-dir)");
}

BlockRunWriter::~BlockRunWriter() {
  if (fp_) std::fclose(fp_);
}

void BlockRunWriter::write(const char* data, size_t bytes) { write_compressed(compress_block(data, bytes)); }

void BlockRunWriter::write_compressed(const std::vector<char>& block) {
  ok_ = ok_ && std::fwrite(block.data(), 1, block.size(), fp_) == block.size();
}

void BlockRunWriter::close() {
  const uint32_t end[2] = {0, 0};  // the end block: a run cut at a block boundary is not complete
  ok_ = ok_ && std::fwrite(end, 1, sizeof end, fp_) == sizeof end;
  const bool closed = std::fclose(fp_) == 0;
  fp_ = nullptr;
  if (!ok_ || !closed) throw IoError("cannot write the temporary file '" + path_ + "' (disk full? see --tmp-dir)");
}

BlockRunReader::BlockRunReader(const std::string& path) : path_(path), fp_(std::fopen(path.c_str(), "rb")) {
  if (!fp_) throw IoError("cannot reopen the temporary file '" + path + "': " + std::strerror(errno));
  decompressor_ = libdeflate_alloc_decompressor();
  if (!decompressor_) {
    std::fclose(fp_);
    throw std::bad_alloc();
  }
}

BlockRunReader::~BlockRunReader() {
  std::fclose(fp_);
  libdeflate_free_decompressor(static_cast<libdeflate_decompressor*>(decompressor_));
}

size_t BlockRunReader::next(char* out) {
  const auto damaged = [&] { return IoError("cannot read the temporary file '" + path_ + "' (changed or damaged)"); };
  if (at_end_) return 0;
  uint32_t header[2];
  if (std::fread(header, 1, sizeof header, fp_) != sizeof header) throw damaged();  // no end block
  if (header[0] == 0 && header[1] == 0) {
    at_end_ = true;
    return 0;
  }
  if (header[0] == 0 || header[0] > kRunBlockBytes) throw damaged();
  packed_.resize(header[1]);
  if (std::fread(packed_.data(), 1, header[1], fp_) != header[1]) throw damaged();
  size_t raw = 0;
  if (libdeflate_deflate_decompress(static_cast<libdeflate_decompressor*>(decompressor_), packed_.data(), header[1],
                                    out, kRunBlockBytes, &raw) != LIBDEFLATE_SUCCESS ||
      raw != header[0]) {
    throw damaged();
  }
  return raw;
}

}  // namespace gatemap::io
