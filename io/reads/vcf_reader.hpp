#pragma once
// Reading VCF/BCF (plain or bgzip) record by record through htslib, with the first
// sample's genotype at hand. Open and read errors throw, naming the file.
#include <htslib/vcf.h>

#include <cstdint>
#include <string>

namespace gatemap::io {

class VcfReader {
 public:
  explicit VcfReader(const std::string& path);
  ~VcfReader();
  VcfReader(const VcfReader&) = delete;
  VcfReader& operator=(const VcfReader&) = delete;

  // Next record, unpacked; false at the end. Throws FormatError on a corrupt file.
  bool next();
  bcf1_t* record() { return rec_; }
  bcf_hdr_t* header() { return hdr_; }
  const char* contig() const { return bcf_hdr_id2name(hdr_, rec_->rid); }
  bool passes() const;  // FILTER is PASS or '.'
  // The first sample's two allele indexes (-1 when missing); false without a genotype.
  bool genotype(int& a, int& b);

 private:
  std::string path_;
  int64_t records_ = 0;  // read so far
  htsFile* fp_ = nullptr;
  bcf_hdr_t* hdr_ = nullptr;
  bcf1_t* rec_ = nullptr;
  int32_t* gt_ = nullptr;
  int ngt_ = 0;
};

}  // namespace gatemap::io
