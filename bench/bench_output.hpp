#pragma once
// The table a benchmark writes: standard output, or a file written under a temporary name
// and renamed when the run is complete (the output rule). A write that failed on the way
// (a full disk: rows are flushed as they come) is an error at close().
#include <cstdio>
#include <memory>
#include <string>

#include "io/output_file.hpp"

namespace gatemap::bench {

class BenchOutput {
 public:
  explicit BenchOutput(const std::string& path);  // "" or "-": stdout; throws IoError
  ~BenchOutput();                                 // an unclosed file is removed
  BenchOutput(const BenchOutput&) = delete;
  BenchOutput& operator=(const BenchOutput&) = delete;
  std::FILE* file() const { return f_; }
  void close();  // throws IoError naming the file when any write failed

 private:
  std::string path_;
  std::unique_ptr<io::OutputFile> out_;
  std::FILE* f_ = nullptr;
};

}  // namespace gatemap::bench
