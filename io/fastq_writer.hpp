#pragma once
// FASTQ output (plain, or bgzip when the path ends in ".gz"; "-" is stdout). Buffered;
// every failed write or close throws IoError.
#include <string>
#include <string_view>

struct BGZF;

namespace gatemap::io {

class FastqWriter {
 public:
  explicit FastqWriter(const std::string& path, int threads = 1);
  ~FastqWriter();
  FastqWriter(const FastqWriter&) = delete;
  FastqWriter& operator=(const FastqWriter&) = delete;
  void write(std::string_view name, std::string_view seq, std::string_view qual);
  void close();

 private:
  void flush_buffer();
  std::string path_;
  BGZF* fp_ = nullptr;
  std::string buf_;
};

}  // namespace gatemap::io
