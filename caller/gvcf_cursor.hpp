#pragma once
// One gatemap gVCF read by `joint`: opened and checked (one sample, a gVCF's header), then
// read over a region through its tabix/CSI index, or whole, by a cursor of its own per
// thread (htslib's parsing may change a header: not shared between threads).
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <cstdint>
#include <memory>
#include <string>

namespace gatemap::caller {

// One gVCF's header and its index (null: none).
struct GvcfFile {
  std::string path;
  htsFile* fp = nullptr;
  bcf_hdr_t* hdr = nullptr;
  tbx_t* tbx = nullptr;
  hts_idx_t* csi = nullptr;  // a BCF's
  ~GvcfFile() {
    if (tbx) tbx_destroy(tbx);
    if (csi) hts_idx_destroy(csi);
    if (hdr) bcf_hdr_destroy(hdr);
    if (fp) hts_close(fp);
  }
};

// Opens and checks one gVCF (its index is found by the caller). Throws IoError/FormatError naming it.
std::unique_ptr<GvcfFile> open_gvcf(const std::string& path);

// A reader of one gVCF over a region (or the whole file), one record at a time.
class GvcfCursor {
 public:
  GvcfCursor(const GvcfFile& file, const char* region);  // region null: the whole file
  ~GvcfCursor();
  GvcfCursor(const GvcfCursor&) = delete;
  GvcfCursor& operator=(const GvcfCursor&) = delete;

  // The next record (its alleles unpacked), or null at the end. Throws FormatError naming the file on
  // a malformed or out-of-order record.
  bcf1_t* next();
  bcf_hdr_t* header() const { return hdr_; }

 private:
  const GvcfFile& f_;
  htsFile* fp_ = nullptr;
  bcf_hdr_t* hdr_ = nullptr;
  hts_itr_t* itr_ = nullptr;
  bcf1_t* rec_;
  kstring_t line_ = KS_INITIALIZE;
  bool whole_ = false;
  int64_t records_ = 0;
  int last_rid_ = -1;
  int64_t last_pos_ = -1;
};

}  // namespace gatemap::caller
