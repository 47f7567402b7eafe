#include "caller/gvcf_cursor.hpp"

#include <htslib/bgzf.h>
#include <htslib/kseq.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

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

bool is_block(const bcf1_t* rec) { return rec->n_allele == 2 && std::strcmp(rec->d.allele[1], "<NON_REF>") == 0; }

namespace {
// An allele hint's text: one REF base, ALTs ending in <NON_REF>, no INFO, FORMAT GT
// first and the sample's genotype 0/0 (`format_and_sample`: the line's last two fields).
bool is_hint_line(std::string_view ref, std::string_view alt, std::string_view info, std::string_view format_and_sample) {
  constexpr std::string_view kTail = ",<NON_REF>";
  if (ref.size() != 1 || info != "." || alt.size() <= kTail.size()) return false;
  if (alt.substr(alt.size() - kTail.size()) != kTail || format_and_sample.substr(0, 3) != "GT:") return false;
  const size_t tab = format_and_sample.find('\t');
  return tab != std::string_view::npos && format_and_sample.substr(tab + 1, 4) == "0/0:";
}
}  // namespace

KeptRecord::KeptRecord() : rec_(bcf_init()) {
  if (!rec_) throw std::bad_alloc();
}

KeptRecord::~KeptRecord() { bcf_destroy(rec_); }

GvcfCursor::GvcfCursor(const GvcfFile& file, const char* region) : f_(file), rec_(bcf_init()) {
  if (!rec_) throw std::bad_alloc();
  fp_ = hts_open(f_.path.c_str(), "r");
  if (!fp_) throw IoError("cannot open '" + f_.path + "'");
  hdr_ = bcf_hdr_read(fp_);
  if (!hdr_) throw FormatError("'" + f_.path + "' is not a VCF/BCF (no header)");
  text_ = fp_->format.format == vcf;
  if (region) {  // (a contig the file has no record on: no iterator, nothing to read)
    itr_ = f_.tbx ? tbx_itr_querys(f_.tbx, region) : bcf_itr_querys(f_.csi, hdr_, region);
    text_ = text_ && f_.tbx;
    if (text_ && itr_ && itr_->n_off > 0) {
      direct_ = true;
      const std::string r(region);
      region_contig_ = r.substr(0, r.rfind(':'));
      region_begin_ = itr_->beg, region_end_ = itr_->end;
      if (bgzf_seek(hts_get_bgzfp(fp_), static_cast<int64_t>(itr_->off[0].u), SEEK_SET) != 0) {
        throw IoError("cannot read '" + f_.path + "' (its index points past its end?)");
      }
    }
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
  free(copy_.s);
}

FormatError GvcfCursor::bad_end() const {
  return FormatError("'" + f_.path + "': record " + std::to_string(records_) +
                     " is malformed (its END is not a position at or after its own)");
}

// A text line that is a block or an allele hint with a contig of the header: its place,
// without parsing. Anything else (a variant, or a line this scan does not follow) is
// parsed by htslib.
bool GvcfCursor::scan_lazily() {
  std::string_view fields[8];
  std::string_view rest(line_.s, line_.l);
  for (auto& field : fields) {
    const size_t tab = rest.find('\t');
    if (tab == std::string_view::npos) return false;
    field = rest.substr(0, tab);
    rest.remove_prefix(tab + 1);
  }
  const bool block = fields[4] == "<NON_REF>";
  if (!block && !is_hint_line(fields[3], fields[4], fields[7], rest)) return false;
  char* stop = nullptr;
  const long long pos = std::strtoll(fields[1].data(), &stop, 10);
  if (stop != fields[1].data() + fields[1].size() || pos < 1) return false;
  if (fields[0] != contig_) {
    contig_.assign(fields[0]);
    contig_rid_ = bcf_hdr_name2id(hdr_, contig_.c_str());
  }
  if (contig_rid_ < 0) return false;
  place_ = {contig_rid_, pos - 1, block, pos, !block};  // a block without END: its one base
  if (!block) return true;
  const std::string_view info = fields[7];
  for (size_t at = 0; at < info.size();) {
    const size_t semi = std::min(info.find(';', at), info.size());
    const std::string_view kv = info.substr(at, semi - at);
    if (kv.substr(0, 4) == "END=") {
      const long long end = std::strtoll(kv.data() + 4, &stop, 10);
      if (stop != kv.data() + kv.size() || end < pos) throw bad_end();
      place_.end = end;
    }
    at = semi + 1;
  }
  return true;
}

void GvcfCursor::parse(kstring_t* line, bcf1_t* into, int64_t number) {
  if (vcf_parse(line, hdr_, into) < 0 || into->errcode) {
    throw FormatError("'" + f_.path + "': record " + std::to_string(number) + " is malformed");
  }
  bcf_unpack(into, BCF_UN_STR);  // INFO and FORMAT where asked for (most blocks: never)
}

// The next line of the region (direct_): -1 past its end, < -1 for a line without a place.
int GvcfCursor::read_line() {
  for (;;) {
    const int r = bgzf_getline(hts_get_bgzfp(fp_), '\n', &line_);
    if (r < 0) return r;
    const std::string_view line(line_.s, line_.l);
    size_t tab[4];  // the tabs after CHROM, POS, ID and REF
    for (size_t k = 0, from = 0; k < 4; from = tab[k++] + 1) {
      tab[k] = line.find('\t', from);
      if (tab[k] == std::string_view::npos) return -2;
    }
    const size_t t1 = tab[0], t2 = tab[1], t3 = tab[2], t4 = tab[3];
    if (line.substr(0, t1) != region_contig_) return -1;  // the contig ended
    char* stop = nullptr;
    const int64_t pos = std::strtoll(line_.s + t1 + 1, &stop, 10) - 1;
    if (stop != line_.s + t2) return -2;
    if (pos >= region_end_) return -1;
    if (pos >= region_begin_) return r;
    // Before the region: kept only where it reaches into it (its END, or its REF's length).
    int64_t end = pos + static_cast<int64_t>(t4 - t3 - 1);
    const size_t info = line.find("END=");
    if (info != std::string_view::npos && info > 0 && (line[info - 1] == ';' || line[info - 1] == '\t')) {
      end = std::strtoll(line_.s + info + 4, nullptr, 10);
    }
    if (end > region_begin_) return r;
  }
}

const GvcfPlace* GvcfCursor::next() {
  int r = -1;
  if (direct_) {
    r = read_line();
  } else if (text_) {
    r = whole_ ? hts_getline(fp_, KS_SEP_LINE, &line_) : itr_ ? tbx_itr_next(fp_, f_.tbx, itr_, &line_) : -1;
  } else if (whole_) {
    r = bcf_read(fp_, hdr_, rec_);
  } else if (itr_) {
    r = bcf_itr_next(fp_, itr_, rec_);
  }
  if (r == -1) return nullptr;
  ++records_;
  if (r < -1 || (!text_ && rec_->errcode)) {
    throw FormatError("'" + f_.path + "': record " + std::to_string(records_) + " is malformed");
  }
  const GvcfPlace last = place_;
  parsed_ = !text_ || !scan_lazily();
  if (parsed_) {
    if (text_) parse(&line_, rec_, records_);
    bcf_unpack(rec_, BCF_UN_STR);
    const bool block = is_block(rec_);
    int64_t end = rec_->pos + 1;
    if (block) {
      int32_t* v = nullptr;
      int n = 0;
      const int got = bcf_get_info_int32(hdr_, rec_, "END", &v, &n);
      const int64_t value = got == 1 ? v[0] : end;
      free(v);
      if (got == 1 && value <= rec_->pos) throw bad_end();
      end = value;
    }
    place_ = {rec_->rid, rec_->pos, block, end, false};
  }
  if (place_.rid < last.rid || (place_.rid == last.rid && place_.pos < last.pos)) {
    const char* contig = bcf_hdr_id2name(hdr_, place_.rid);
    throw FormatError("'" + f_.path + "': record " + std::to_string(records_) + " (" + contig + ":" +
                      std::to_string(place_.pos + 1) + ") is out of order: sort it (bcftools sort)");
  }
  return &place_;
}

// Text still wanted after parsing: vcf_parse splits a line where it lies, so a copy is parsed.
void GvcfCursor::parse_copy(std::string_view text, bcf1_t* into, int64_t number) {
  copy_.l = 0;
  kputsn(text.data(), text.size(), &copy_);
  parse(&copy_, into, number);
}

bcf1_t* GvcfCursor::record() {
  if (!parsed_) {  // (a block's line: keep() may still want it)
    parse_copy({line_.s, line_.l}, rec_, records_);
    parsed_ = true;
  }
  return rec_;
}

void GvcfCursor::keep(KeptRecord& into) {
  if (!parsed_) {
    into.text_.assign(line_.s, line_.l);
    into.number_ = records_;
    into.parsed_ = false;
    return;
  }
  if (bcf_copy(into.rec_, rec_) == nullptr) throw std::bad_alloc();
  into.parsed_ = true;
}

bcf1_t* GvcfCursor::record(KeptRecord& kept) {
  if (!kept.parsed_) {
    parse_copy(kept.text_, kept.rec_, kept.number_);
    kept.parsed_ = true;
  } else {
    bcf_unpack(kept.rec_, BCF_UN_STR);  // (a copied record comes packed)
  }
  return kept.rec_;
}

}  // namespace gatemap::caller
