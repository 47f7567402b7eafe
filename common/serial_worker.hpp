#pragma once
// One thread, kept for a whole run, that runs submitted jobs one after another in the
// order given. (A fresh std::async thread per job would also build a fresh OpenMP team
// per job, and a team's threads exiting need libgcc_s loaded: fatal under a tight memory
// limit.) The destructor finishes the jobs already submitted, then joins.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace gatemap {

class SerialWorker {
 public:
  SerialWorker() : thread_([this] { loop(); }) {}
  ~SerialWorker() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // The job's future: get() waits for it and rethrows what it threw.
  std::future<void> submit(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    {
      const std::lock_guard<std::mutex> lock(m_);
      jobs_.push_back(std::move(task));
    }
    cv_.notify_all();
    return done;
  }

 private:
  void loop() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        task = std::move(jobs_.front());
        jobs_.pop_front();
      }
      task();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> jobs_;
  bool stop_ = false;
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace gatemap
