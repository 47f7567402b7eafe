#include "io/reads/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.hpp"
#include "io/reads/input_stream.hpp"

namespace gatemap::io {

LineReader::LineReader(const std::string& path, int threads) : in_(std::make_unique<InputStream>(path, threads)) {
  const std::string_view mapped = in_->mapped();
  if (!mapped.empty()) {  // lines found in place; the pages read dropped as it goes
    data_ = mapped.data(), end_ = mapped.size(), eof_ = mapped_ = true;
    release_step_ = in_->release_step();
  }
}

LineReader::~LineReader() = default;

const std::string& LineReader::path() const { return in_->path(); }
double LineReader::fraction_read() const { return in_->fraction_read(); }

namespace {
constexpr size_t kBlock = size_t(1) << 20;
}

void LineReader::fill() {
  if (pos_ > 0) {  // nothing before pos_ is in use: move the rest to the front
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (buf_.size() < end_ + kBlock) buf_.resize(std::max(buf_.size() * 2, end_ + kBlock));
  size_t n = 0;
  try {
    n = in_->read(buf_.data() + end_, kBlock);
  } catch (const IoError& e) {
    throw IoError(std::string(e.what()) + " (at line " + std::to_string(line_no_ + 1) + ")");
  } catch (const FormatError& e) {
    throw FormatError(std::string(e.what()) + " (at line " + std::to_string(line_no_ + 1) + ")");
  }
  if (n == 0) eof_ = true;
  end_ += n;
  data_ = buf_.data();
}

bool LineReader::find_line(size_t& begin, size_t& len, size_t& after) {
  for (;;) {
    const char* from = data_ + pos_;
    const void* nl = end_ > pos_ ? std::memchr(from, '\n', end_ - pos_) : nullptr;
    if (nl || (eof_ && end_ > pos_)) {  // a last line may lack its '\n'
      begin = pos_;
      len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - from) : end_ - pos_;
      after = begin + len + (nl ? 1 : 0);
      if (len > 0 && data_[begin + len - 1] == '\r') --len;
      return true;
    }
    if (eof_) return false;
    fill();
  }
}

bool LineReader::next(std::string_view& line) {
  size_t begin = 0, len = 0, after = 0;
  bool ok;
  if (have_peeked_) {
    ok = peeked_ok_, begin = peek_begin_, len = peek_len_, after = peek_after_;
    have_peeked_ = false;
  } else {
    ok = find_line(begin, len, after);
  }
  if (!ok) return false;
  if (mapped_ && begin >= released_ + release_step_) in_->release_mapped(released_ = begin);
  pos_ = after;
  ++line_no_;
  line = std::string_view(data_ + begin, len);
  return true;
}

void LineReader::consume(size_t bytes, int64_t lines) {
  pos_ += bytes;
  line_no_ += lines;
  if (pos_ >= released_ + release_step_) in_->release_mapped(released_ = pos_);
}

bool LineReader::peek(std::string_view& line) {
  if (!have_peeked_) {
    peeked_ok_ = find_line(peek_begin_, peek_len_, peek_after_);
    have_peeked_ = true;
  }
  if (!peeked_ok_) return false;
  line = std::string_view(data_ + peek_begin_, peek_len_);
  return true;
}

}  // namespace gatemap::io
