// AS:i as bwa mem writes it: hand-computed scores of small alignments (match +1,
// mismatch -4, N -1, gap -(6 + length), the best local run along the path).
#include <gtest/gtest.h>

#include <htslib/sam.h>

#include <random>

#include "mapper/alignment_score.hpp"
#include "alignment_check.hpp"

using namespace gatemap;
using test::codes_of;
using test::window_of;

namespace {

std::string random_dna(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// An alignment of `read` at ref[begin...] with this CIGAR, and its MD as SAM defines it
// (the scorer reads an ungapped alignment's mismatches from MD, as the mapper writes it).
mapper::Alignment aligned_at(const std::string& read, const std::string& ref, int64_t begin,
                             std::vector<uint32_t> cigar) {
  mapper::Alignment a;
  a.ref_begin = begin;
  int64_t g = begin;
  size_t i = 0;
  int matches = 0;
  for (uint32_t c : cigar) {
    const int len = static_cast<int>(bam_cigar_oplen(c));
    switch (bam_cigar_op(c)) {
      case BAM_CMATCH:
        for (int k = 0; k < len; ++k, ++i, ++g) {
          if (read[i] == ref[static_cast<size_t>(g)] && read[i] != 'N') {
            ++matches;
          } else {
            a.md += std::to_string(matches) + ref[static_cast<size_t>(g)];
            matches = 0;
          }
        }
        break;
      case BAM_CDEL:
        a.md += std::to_string(matches) + "^" + ref.substr(static_cast<size_t>(g), static_cast<size_t>(len));
        matches = 0;
        g += len;
        break;
      default:  // I, S: read bases only
        i += static_cast<size_t>(len);
    }
  }
  a.md += std::to_string(matches);
  a.ref_end = g;
  a.cigar = std::move(cigar);
  return a;
}

char other_base(char b) { return b == 'A' ? 'C' : 'A'; }

}  // namespace

TEST(AlignmentScore, MatchesMismatchesAndN) {
  const std::string ref = random_dna(400, 1);
  std::string read = ref.substr(100, 150);
  const auto window = window_of(ref, 0, 400);
  const std::vector<uint32_t> cigar = {bam_cigar_gen(150, BAM_CMATCH)};
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aligned_at(read, ref, 100, cigar), window), 150);
  read[40] = other_base(read[40]);
  read[90] = 'N';
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aligned_at(read, ref, 100, cigar), window), 148 - 4 - 1);
}

// A mismatch 3 bases from the end: bwa aligns on to the end (150M) but its AS is the
// best score it reached, before the mismatch: 146 matches, not 146 + 3 - 4.
TEST(AlignmentScore, IsTheBestRunAlongThePath) {
  const std::string ref = random_dna(400, 2);
  std::string read = ref.substr(100, 150);
  read[146] = other_base(read[146]);
  const auto aln = aligned_at(read, ref, 100, {bam_cigar_gen(150, BAM_CMATCH)});
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aln, window_of(ref, 0, 400)), 146);
}

// Soft clips are free; the mismatches counted are the aligned bases'.
TEST(AlignmentScore, UngappedWithClips) {
  const std::string ref = random_dna(400, 5);
  std::string read = "TTTTT" + ref.substr(100, 140) + "GGGGG";
  read[5 + 70] = other_base(read[5 + 70]);
  const auto aln = aligned_at(read, ref, 100,
                              {bam_cigar_gen(5, BAM_CSOFT_CLIP), bam_cigar_gen(140, BAM_CMATCH),
                               bam_cigar_gen(5, BAM_CSOFT_CLIP)});
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aln, window_of(ref, 0, 400)), 139 - 4);
}

TEST(AlignmentScore, GapsAndSoftClips) {
  const std::string ref = random_dna(600, 3);
  // 60 bases, a 3-base deletion, 60 bases: 120 - (6 + 3).
  const std::string read = ref.substr(100, 60) + ref.substr(163, 60);
  auto aln = aligned_at(read, ref, 100,
                        {bam_cigar_gen(60, BAM_CMATCH), bam_cigar_gen(3, BAM_CDEL), bam_cigar_gen(60, BAM_CMATCH)});
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aln, window_of(ref, 0, 600)), 111);
  // A 2-base insertion: 120 - (6 + 2); a soft clip costs nothing.
  const std::string ins = "GG" + ref.substr(300, 60) + "TT" + ref.substr(360, 60);
  aln = aligned_at(ins, ref, 300,
                   {bam_cigar_gen(2, BAM_CSOFT_CLIP), bam_cigar_gen(60, BAM_CMATCH), bam_cigar_gen(2, BAM_CINS),
                    bam_cigar_gen(60, BAM_CMATCH)});
  EXPECT_EQ(mapper::alignment_score(codes_of(ins).data(), aln, window_of(ref, 0, 600)), 112);
}

// A deletion 7 bases from the end whose next 3 bases also match straight on: bwa's
// extension goes on along the diagonal (146 matches, then a mismatch) rather than across
// the gap (143 + 7 - 7 = 143): AS 146 on a 143M1D7M record, as bwa writes it.
TEST(AlignmentScore, GoesOnPastAGapNearTheEndAsBwaExtends) {
  std::string ref = random_dna(400, 4);
  // The read: ref [100, 243), one base deleted, then ref [244, 251). With ref 243-246
  // AAAA and 247 C, straight on from base 142 the read's bases 143-145 (ref 244-246,
  // AAA) match ref 243-245 and base 146 (ref 247, C) meets ref 246 (A).
  ref.replace(243, 5, "AAAAC");
  const std::string read = ref.substr(100, 143) + ref.substr(244, 7);
  const auto aln = aligned_at(read, ref, 100,
                              {bam_cigar_gen(143, BAM_CMATCH), bam_cigar_gen(1, BAM_CDEL), bam_cigar_gen(7, BAM_CMATCH)});
  EXPECT_EQ(mapper::alignment_score(codes_of(read).data(), aln, window_of(ref, 0, 400)), 146);
}
