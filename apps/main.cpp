// The `gatemap` binary: parses the command line with CLI11 and runs one subcommand.
// Library errors end here: "[E::<command>] <message>", exit 1 (2 for usage errors).
#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "apps/commands.hpp"
#include "common/build_info.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/signal_cleanup.hpp"

namespace {

// libgomp reads its settings only when it loads, and glibc its tunables, so the process
// restarts itself once with the ones gatemap needs:
// - OpenMP threads spin for a while after each parallel region by default. The GPU paths
//   run two teams at once (the host's stages and the GPU feeder's packing) beside the
//   reading and decoding threads, so spinning threads take the cores those need (libgomp
//   was 29% of the caller's CPU samples on the GPU machine; `call` 10 Mbp 1.62 -> 1.40 s,
//   `correct` 2.71 -> 1.94 s, map and pairhmm no slower, the 2-core machine the same):
//   OMP_WAIT_POLICY=passive, unless the user sets a policy.
// - Thread binding (OMP_PROC_BIND other than false, OMP_PLACES, GOMP_CPU_AFFINITY; often
//   set on clusters) binds the first thread to one core, and every thread gatemap starts
//   beside OpenMP's teams (reader, writer, lanes, workers) inherits that core: a map run
//   took 15x as long on one core (2 H200 + 32 cores, 4 M pairs: 88 s vs 5.7 s). Removed,
//   with a warning.
// - `map`: malloc's memory on huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1, glibc
//   2.35 on; older ones ignore it), as transparent huge pages in "madvise" mode, a common
//   default, need: fewer page faults and a faster exit. 1 M pairs on an H200, plain ->
//   SAM 1.31-1.36 s vs 1.43-1.58, gzip -> sorted BAM 1.80-1.89 vs 1.94-2.14, peak RSS
//   +14% (2026-11-29). Not where a user set it.
// - `call`: the same, and buffers up to 256 MiB from the heap, not mapped afresh (each
//   window's pair-HMM batch and likelihoods were unmapped when freed and faulted in again
//   by the next; mallopt at the command's start did not do it): three 30x BAMs of 2 Mbp,
//   2 cores, page faults 433 k -> 171 k, building the batches 0.97 -> 0.38 s, moving reads
//   2.66 -> 2.12 s, peak RSS +3% (2026-12-08).
bool binds_threads() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  return (bind != nullptr && strcasecmp(bind, "false") != 0) || std::getenv("OMP_PLACES") != nullptr ||
         std::getenv("GOMP_CPU_AFFINITY") != nullptr;
}

// Adds each name=value to GLIBC_TUNABLES where the name is not there yet; whether one was.
bool add_malloc_tunables(std::initializer_list<std::pair<const char*, const char*>> wanted) {
  const char* now = std::getenv("GLIBC_TUNABLES");
  std::string tunables = now ? now : "";
  bool added = false;
  for (const auto& [name, value] : wanted) {
    if (tunables.find(name) != std::string::npos) continue;
    tunables += std::string(tunables.empty() ? "" : ":") + name + "=" + value;
    added = true;
  }
  return added && setenv("GLIBC_TUNABLES", tunables.c_str(), 1) == 0;
}

// Whether exec of /proc/self/exe starts this program again. Not when the kernel started
// another one that runs us: the dynamic loader (`ld.so gatemap ...`: /proc/self/exe is
// ld.so, not the file our code is mapped from) or valgrind (its tool is /proc/self/exe; it
// preloads its vgpreload libraries into the program it runs). Then gatemap runs without
// the settings above, as it does where exec fails.
bool can_restart_itself() {
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return false;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = '\0';
  const auto here = reinterpret_cast<uintptr_t>(&can_restart_itself);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {  // "begin-end perms offset dev inode   path"
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) != 2 || here < begin || here >= end) continue;
    const size_t path = line.find('/');
    return path != std::string::npos && line.compare(path, std::string::npos, exe) == 0;
  }
  return false;
}

void restart_with_our_runtime_settings(int argc, char** argv) {
  if (!can_restart_itself()) return;
  bool restart = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) restart = setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "map" && add_malloc_tunables({{"glibc.malloc.hugetlb", "1"}})) restart = true;
  if (command == "call" &&
      add_malloc_tunables({{"glibc.malloc.hugetlb", "1"}, {"glibc.malloc.mmap_threshold", "268435456"}})) {
    restart = true;
  }
  if (binds_threads()) {
    gatemap::log::warn("main", "OMP_PROC_BIND, OMP_PLACES and GOMP_CPU_AFFINITY are ignored: binding OpenMP's "
                               "threads ties all of gatemap's threads to a few cores");
    for (const char* name : {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"}) unsetenv(name);
    // libgomp has bound this thread already, and exec keeps the binding: the CPUs of all
    // its places (the ones the process was allowed, e.g. by taskset) are given back first.
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    for (int place = 0; place < omp_get_num_places(); ++place) {
      std::vector<int> ids(static_cast<size_t>(omp_get_place_num_procs(place)));
      omp_get_place_proc_ids(place, ids.data());
      for (const int id : ids) {
        if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &cpus);
      }
    }
    if (CPU_COUNT(&cpus) > 0) sched_setaffinity(0, sizeof cpus, &cpus);
    restart = true;
  }
  if (restart) execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

// libgomp ends the process itself when a team's thread cannot start ("libgomp: Thread
// creation failed"), past every check (common/thread_budget.hpp checks at the start, but
// memory used later counts too). An exit during a run says what to do (called by the
// exit handler that then removes the run's temporary outputs).
const char* g_running = nullptr;  // the command under way
struct RunUnderWay {
  explicit RunUnderWay(const char* command) { g_running = command; }
  ~RunUnderWay() { g_running = nullptr; }
  RunUnderWay(const RunUnderWay&) = delete;
  RunUnderWay& operator=(const RunUnderWay&) = delete;
};
void explain_an_exit_during_the_run() {
  if (!g_running) return;
  gatemap::log::error(g_running, "the run was ended by the OpenMP runtime (a thread could not start: out of "
                                 "memory, ulimit -v, or over the process limit); try fewer threads (-t) or more memory");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gatemap;
  restart_with_our_runtime_settings(argc, argv);
  // glibc loads libgcc_s when a thread first exits by unwinding (as OpenMP's threads of a
  // worker thread do); loaded now, that cannot fail, and abort, later under a memory limit.
  dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NODELETE);
  apps::AppContext ctx;
  // As written to @PG CL and ##commandline: one line, so tabs and newlines (a file name may
  // hold them) are written as \t and \n.
  for (int i = 0; i < argc; ++i) {
    if (i) ctx.command_line += ' ';
    for (const char* c = argv[i]; *c; ++c) {
      ctx.command_line += *c == '\t' ? std::string("\\t") : *c == '\n' ? std::string("\\n") : std::string(1, *c);
    }
  }

  CLI::App app{"gatemap " GATEMAP_VERSION ": GPU-accelerated short-read mapper and variant caller", "gatemap"};
  app.set_version_flag("--version", GATEMAP_VERSION);
  app.footer("Each command's options: gatemap COMMAND --help. The guide from FASTQ to a filtered VCF: docs/USAGE.md\n"
             "in the source, or PREFIX/share/doc/gatemap/USAGE.md where 'cmake --install' put gatemap.");
  app.require_subcommand(1);
  app.fallthrough(false);
  apps::register_all(app, ctx);

  if (argc == 1) {
    std::cerr << app.help();
    return 2;
  }
  const std::string first = argv[1];
  if (first == "help") {  // as git and samtools take it
    std::cout << app.help();
    return 0;
  }
  const auto known = app.get_subcommands([&](CLI::App* sub) { return sub->check_name(first); });
  if (first[0] != '-' && known.empty()) {
    log::error("main", "unknown command '" + first + "' (see 'gatemap --help')");
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where = "main", message = e.what();
    for (const auto* sub : app.get_subcommands()) {
      where = sub->get_name();
      // An option this command lacks (a bwa flag, say) is named, not the reads after it.
      for (const std::string& arg : sub->remaining()) {
        if (arg.size() > 1 && arg[0] == '-' && dynamic_cast<const CLI::ExtrasError*>(&e)) {
          message = "unknown option '" + arg + "'";
          break;
        }
      }
    }
    log::error(where, message + " (see 'gatemap " + (where == "main" ? "" : where + " ") + "--help')");
    return 2;
  }
  try {
    log::set_verbosity(ctx.verbosity - 1);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
      log::debug("main", std::to_string(CPU_COUNT(&allowed)) + " CPUs allowed");  // taskset, cgroups
    }
    if (const char* tunables = std::getenv("GLIBC_TUNABLES")) log::debug("main", std::string("GLIBC_TUNABLES ") + tunables);
    explain_exits_with(explain_an_exit_during_the_run);
    const int status = [&] {
      const RunUnderWay running(ctx.command.c_str());  // over, however the run ends here
      return ctx.run ? ctx.run() : 2;
    }();
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw IoError("writing to standard output failed");
    log::debug("main", "exiting at " + std::to_string(log::wall_seconds()) + " s");
    return status;
  } catch (const UsageError& e) {
    log::error(ctx.command, e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    log::error(ctx.command, "out of memory (try fewer threads, a smaller batch, or a machine with more memory)");
    return 1;
  } catch (const std::system_error& e) {
    // A thread that cannot start: memory (ulimit -v) or the process limit (ulimit -u).
    if (e.code() == std::errc::resource_unavailable_try_again) {
      log::error(ctx.command, "cannot start a thread (" + std::string(e.what()) +
                                  "): out of memory or over the process limit; try fewer threads (-t) or more memory");
    } else {
      log::error(ctx.command, e.what());
    }
    return 1;
  } catch (const std::exception& e) {
    log::error(ctx.command, e.what());
    return 1;
  }
}
