#include "caller/gvcf_cursor.hpp"

#include <cstdlib>

#include "common/error.hpp"

namespace gatemap::caller {

std::unique_ptr<GvcfFile> open_gvcf(const std::string& path) {
  auto f = std::make_unique<GvcfFile>();
  f->path = path;
  f->fp = hts_open(path.c_str(), "r");
  if (!f->fp) throw IoError("cannot open '" + path + "'");
  f->hdr = bcf_hdr_read(f->fp);
  if (!f->hdr) throw FormatError("'" + path + "' is not a VCF/BCF (no header)");
  if (bcf_hdr_nsamples(f->hdr) != 1) {
    throw FormatError("'" + path + "' holds " + std::to_string(bcf_hdr_nsamples(f->hdr)) +
                      " samples: joint takes one gVCF per sample ('gatemap call --gvcf')");
  }
  if (bcf_hdr_id2int(f->hdr, BCF_DT_ID, "NON_REF") < 0 && bcf_hdr_id2int(f->hdr, BCF_DT_ID, "END") < 0) {
    throw FormatError("'" + path + "' is not a gVCF (no <NON_REF> or END in its header): make it with 'gatemap call "
                      "--gvcf'");
  }
  return f;
}

GvcfCursor::GvcfCursor(const GvcfFile& file, const char* region) : f_(file), rec_(bcf_init()) {
  fp_ = hts_open(f_.path.c_str(), "r");
  if (!fp_) throw IoError("cannot open '" + f_.path + "'");
  hdr_ = bcf_hdr_read(fp_);
  if (!hdr_) throw FormatError("'" + f_.path + "' is not a VCF/BCF (no header)");
  if (region) {  // (a contig the file has no record on: no iterator, nothing to read)
    itr_ = f_.tbx ? tbx_itr_querys(f_.tbx, region) : bcf_itr_querys(f_.csi, hdr_, region);
  } else {
    whole_ = true;
  }
}

GvcfCursor::~GvcfCursor() {
  if (itr_) hts_itr_destroy(itr_);
  if (hdr_) bcf_hdr_destroy(hdr_);
  if (fp_) hts_close(fp_);
  bcf_destroy(rec_);
  free(line_.s);
}

bcf1_t* GvcfCursor::next() {
  int r = -1;
  if (whole_) {
    r = bcf_read(fp_, hdr_, rec_);
  } else if (itr_ && f_.tbx) {
    r = tbx_itr_next(fp_, f_.tbx, itr_, &line_);
    if (r >= 0 && vcf_parse(&line_, hdr_, rec_) < 0) r = -2;
  } else if (itr_) {
    r = bcf_itr_next(fp_, itr_, rec_);
  }
  if (r == -1) return nullptr;
  ++records_;
  if (r < -1 || rec_->errcode) throw FormatError("'" + f_.path + "': record " + std::to_string(records_) + " is malformed");
  if (rec_->rid < last_rid_ || (rec_->rid == last_rid_ && rec_->pos < last_pos_)) {
    throw FormatError("'" + f_.path + "': record " + std::to_string(records_) + " (" + bcf_seqname(hdr_, rec_) + ":" +
                      std::to_string(rec_->pos + 1) + ") is out of order: sort it (bcftools sort)");
  }
  last_rid_ = rec_->rid, last_pos_ = rec_->pos;
  bcf_unpack(rec_, BCF_UN_STR);  // INFO and FORMAT where asked for (most blocks: never)
  return rec_;
}

}  // namespace gatemap::caller
