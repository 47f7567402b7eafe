#include "io/bgzf_eof.hpp"

#include "common/error.hpp"

namespace gatemap::io {

void require_bgzf_eof(BGZF* fp, const std::string& path) {
  if (!fp || bgzf_compression(fp) != 2) return;  // 2: BGZF (plain gzip reports truncation itself)
  if (bgzf_check_EOF(fp) == 0) {                 // 1: present, 2: not seekable, < 0: cannot tell
    throw FormatError("'" + path + "' has no BGZF end-of-file marker: the file is truncated (an interrupted copy?)");
  }
}

void require_bgzf_eof(htsFile* fp, const std::string& path) {
  if (fp && fp->format.compression == bgzf) require_bgzf_eof(fp->fp.bgzf, path);
}

}  // namespace gatemap::io
