#pragma once
// read -> work -> write, the pipeline of a run over a stream of items (batches of reads):
// one thread reads items in order, `lanes` threads work on them (a lane per GPU, each
// with its share of the cores), one thread writes them in the order they were read.
// At most `slots` items are alive at once (read, being worked on, or waiting for the
// items before them to be written): memory is bounded however unequal the lanes.
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
  OrderedLanes(size_t slots, std::function<bool(Item&)> read) {
    set_slots(std::max<size_t>(slots, 1));
    reader_ = std::thread([this, read = std::move(read)] { guarded([&] { read_all(read); }); });
  }
  ~OrderedLanes() {
    stop(nullptr);
    if (runner_.joinable()) runner_.join();
    if (reader_.joinable()) reader_.join();
  }
  OrderedLanes(const OrderedLanes&) = delete;
  OrderedLanes& operator=(const OrderedLanes&) = delete;

  // Runs lane(i) for i in [0, lanes) on threads of their own (lane 0 on this one) and
  // write(item) on another, in read order, until the input is done and every item written.
  void run(int lanes, const std::function<void(int)>& lane, const std::function<void(Item&)>& write) {
    std::thread writer([&] { guarded([&] { write_all(write); }); });
    std::vector<std::thread> others;
    try {
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
    writer.join();
    reader_.join();
    if (error_) std::rethrow_exception(error_);
  }

  // run() on a thread of its own, for a caller with more to do meanwhile (its writer may
  // wait for that); wait() joins it and gives the run's error, if any.
  void start(int lanes, std::function<void(int)> lane, std::function<void(Item&)> write) {
    runner_ = std::thread([this, lanes, lane = std::move(lane), write = std::move(write)] {
      try {
        run(lanes, lane, write);
      } catch (...) {
        run_error_ = std::current_exception();
      }
    });
  }
  std::exception_ptr wait() {
    if (runner_.joinable()) runner_.join();
    return run_error_;
  }

  // For a lane: the next item read, or null when the input is done (or a thread failed).
  // `holding`: the lane holds items not yet done; it then gets null also when no item
  // is ready while every slot is taken (it must finish what it holds first: the slots
  // may be waiting for it).
  Item* next(bool holding) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] {
      return !ready_.empty() || read_done_ || error_ || (holding && free_.empty() && reader_waiting_);
    });
    if (ready_.empty() || error_) return nullptr;
    Item* item = ready_.front().second;
    number_[item] = ready_.front().first;
    ready_.pop_front();
    return item;
  }
  // For a lane: the item is worked on; it is written once the ones before it are.
  void done(Item* item) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      const auto it = number_.find(item);
      worked_[it->second] = item;
      number_.erase(it);
    }
    cv_.notify_all();
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

  // Seconds the reader waited for a free slot (the lanes or the writer behind). (A lane
  // times its own waits for items around next().)
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
        if (more) {
          ready_.emplace_back(number, item);
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

  void write_all(const std::function<void(Item&)>& write) {
    for (int64_t number = 0;; ++number) {
      Item* item;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] {
          return worked_.count(number) || error_ || (read_done_ && number >= items_read_) || lanes_done_;
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
  std::deque<std::pair<int64_t, Item*>> ready_;  // read, in order, not yet taken
  std::map<Item*, int64_t> number_;               // taken by a lane: their read order
  std::map<int64_t, Item*> worked_;               // done, waiting for the ones before them
  bool read_done_ = false, reader_waiting_ = false, lanes_done_ = false;
  int64_t items_read_ = 0;
  std::exception_ptr error_, run_error_;
  double reader_wait_s_ = 0;
  std::thread runner_;  // start()'s
  std::thread reader_;  // last: it starts once the members it uses exist
};

}  // namespace gatemap
