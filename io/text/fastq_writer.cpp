#include "io/text/fastq_writer.hpp"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

FastqWriter::FastqWriter(const std::string& path, int threads, int level)
    : path_(path.empty() ? "-" : path), out_(path_) {
  const bool gz = path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0;
  if (level > 9) throw UsageError("compression level " + std::to_string(level) + " is not between 0 and 9");
  if (!gz) {
    const std::string& at = out_.write_path();
    own_fd_ = at != "-";
    fd_ = own_fd_ ? ::open(at.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : STDOUT_FILENO;
    if (fd_ < 0) throw IoError("cannot write '" + path_ + "': " + std::strerror(errno));
    return;
  }
  fp_ = bgzf_open(out_.write_path().c_str(), level >= 0 ? ("w" + std::to_string(level)).c_str() : "w");
  if (!fp_) throw IoError("cannot write '" + path_ + "'");
  set_bgzf_threads(fp_, threads, path_);
}

FastqWriter::~FastqWriter() {
  if (fp_) bgzf_close(fp_);
  if (own_fd_ && fd_ >= 0) ::close(fd_);
}

void FastqWriter::write_bytes(std::string_view bytes) {
  if (fp_) {
    if (!bytes.empty() && bgzf_write(fp_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      throw IoError("write to '" + path_ + "' failed (disk full?)");
    }
    return;
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw IoError("write to '" + path_ + "' failed: " + std::strerror(n < 0 ? errno : ENOSPC));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void FastqWriter::flush_buffer() {
  write_bytes(buf_);
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
  write_bytes(records);
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
  if (!fp_ && fd_ < 0) return;  // closed already
  flush_buffer();
  int ret = 0;
  if (fp_) {
    ret = bgzf_close(fp_);
    fp_ = nullptr;
  } else if (own_fd_) {
    ret = ::close(fd_);
  }
  fd_ = -1;
  if (ret != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  // bgzip output is synced by htslib's close; plain output is not (see the header).
  out_.commit(own_fd_ ? OutputFile::Replace::remove_first : OutputFile::Replace::by_rename);
}

}  // namespace gatemap::io
