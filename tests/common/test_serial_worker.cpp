// SerialWorker: one thread runs the jobs in the order given, a job's exception reaches
// whoever waits for it, and destroying the worker finishes what was submitted.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/serial_worker.hpp"

using gatemap::SerialWorker;

TEST(SerialWorker, RunsJobsInOrderOnOneThread) {
  SerialWorker worker;
  std::vector<int> done;  // written by the worker only: one thread, no lock needed
  std::vector<std::thread::id> threads;
  std::vector<std::future<void>> futures;
  for (int i = 0; i < 200; ++i) {
    futures.push_back(worker.submit([&, i] {
      done.push_back(i);
      threads.push_back(std::this_thread::get_id());
    }));
  }
  for (auto& f : futures) f.get();
  ASSERT_EQ(done.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(done[i], i);
  for (const auto& id : threads) EXPECT_EQ(id, threads.front());
  EXPECT_NE(threads.front(), std::this_thread::get_id());
}

TEST(SerialWorker, ExceptionsReachTheWaiterAndLaterJobsStillRun) {
  SerialWorker worker;
  std::atomic<int> ran{0};
  auto bad = worker.submit([] { throw std::runtime_error("job 1 failed"); });
  auto good = worker.submit([&] { ++ran; });
  EXPECT_THROW(
      {
        try {
          bad.get();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "job 1 failed");
          throw;
        }
      },
      std::runtime_error);
  good.get();
  EXPECT_EQ(ran.load(), 1);
}

TEST(SerialWorker, DestructionFinishesTheSubmittedJobs) {
  std::atomic<int> ran{0};
  {
    SerialWorker worker;
    for (int i = 0; i < 20; ++i) {
      worker.submit([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran.load(), 20);
}
