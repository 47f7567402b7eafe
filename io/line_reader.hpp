#pragma once
// Line-by-line reading of plain, gzip or bgzip text through htslib's BGZF layer
// ("-" is stdin). Keeps the file name and line number for error messages.
#include <cstdint>
#include <string>
#include <string_view>

struct BGZF;

namespace gatemap::io {

class LineReader {
 public:
  // Throws IoError when the file cannot be opened. BGZF input (bgzip, htslib) is
  // decompressed by `threads` threads; plain gzip and text by the caller's thread.
  explicit LineReader(const std::string& path, int threads = 1);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its '\n' (and '\r'); the view lives until the next call.
  // Returns false at end of file; throws IoError on a read or decompression error.
  bool next(std::string_view& line);
  // Look at the next line without consuming it (same contract as next()).
  bool peek(std::string_view& line);

  const std::string& path() const { return path_; }
  int64_t line_number() const { return line_no_; }  // 1-based number of the last line returned

 private:
  bool fetch();

  std::string path_;
  BGZF* fp_ = nullptr;
  std::string buf_;
  char* kbuf_ = nullptr;  // kstring_t storage owned by htslib's allocator
  size_t kcap_ = 0;
  size_t klen_ = 0;
  bool have_peeked_ = false;
  bool peeked_ok_ = false;
  int64_t line_no_ = 0;
};

}  // namespace gatemap::io
