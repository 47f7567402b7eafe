#pragma once
// Files and folders a run is writing, removed when SIGINT, SIGTERM or SIGHUP ends the
// process; then the signal's default action ends it, so its exit status names the
// signal. The handler uses only async-signal-safe calls (unlink, open, getdents64,
// unlinkat, rmdir): a folder's entries are removed, then the folder. A signal ignored
// when the first path is registered (nohup's SIGHUP) stays ignored.
#include <string>

namespace gatemap {

// Registers a path (a file, or a folder whose entries go with it) for as long as the
// object lives; commit by destroying it or calling release(). Thread-safe. Throws Error
// when more than 64 paths are registered at once.
class RemovedOnSignal {
 public:
  RemovedOnSignal() = default;
  RemovedOnSignal(const std::string& path, bool folder);
  ~RemovedOnSignal() { release(); }
  RemovedOnSignal(RemovedOnSignal&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  RemovedOnSignal& operator=(RemovedOnSignal&& o) noexcept;
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;
  // No longer removed on a signal (the file was renamed into place, or removed).
  void release();

 private:
  int slot_ = -1;
};

}  // namespace gatemap
