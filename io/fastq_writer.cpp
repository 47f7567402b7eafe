#include "io/fastq_writer.hpp"

#include <htslib/bgzf.h>

#include <algorithm>

#include "common/error.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

FastqWriter::FastqWriter(const std::string& path, int threads, int level)
    : path_(path.empty() ? "-" : path), out_(path_) {
  const bool gz = path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0;
  if (level > 9) throw UsageError("compression level " + std::to_string(level) + " is not between 0 and 9");
  const std::string mode = !gz ? "wu" : level >= 0 ? "w" + std::to_string(level) : "w";
  fp_ = bgzf_open(out_.write_path().c_str(), mode.c_str());
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
  write_record(name, seq, qual);
}

void FastqWriter::write(const Read& read) {
  const size_t at = buf_.size();
  buf_.resize(at + fastq_record_size(read));
  format_fastq_record(read, buf_.data() + at);
  if (buf_.size() > (1 << 20)) flush_buffer();
}

size_t fastq_record_size(const Read& read) {
  return 1 + read.name.size() + read.mate_suffix.size() + (read.comment.empty() ? 0 : 1 + read.comment.size()) + 1 +
         read.seq.size() + 3 + read.qual.size() + 1;
}

size_t format_fastq_record(const Read& read, char* out) {
  char* at = out;
  const auto put = [&](std::string_view s) { at = std::copy(s.begin(), s.end(), at); };
  put("@");
  put(read.name);
  put(read.mate_suffix);
  if (!read.comment.empty()) {
    put(" ");
    put(read.comment);
  }
  put("\n");
  const size_t seq_at = static_cast<size_t>(at - out);
  put(read.seq);
  put("\n+\n");
  put(read.qual);
  put("\n");
  return seq_at;
}

void FastqWriter::write_text(std::string_view records) {
  flush_buffer();
  if (!records.empty() && bgzf_write(fp_, records.data(), records.size()) != static_cast<ssize_t>(records.size())) {
    throw IoError("write to '" + path_ + "' failed (disk full?)");
  }
}

void FastqWriter::write_record(std::string_view name, std::string_view seq, std::string_view qual) {
  buf_ += '@';
  buf_ += name;
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
