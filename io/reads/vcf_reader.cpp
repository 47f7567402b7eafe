#include "io/reads/vcf_reader.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "io/bgzf_eof.hpp"

namespace gatemap::io {

VcfReader::VcfReader(const std::string& path) : path_(path) {
  fp_ = bcf_open(path.c_str(), "r");
  if (!fp_) throw IoError("cannot open VCF '" + path + "'");
  try {
    require_bgzf_eof(fp_, path);
  } catch (...) {
    bcf_close(fp_);
    fp_ = nullptr;
    throw;
  }
  hdr_ = bcf_hdr_read(fp_);
  if (!hdr_) {
    bcf_close(fp_);
    throw FormatError("VCF '" + path + "': cannot read the header");
  }
  rec_ = bcf_init();
}

VcfReader::~VcfReader() {
  std::free(gt_);
  if (rec_) bcf_destroy(rec_);
  if (hdr_) bcf_hdr_destroy(hdr_);
  if (fp_) bcf_close(fp_);
}

bool VcfReader::next() {
  const int ret = bcf_read(fp_, hdr_, rec_);
  if (ret < -1) throw FormatError("VCF '" + path_ + "': truncated or corrupt");
  if (ret != 0) return false;
  ++records_;
  bcf_unpack(rec_, BCF_UN_ALL);
  // htslib reads a line cut short, or a POS that is no number, as a record: refused here.
  const auto bad = [&](const std::string& what) {
    return FormatError("VCF '" + path_ + "' record " + std::to_string(records_) + ": " + what);
  };
  if (rec_->pos < 0) throw bad("POS is not a position (1 or more)");
  if (rec_->n_allele < 1 || rec_->d.allele[0][0] == '\0') throw bad("no REF allele (fewer than 8 columns?)");
  return true;
}

bool VcfReader::passes() const {
  return rec_->d.n_flt == 0 || bcf_has_filter(hdr_, rec_, const_cast<char*>("PASS")) == 1;
}

bool VcfReader::genotype(int& a, int& b) {
  if (bcf_hdr_nsamples(hdr_) == 0 || bcf_get_genotypes(hdr_, rec_, &gt_, &ngt_) < 2) return false;
  const auto allele = [](int32_t v) {
    return (bcf_gt_is_missing(v) || v == bcf_int32_vector_end) ? -1 : bcf_gt_allele(v);
  };
  a = allele(gt_[0]);
  b = allele(gt_[1]);
  return true;
}

}  // namespace gatemap::io
