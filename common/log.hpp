#pragma once
// Progress and diagnostics on stderr as bwa-style tagged lines: "[M::map] ...".
// Thread-safe: each call writes one whole line.
#include <chrono>
#include <string>

namespace gatemap::log {

// 0: errors only, 1: warnings, 2: progress (default), 3+: debug.
void set_verbosity(int level);
int verbosity();

void info(const std::string& stage, const std::string& message);   // [M::stage]
void warn(const std::string& stage, const std::string& message);   // [W::stage]
void error(const std::string& stage, const std::string& message);  // [E::stage]
void debug(const std::string& stage, const std::string& message);  // [D::stage]
// A progress line ([M::stage], as info): on a terminal it overwrites the progress line
// before it (one line that moves); elsewhere (a log file) a line of its own, greppable.
void progress(const std::string& stage, const std::string& message);

// "about N s to go" for a job `share` (0..1, > 0) done in `spent` seconds, at that pace.
std::string time_left(double spent, double share);

// Seconds since the process started (wall clock) and CPU seconds used so far.
double wall_seconds();
double cpu_seconds();
// Seconds since t0 (for a stage's time).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
// A stage's clock, started when made: seconds() or ms() since then; restart() starts it
// again. (One clock for every stage's time, instead of steady_clock arithmetic in each.)
class Stopwatch {
 public:
  double seconds() const { return seconds_since(t0_); }
  double ms() const { return 1e3 * seconds(); }
  void restart() { t0_ = std::chrono::steady_clock::now(); }
  // The seconds since the start or the last lap, the clock started again.
  double lap() {
    const double s = seconds();
    restart();
    return s;
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};
// Adds the seconds from its making to the end of its scope to `sum`, a stage's time:
//   { log::StageTimer timing(stats.verify_s); verify(...); }
class StageTimer {
 public:
  explicit StageTimer(double& sum) : sum_(sum), t0_(std::chrono::steady_clock::now()) {}
  ~StageTimer() { sum_ += seconds_since(t0_); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  double& sum_;
  std::chrono::steady_clock::time_point t0_;
};
// Peak resident set size of this process in bytes.
long long peak_rss_bytes();

}  // namespace gatemap::log
