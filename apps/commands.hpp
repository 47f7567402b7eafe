#pragma once
// Subcommand registration. Each cmd_*.cpp adds one CLI11 subcommand and sets `run`
// to the function main() calls after parsing. The list lives in commands.cpp.
#include <CLI/CLI.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

namespace gatemap::apps {

struct AppContext {
  std::string command_line;          // argv joined by spaces, for @PG / ##commandline
  std::function<int()> run;          // set by the chosen subcommand's callback
  std::string command = "main";      // name used in [E::...] messages
  int verbosity = 3;                 // -v, as bwa's: 1 errors, 2 warnings, 3 progress, 4 debug
};

using RegisterFn = void (*)(CLI::App& app, AppContext& ctx);
void register_all(CLI::App& app, AppContext& ctx);

// Helper for subcommands: records which one runs and what it does.
inline void on_run(CLI::App* sub, AppContext& ctx, std::function<int()> fn) {
  sub->callback([sub, &ctx, fn]() {
    ctx.command = sub->get_name();
    ctx.run = fn;
  });
}

// The most threads -t takes (OpenMP crashes creating tens of thousands).
constexpr int kMaxThreads = 1024;

// A finite number in [lo, hi] (CLI11's Range lets NaN through).
inline CLI::Validator finite_in(double lo, double hi) {
  const auto text = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  const std::string range = "[" + text(lo) + ", " + text(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(s, v) || !std::isfinite(v) || v < lo || v > hi) {
          return "value " + s + " is not a number in " + range;
        }
        return std::string();
      },
      "FLOAT in " + range);
}

// --gpu-mem SIZE of map, call and correct (gpu/memory_cap.hpp): its text, turned into
// bytes by gpu_memory_bytes() when the run starts (a UsageError for a bad size; 0: no cap).
std::shared_ptr<std::string> add_gpu_memory_option(CLI::App* sub);
size_t gpu_memory_bytes(const std::string& text);

void register_version(CLI::App&, AppContext&);
void register_index(CLI::App&, AppContext&);
void register_map(CLI::App&, AppContext&);
void register_sim(CLI::App&, AppContext&);
void register_eval(CLI::App&, AppContext&);
void register_pairhmm(CLI::App&, AppContext&);
void register_correct(CLI::App&, AppContext&);
void register_call(CLI::App&, AppContext&);
void register_joint(CLI::App&, AppContext&);
void register_bench(CLI::App&, AppContext&);
void register_demo(CLI::App&, AppContext&);
void register_report(CLI::App&, AppContext&);

}  // namespace gatemap::apps
