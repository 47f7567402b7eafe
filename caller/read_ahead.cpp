#include "caller/read_ahead.hpp"

namespace gatemap::caller {

void ReadAhead::start() {
  stopping_ = false, done_ = false;
  current_ = Batch();
  at_ = 0;
  thread_ = std::thread([this] { produce(); });
}

void ReadAhead::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  ready_.clear();
}

void ReadAhead::produce() {
  for (;;) {
    Batch b;
    try {
      int tid = -1;
      detail::AlignedRead r;
      while (b.reads.size() < kBatchReads) {
        if (!input_.next(tid, r)) {
          b.last = true;
          break;
        }
        b.reads.emplace_back(tid, std::move(r));
        r = detail::AlignedRead();
      }
    } catch (...) {
      b.error = std::current_exception();
      b.last = true;
    }
    const bool last = b.last;
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return stopping_ || ready_.size() < kBatchesAhead; });
    if (stopping_) return;
    ready_.push_back(std::move(b));
    cv_.notify_all();
    if (last) return;
  }
}

bool ReadAhead::next(int& tid, detail::AlignedRead& read) {
  if (!thread_.joinable() && !done_) start();
  while (at_ == current_.reads.size()) {
    if (current_.error) std::rethrow_exception(std::exchange(current_.error, nullptr));
    if (current_.last || done_) {
      done_ = true;
      return false;
    }
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !ready_.empty(); });
    current_ = std::move(ready_.front());
    ready_.pop_front();
    at_ = 0;
    cv_.notify_all();
  }
  tid = current_.reads[at_].first;
  read = std::move(current_.reads[at_].second);
  ++at_;
  return true;
}

void ReadAhead::query(int tid, int64_t begin, int64_t end) {
  stop();
  input_.query(tid, begin, end);
  start();
}

}  // namespace gatemap::caller
