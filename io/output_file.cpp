#include "io/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "common/error.hpp"
#include "io/run_paths.hpp"

namespace gatemap::io {

namespace fs = std::filesystem;

namespace {

// Standard output, or an existing path that is not a regular file (a FIFO, /dev/null):
// nothing to rename.
bool written_in_place(const std::string& path) {
  if (path.empty() || path == "-" || path == "/dev/stdout") return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), write_(path) {
  if (written_in_place(path)) return;
  const fs::path p(path);
  // Same directory (rename stays on one file system); a hidden name with the process id
  // and a random part (processes in other PID namespaces can share an id).
  char random_part[16];
  std::snprintf(random_part, sizeof random_part, "%08x", static_cast<unsigned>(std::random_device()()));
  write_ = (p.parent_path() / ("." + p.filename().string() + ".gatemap-tmp." + std::to_string(::getpid()) + "." +
                               random_part))
               .string();
  on_signal_ = RemovedOnSignal(write_, false);  // and at an exit() from a library (common/signal_cleanup)
}

OutputFile::~OutputFile() {
  if (committed_ || write_ == path_) return;
  std::remove(write_.c_str());
}

void OutputFile::commit(Replace how) {
  if (committed_) return;
  if (write_ != path_) {
    if (how == Replace::remove_first) static_cast<void>(::unlink(path_.c_str()));  // (none: fine)
    if (std::rename(write_.c_str(), path_.c_str()) != 0) {
      throw IoError("cannot rename '" + write_ + "' to '" + path_ + "': " + std::strerror(errno));
    }
  }
  on_signal_.release();
  committed_ = true;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  // Absolute first: "c.fq" and "./c.fq" of a file not yet made are one file.
  return fs::weakly_canonical(fs::absolute(a, ec), ec) == fs::weakly_canonical(fs::absolute(b, ec), ec);
}

void check_not_input(const std::string& out, const std::string& flag, const std::vector<std::string>& inputs) {
  RunPaths paths;
  for (const std::string& in : inputs) paths.reads(in);
  paths.writes(out, flag).check();
}

void check_side_output(const std::string& path, const std::string& flag, const std::vector<std::string>& others) {
  if (path.empty()) return;
  RunPaths paths;
  for (const std::string& other : others) paths.reads(other);
  paths.writes(path, flag).check();
}

void remove_outputs(const std::string& path, const std::vector<std::string>& beside) {
  for (const std::string& p : beside) {
    if (!written_in_place(p)) static_cast<void>(std::remove(p.c_str()));
  }
  if (!written_in_place(path)) static_cast<void>(std::remove(path.c_str()));
}

std::string make_temp_folder(const std::string& prefix) {
  const char* env = std::getenv("TMPDIR");
  const std::string base = env && *env ? env : "/tmp";
  std::error_code ec;
  if (!std::filesystem::is_directory(base, ec)) {
    throw IoError("the temporary folder '" + base + "'" + (env && *env ? " (TMPDIR)" : "") +
                  " does not exist: set TMPDIR to a folder");
  }
  std::string dir = (std::filesystem::path(base) / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(dir.data())) throw IoError("cannot create a temporary folder '" + dir + "': " + std::strerror(errno));
  return dir;
}

}  // namespace gatemap::io
