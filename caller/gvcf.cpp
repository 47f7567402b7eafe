#include "caller/gvcf.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gatemap::caller {

namespace {

// GATK's default GQ band lower bounds: a block holds positions of one band.
constexpr int32_t kBands[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                              22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                              44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 70, 80, 90, 99};
constexpr int kNumBands = static_cast<int>(sizeof(kBands) / sizeof(kBands[0]));

// log10 P(base | genotype) for one read base of quality q: [match][genotype 0/0, 0/X, X/X].
struct BaseTerms {
  double terms[94][2][3];
  BaseTerms() {
    for (int q = 0; q < 94; ++q) {
      const double e = std::min(0.75, std::pow(10.0, -q / 10.0));
      const double ref_match = 1 - e, ref_miss = e / 3;  // P(base | ref) for a matching / other base
      const double alt_match = e / 3, alt_miss = 1 - e;  // P(base | any other base)
      terms[q][1][0] = std::log10(ref_match);
      terms[q][1][1] = std::log10((ref_match + alt_match) / 2);
      terms[q][1][2] = std::log10(alt_match);
      terms[q][0][0] = std::log10(ref_miss);
      terms[q][0][1] = std::log10((ref_miss + alt_miss) / 2);
      terms[q][0][2] = std::log10(alt_miss);
    }
  }
};

bool next_to_gap(uint32_t cigar_op) {
  const int op = bam_cigar_op(cigar_op);
  return op == BAM_CDEL || op == BAM_CINS || op == BAM_CSOFT_CLIP;
}

const BaseTerms& base_terms() {
  static const BaseTerms t;
  return t;
}

constexpr int kIndelEvidence = 4;  // an evidence kind beside the bases' 0..3 (A, C, G, T)

int base_index(char b) {
  switch (b) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
  }
}

// Read r's evidence over [a, b): covered(p) for every read over position p, and
// evidence(p, kind, q) for a base of quality q >= min_base_q over a reference base
// other than N: kind 0..3 the read's base (A, C, G, T), kIndelEvidence that of an indel
// (or a base other than those).
// GATK's rule: a base beside an indel or a soft clip is evidence of another allele, so
// that an indel's anchor base (its VCF position) carries the reads that hold it; a
// deleted base is such evidence at Q30.
template <class Covered, class Evidence>
void walk_evidence(const detail::AlignedRead& r, const std::string& seq, int64_t a, int64_t b, int min_base_q,
                   Covered&& covered, Evidence&& evidence) {
  int64_t rpos = r.pos;
  int q = 0;
  for (size_t k = 0; k < r.cigar.size(); ++k) {
    const int op = bam_cigar_op(r.cigar[k]), len = bam_cigar_oplen(r.cigar[k]);
    if (op == BAM_CMATCH || op == BAM_CEQUAL || op == BAM_CDIFF) {
      const bool gap_before = k > 0 && next_to_gap(r.cigar[k - 1]);
      const bool gap_after = k + 1 < r.cigar.size() && next_to_gap(r.cigar[k + 1]);
      const int64_t lo = std::max(rpos, a), hi = std::min(rpos + len, b);
      for (int64_t p = lo; p < hi; ++p) {
        const int qi = q + static_cast<int>(p - rpos);
        covered(p);
        const int bq = std::min<int>(r.qual[qi], 93);
        if (bq < min_base_q || r.seq[qi] == 'N' || seq[p] == 'N') continue;
        const bool beside_gap = (gap_before && p == rpos) || (gap_after && p == rpos + len - 1);
        const int base = base_index(r.seq[qi]);
        evidence(p, beside_gap || base < 0 ? kIndelEvidence : base, bq);
      }
      rpos += len, q += len;
    } else if (op == BAM_CDEL) {
      const int64_t lo = std::max(rpos, a), hi = std::min(rpos + len, b);
      for (int64_t p = lo; p < hi; ++p) {
        covered(p);
        evidence(p, kIndelEvidence, 30);
      }
      rpos += len;
    } else if (op == BAM_CREF_SKIP) {
      rpos += len;
    } else if (op == BAM_CINS || op == BAM_CSOFT_CLIP) {
      q += len;
    }
  }
}

// Every read's evidence over [slice_at[0], slice_at.back()), the slices in parallel; each
// walks the reads (sorted by start) that reach it.
template <class Covered, class Evidence>
void walk_slices(const std::vector<detail::AlignedRead>& reads, const std::string& seq,
                 const std::vector<int64_t>& slice_at, int min_base_q, Covered&& covered, Evidence&& evidence) {
  const int64_t slices = static_cast<int64_t>(slice_at.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t a = slice_at[s], b = slice_at[s + 1];
    for (const detail::AlignedRead& r : reads) {
      if (r.pos >= b) break;
      if (r.end <= a) continue;
      walk_evidence(r, seq, a, b, min_base_q, covered, evidence);
    }
  }
}

// VCF's index of genotype {a, b}.
int genotype_index(int a, int b) { return a <= b ? b * (b + 1) / 2 + a : a * (a + 1) / 2 + b; }

// PLs from log10 likelihoods (normalised to the best) and the GQ they give: the
// second-lowest PL where the first genotype (0/0) is the best, else 0.
template <size_t N>
int32_t phred_scaled(const std::array<double, N>& gl, std::array<int32_t, N>& pl) {
  const double best = *std::max_element(gl.begin(), gl.end());
  for (size_t k = 0; k < N; ++k) pl[k] = static_cast<int32_t>(std::lround(std::min(1e6, -10.0 * (gl[k] - best))));
  if (pl[0] != 0) return 0;
  return std::min(99, *std::min_element(pl.begin() + 1, pl.end()));
}

// The hints' likelihoods, from a second walk over the reads that cover one: per
// evidence, P(evidence | allele) is 1 - e for its own allele (a base's, or <NON_REF> for
// an indel's) and e / 3 for any other; a genotype's is the mean of its two alleles'.
void score_hints(const std::vector<detail::AlignedRead>& reads, const std::string& seq, int64_t begin, int min_base_q,
                 const std::vector<int64_t>& slice_at, const std::vector<int32_t>& hint_of, RefConfidence& out) {
  std::vector<std::array<double, 15>> gl(out.hints.size());
  for (auto& g : gl) g.fill(0);
  const BaseTerms& t = base_terms();
  walk_slices(reads, seq, slice_at, min_base_q, [](int64_t) {}, [&](int64_t p, int kind, int q) {
    const int32_t h = hint_of[p - begin];
    if (h < 0) return;
    AlleleHint& hint = out.hints[h];
    // Alleles: 0 the reference, 1..3 the other bases in order, 4 <NON_REF>.
    const int ref = base_index(seq[p]);
    const int allele = kind == kIndelEvidence ? 4 : kind == ref ? 0 : kind + (kind < ref ? 1 : 0);
    ++hint.ad[allele];
    const double own = t.terms[q][1][0], other = t.terms[q][0][0];  // log10(1 - e), log10(e / 3)
    const double mixed = t.terms[q][0][1];                           // log10((1 - e + e / 3) / 2)
    for (int y = 0; y < 5; ++y) {
      for (int x = 0; x <= y; ++x) {
        const int n_own = (x == allele) + (y == allele);
        gl[h][genotype_index(x, y)] += n_own == 2 ? own : n_own == 1 ? mixed : other;
      }
    }
  });
  for (size_t h = 0; h < gl.size(); ++h) {
    out.hints[h].gq = phred_scaled(gl[h], out.hints[h].pl);
    out.hints[h].ad[4] = 0;  // <NON_REF> has no depth of its own (GATK's gVCF)
  }
}

}  // namespace

std::vector<std::string> gvcf_header_lines() {
  std::vector<std::string> lines = {
      "##ALT=<ID=NON_REF,Description=\"Represents any possible alternative allele not already represented at this "
      "location by REF and ALT\">",
      "##INFO=<ID=END,Number=1,Type=Integer,Description=\"Stop position of the interval\">",
      "##FORMAT=<ID=MIN_DP,Number=1,Type=Integer,Description=\"Minimum DP observed within the GVCF block\">"};
  for (int b = 0; b < kNumBands; ++b) {
    const std::string lo = std::to_string(kBands[b]);
    const std::string hi = b + 1 < kNumBands ? std::to_string(kBands[b + 1]) : "100";
    lines.push_back("##GVCFBlock" + lo + "-" + hi + "=minGQ=" + lo + "(inclusive),maxGQ=" + hi + "(exclusive)");
  }
  return lines;
}

std::string hint_alleles(char ref_base) {
  std::string alleles(1, ref_base);
  for (const char b : {'A', 'C', 'G', 'T'}) {
    if (b != ref_base) alleles += std::string(",") + b;
  }
  return alleles + ",<NON_REF>";
}

void reference_confidence(const std::vector<detail::AlignedRead>& reads, const std::string& seq, int64_t begin,
                          int64_t end, int min_base_q, RefConfidence& out) {
  const int64_t n = std::max<int64_t>(0, end - begin);
  out.dp.assign(n, 0);
  out.gq.assign(n, 0);
  out.pl.assign(n, {0, 0, 0});
  out.hints.clear();
  std::vector<std::array<double, 3>> gl(n, {0, 0, 0});
  std::vector<uint8_t> other_allele(n, 0);  // a read shows another allele here
  const BaseTerms& t = base_terms();
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(n / 4096, 4 * omp_get_max_threads()));
  std::vector<int64_t> slice_at(slices + 1);
  for (int64_t s = 0; s <= slices; ++s) slice_at[s] = begin + n * s / slices;
  walk_slices(
      reads, seq, slice_at, min_base_q, [&](int64_t p) { ++out.dp[p - begin]; },
      [&](int64_t p, int kind, int q) {
        const bool ref = kind == base_index(seq[p]);
        const double* term = t.terms[q][ref ? 1 : 0];
        auto& g = gl[p - begin];
        g[0] += term[0], g[1] += term[1], g[2] += term[2];
        if (!ref) other_allele[p - begin] = 1;
      });
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) out.gq[i] = phred_scaled(gl[i], out.pl[i]);
  std::vector<int32_t> hint_of(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    if (!other_allele[i] || out.gq[i] >= kHintGq) continue;
    hint_of[i] = static_cast<int32_t>(out.hints.size());
    AlleleHint h;
    h.pos = begin + i, h.dp = out.dp[i];
    out.hints.push_back(h);
  }
  if (!out.hints.empty()) score_hints(reads, seq, begin, min_base_q, slice_at, hint_of, out);
}

int GvcfBlocks::band_of(int32_t gq) {
  // Looked up once per reference base: a table for the GQs a base can have (0..99).
  static const std::array<int8_t, 100> table = [] {
    std::array<int8_t, 100> t{};
    for (int q = 0; q < 100; ++q) t[q] = static_cast<int8_t>(std::upper_bound(kBands, kBands + kNumBands, q) - kBands - 1);
    return t;
  }();
  return table[std::clamp(gq, 0, 99)];  // 99 and above: the last band
}

void GvcfBlocks::add(int rid, int64_t pos, char ref_base, int32_t dp, int32_t gq, const std::array<int32_t, 3>& pl) {
  const int band = band_of(gq);
  if (open_ && (rid != rid_ || pos != end_ || band != band_)) flush();
  if (!open_) {
    open_ = true, rid_ = rid, band_ = band, begin_ = pos, end_ = pos, ref_ = ref_base;
    min_gq_ = gq, min_dp_ = dp, min_pl_ = pl;
    dps_.clear();
  }
  end_ = pos + 1;
  min_gq_ = std::min(min_gq_, gq);
  min_dp_ = std::min(min_dp_, dp);
  for (int k = 0; k < 3; ++k) min_pl_[k] = std::min(min_pl_[k], pl[k]);
  dps_.push_back(dp);
}

void GvcfBlocks::flush() {
  if (!open_) return;
  open_ = false;
  std::nth_element(dps_.begin(), dps_.begin() + dps_.size() / 2, dps_.end());
  const int32_t dp = dps_[dps_.size() / 2];
  if (vcf_.writes_text()) {
    write_text(dp);
    return;
  }
  bcf_hdr_t* hdr = vcf_.header();
  if (!rec_) rec_.reset(bcf_init());
  bcf1_t* rec = rec_.get();
  bcf_clear(rec);  // one record reused: blocks are most of a gVCF
  rec->rid = rid_;
  rec->pos = begin_;
  bcf_float_set_missing(rec->qual);
  const char ref[2] = {ref_, '\0'};
  const std::string alleles = std::string(ref) + ",<NON_REF>";
  bcf_update_alleles_str(hdr, rec, alleles.c_str());
  const int32_t end = static_cast<int32_t>(end_);  // 1-based, inclusive
  bcf_update_info_int32(hdr, rec, "END", &end, 1);
  int32_t gt[2] = {bcf_gt_unphased(0), bcf_gt_unphased(0)};
  bcf_update_genotypes(hdr, rec, gt, 2);
  bcf_update_format_int32(hdr, rec, "DP", &dp, 1);
  bcf_update_format_int32(hdr, rec, "GQ", &min_gq_, 1);
  bcf_update_format_int32(hdr, rec, "MIN_DP", &min_dp_, 1);
  bcf_update_format_int32(hdr, rec, "PL", min_pl_.data(), 3);
  vcf_.write(rec);
}

void GvcfBlocks::add_hint(int rid, char ref_base, const AlleleHint& hint) {
  flush();
  const std::string alleles = hint_alleles(ref_base);
  if (vcf_.writes_text()) {
    line_.clear();
    const auto number = [this](int64_t v) {
      char buf[24];
      line_.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
    };
    const auto list = [&](const auto& values) {
      for (size_t k = 0; k < values.size(); ++k) {
        if (k) line_ += ',';
        number(values[k]);
      }
    };
    line_ += bcf_hdr_id2name(vcf_.header(), rid);
    line_ += '\t';
    number(hint.pos + 1);
    line_ += "\t.\t";
    line_ += alleles;
    line_[line_.size() - alleles.size() + 1] = '\t';  // REF, then the ALT list
    line_ += "\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:";
    list(hint.ad);
    line_ += ':';
    number(hint.dp), line_ += ':', number(hint.gq), line_ += ':';
    list(hint.pl);
    line_ += '\n';
    vcf_.write_text(line_);
    return;
  }
  bcf_hdr_t* hdr = vcf_.header();
  if (!rec_) rec_.reset(bcf_init());
  bcf1_t* rec = rec_.get();
  bcf_clear(rec);
  rec->rid = rid;
  rec->pos = hint.pos;
  bcf_float_set_missing(rec->qual);
  bcf_update_alleles_str(hdr, rec, alleles.c_str());
  int32_t gt[2] = {bcf_gt_unphased(0), bcf_gt_unphased(0)};
  bcf_update_genotypes(hdr, rec, gt, 2);
  bcf_update_format_int32(hdr, rec, "AD", hint.ad.data(), static_cast<int>(hint.ad.size()));
  bcf_update_format_int32(hdr, rec, "DP", &hint.dp, 1);
  bcf_update_format_int32(hdr, rec, "GQ", &hint.gq, 1);
  bcf_update_format_int32(hdr, rec, "PL", hint.pl.data(), static_cast<int>(hint.pl.size()));
  vcf_.write(rec);
}

// The block as htslib prints the record flush() builds for BCF (the same bytes:
// CallGvcf.BlocksPrintedDirectlyAreHtslibsLines), written straight to the output.
void GvcfBlocks::write_text(int32_t median_dp) {
  line_.clear();
  const auto number = [this](int64_t v) {
    char buf[24];
    line_.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
  };
  line_ += bcf_hdr_id2name(vcf_.header(), rid_);
  line_ += '\t';
  number(begin_ + 1);
  line_ += "\t.\t";
  line_ += ref_;
  line_ += "\t<NON_REF>\t.\t.\tEND=";
  number(end_);
  line_ += "\tGT:DP:GQ:MIN_DP:PL\t0/0:";
  for (const int32_t v : {median_dp, min_gq_, min_dp_}) number(v), line_ += ':';
  number(min_pl_[0]), line_ += ',', number(min_pl_[1]), line_ += ',', number(min_pl_[2]), line_ += '\n';
  vcf_.write_text(line_);
}

}  // namespace gatemap::caller
