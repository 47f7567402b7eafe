#include "io/sort/record_runs.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "io/hts_threads.hpp"
#include "io/sort/record_arena.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kBlocksAtOnce = 4;  // per thread, compressed together
constexpr int kAhead = 2;            // blocks of a run decompressed ahead of the one read
constexpr size_t kMaxBlock = UINT32_MAX;  // a block holds one record at least, however long

}  // namespace

RecordRunWriter::RecordRunWriter(const std::string& path, size_t block_bytes, int threads)
    : path_(path), out_(path), block_bytes_(block_bytes), threads_(std::max(1, threads)) {}

void RecordRunWriter::write_stored(size_t n, const std::function<const uint8_t*(size_t)>& at) {
  std::vector<uint32_t> bytes(n);  // read on all threads: the records lie scattered
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint32_t>(RecordArena::stored_bytes(at(i)));
  for (size_t first = 0; first < n;) {
    std::vector<size_t> cut{first};  // the next blocks' first records
    std::vector<size_t> raw_bytes;
    for (size_t i = first, filled = 0; i < n && cut.size() <= kBlocksAtOnce * threads_; ++i) {
      filled += bytes[i];
      if (filled >= block_bytes_ || i + 1 == n) cut.push_back(i + 1), raw_bytes.push_back(filled), filled = 0;
    }
    compress_and_write(raw_bytes.size(), [&](size_t b, std::vector<char>& room) {
      room.clear();
      room.reserve(raw_bytes[b]);
      for (size_t i = cut[b]; i < cut[b + 1]; ++i) {
        const auto* p = reinterpret_cast<const char*>(at(i));
        room.insert(room.end(), p, p + bytes[i]);
      }
      return std::string_view(room.data(), room.size());
    });
    first = cut.back();
  }
}

void RecordRunWriter::add(const bam1_t* b) {
  const size_t at = filling_.size();
  filling_.resize(at + RecordArena::bytes_of(b));
  RecordArena::store(b, reinterpret_cast<uint8_t*>(filling_.data() + at));
  if (filling_.size() < block_bytes_) return;
  full_.push_back(std::move(filling_));
  filling_ = std::vector<char>();
  filling_.reserve(block_bytes_ + (block_bytes_ >> 2));
  if (full_.size() >= kBlocksAtOnce * threads_) compress_full();
}

void RecordRunWriter::compress_full() {
  compress_and_write(full_.size(), [this](size_t b, std::vector<char>&) {
    return std::string_view(full_[b].data(), full_[b].size());
  });
  full_.clear();
}

// Blocks 0..n-1 compressed on all threads and written in order; raw(b, room) gives block
// b's bytes (gathered into `room`, a thread's own, where they must be).
void RecordRunWriter::compress_and_write(size_t n,
                                         const std::function<std::string_view(size_t, std::vector<char>&)>& raw) {
  std::vector<std::vector<char>> blocks(n);
  ParallelErrors errors;
#pragma omp parallel num_threads(threads_)
  {
    std::vector<char> room;
#pragma omp for schedule(dynamic, 1)
    for (size_t b = 0; b < n; ++b) errors.run([&] {
      const std::string_view bytes = raw(b, room);
      blocks[b] = compress_run_block(bytes.data(), bytes.size());
    });
  }
  errors.rethrow();
  for (const auto& block : blocks) out_.write_compressed(block);
}

void RecordRunWriter::finish() {
  if (!filling_.empty()) full_.push_back(std::move(filling_));
  compress_full();
  out_.close();
}

ReadAheadPool::ReadAheadPool(int threads, const std::string& what) : pool_(start_hts_pool(threads, what)) {}

ReadAheadPool::~ReadAheadPool() {
  if (pool_) hts_tpool_destroy(pool_);
}

// A block on its way through the pool: read here, decompressed there.
struct RecordRunReader::Job {
  PackedBlock block;
  std::vector<char> raw;
  bool ok = false;
  static void* run(void* arg) {
    Job* job = static_cast<Job*>(arg);
    try {
      job->raw.resize(job->block.raw);
      job->ok = BlockRunReader::decompress(job->block, job->raw.data());
    } catch (...) {  // (out of memory) said as a damaged block by the reader
      job->ok = false;
    }
    return job;
  }
};

RecordRunReader::RecordRunReader(const std::string& path, hts_tpool* pool) : in_(path, kMaxBlock), pool_(pool) {
  if (pool_) {
    queue_ = hts_tpool_process_init(pool_, 2 * kAhead, 0);
    if (!queue_) pool_ = nullptr;  // read on this thread
  }
  for (int i = 0; i < kAhead; ++i) read_ahead();
}

RecordRunReader::~RecordRunReader() {
  for (; in_flight_ > 0; --in_flight_) {  // what the pool still works on (a merge that failed)
    hts_tpool_result* r = hts_tpool_next_result_wait(queue_);
    if (!r) break;
    delete static_cast<Job*>(hts_tpool_result_data(r));
    hts_tpool_delete_result(r, 0);
  }
  if (queue_) hts_tpool_process_destroy(queue_);
}

// The run's next block read and handed to the pool (without one: nothing ahead).
void RecordRunReader::read_ahead() {
  if (!pool_ || read_all_) return;
  auto job = std::make_unique<Job>();
  if (!in_.next_packed(job->block)) {
    read_all_ = true;
    return;
  }
  if (hts_tpool_dispatch(pool_, queue_, &Job::run, job.get()) != 0) {
    throw IoError("cannot read the temporary file '" + in_.path() + "': no thread to decompress it");
  }
  job.release();
  ++in_flight_;
}

bool RecordRunReader::next_block() {
  const auto damaged = [&] { return IoError("cannot read the temporary file '" + in_.path() + "' (changed or damaged)"); };
  at_ = used_ = 0;
  if (!pool_) {
    PackedBlock block;
    if (!in_.next_packed(block)) return false;
    if (block_.size() < block.raw) block_.resize(block.raw);
    if (!BlockRunReader::decompress(block, block_.data())) throw damaged();
    used_ = block.raw;
    return true;
  }
  if (in_flight_ == 0) return false;
  hts_tpool_result* r = hts_tpool_next_result_wait(queue_);
  if (!r) throw damaged();
  --in_flight_;
  std::unique_ptr<Job> job(static_cast<Job*>(hts_tpool_result_data(r)));
  hts_tpool_delete_result(r, 0);
  if (!job->ok) throw damaged();
  block_.swap(job->raw);
  used_ = job->block.raw;
  read_ahead();
  return true;
}

bam1_t* RecordRunReader::next() {
  if (at_ == used_ && !next_block()) return nullptr;
  const auto* at = reinterpret_cast<const uint8_t*>(block_.data() + at_);
  const size_t bytes = used_ - at_ < sizeof(bam1_core_t) + 4 ? 0 : RecordArena::stored_bytes(at);
  if (bytes == 0 || bytes > used_ - at_) {
    throw IoError("cannot read the temporary file '" + in_.path() + "' (changed or damaged)");
  }
  RecordArena::view(at, &view_);
  at_ += bytes;
  return &view_;
}

}  // namespace gatemap::io
