#pragma once
// Helpers shared by the tests: a temporary directory and small file writers.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace gatemap::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gatemap_test_XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string random_dna(std::mt19937_64& rng, size_t n) {
  static const char kBases[] = "ACGT";
  std::string s(n, 'A');
  for (auto& c : s) c = kBases[rng() & 3];
  return s;
}

// Runs a shell command, returns its exit status and captures stdout+stderr.
inline int run_command(const std::string& cmd, std::string* output = nullptr) {
  std::string full = cmd + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::string out;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Real public data sets (tests/DATA.md says where each comes from): the folder
// $GATEMAP_TEST_DATA names, else the one the build was configured with (beside the
// checkout). Tests that need one skip, saying how to get it, when it is absent.
inline std::string real_data(const std::string& set) {
  const char* env = std::getenv("GATEMAP_TEST_DATA");
  if (!env) env = std::getenv("GATEMAP_SHARED_DATA");  // the GPU machine's scripts' name for it
  return std::string(env ? env : GATEMAP_SHARED_DATA) + "/" + set;
}
inline std::string real_data_absent(const std::string& set) {
  return "real data set '" + set + "' absent: put it in a folder named by GATEMAP_TEST_DATA (tests/DATA.md)";
}

}  // namespace gatemap::test
