#pragma once
// The caller's input read ahead: one thread takes the records from the files (merged,
// filtered) in batches, a few threads turn batches into reads, and the caller receives
// them in order while it works on the reads before them (decoding was a third of a GPU
// run, on the one thread the windows wait for). Same reads, same order, same errors
// (rethrown where the read would have been).
#include <htslib/sam.h>

#include <array>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "caller/input.hpp"

namespace gatemap::caller {

class ReadAhead {
 public:
  explicit ReadAhead(ReadInput& input, int converters = 3) : input_(input), converters_(converters) {}
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // As ReadInput::next and ReadInput::query.
  bool next(int& tid, detail::AlignedRead& read);
  // Takes reads the caller is done with (leaves `done` empty): later reads are decoded
  // into their buffers, so that a run of millions of reads does not allocate and free
  // each read's bases, qualities and CIGAR (on different threads, which malloc serialises).
  void recycle(std::vector<detail::AlignedRead>& done);
  void query(int tid, int64_t begin, int64_t end);
  // Stops reading ahead (before the input's counts are read).
  void stop();
  // Seconds the caller waited for reads (the input's decoding not keeping up).
  double waited_s() const { return waited_s_; }

 private:
  // 128 batches (256 k reads): the next window (200 k reads at 30x) is decoded while this one is assembled.
  static constexpr size_t kBatchReads = 2048, kSlots = 128;
  enum class State { free, raw, converting, ready };
  // Batch number n lives in slot n % kSlots.
  struct Slot {
    State state = State::free;
    std::vector<bam1_t*> records;  // copies, reused from batch to batch
    std::vector<int> tids, samples;
    size_t n = 0;
    std::vector<std::pair<int, detail::AlignedRead>> reads;
    bool last = false;  // the input ends after this batch
    std::exception_ptr error;
  };
  void start();
  void take_records();  // the reading thread
  void convert();       // a converting thread

  ReadInput& input_;
  const int converters_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_;
  std::array<Slot, kSlots> slots_;
  bool stopping_ = false, running_ = false;
  size_t to_convert_ = 0;  // the next batch number a converter takes
  size_t to_hand_ = 0;     // the next batch number the caller takes
  std::vector<detail::AlignedRead> spare_;  // recycled reads (under m_)
  std::vector<std::pair<int, detail::AlignedRead>> current_;
  size_t at_ = 0;
  bool ended_ = false;        // the caller has taken the last batch
  std::exception_ptr error_;  // the input's error, thrown once the reads before it are taken
  double waited_s_ = 0;
};

}  // namespace gatemap::caller
