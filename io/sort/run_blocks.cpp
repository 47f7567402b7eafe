#include "io/sort/run_blocks.hpp"

#include <omp.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "common/error.hpp"
#include "common/parallel.hpp"

namespace gatemap::io {

namespace {

constexpr int kLevel = 3;

// One context per thread, kept: making one per block cost as much as a small block.
ZSTD_CCtx* compressor() {
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> c(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!c) throw std::bad_alloc();
  return c.get();
}

ZSTD_DCtx* decompressor() {
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!d) throw std::bad_alloc();
  return d.get();
}

}  // namespace

std::vector<char> compress_run_block(const char* data, size_t bytes) {
  if (bytes > UINT32_MAX) throw Error("internal: a sort run's block is over 4 GB");
  // Compressed into this thread's room for the worst case, then copied out at its size:
  // blocks waiting to be written take what they hold, not their bound.
  thread_local std::vector<char> room;
  room.resize(std::max(room.size(), ZSTD_compressBound(bytes)));
  const size_t n = ZSTD_compressCCtx(compressor(), room.data(), room.size(), data, bytes, kLevel);
  if (ZSTD_isError(n)) throw Error(std::string("internal: a sort run's block did not compress: ") + ZSTD_getErrorName(n));
  std::vector<char> out(8 + n);
  const uint32_t header[2] = {static_cast<uint32_t>(bytes), static_cast<uint32_t>(n)};
  std::memcpy(out.data(), header, sizeof header);
  std::memcpy(out.data() + 8, room.data(), n);
  return out;
}

std::vector<std::vector<char>> compress_run_blocks(const char* data, size_t bytes, size_t block_bytes, int threads) {
  const size_t n = (bytes + block_bytes - 1) / block_bytes;
  std::vector<std::vector<char>> blocks(n);
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 16) num_threads(std::max(1, threads))
  for (size_t b = 0; b < n; ++b) errors.run([&] {
    const size_t at = b * block_bytes;
    blocks[b] = compress_run_block(data + at, std::min(block_bytes, bytes - at));
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

void BlockRunWriter::write(const char* data, size_t bytes) { write_compressed(compress_run_block(data, bytes)); }

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

BlockRunReader::BlockRunReader(const std::string& path, size_t max_raw)
    : path_(path), max_raw_(max_raw), fp_(std::fopen(path.c_str(), "rb")) {
  if (!fp_) throw IoError("cannot reopen the temporary file '" + path + "': " + std::strerror(errno));
}

BlockRunReader::~BlockRunReader() { std::fclose(fp_); }

bool BlockRunReader::next_packed(PackedBlock& block) {
  const auto damaged = [&] { return IoError("cannot read the temporary file '" + path_ + "' (changed or damaged)"); };
  if (at_end_) return false;
  uint32_t header[2];
  if (std::fread(header, 1, sizeof header, fp_) != sizeof header) throw damaged();  // no end block
  if (header[0] == 0 && header[1] == 0) {
    at_end_ = true;
    return false;
  }
  if (header[0] == 0 || header[0] > max_raw_ || header[1] > ZSTD_compressBound(header[0])) throw damaged();
  block.packed.resize(header[1]);
  block.raw = header[0];
  if (std::fread(block.packed.data(), 1, header[1], fp_) != header[1]) throw damaged();
  return true;
}

bool BlockRunReader::decompress(const PackedBlock& block, char* out) {
  const size_t n = ZSTD_decompressDCtx(decompressor(), out, block.raw, block.packed.data(), block.packed.size());
  return !ZSTD_isError(n) && n == block.raw;
}

size_t BlockRunReader::next(char* out) {
  if (!next_packed(block_)) return 0;
  if (!decompress(block_, out)) throw IoError("cannot read the temporary file '" + path_ + "' (changed or damaged)");
  return block_.raw;
}

}  // namespace gatemap::io
