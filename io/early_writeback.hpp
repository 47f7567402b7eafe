#pragma once
// Starts the kernel writing a file's pages to disk while the file is still being written
// (sync_file_range), so that the fdatasync htslib makes when it closes a file (an output,
// or a sorted run spilled to disk) finds little left to wait for. On the GPU machines
// that wait was 0.6-1.0 s for a 1.2 GB BAM and 1.9-5.1 s for 3.6 GB, after the last
// record was written. The writeback is asked for on a thread of its own: asking blocks
// while the disk's queue is full, and the writer (a sorted BAM's end writes 240 MB in a
// few tenths of a second) must not wait there. Standard output, pipes and other files
// that are not regular are left alone.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace gatemap::io {

class EarlyWriteback {
 public:
  explicit EarlyWriteback(const std::string& path);  // the file as it is being written
  ~EarlyWriteback();
  EarlyWriteback(const EarlyWriteback&) = delete;
  EarlyWriteback& operator=(const EarlyWriteback&) = delete;

  // After a write: once kStep more bytes are in the file, their writeback is started
  // (without waiting for it, nor for the asking).
  void wrote();

 private:
  static constexpr int64_t kStep = int64_t{64} << 20;
  void start_writeback();  // the bytes written since the last start, once there are kStep
  void run();
  int fd_ = -1;
  int64_t started_ = 0;  // bytes whose writeback is started
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false, stopping_ = false;
  std::thread thread_;  // not started: wrote() asks itself
};

}  // namespace gatemap::io
