#pragma once
// The bytes of an input file as its reader wants them: plain text (a regular file is
// mapped, its pages faulted in ahead of the reader on the stream's thread), gzip (one
// member or many, any level) or BGZF, or standard input ("-"). gzip is inflated with ISA-L's igzip
// (2-3x zlib's speed) on a thread of the stream's own that reads ahead of the consumer, so
// the parser never waits for decompression while it has a full chunk to parse; BGZF
// blocks, independent of each other, are inflated on several threads (libdeflate).
// A damaged or truncated stream is an error naming the file, found at the stream's end
// whether or not the input can seek (a BGZF stream must end with its end-of-file block).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gatemap::io {

class InputStream {
 public:
  // Opens the file (or stdin for "-") and starts the read-ahead thread; BGZF input is
  // inflated by `threads` threads. Throws IoError when the file cannot be opened.
  explicit InputStream(const std::string& path, int threads = 1);
  ~InputStream();  // stops the read-ahead thread; never throws
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Copies up to n bytes to out; returns 0 only at the end of the data. Throws IoError
  // (read error) or FormatError (corrupt or truncated compressed data), naming the file.
  // Not thread-safe.
  size_t read(char* out, size_t n);
  const std::string& path() const;
  // How much of a regular file has been read, 0 to 1 (a mapped one: what its reader
  // released), for progress; -1 for a pipe. Thread-safe.
  double fraction_read() const;
  // A plain regular file's bytes, mapped (read() copies from them); empty for anything
  // else. release_mapped drops the pages before `before` from the process's memory (its
  // reader is past them).
  std::string_view mapped() const;
  void release_mapped(size_t before);
  // How far its reader goes between two release_mapped calls: half the pages populated
  // ahead of it (16 MB; less for a small file).
  size_t release_step() const;

  // How far ahead of its consumer a gzip member's one inflating thread may read, for
  // every stream of the process, open or not (at least 6 MB, the default). A consumer
  // faster than the inflate but held up at times (map on the GPU, whose reader waits for
  // output slots) leaves that thread idle unless it may read far ahead. Thread-safe.
  static void set_gzip_read_ahead(size_t bytes);

 private:
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace gatemap::io
