#include "caller/gvcf.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>

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

// Read r over [a, b): covered(p) for every read over position p; aligned(p, qi, q, k,
// first, last) for its base qi (of CIGAR operation k, the operation's first and/or last)
// over p, of quality q >= min_base_q, neither it nor the reference's an N; deleted(p)
// for a base it deletes.
template <class Covered, class Aligned, class Deleted>
void walk_read(const detail::AlignedRead& r, const std::string& seq, int64_t a, int64_t b, int min_base_q,
               Covered&& covered, Aligned&& aligned, Deleted&& deleted) {
  int64_t rpos = r.pos;
  int q = 0;
  for (size_t k = 0; k < r.cigar.size(); ++k) {
    const int op = bam_cigar_op(r.cigar[k]), len = bam_cigar_oplen(r.cigar[k]);
    if (op == BAM_CMATCH || op == BAM_CEQUAL || op == BAM_CDIFF) {
      const int64_t lo = std::max(rpos, a), hi = std::min(rpos + len, b);
      for (int64_t p = lo; p < hi; ++p) {
        const int qi = q + static_cast<int>(p - rpos);
        covered(p);
        const int bq = std::min<int>(r.qual[qi], 93);
        if (bq < min_base_q || r.seq[qi] == 'N' || seq[p] == 'N') continue;
        aligned(p, qi, bq, k, p == rpos, p == rpos + len - 1);
      }
      rpos += len, q += len;
    } else if (op == BAM_CDEL) {
      const int64_t lo = std::max(rpos, a), hi = std::min(rpos + len, b);
      for (int64_t p = lo; p < hi; ++p) {
        covered(p);
        deleted(p);
      }
      rpos += len;
    } else if (op == BAM_CREF_SKIP) {
      rpos += len;
    } else if (op == BAM_CINS || op == BAM_CSOFT_CLIP) {
      q += len;
    }
  }
}

// Every read over [slice_at[0], slice_at.back()), the slices in parallel; each walks the
// reads (sorted by start) that reach it. walk(read, a, b) walks one read over [a, b).
template <class Walk>
void walk_slices(const std::vector<detail::AlignedRead>& reads, const std::vector<int64_t>& slice_at, Walk&& walk) {
  const int64_t slices = static_cast<int64_t>(slice_at.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t a = slice_at[s], b = slice_at[s + 1];
    for (const detail::AlignedRead& r : reads) {
      if (r.pos >= b) break;
      if (r.end <= a) continue;
      walk(r, a, b);
    }
  }
}

// VCF's index of genotype {a, b}.
int genotype_index(int a, int b) { return a <= b ? b * (b + 1) / 2 + a : a * (a + 1) / 2 + b; }

// PLs from log10 likelihoods (normalised to the best) and the GQ they give: the
// second-lowest PL where the first genotype (0/0) is the best, else 0.
template <class Likelihoods, class Pls>
int32_t phred_scaled(const Likelihoods& gl, Pls& pl) {
  const double best = *std::max_element(gl.begin(), gl.end());
  for (size_t k = 0; k < gl.size(); ++k) pl[k] = static_cast<int32_t>(std::lround(std::min(1e6, -10.0 * (gl[k] - best))));
  if (pl[0] != 0) return 0;
  return std::min(99, *std::min_element(pl.begin() + 1, pl.end()));
}

// One read's allele at a hint: a base (0..3), an insertion after the base (kInsertion +
// its index among the hint's), a deletion after it, or another allele (a base beside a
// clip, a base other than A, C, G, T, another base before an indel).
constexpr int kDeletion = 4, kOther = 5, kInsertion = 6;
constexpr size_t kMaxInsertions = 4;  // more distinct insertions at one base: <NON_REF>
constexpr int kIndelQ = 45;            // GATK's gap open quality, the pair-HMM's
struct HintReads {
  std::vector<std::string> insertions;         // as read, the anchor base first
  std::vector<std::pair<int16_t, uint8_t>> seen;  // (allele, quality) per read
};

// The hints' alleles and likelihoods, from a second walk over the reads that cover one:
// the reference, the other bases, the insertions seen after the base (sorted), <DEL> if
// a deletion starts after it, <NON_REF>. Per read, P(read | allele) is 1 - e for its own
// allele and e / 3 for any other; a genotype's is the mean of its two alleles'. A read
// that deletes the base says nothing here (its deletion counts at the base before).
void score_hints(const std::vector<detail::AlignedRead>& reads, const std::string& seq, int64_t begin, int min_base_q,
                 const std::vector<int64_t>& slice_at, const std::vector<int32_t>& hint_of, RefConfidence& out) {
  std::vector<HintReads> at(out.hints.size());
  walk_slices(reads, slice_at, [&](const detail::AlignedRead& r, int64_t a, int64_t b) {
    const auto aligned = [&](int64_t p, int qi, int q, size_t k, bool first, bool last) {
      const int32_t h = hint_of[p - begin];
      if (h < 0) return;
      const int base = base_index(r.seq[qi]);
      const bool ref = base == base_index(seq[p]);
      const int next = last && k + 1 < r.cigar.size() ? bam_cigar_op(r.cigar[k + 1]) : -1;
      const int prev = first && k > 0 ? bam_cigar_op(r.cigar[k - 1]) : -1;
      int allele = base < 0 || next == BAM_CSOFT_CLIP || prev == BAM_CSOFT_CLIP ? kOther : base;
      if (next == BAM_CDEL) allele = ref ? kDeletion : kOther;
      if (next == BAM_CINS) {
        allele = kOther;
        std::vector<std::string>& ins = at[h].insertions;
        const std::string seen = r.seq.substr(qi, 1 + bam_cigar_oplen(r.cigar[k + 1]));
        const auto it = std::find(ins.begin(), ins.end(), seen);
        if (ref && (it != ins.end() || ins.size() < kMaxInsertions)) {
          allele = kInsertion + static_cast<int>(it - ins.begin());
          if (it == ins.end()) ins.push_back(seen);
        }
      }
      // An indel read is as sure as the pair-HMM's gap open penalty says (Q45), not its base.
      const int sure = allele == kDeletion || allele >= kInsertion ? kIndelQ : q;
      at[h].seen.emplace_back(static_cast<int16_t>(allele), static_cast<uint8_t>(sure));
    };
    walk_read(r, seq, a, b, min_base_q, [](int64_t) {}, aligned, [](int64_t) {});
  });
  const BaseTerms& t = base_terms();
#pragma omp parallel for schedule(dynamic, 64)
  for (size_t h = 0; h < at.size(); ++h) {
    AlleleHint& hint = out.hints[h];
    HintReads& reads_here = at[h];
    const int ref = base_index(seq[hint.pos]);
    // Alleles: 0 the reference, 1..3 the other bases, the insertions, <DEL>, <NON_REF>.
    std::vector<int> order(reads_here.insertions.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return reads_here.insertions[x] < reads_here.insertions[y]; });
    std::vector<int> insertion_allele(order.size());
    hint.alts.clear();
    for (const char c : {'A', 'C', 'G', 'T'}) {
      if (base_index(c) != ref) hint.alts.emplace_back(1, c);
    }
    for (size_t i = 0; i < order.size(); ++i) {
      insertion_allele[order[i]] = static_cast<int>(4 + i);
      hint.alts.push_back(reads_here.insertions[order[i]]);
    }
    const bool deletion = std::any_of(reads_here.seen.begin(), reads_here.seen.end(),
                                      [](const auto& o) { return o.first == kDeletion; });
    const int del_allele = deletion ? static_cast<int>(hint.alts.size()) + 1 : -1;
    if (deletion) hint.alts.push_back(kDeletionAllele);
    hint.alts.push_back("<NON_REF>");
    const int n_alleles = static_cast<int>(hint.alts.size()) + 1;
    std::vector<double> gl(static_cast<size_t>(n_alleles * (n_alleles + 1) / 2), 0.0);
    hint.ad.assign(n_alleles, 0);
    for (const auto& [seen, q] : reads_here.seen) {
      const int allele = seen < 4 ? (seen == ref ? 0 : seen + (seen < ref ? 1 : 0))
                         : seen == kDeletion ? del_allele
                         : seen == kOther    ? n_alleles - 1
                                             : insertion_allele[seen - kInsertion];
      ++hint.ad[allele];
      const double own = t.terms[q][1][0], other = t.terms[q][0][0];  // log10(1 - e), log10(e / 3)
      const double mixed = t.terms[q][0][1];                           // log10((1 - e + e / 3) / 2)
      for (int y = 0; y < n_alleles; ++y) {
        for (int x = 0; x <= y; ++x) {
          const int n_own = (x == allele) + (y == allele);
          gl[genotype_index(x, y)] += n_own == 2 ? own : n_own == 1 ? mixed : other;
        }
      }
    }
    hint.pl.assign(gl.size(), 0);
    hint.gq = phred_scaled(gl, hint.pl);
    hint.ad.back() = 0;  // <NON_REF> has no depth of its own (GATK's gVCF)
  }
}

}  // namespace

std::vector<std::string> gvcf_header_lines() {
  std::vector<std::string> lines = {
      "##ALT=<ID=NON_REF,Description=\"Represents any possible alternative allele not already represented at this "
      "location by REF and ALT\">",
      "##ALT=<ID=DEL,Description=\"A deletion starting after the base (an allele hint's: deletions its reads hold)\">",
      "##INFO=<ID=END,Number=1,Type=Integer,Description=\"Stop position of the interval\">",
      "##FORMAT=<ID=MIN_DP,Number=1,Type=Integer,Description=\"Minimum DP observed within the GVCF block\">"};
  for (int b = 0; b < kNumBands; ++b) {
    const std::string lo = std::to_string(kBands[b]);
    const std::string hi = b + 1 < kNumBands ? std::to_string(kBands[b + 1]) : "100";
    lines.push_back("##GVCFBlock" + lo + "-" + hi + "=minGQ=" + lo + "(inclusive),maxGQ=" + hi + "(exclusive)");
  }
  return lines;
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
  // GATK's rule: a base beside an indel or a soft clip is evidence of another allele, so
  // that an indel's anchor base (its VCF position) carries the reads that hold it; a
  // deleted base is such evidence at Q30.
  const auto add = [&](int64_t p, int kind, int q) {
    const bool ref = kind == base_index(seq[p]);
    const double* term = t.terms[q][ref ? 1 : 0];
    auto& g = gl[p - begin];
    g[0] += term[0], g[1] += term[1], g[2] += term[2];
    if (!ref) other_allele[p - begin] = 1;
  };
  walk_slices(reads, slice_at, [&](const detail::AlignedRead& r, int64_t a, int64_t b) {
    const auto aligned = [&](int64_t p, int qi, int q, size_t k, bool first, bool last) {
      const bool beside_gap = (first && k > 0 && next_to_gap(r.cigar[k - 1])) ||
                              (last && k + 1 < r.cigar.size() && next_to_gap(r.cigar[k + 1]));
      const int base = base_index(r.seq[qi]);
      add(p, beside_gap || base < 0 ? kIndelEvidence : base, q);
    };
    walk_read(
        r, seq, a, b, min_base_q, [&](int64_t p) { ++out.dp[p - begin]; }, aligned,
        [&](int64_t p) { add(p, kIndelEvidence, 30); });
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
  bcf1_t* rec = begin_record(rid_, begin_, ref_, "<NON_REF>");
  const int32_t end = static_cast<int32_t>(end_);  // 1-based, inclusive
  bcf_update_info_int32(hdr, rec, "END", &end, 1);
  bcf_update_format_int32(hdr, rec, "DP", &dp, 1);
  bcf_update_format_int32(hdr, rec, "GQ", &min_gq_, 1);
  bcf_update_format_int32(hdr, rec, "MIN_DP", &min_dp_, 1);
  bcf_update_format_int32(hdr, rec, "PL", min_pl_.data(), 3);
  vcf_.write(rec);
}

void GvcfBlocks::add_hint(int rid, char ref_base, const AlleleHint& hint) {
  flush();
  std::string alts;
  for (const std::string& alt : hint.alts) alts += (alts.empty() ? "" : ",") + alt;
  if (vcf_.writes_text()) {
    const auto list = [this](const std::vector<int32_t>& values) {
      for (size_t k = 0; k < values.size(); ++k) {
        if (k) line_ += ',';
        put(values[k]);
      }
    };
    begin_line(rid, hint.pos, ref_base, alts);
    line_ += "\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:";
    list(hint.ad);
    line_ += ':', put(hint.dp), line_ += ':', put(hint.gq), line_ += ':';
    list(hint.pl);
    line_ += '\n';
    vcf_.write_text(line_);
    return;
  }
  bcf_hdr_t* hdr = vcf_.header();
  bcf1_t* rec = begin_record(rid, hint.pos, ref_base, alts);
  bcf_update_format_int32(hdr, rec, "AD", hint.ad.data(), static_cast<int>(hint.ad.size()));
  bcf_update_format_int32(hdr, rec, "DP", &hint.dp, 1);
  bcf_update_format_int32(hdr, rec, "GQ", &hint.gq, 1);
  bcf_update_format_int32(hdr, rec, "PL", hint.pl.data(), static_cast<int>(hint.pl.size()));
  vcf_.write(rec);
}

bcf1_t* GvcfBlocks::begin_record(int rid, int64_t pos, char ref_base, const std::string& alts) {
  if (!rec_) rec_.reset(bcf_init());
  if (!rec_) throw std::bad_alloc();
  bcf1_t* rec = rec_.get();
  bcf_clear(rec);  // one record reused: blocks are most of a gVCF
  rec->rid = rid;
  rec->pos = pos;
  bcf_float_set_missing(rec->qual);
  const std::string alleles = std::string(1, ref_base) + "," + alts;
  bcf_update_alleles_str(vcf_.header(), rec, alleles.c_str());
  int32_t gt[2] = {bcf_gt_unphased(0), bcf_gt_unphased(0)};
  bcf_update_genotypes(vcf_.header(), rec, gt, 2);
  return rec;
}

void GvcfBlocks::put(int64_t v) {
  char buf[24];
  line_.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

void GvcfBlocks::begin_line(int rid, int64_t pos, char ref_base, const std::string& alts) {
  line_.clear();
  line_ += bcf_hdr_id2name(vcf_.header(), rid);
  line_ += '\t';
  put(pos + 1);
  line_ += "\t.\t";
  line_ += ref_base;
  line_ += '\t';
  line_ += alts;
}

// The block as htslib prints the record flush() builds for BCF (the same bytes:
// CallGvcf.BlocksPrintedDirectlyAreHtslibsLines), written straight to the output.
void GvcfBlocks::write_text(int32_t median_dp) {
  begin_line(rid_, begin_, ref_, "<NON_REF>");
  line_ += "\t.\t.\tEND=";
  put(end_);
  line_ += "\tGT:DP:GQ:MIN_DP:PL\t0/0:";
  for (const int32_t v : {median_dp, min_gq_, min_dp_}) put(v), line_ += ':';
  put(min_pl_[0]), line_ += ',', put(min_pl_[1]), line_ += ',', put(min_pl_[2]), line_ += '\n';
  vcf_.write_text(line_);
}

}  // namespace gatemap::caller
