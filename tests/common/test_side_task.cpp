// run_beside: the task runs on another thread while the caller goes on; get() gives its
// result or rethrows its error; a move-only task is taken as it is.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>

#include "common/side_task.hpp"

using gatemap::run_beside;

TEST(SideTask, RunsBesideTheCallerAndGivesItsResult) {
  std::atomic<bool> released{false};
  const auto caller = std::this_thread::get_id();
  auto task = run_beside([&] {
    while (!released) std::this_thread::yield();  // only ends if the caller goes on
    return std::this_thread::get_id();
  });
  released = true;
  EXPECT_NE(task.get(), caller);
}

TEST(SideTask, ItsErrorIsRethrownByGet) {
  auto task = run_beside([]() -> int { throw std::runtime_error("no device"); });
  EXPECT_THROW(task.get(), std::runtime_error);
  EXPECT_THROW(task.get(), std::runtime_error);  // shared: every waiter sees it
}

TEST(SideTask, AMoveOnlyTaskOwnsWhatItCaptured) {
  auto owned = std::make_unique<int>(7);
  int* seen = owned.get();
  auto task = run_beside([p = std::move(owned)]() mutable {
    const int v = *p;
    p.reset();
    return v;
  });
  EXPECT_EQ(task.get(), 7);
  EXPECT_NE(seen, nullptr);
}
