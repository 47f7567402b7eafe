#pragma once
// The caller's input read ahead: records are decoded and filtered on a thread of their
// own, in batches, while the caller works on the reads before them (decoding was a
// third of a GPU run, on the one thread the windows wait for). Same reads, same order,
// same errors (rethrown where the read would have been).
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "caller/input.hpp"

namespace gatemap::caller {

class ReadAhead {
 public:
  explicit ReadAhead(ReadInput& input) : input_(input) {}
  ~ReadAhead() { stop(); }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // As ReadInput::next and ReadInput::query.
  bool next(int& tid, detail::AlignedRead& read);
  void query(int tid, int64_t begin, int64_t end);
  // Stops reading ahead (before the input's counts are read).
  void stop();

 private:
  struct Batch {
    std::vector<std::pair<int, detail::AlignedRead>> reads;
    bool last = false;  // the input ends after these reads
    std::exception_ptr error;
  };
  void start();
  void produce();

  static constexpr size_t kBatchReads = 4096, kBatchesAhead = 8;
  ReadInput& input_;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Batch> ready_;
  bool stopping_ = false;
  Batch current_;
  size_t at_ = 0;
  bool done_ = false;  // the input's end was handed out
};

}  // namespace gatemap::caller
