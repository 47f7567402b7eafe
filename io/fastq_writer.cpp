#include "io/fastq_writer.hpp"

#include <htslib/bgzf.h>

#include "common/error.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

FastqWriter::FastqWriter(const std::string& path, int threads) : path_(path.empty() ? "-" : path), out_(path_) {
  const bool gz = path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0;
  fp_ = bgzf_open(out_.write_path().c_str(), gz ? "w" : "wu");
  if (!fp_) throw IoError("cannot write '" + path_ + "'");
  if (gz) set_bgzf_threads(fp_, threads, path_);
}

FastqWriter::~FastqWriter() {
  if (fp_) bgzf_close(fp_);
}

void FastqWriter::flush_buffer() {
  if (!buf_.empty() && bgzf_write(fp_, buf_.data(), buf_.size()) != static_cast<ssize_t>(buf_.size())) {
    throw IoError("write to '" + path_ + "' failed (disk full?)");
  }
  buf_.clear();
}

void FastqWriter::write(std::string_view name, std::string_view seq, std::string_view qual) {
  write_record(name, "", "", seq, qual);
}

void FastqWriter::write(const Read& read) {
  write_record(read.name, read.mate_suffix, read.comment, read.seq, read.qual);
}

void FastqWriter::write_record(std::string_view name, std::string_view suffix, std::string_view comment,
                               std::string_view seq, std::string_view qual) {
  buf_ += '@';
  buf_ += name;
  buf_ += suffix;
  if (!comment.empty()) {
    buf_ += ' ';
    buf_ += comment;
  }
  buf_ += '\n';
  buf_ += seq;
  buf_ += "\n+\n";
  buf_ += qual;
  buf_ += '\n';
  if (buf_.size() > (1 << 20)) flush_buffer();
}

void FastqWriter::close() {
  if (!fp_) return;
  flush_buffer();
  const int ret = bgzf_close(fp_);
  fp_ = nullptr;
  if (ret != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  out_.commit();
}

}  // namespace gatemap::io
