#include "io/line_reader.hpp"

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.hpp"
#include "io/bgzf_eof.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

LineReader::LineReader(const std::string& path, int threads) : path_(path) {
  fp_ = bgzf_open(path.c_str(), "r");
  if (!fp_) {
    throw IoError("cannot open '" + path + "': " + std::strerror(errno ? errno : ENOENT));
  }
  try {
    require_bgzf_eof(fp_, path);
  } catch (...) {
    bgzf_close(fp_);
    throw;
  }
  if (bgzf_compression(fp_) == 2) set_bgzf_threads(fp_, threads, path);  // 2: BGZF
}

LineReader::~LineReader() {
  if (fp_) bgzf_close(fp_);
  std::free(kbuf_);
}

bool LineReader::fetch() {
  kstring_t ks{klen_, kcap_, kbuf_};
  ks.l = 0;
  const int ret = bgzf_getline(fp_, '\n', &ks);
  kbuf_ = ks.s;
  kcap_ = ks.m;
  klen_ = ks.l;
  if (ret == -1) return false;
  if (ret < -1) {
    throw IoError("'" + path_ + "' line " + std::to_string(line_no_ + 1) +
                  ": read error (truncated or corrupt compressed file?)");
  }
  if (klen_ > 0 && kbuf_[klen_ - 1] == '\r') --klen_;
  return true;
}

bool LineReader::next(std::string_view& line) {
  const bool ok = have_peeked_ ? peeked_ok_ : fetch();
  have_peeked_ = false;
  if (!ok) return false;
  ++line_no_;
  line = std::string_view(kbuf_ ? kbuf_ : "", klen_);
  return true;
}

bool LineReader::peek(std::string_view& line) {
  if (!have_peeked_) {
    peeked_ok_ = fetch();
    have_peeked_ = true;
  }
  if (!peeked_ok_) return false;
  line = std::string_view(kbuf_ ? kbuf_ : "", klen_);
  return true;
}

}  // namespace gatemap::io
