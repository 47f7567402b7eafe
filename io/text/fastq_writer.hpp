#pragma once
// FASTQ output (plain, or bgzip when the path ends in ".gz"; "-" is stdout). Buffered;
// every failed write or close throws IoError. Plain output is written with write(2) and
// not synced to disk at close, as Lighter leaves its own (htslib's plain close synced
// only when a tail was left in its buffer: correct's close of 1 M pairs' ~700 MB took
// 0.2-0.3 s in some runs and none in others, H200). bgzip output is htslib's, synced at
// close as all of htslib's compressed files.
#include <string>
#include <string_view>

#include "io/output_file.hpp"
#include "io/reads/fastq.hpp"

struct BGZF;

namespace gatemap::io {

// A read as FastqWriter::write(read) writes it: its size in bytes, and the record put at
// `out` (that many bytes; returns where its bases begin, from `out`).
size_t fastq_record_size(const Read& read);
size_t format_fastq_record(const Read& read, char* out);

class FastqWriter {
 public:
  // .gz output: htslib's deflate at `level` (0-9; -1: its default, 6) on `threads` threads.
  explicit FastqWriter(const std::string& path, int threads = 1, int level = -1);
  ~FastqWriter();
  FastqWriter(const FastqWriter&) = delete;
  FastqWriter& operator=(const FastqWriter&) = delete;
  void write(std::string_view name, std::string_view seq, std::string_view qual);
  // The read with its header as it was read: name, "/1" or "/2", comment.
  void write(const Read& read);
  // Records already formatted (format_fastq_record), written as they are.
  void write_text(std::string_view records);
  void close();

 private:
  void write_record(std::string_view name, std::string_view seq, std::string_view qual);
  void flush_buffer();
  void write_bytes(std::string_view bytes);
  std::string path_;
  OutputFile out_;  // a temporary name until close() succeeds
  BGZF* fp_ = nullptr;  // bgzip output
  int fd_ = -1;         // plain output (-1 once closed)
  bool own_fd_ = false;  // fd_ opened here (not standard output)
  std::string buf_;
};

}  // namespace gatemap::io
