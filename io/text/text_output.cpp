#include "io/text/text_output.hpp"

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace gatemap::io {

TextOutput::TextOutput(const std::string& path) : path_(path.empty() ? "-" : path) {
  if (path_ == "-") {
    f_ = stdout;
    return;
  }
  out_ = std::make_unique<OutputFile>(path_);
  f_ = std::fopen(out_->write_path().c_str(), "w");
  if (!f_) throw IoError("cannot write '" + path_ + "': " + std::strerror(errno));
}

TextOutput::~TextOutput() {
  if (f_ && f_ != stdout) std::fclose(f_);
}

void TextOutput::close() {
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

void write_side_output(const std::string& path, const std::string& text) {
  TextOutput out(path);
  if (std::fwrite(text.data(), 1, text.size(), out.file()) != text.size()) {
    throw IoError("write to '" + path + "' failed (disk full?)");
  }
  out.close();
}

}  // namespace gatemap::io
