#include "common/signal_cleanup.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/error.hpp"

namespace gatemap {

namespace {

constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
enum : int { kFree = 0, kFile = 1, kFolder = 2 };

// Written under g_mutex, read by the handler: the path is complete before its kind is set.
struct Slot {
  char path[kPathMax];
  volatile sig_atomic_t kind;
};
Slot g_slots[kSlots];
std::mutex g_mutex;
std::once_flag g_installed;
bool g_exiting = false;  // under g_mutex
void (*g_explain)() = nullptr;  // set before any thread starts

struct LinuxDirent64 {  // getdents64's record (the kernel's layout)
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// The folder's entries (files and empty folders), then the folder; passes repeat while
// entries remain, since removing entries while listing may skip some.
void remove_folder(const char* path) {
  alignas(8) static char buf[8192];  // static: the handler's stack may be small
  for (int pass = 0; pass < 16; ++pass) {
    const int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) break;
    bool found = false;
    for (;;) {
      const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + at);
        at += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
        found = true;
        if (unlinkat(fd, d->d_name, 0) != 0) unlinkat(fd, d->d_name, AT_REMOVEDIR);
      }
    }
    close(fd);
    if (!found) break;
  }
  rmdir(path);
}

// Returns whether anything was registered.
bool remove_registered() {
  bool any = false;
  for (Slot& s : g_slots) {
    if (s.kind == kFile) unlink(s.path);
    any = any || s.kind != kFree;
  }
  for (int i = kSlots - 1; i >= 0; --i) {  // later folders first: they may lie in earlier ones
    if (g_slots[i].kind == kFolder) remove_folder(g_slots[i].path);
  }
  return any;
}

// Twice, a moment apart: a thread that registered a file just before may be creating it.
bool remove_registered_twice() {
  if (!remove_registered()) return false;
  const timespec moment{0, 50 * 1000 * 1000};
  nanosleep(&moment, nullptr);
  remove_registered();
  return true;
}

void on_signal(int sig) {
  remove_registered_twice();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Mapped input files (ExplainedMapping), for a bus error's message.
constexpr int kMaps = 16;
struct MapSlot {
  const char* begin;
  const char* end;
  char path[kPathMax];
  volatile sig_atomic_t used;
};
MapSlot g_maps[kMaps];

void say(const char* text) {
  for (size_t left = std::strlen(text); left > 0;) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n, left -= static_cast<size_t>(n);
  }
}

// A bus error in a mapped input: the file has become shorter than when it was mapped. Says
// which file, removes the outputs, and exits with status 1 as for any bad input (no core
// dump: nothing in gatemap failed). A bus error anywhere else ends the process by the signal.
void on_bus_error(int sig, siginfo_t* info, void*) {
  const char* at = static_cast<const char*>(info->si_addr);
  const char* path = nullptr;
  for (const MapSlot& m : g_maps) {
    if (m.used && at >= m.begin && at < m.end) path = m.path;
  }
  if (path) {
    say("[E::gatemap] '");
    say(path);
    say("' became shorter while it was read (changed or truncated by another program); stopped, outputs removed\n");
    remove_registered_twice();
    _exit(EXIT_FAILURE);
  } else {
    say("[E::gatemap] bus error; stopped, outputs removed\n");
  }
  remove_registered_twice();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A finished run has released every path; one still registered means a library called
// exit() in the middle of the run. From here on a thread that registers a path removes it
// itself and stops (it needs the lock for that: the lock is not kept).
void on_exit() {
  if (g_explain) g_explain();
  bool any = false;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_exiting = true;
    for (const Slot& s : g_slots) any = any || s.kind != kFree;
  }
  if (any && remove_registered_twice()) _exit(EXIT_FAILURE);
}

void install() {
  std::atexit(on_exit);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (const int other : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, other);  // one cleanup at a time
    sigaction(sig, &sa, nullptr);
  }
  struct sigaction bus {};
  bus.sa_sigaction = on_bus_error;
  bus.sa_flags = SA_SIGINFO;
  sigemptyset(&bus.sa_mask);
  sigaction(SIGBUS, &bus, nullptr);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, reported as a failed
  // write naming the file (and the output removed), instead of the process being killed.
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace

void explain_exits_with(void (*explain)()) {
  g_explain = explain;
  std::call_once(g_installed, install);
}

RemovedOnSignal::RemovedOnSignal(const std::string& path, bool folder) {
  if (path.size() >= kPathMax) throw Error("path too long to be cleaned up on a signal: '" + path + "'");
  std::call_once(g_installed, install);
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_exiting) {  // another thread is ending the process: remove what the caller made, go no further
    lock.unlock();
    if (folder) {
      remove_folder(path.c_str());
    } else {
      unlink(path.c_str());
    }
    for (;;) pause();
  }
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].kind != kFree) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_slots[i].kind = folder ? kFolder : kFile;
    slot_ = i;
    return;
  }
  throw Error("more than " + std::to_string(kSlots) + " temporary files at once");
}

RemovedOnSignal& RemovedOnSignal::operator=(RemovedOnSignal&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void RemovedOnSignal::remove_now() {
  if (slot_ < 0) return;
  if (g_slots[slot_].kind == kFolder) {
    remove_folder(g_slots[slot_].path);
  } else {
    unlink(g_slots[slot_].path);
  }
  release();
}

ExplainedMapping::ExplainedMapping(const void* begin, size_t size, const std::string& path) {
  std::call_once(g_installed, install);
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < kMaps; ++i) {
    if (g_maps[i].used) continue;
    g_maps[i].begin = static_cast<const char*>(begin);
    g_maps[i].end = g_maps[i].begin + size;
    const size_t n = std::min(path.size(), kPathMax - 1);
    std::memcpy(g_maps[i].path, path.data(), n);
    g_maps[i].path[n] = '\0';
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_maps[i].used = 1;
    slot_ = i;
    return;
  }
  // More mapped files at once than slots: a bus error in this one is reported unnamed.
}

ExplainedMapping::~ExplainedMapping() {
  if (slot_ < 0) return;
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_maps[slot_].used = 0;
}

void RemovedOnSignal::release() {
  if (slot_ < 0) return;
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_slots[slot_].kind = kFree;
  slot_ = -1;
}

}  // namespace gatemap
