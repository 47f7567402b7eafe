#include "io/hts_threads.hpp"

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "common/log.hpp"

namespace gatemap::io {

namespace {

// Starts n threads that wait until all have started, then ends them; false if one
// could not start. htslib starts its n workers and one I/O thread.
bool can_start_threads(int n) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> threads;
  bool ok = true;
  try {
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });
      });
    }
  } catch (const std::system_error&) {
    ok = false;
  }
  {
    std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_all();
  for (std::thread& t : threads) t.join();
  return ok;
}

bool threads_available(int threads, const std::string& what) {
  if (threads <= 1) return false;
  if (can_start_threads(threads + 1)) return true;
  log::warn("io", "not enough memory to start " + std::to_string(threads) + " threads for '" + what +
                      "': compressing/decompressing it on one thread");
  return false;
}

}  // namespace

void set_hts_threads(htsFile* fp, int threads, const std::string& what) {
  if (threads_available(threads, what)) hts_set_threads(fp, threads);
}

void set_bgzf_threads(BGZF* fp, int threads, const std::string& what) {
  if (threads_available(threads, what)) bgzf_mt(fp, threads, 256);
}

hts_tpool* start_hts_pool(int threads, const std::string& what) {
  return threads_available(threads, what) ? hts_tpool_init(threads) : nullptr;
}

}  // namespace gatemap::io
