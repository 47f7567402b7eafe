#include "bench/bench_output.hpp"

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace gatemap::bench {

BenchOutput::BenchOutput(const std::string& path) : path_(path.empty() ? "-" : path) {
  if (path_ == "-") {
    f_ = stdout;
    return;
  }
  out_ = std::make_unique<io::OutputFile>(path_);
  f_ = std::fopen(out_->write_path().c_str(), "w");
  if (!f_) throw IoError("cannot write '" + path_ + "': " + std::strerror(errno));
}

BenchOutput::~BenchOutput() {
  if (f_ && f_ != stdout) std::fclose(f_);
}

void BenchOutput::close() {
  const bool failed = std::fflush(f_) != 0 || std::ferror(f_);
  if (f_ == stdout) {
    if (failed) throw IoError("writing to standard output failed (disk full?)");
    return;
  }
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (failed || !closed) throw IoError("write to '" + path_ + "' failed (disk full?)");
  out_->commit();
}

}  // namespace gatemap::bench
