#pragma once
// read -> work -> write, the pipeline of a run over a stream of items (batches of reads):
// one thread reads items in order, `lanes` threads work on them (a lane per GPU, each
// with its share of the cores), one thread writes them in the order they were read.
// At most `slots` items are alive at once (read, being worked on, or waiting for the
// items before them to be written): memory is bounded however unequal the lanes.
// Reading may come in two steps: the reader cuts items in order and `fillers` threads
// finish them (parse several batches at once); they reach the lanes in read order.
// Writing too (finish_with): items a lane is done with are finished on threads of their
// own (made ready to write while the lane goes on), then written in read order.
//
// A lane takes items with next() and hands each back with done(); it may hold several
// at once (to start one while it finishes another). The first exception of any thread
// stops every thread and is rethrown by run().
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/log.hpp"

namespace gatemap {

template <class Item>
class OrderedLanes {
 public:
  // read(item): fills the next item; false when the input is done (the item unused).
  // fill(item), when given, then finishes it on one of `fillers` threads; an item whose
  // fill throws stops the run once the items before it have reached the lanes, so the
  // error rethrown is the input's first.
  OrderedLanes(size_t slots, std::function<bool(Item&)> read, std::function<void(Item&)> fill = {}, int fillers = 1)
      : fill_(std::move(fill)) {
    set_slots(std::max<size_t>(slots, 1));
    for (int i = 0; fill_ && i < std::max(1, fillers); ++i) {
      fillers_.emplace_back([this] { guarded([&] { fill_all(); }); });
    }
    reader_ = std::thread([this, read = std::move(read)] { guarded([&] { read_all(read); }); });
  }
  ~OrderedLanes() {
    stop(nullptr);
    join_readers();
  }
  OrderedLanes(const OrderedLanes&) = delete;
  OrderedLanes& operator=(const OrderedLanes&) = delete;

  // Runs lane(i) for i in [0, lanes) on threads of their own (lane 0 on this one) and
  // write(item) on another, in read order, until the input is done and every item written.
  void run(int lanes, const std::function<void(int)>& lane, const std::function<void(Item&)>& write) {
    std::thread writer([&] { guarded([&] { write_all(write); }); });
    std::vector<std::thread> others, finishers;
    try {
      for (int i = 0; finish_ && i < finishers_; ++i) finishers.emplace_back([&, i] { guarded([&] { finish_all(i); }); });
      for (int i = 1; i < lanes; ++i) others.emplace_back([&, i] { guarded([&] { lane(i); }); });
    } catch (...) {  // a thread that cannot start (a tight ulimit): the run stops
      stop(std::current_exception());
    }
    guarded([&] { lane(0); });
    for (std::thread& t : others) t.join();
    {
      const std::lock_guard<std::mutex> lock(m_);
      lanes_done_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : finishers) t.join();
    {
      const std::lock_guard<std::mutex> lock(m_);
      finished_ = true;
    }
    cv_.notify_all();
    writer.join();
    join_readers();
    if (error_) std::rethrow_exception(error_);
  }

  // For a lane: the next item read, or null when the input is done (or a thread failed).
  // `holding`: the lane holds items not yet done; it then gets null also when no item
  // is ready while every slot is taken (it must finish what it holds first: the slots
  // may be waiting for it).
  Item* next(bool holding) {
    std::unique_lock<std::mutex> lock(m_);
    const double t0 = log::wall_seconds();
    cv_.wait(lock, [&] {
      return !ready_.empty() || input_done() || error_ ||
             (holding && free_.empty() && reader_waiting_ && to_fill_.empty() && filling_ == 0);
    });
    lane_wait_s_ += log::wall_seconds() - t0;
    if (ready_.empty() || error_) return nullptr;
    Item* item = ready_.front().second;
    number_[item] = ready_.front().first;
    ready_.pop_front();
    return item;
  }
  // For a lane: the item is worked on; it is finished (finish_with) and written once
  // the ones before it are.
  void done(Item* item) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      const auto it = number_.find(item);
      if (finish_) {
        to_finish_.emplace_back(it->second, item);
      } else {
        worked_[it->second] = item;
      }
      number_.erase(it);
    }
    cv_.notify_all();
  }
  // Before run(): finish(item, i) on `threads` threads of their own (i: which one) for
  // each item a lane is done with, before it is written.
  void finish_with(std::function<void(Item&, int)> finish, int threads) {
    finish_ = std::move(finish);
    finishers_ = std::max(1, threads);
  }

  // Stops every thread; run() rethrows e (unless an error came first).
  void fail(std::exception_ptr e) { stop(e); }
  // Slots grow to n (the number of lanes known late); never shrink.
  void set_slots(size_t n) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      while (items_.size() < n) free_.push_back(&items_.emplace_back());
    }
    cv_.notify_all();
  }

  // Seconds the lanes waited for items (input behind), summed over lanes; and the
  // reader waited for a free slot (the lanes or the writer behind).
  double lane_wait_s() const { return lane_wait_s_; }
  double reader_wait_s() const { return reader_wait_s_; }

 private:
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (...) {
      stop(std::current_exception());
    }
  }
  void join_readers() {
    if (reader_.joinable()) reader_.join();
    for (std::thread& t : fillers_) {
      if (t.joinable()) t.join();
    }
  }
  bool input_done() const { return read_done_ && published_ == items_read_; }

  void stop(std::exception_ptr e) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      if (!error_) error_ = e ? e : std::make_exception_ptr(std::runtime_error("stopped"));
    }
    cv_.notify_all();
  }

  void read_all(const std::function<bool(Item&)>& read) {
    for (int64_t number = 0;; ++number) {
      Item* item;
      {
        std::unique_lock<std::mutex> lock(m_);
        const double t0 = log::wall_seconds();
        reader_waiting_ = true;
        cv_.notify_all();
        cv_.wait(lock, [&] { return !free_.empty() || error_; });
        reader_waiting_ = false;
        reader_wait_s_ += log::wall_seconds() - t0;
        if (error_) return;
        item = free_.back();
        free_.pop_back();
      }
      const bool more = read(*item);  // outside the lock: the lanes go on meanwhile
      {
        const std::lock_guard<std::mutex> lock(m_);
        if (more && fill_) {
          to_fill_.emplace_back(number, item);
        } else if (more) {
          ready_.emplace_back(number, item);
          ++published_;
        } else {
          free_.push_back(item);
          read_done_ = true;
          items_read_ = number;
        }
      }
      cv_.notify_all();
      if (!more) return;
    }
  }

  // A filler's work: items filled as they are read, handed to the lanes in read order.
  void fill_all() {
    for (;;) {
      std::pair<int64_t, Item*> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return !to_fill_.empty() || read_done_ || error_; });
        if (error_ || to_fill_.empty()) return;
        job = to_fill_.front();
        to_fill_.pop_front();
        ++filling_;
      }
      std::exception_ptr e;
      try {
        fill_(*job.second);
      } catch (...) {
        e = std::current_exception();
      }
      {
        const std::lock_guard<std::mutex> lock(m_);
        --filling_;
        filled_[job.first] = {job.second, e};
        for (auto it = filled_.begin(); it != filled_.end() && it->first == published_; it = filled_.erase(it)) {
          if (it->second.second) {
            if (!error_) error_ = it->second.second;
          } else {
            ready_.push_back({it->first, it->second.first});
          }
          ++published_;
        }
      }
      cv_.notify_all();
    }
  }

  // Finisher i's work: items the lanes are done with, finished in any order.
  void finish_all(int i) {
    for (;;) {
      std::pair<int64_t, Item*> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return !to_finish_.empty() || lanes_done_ || error_; });
        if (error_ || to_finish_.empty()) return;
        job = to_finish_.front();
        to_finish_.pop_front();
      }
      finish_(*job.second, i);
      {
        const std::lock_guard<std::mutex> lock(m_);
        worked_[job.first] = job.second;
      }
      cv_.notify_all();
    }
  }

  void write_all(const std::function<void(Item&)>& write) {
    for (int64_t number = 0;; ++number) {
      Item* item;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] {
          return worked_.count(number) || error_ || (read_done_ && number >= items_read_) || finished_;
        });
        if (!worked_.count(number)) {
          // All read and written, or stopped; else the lanes ended without handing one back.
          if (!error_ && number < items_read_ + !read_done_) {
            error_ = std::make_exception_ptr(std::logic_error("internal: an item was never handed back"));
          }
          return;
        }
        item = worked_[number];
        worked_.erase(number);
      }
      write(*item);
      {
        const std::lock_guard<std::mutex> lock(m_);
        free_.push_back(item);
      }
      cv_.notify_all();
    }
  }

  std::deque<Item> items_;  // a deque: growing keeps the items where they are
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Item*> free_;
  std::function<void(Item&)> fill_;
  std::deque<std::pair<int64_t, Item*>> to_fill_;                       // read, waiting for a filler
  std::map<int64_t, std::pair<Item*, std::exception_ptr>> filled_;  // filled out of order
  int filling_ = 0;
  int64_t published_ = 0;  // items handed to ready_ (or failed), in read order
  std::deque<std::pair<int64_t, Item*>> ready_;  // read, in order, not yet taken
  std::map<Item*, int64_t> number_;               // taken by a lane: their read order
  std::function<void(Item&, int)> finish_;
  int finishers_ = 0;
  std::deque<std::pair<int64_t, Item*>> to_finish_;  // done by a lane, waiting for a finisher
  std::map<int64_t, Item*> worked_;               // done, waiting for the ones before them
  bool read_done_ = false, reader_waiting_ = false, lanes_done_ = false;
  bool finished_ = false;  // the lanes and the finishers are done
  int64_t items_read_ = 0;
  std::exception_ptr error_;
  double lane_wait_s_ = 0, reader_wait_s_ = 0;
  std::vector<std::thread> fillers_;
  std::thread reader_;  // last: it starts once the members it uses exist
};

}  // namespace gatemap
