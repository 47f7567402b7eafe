#include "common/thread_budget.hpp"

#include <omp.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/error.hpp"

namespace gatemap {

namespace {

// How many of `wanted` threads can be running at once (each waits until all have
// started or one failed, so that their stacks are all mapped together).
int startable_threads(int wanted) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(wanted));
  for (int i = 0; i < wanted; ++i) {
    try {
      threads.emplace_back([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });
      });
    } catch (const std::system_error&) {
      break;
    }
  }
  const int started = static_cast<int>(threads.size());
  {
    const std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_all();
  for (std::thread& t : threads) t.join();
  return started;
}

}  // namespace

void use_threads(int threads, int teams) {
  const int per_team = threads > 0 ? threads : omp_get_max_threads();
  const int wanted = per_team * std::max(1, teams);
  const int started = startable_threads(wanted);
  if (started < wanted) {
    const int fits = std::max(1, started / std::max(1, teams) - 1);
    throw Error("cannot start " + std::to_string(wanted) + " threads (-t " + std::to_string(per_team) +
                "): only " + std::to_string(started) +
                " started, out of memory (ulimit -v counts every thread's stack) or over the process limit "
                "(ulimit -u); try -t " + std::to_string(fits) + " or more memory");
  }
  omp_set_num_threads(per_team);
}

}  // namespace gatemap
