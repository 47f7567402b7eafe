#include "caller/read_ahead.hpp"

#include <exception>
#include <iterator>
#include <new>

#include "common/log.hpp"

namespace gatemap::caller {

ReadAhead::~ReadAhead() {
  stop();
  for (Slot& s : slots_) {
    for (bam1_t* b : s.records) bam_destroy1(b);
  }
}

void ReadAhead::start() {
  stopping_ = false, ended_ = false, running_ = true, error_ = nullptr;
  to_convert_ = to_hand_ = 0;
  current_.clear();
  at_ = 0;
  for (Slot& s : slots_) s.state = State::free, s.error = nullptr, s.last = false;
  threads_.emplace_back([this] { take_records(); });
  for (int i = 0; i < converters_; ++i) threads_.emplace_back([this] { convert(); });
}

void ReadAhead::stop() {
  if (!running_) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  running_ = false;
}

void ReadAhead::take_records() {
  for (size_t batch = 0;; ++batch) {
    Slot& s = slots_[batch % kSlots];
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stopping_ || s.state == State::free; });
      if (stopping_) return;
    }
    // The slot is this thread's until it is marked raw.
    s.n = 0, s.last = false, s.error = nullptr;
    try {
      int tid = -1, sample = 0;
      while (s.n < kBatchReads) {
        const bam1_t* b = input_.next_record(tid, sample);
        if (!b) {
          s.last = true;
          break;
        }
        if (s.n == s.records.size()) {
          s.records.push_back(bam_init1());
          if (!s.records.back()) throw std::bad_alloc();
          s.tids.push_back(-1);
          s.samples.push_back(0);
        }
        if (!bam_copy1(s.records[s.n], b)) throw std::bad_alloc();
        s.tids[s.n] = tid;
        s.samples[s.n++] = sample;
      }
    } catch (...) {
      s.error = std::current_exception();
      s.last = true;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      s.state = State::raw;
    }
    cv_.notify_all();
    if (s.last) return;
  }
}

void ReadAhead::convert() {
  for (;;) {
    Slot* s = nullptr;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stopping_ || slots_[to_convert_ % kSlots].state == State::raw; });
      if (stopping_) return;
      s = &slots_[to_convert_ % kSlots];
      s->state = State::converting;
      ++to_convert_;
    }
    // Out of memory here goes to the reader as the slot's error (after the reads before
    // it), not out of this thread.
    try {
      {
        std::lock_guard<std::mutex> lock(m_);
        s->reads.resize(s->n);
        for (size_t i = 0; i < s->n && !spare_.empty(); ++i) {
          s->reads[i].second = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      for (size_t i = 0; i < s->n; ++i) {
        s->reads[i].first = s->tids[i];
        ReadInput::to_read(s->records[i], s->reads[i].second);
        s->reads[i].second.sample = s->samples[i];
      }
    } catch (...) {
      s->reads.clear();
      if (!s->error) s->error = std::current_exception();
      s->last = true;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      s->state = State::ready;
    }
    cv_.notify_all();
  }
}

bool ReadAhead::next(int& tid, detail::AlignedRead& read) {
  if (!running_ && !ended_) start();
  while (at_ == current_.size()) {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));  // after the reads before it
    if (ended_) return false;
    Slot& s = slots_[to_hand_ % kSlots];
    std::unique_lock<std::mutex> lock(m_);
    if (s.state != State::ready) {
      const log::StageTimer timing(waited_s_);
      cv_.wait(lock, [&] { return s.state == State::ready; });
    }
    current_.swap(s.reads);
    at_ = 0;
    ended_ = s.last;
    error_ = std::exchange(s.error, nullptr);
    s.state = State::free;
    ++to_hand_;
    lock.unlock();
    cv_.notify_all();
  }
  tid = current_[at_].first;
  read = std::move(current_[at_].second);
  ++at_;
  return true;
}

void ReadAhead::recycle(std::vector<detail::AlignedRead>& done) {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (spare_.empty()) {
      spare_.swap(done);
    } else {
      std::move(done.begin(), done.end(), std::back_inserter(spare_));
    }
  }
  done.clear();
}

void ReadAhead::query(int tid, int64_t begin, int64_t end) {
  stop();
  input_.query(tid, begin, end);
  start();
}

}  // namespace gatemap::caller
