#pragma once
// Progress and diagnostics on stderr as bwa-style tagged lines: "[M::map] ...".
// Thread-safe: each call writes one whole line.
#include <string>

namespace gatemap::log {

// 0: errors only, 1: warnings, 2: progress (default), 3+: debug.
void set_verbosity(int level);
int verbosity();

void info(const std::string& stage, const std::string& message);   // [M::stage]
void warn(const std::string& stage, const std::string& message);   // [W::stage]
void error(const std::string& stage, const std::string& message);  // [E::stage]
void debug(const std::string& stage, const std::string& message);  // [D::stage]

// Seconds since the process started (wall clock) and CPU seconds used so far.
double wall_seconds();
double cpu_seconds();
// Peak resident set size of this process in bytes.
long long peak_rss_bytes();

}  // namespace gatemap::log
