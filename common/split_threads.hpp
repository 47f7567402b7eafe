#pragma once
// Short parallel loops for threads that run beside other parallel work (a parser thread,
// the GPU path's packing): body(begin, end) runs on [0, n) cut into `threads` contiguous
// parts, one per fresh std::thread, the calling thread taking the first part. Threads
// end with the loop; an OpenMP team's threads would stay and spin for milliseconds after
// each region, taking cores from the other teams running at the same time.
// A thread that cannot start (a tight ulimit) leaves its part to the calling thread.
// The first part's exception, in part order, is rethrown after all parts end.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gatemap {

template <class Body>
void split_threads(size_t n, int threads, Body&& body) {
  const size_t parts = std::min(n, static_cast<size_t>(std::max(1, threads)));
  if (parts <= 1) {
    if (n > 0) body(size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  const auto run = [&](size_t p) {
    try {
      body(n * p / parts, n * (p + 1) / parts);
    } catch (...) {
      errors[p] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  std::vector<size_t> left;  // parts no thread could be started for
  for (size_t p = 1; p < parts; ++p) {
    try {
      helpers.emplace_back(run, p);
    } catch (const std::system_error&) {
      left.push_back(p);
    }
  }
  run(0);
  for (const size_t p : left) run(p);
  for (std::thread& t : helpers) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace gatemap
