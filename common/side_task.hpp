#pragma once
// A task run beside the calling thread while it goes on: a start-up probe (CUDA's start,
// an index's checksums, a pair-HMM engine) or one half of a write (mate 2's file beside
// mate 1's). On a thread of its own; where no thread can start (a tight ulimit) it runs
// at once on the calling thread: the same work, only not overlapped. The future's get()
// waits for it and gives its result or rethrows what it threw.
#include <future>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

namespace gatemap {

template <class F>
auto run_beside(F&& f) -> std::shared_future<std::invoke_result_t<std::decay_t<F>&>> {
  using Result = std::invoke_result_t<std::decay_t<F>&>;
  // Shared: a failed start must leave the task to run here (std::async would consume it).
  auto task = std::make_shared<std::decay_t<F>>(std::forward<F>(f));
  try {
    return std::async(std::launch::async, [task] { return (*task)(); }).share();
  } catch (const std::system_error&) {
    std::packaged_task<Result()> here([task] { return (*task)(); });
    std::shared_future<Result> done = here.get_future().share();
    here();
    return done;
  }
}

}  // namespace gatemap
