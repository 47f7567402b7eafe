#include "common/log.hpp"

#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace gatemap::log {
namespace {
std::atomic<int> g_verbosity{2};
std::mutex g_mutex;
const auto g_start = std::chrono::steady_clock::now();

bool g_line_open = false;  // a terminal's progress line waits for its newline (under g_mutex)

void close_progress_line() {
  if (g_line_open) std::fputc('\n', stderr), g_line_open = false;
}

void emit(char tag, const std::string& stage, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  close_progress_line();
  std::fprintf(stderr, "[%c::%s] %s\n", tag, stage.c_str(), message.c_str());
  std::fflush(stderr);
}

bool stderr_is_terminal() {
  static const bool terminal = isatty(STDERR_FILENO) == 1;
  return terminal;
}
}  // namespace

void progress(const std::string& stage, const std::string& message) {
  if (g_verbosity < 2) return;
  if (!stderr_is_terminal()) return emit('M', stage, message);
  static const bool closes_at_exit = std::atexit([] {
    const std::lock_guard<std::mutex> lock(g_mutex);
    close_progress_line();
  }) == 0;
  (void)closes_at_exit;
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "\r[M::%s] %s\033[K", stage.c_str(), message.c_str());  // the line cleared past it
  std::fflush(stderr);
  g_line_open = true;
}

void set_verbosity(int level) { g_verbosity = level; }
int verbosity() { return g_verbosity; }

void info(const std::string& stage, const std::string& message) {
  if (g_verbosity >= 2) emit('M', stage, message);
}
void warn(const std::string& stage, const std::string& message) {
  if (g_verbosity >= 1) emit('W', stage, message);
}
void error(const std::string& stage, const std::string& message) { emit('E', stage, message); }
void debug(const std::string& stage, const std::string& message) {
  if (g_verbosity >= 3) emit('D', stage, message);
}

std::string time_left(double spent, double share) {
  return "about " + std::to_string(static_cast<int64_t>(spent * (1 - share) / std::max(share, 1e-9) + 0.5)) +
         " s to go";
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

long long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<long long>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace gatemap::log
