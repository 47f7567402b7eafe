#pragma once
// Files and folders a run is writing, removed when SIGINT, SIGTERM or SIGHUP ends the
// process (then the signal's default action ends it, so its exit status names the
// signal), or when exit() is called while one is still registered: a library ending the
// process (libgomp when it cannot start a thread) skips our destructors, and other
// threads run on, so the process then ends at once with status 1, and a path registered
// after that point is removed and its thread blocked instead of going on. The removal uses only
// async-signal-safe calls (unlink, open, getdents64, unlinkat, rmdir): a folder's entries
// are removed, then the folder. A signal ignored when the first path is registered
// (nohup's SIGHUP) stays ignored.
#include <cstddef>
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
  // Removes the path now (a folder with its entries), allocating nothing (it works
  // when memory is short), then releases it.
  void remove_now();
  bool registered() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

// A mapped input file, named on stderr if a bus error hits it (SIGBUS: the file became
// shorter than when it was mapped); the outputs are then removed and the signal ends the
// process. Thread-safe; at most 16 named at once.
class ExplainedMapping {
 public:
  ExplainedMapping(const void* begin, size_t size, const std::string& path);
  ~ExplainedMapping();
  ExplainedMapping(const ExplainedMapping&) = delete;
  ExplainedMapping& operator=(const ExplainedMapping&) = delete;

 private:
  int slot_ = -1;
};

// `explain` is called first when exit() is called in the middle of a run (whether or not a
// path is registered): it says why on stderr. Installs the handlers now.
void explain_exits_with(void (*explain)());

}  // namespace gatemap
