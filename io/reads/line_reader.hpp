#pragma once
// Line-by-line reading of plain, gzip or bgzip text ("-" is stdin), decompressed ahead
// of the reader on a thread of its own (io/reads/input_stream.hpp); a plain file's lines are
// found in its mapped bytes. Keeps the file name and line number for error messages.
#include <cstdint>
#include <string>
#include <memory>
#include <string_view>

namespace gatemap::io {

class LineReader {
 public:
  // Throws IoError when the file cannot be opened. BGZF input is inflated on `threads`
  // threads.
  explicit LineReader(const std::string& path, int threads = 1);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its '\n' (and '\r'); the view lives until the next call.
  // Returns false at end of file; throws IoError on a read or decompression error.
  bool next(std::string_view& line);
  // Look at the next line without consuming it (same contract as next()).
  bool peek(std::string_view& line);

  // A mapped file's bytes from the next line on (empty for other input, or after a
  // peek), for a reader that takes whole lines there itself and then consumes them.
  std::string_view rest() const {
    return mapped_ && !have_peeked_ ? std::string_view(data_ + pos_, end_ - pos_) : std::string_view();
  }
  // `bytes` of rest(), `lines` whole lines with their '\n's.
  void consume(size_t bytes, int64_t lines);

  const std::string& path() const;
  double fraction_read() const;  // InputStream::fraction_read
  int64_t line_number() const { return line_no_; }  // 1-based number of the last line returned

 private:
  // The next line as [begin, begin + len) in buf_, consumed up to `after`; false at
  // the end. Reads more input (moving what is left to the front) as needed; a read or
  // decompression error throws, naming the line it was reached at.
  bool find_line(size_t& begin, size_t& len, size_t& after);
  void fill();

  std::unique_ptr<class InputStream> in_;
  std::string buf_;  // input read in large blocks: lines are found with memchr
  const char* data_ = nullptr;  // buf_, or a plain file's mapped bytes
  size_t pos_ = 0, end_ = 0;
  size_t released_ = 0;  // a mapped file's pages before this are dropped
  size_t release_step_ = 0;  // how far past released_ the next drop comes
  bool eof_ = false;
  bool mapped_ = false;
  bool have_peeked_ = false, peeked_ok_ = false;
  size_t peek_begin_ = 0, peek_len_ = 0, peek_after_ = 0;
  int64_t line_no_ = 0;
};

}  // namespace gatemap::io
