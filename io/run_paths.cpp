#include "io/run_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.hpp"
#include "io/output_file.hpp"

namespace gatemap::io {

namespace fs = std::filesystem;

namespace {

bool is_stdout(const std::string& path) { return path == "-" || path == "/dev/stdout"; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a reader of `path` may also read, or a tool builds beside it: its indexes (samtools
// finds x.bam.bai and x.bai), and for gatemap's index the FASTA behind it (CRAM, -T).
std::vector<std::string> read_with(const std::string& path) {
  std::vector<std::string> out = {path};
  for (const char* ext : {".bai", ".csi", ".crai", ".tbi", ".fai", ".gzi", ".gmi"}) out.push_back(path + ext);
  if (ends_with(path, ".bam")) out.push_back(path.substr(0, path.size() - 4) + ".bai");
  if (ends_with(path, ".cram")) out.push_back(path.substr(0, path.size() - 5) + ".crai");
  if (ends_with(path, ".gmi")) {
    const std::string fasta = path.substr(0, path.size() - 4);
    out.push_back(fasta);
    out.push_back(fasta + ".fai");
  }
  return out;
}

// An existing non-regular file (a FIFO, /dev/null) is written in place: no folder rule.
bool special_file(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec) && !fs::is_regular_file(path, ec) && !fs::is_directory(path, ec);
}

// Where a file cannot be made (IoError, status 1, as a failed open would say).
void check_writable(const std::string& path, const std::string& flag) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError(flag + " '" + path + "' is a folder: name a file");
  if (special_file(path)) return;
  const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw IoError(flag + " '" + path + "': folder '" + folder.string() + "' does not exist");
  }
  // The output is made under a temporary name in its folder: the folder must take new files.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw IoError(flag + " '" + path + "': folder '" + folder.string() + "' is not writable");
  }
}

}  // namespace

RunPaths& RunPaths::reads(const std::string& path, bool its_indexes) {
  if (path.empty() || path == "-") return *this;
  const auto with = its_indexes ? read_with(path) : std::vector<std::string>{path};
  read_.insert(read_.end(), with.begin(), with.end());
  return *this;
}

RunPaths& RunPaths::writes(const std::string& path, const std::string& flag, const std::vector<std::string>& beside) {
  if (path.empty()) return *this;
  written_.push_back({path, flag});
  for (const std::string& b : beside) written_.push_back({b, flag + " (its index)"});
  return *this;
}

void RunPaths::check() const {
  const Written* on_stdout = nullptr;
  for (size_t i = 0; i < written_.size(); ++i) {
    const Written& w = written_[i];
    if (is_stdout(w.path)) {
      if (on_stdout) {
        throw UsageError(w.flag + " '" + w.path + "': standard output already carries " + on_stdout->flag +
                         "'s output; name a file");
      }
      on_stdout = &w;
      if (::fcntl(STDOUT_FILENO, F_GETFD) < 0) {  // started with >&-: every write would fail
        throw IoError(w.flag + " '" + w.path + "': standard output is closed; name a file with " + w.flag);
      }
      continue;
    }
    if (special_file(w.path)) continue;  // /dev/null, a pipe: nothing there to lose
    for (const std::string& r : read_) {
      if (same_file(w.path, r)) {
        throw UsageError(w.flag + " '" + w.path + "' is also an input" +
                         (r == w.path ? std::string() : " ('" + r + "': an input, its index or its FASTA)") +
                         ": refusing to overwrite it");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!is_stdout(written_[j].path) && same_file(w.path, written_[j].path)) {
        throw UsageError(w.flag + " '" + w.path + "' is also written by " + written_[j].flag);
      }
    }
    check_writable(w.path, w.flag);
  }
}

}  // namespace gatemap::io
