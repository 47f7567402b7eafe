#pragma once
// gVCF output (HaplotypeCaller's -ERC GVCF): every reference base of the called span is
// in exactly one record: a variant record (its ALT list ends with <NON_REF>, PL covers
// the genotypes with it) or a reference block (ALT <NON_REF>, INFO END; FORMAT GT 0/0,
// DP the block's median depth, GQ its lowest, MIN_DP, PL the lowest of each genotype).
// A block ends where the reference confidence (GQ) enters another band (GATK's default
// bands: 1..60 by 1, 70, 80, 90, 99), at a variant record, and at the span's end.
#include <htslib/vcf.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "caller/detail.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller {

// Header lines a gVCF adds (ALT NON_REF, INFO END, FORMAT MIN_DP, the GQ bands).
std::vector<std::string> gvcf_header_lines();

// Confidence that each position of [begin, end) is homozygous reference, from the reads'
// aligned bases of quality >= min_base_q ("reference vs any other base", as GATK's
// reference model): genotype likelihoods of 0/0, 0/X and X/X with X any other base
// (deleted bases count as X, and so does an aligned base beside an indel or a soft clip),
// PL normalised to the best, GQ = the second-lowest PL
// (at most 99) where 0/0 is the best and 0 otherwise; DP counts every read over the base.
//
// A position whose reads show another allele and whose GQ is below kHintGq gets an
// AlleleHint instead of a block: a record of its own naming what its reads hold there:
// the three other bases, each insertion seen after it (its base and the inserted ones),
// <DEL> where a deletion starts after it, <NON_REF> for anything else (a base beside a
// clip); GT 0/0 (nothing was called there), AD and PLs over those alleles. A read's
// indel counts at its anchor base only. A block's <NON_REF> lumps every such read
// together, so `joint` took one read with an error to another base, or an indel beside
// the base, as evidence of any alternate another sample had there (at 10x, 15 of the 18
// genotypes where joint and the multi-BAM call differed).
constexpr int32_t kHintGq = 20;
constexpr const char* kDeletionAllele = "<DEL>";  // a hint's: deletions starting after its base
struct AlleleHint {
  int64_t pos = 0;
  int32_t dp = 0, gq = 0;
  std::vector<std::string> alts;  // the other bases (A, C, G, T order), insertions (sorted), <DEL>, <NON_REF>
  std::vector<int32_t> ad, pl;    // per allele (the reference first); PL in VCF's genotype order
};
struct RefConfidence {
  std::vector<int32_t> dp, gq;
  std::vector<std::array<int32_t, 3>> pl;
  std::vector<AlleleHint> hints;  // by position
};
void reference_confidence(const std::vector<detail::AlignedRead>& reads, const std::string& contig_seq, int64_t begin,
                          int64_t end, int min_base_q, RefConfidence& out);

class GvcfBlocks {
 public:
  explicit GvcfBlocks(io::VcfWriter& vcf) : vcf_(vcf) {}
  // Position pos of contig rid (VCF header id) with its confidence; consecutive calls
  // must be consecutive positions of one contig, else the block is closed first.
  void add(int rid, int64_t pos, char ref_base, int32_t dp, int32_t gq, const std::array<int32_t, 3>& pl);
  // A hint's record in place of its position's block (the open block is written first).
  void add_hint(int rid, char ref_base, const AlleleHint& hint);
  // Writes the open block, if any (before a variant record, at a span's end).
  void flush();

 private:
  static int band_of(int32_t gq);
  void write_text(int32_t median_dp);
  // A text line's CHROM to ALT (REF one base, ALT `alts`), and a number, onto line_.
  void begin_line(int rid, int64_t pos, char ref_base, const std::string& alts);
  void put(int64_t v);
  // The reused record, cleared and placed, QUAL missing, GT 0/0.
  bcf1_t* begin_record(int rid, int64_t pos, char ref_base, const std::string& alts);
  io::VcfWriter& vcf_;
  std::unique_ptr<bcf1_t, decltype(&bcf_destroy)> rec_{nullptr, bcf_destroy};
  bool open_ = false;
  int rid_ = -1, band_ = -1;
  int64_t begin_ = 0, end_ = 0;
  char ref_ = 'N';
  int32_t min_gq_ = 0, min_dp_ = 0;
  std::array<int32_t, 3> min_pl_{};
  std::vector<int32_t> dps_;  // for the median
  std::string line_;          // a text line, reused
};

}  // namespace gatemap::caller
