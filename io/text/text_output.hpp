#pragma once
// A text report (a benchmark's table, eval's list of misplaced reads): standard output, or
// a file written under a temporary name and renamed when the run is complete (the output
// rule). A write that failed on the way (a full disk: rows may be flushed as they come) is
// an error at close().
#include <cstdio>
#include <memory>
#include <string>

#include "io/output_file.hpp"

namespace gatemap::io {

class TextOutput {
 public:
  explicit TextOutput(const std::string& path);  // "" or "-": stdout; throws IoError
  ~TextOutput();                                 // an unclosed file is removed
  TextOutput(const TextOutput&) = delete;
  TextOutput& operator=(const TextOutput&) = delete;
  std::FILE* file() const { return f_; }
  void close();  // throws IoError naming the file when any write failed

 private:
  std::string path_;
  std::unique_ptr<OutputFile> out_;
  std::FILE* f_ = nullptr;
};

// A report written whole when a run ends (--stats, --summary), as a TextOutput.
void write_side_output(const std::string& path, const std::string& text);

}  // namespace gatemap::io
