#pragma once
// An exception may not leave an OpenMP region (the program would end with "terminate
// called"): each iteration runs through ParallelErrors::run, which keeps the first
// exception, and rethrow() raises it on the calling thread after the region.
//   ParallelErrors errors;
//   #pragma omp parallel for
//   for (...) errors.run([&] { ... });
//   errors.rethrow();
#include <exception>
#include <mutex>

namespace gatemap {

class ParallelErrors {
 public:
  // Runs f() unless an earlier iteration failed; never throws.
  template <class F>
  void run(F&& f) noexcept {
    if (failed_) return;  // a racy read is fine: it only skips work after a failure
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_ = true;
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
  volatile bool failed_ = false;
};

}  // namespace gatemap
