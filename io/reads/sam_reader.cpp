#include "io/reads/sam_reader.hpp"

#include <htslib/bgzf.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"
#include "io/bgzf_eof.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

namespace {

// A BAM header's text length and reference count are checked against what the file can
// hold before htslib allocates by them (a 64 KB file claiming a billion references made
// it ask for 9 GB). DEFLATE expands at most ~1032x; a reference takes at least 9 bytes.
void check_bam_header_sizes(const std::string& path) {
  BGZF* fp = bgzf_open(path.c_str(), "r");
  if (!fp) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  const auto fail = [&](const std::string& what) {
    bgzf_close(fp);
    throw FormatError("'" + path + "': bad BAM header (" + what + ")");
  };
  std::error_code ec;
  const double most = 1032.0 * static_cast<double>(std::filesystem::file_size(path, ec)) + 65536;
  char magic[4];
  uint32_t l_text = 0, n_ref = 0;
  if (bgzf_read(fp, magic, 4) != 4 || std::memcmp(magic, "BAM\1", 4) != 0 || bgzf_read(fp, &l_text, 4) != 4) {
    fail("truncated");
  }
  if (l_text > most) fail("its text claims " + std::to_string(l_text) + " bytes, more than the file holds");
  char skip[65536];
  for (uint32_t left = l_text; left > 0;) {
    const uint32_t n = std::min<uint32_t>(left, sizeof skip);
    if (bgzf_read(fp, skip, n) != static_cast<ssize_t>(n)) fail("its text is truncated");
    left -= n;
  }
  if (bgzf_read(fp, &n_ref, 4) != 4) fail("truncated");
  if (9.0 * n_ref > most) fail("it claims " + std::to_string(n_ref) + " references, more than the file holds");
  bgzf_close(fp);
}

}  // namespace

bool SamReader::is_sam_bam_cram(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_regular_file(path, ec)) return false;
  htsFile* fp = hts_open(path.c_str(), "r");
  if (!fp) return false;
  const htsExactFormat f = hts_get_format(fp)->format;
  hts_close(fp);
  return f == sam || f == bam || f == htsExactFormat::cram;
}

SamReader::SamReader(const std::string& path, int threads, const std::string& reference) : path_(path) {
  fp_ = sam_open(path.c_str(), "r");
  if (!fp_) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  try {
    require_bgzf_eof(fp_, path);
    if (fp_->format.compression == bgzf) set_hts_threads(fp_, threads, path);
    cram_ = fp_->format.format == htsExactFormat::cram;
    if (cram_ && reference.empty()) {
      throw UsageError("'" + path + "' is CRAM: give the reference FASTA it was written against (call -r, map -T, correct -T)");
    }
    if (cram_ && hts_set_opt(fp_, CRAM_OPT_REFERENCE, reference.c_str()) != 0) {
      throw IoError("'" + path + "': cannot use '" + reference + "' as its CRAM reference");
    }
    std::error_code ec;
    if (fp_->format.format == bam && std::filesystem::is_regular_file(path, ec)) check_bam_header_sizes(path);
    hdr_ = sam_hdr_read(fp_);
    if (!hdr_) throw FormatError("'" + path + "': cannot read a SAM/BAM/CRAM header");
  } catch (...) {
    release();
    throw;
  }
}

SamReader::~SamReader() { release(); }

void SamReader::release() {
  if (itr_) hts_itr_destroy(itr_);
  if (idx_) hts_idx_destroy(idx_);
  if (hdr_) sam_hdr_destroy(hdr_);
  if (fp_) sam_close(fp_);
  itr_ = nullptr, idx_ = nullptr, hdr_ = nullptr, fp_ = nullptr;
}

bool SamReader::next(bam1_t* b) {
  const int r = itr_ ? sam_itr_next(fp_, itr_, b) : sam_read1(fp_, hdr_, b);
  if (r < -1) {
    throw FormatError("'" + path_ + "': bad record after record " + std::to_string(records_) +
                      (cram_ ? " (a CRAM is decoded against the reference given: is it the reference the CRAM was written against?)"
                             : " (truncated or corrupt?)"));
  }
  if (r < 0) {
    // A seekable file's marker was checked when it was opened; a pipe's only shows here.
    if (!itr_ && fp_->format.compression == bgzf && fp_->fp.bgzf->no_eof_block) {
      throw FormatError("'" + path_ + "' has no BGZF end-of-file marker: the input is truncated (an interrupted copy?)");
    }
    return false;
  }
  ++records_;
  return true;
}

void SamReader::load_index() {
  if (!idx_) idx_ = sam_index_load(fp_, path_.c_str());
  if (!idx_) {
    throw FormatError("'" + path_ + "' has no index (.bai/.csi/.crai), which a region needs: run 'samtools index " +
                      path_ + "'");
  }
}

void SamReader::query(int tid, int64_t begin, int64_t end) {
  load_index();
  if (itr_) hts_itr_destroy(itr_);
  itr_ = sam_itr_queryi(idx_, tid, begin, end);
  if (!itr_) throw FormatError("'" + path_ + "': cannot query its index");
}

}  // namespace gatemap::io
