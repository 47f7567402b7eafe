// The affine-gap redraw of reported alignments (mapper/affine.hpp) against an unbanded
// three-matrix DP with bwa-mem's scores, CIGAR/NM/MD replayed, gaps left-aligned.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "../test_util.hpp"
#include "alignment_check.hpp"
#include "mapper/align/affine.hpp"

using namespace gatemap;
using test::check_alignment;
using test::codes_of;
using test::window_of;

namespace {

constexpr int kMatch = 1, kMismatch = 4, kN = 1, kOpen = 6, kExtend = 1, kClip = 5;

int base_score(char r, char f) {
  if (base_code(r) > 3 || base_code(f) > 3) return -kN;
  return r == f ? kMatch : -kMismatch;
}

// Best score of the whole read against any part of ref[lo, hi), either read end clipped at
// -kClip: Gotoh's recurrences over the full matrix.
int oracle_score(const std::string& read, const std::string& ref, int64_t lo, int64_t hi) {
  const int m = static_cast<int>(read.size());
  const int n = static_cast<int>(hi - lo);
  const int neg = -1000000;
  std::vector<std::vector<int>> H(m + 1, std::vector<int>(n + 1, neg)), E = H, F = H;
  int best = neg;
  for (int i = 0; i <= m; ++i) {
    for (int j = 0; j <= n; ++j) {
      int h = i == 0 ? 0 : -kClip;
      if (i > 0 && j > 0) h = std::max(h, H[i - 1][j - 1] + base_score(read[i - 1], ref[lo + j - 1]));
      if (j > 0) E[i][j] = std::max(H[i][j - 1] - kOpen - kExtend, E[i][j - 1] - kExtend);
      if (i > 0) F[i][j] = std::max(H[i - 1][j] - kOpen - kExtend, F[i - 1][j] - kExtend);
      H[i][j] = std::max({h, E[i][j], F[i][j]});
      best = std::max(best, H[i][j] - (i < m ? kClip : 0));
    }
  }
  return best;
}

// The alignment's score under the same rules, read off its CIGAR.
int cigar_score(const mapper::Alignment& a, const std::string& read, const std::string& ref) {
  int score = 0;
  size_t r = 0;
  int64_t g = a.ref_begin;
  for (size_t k = 0; k < a.cigar.size(); ++k) {
    const int op = bam_cigar_op(a.cigar[k]);
    const int len = static_cast<int>(bam_cigar_oplen(a.cigar[k]));
    if (op == BAM_CSOFT_CLIP) {
      score -= kClip;
      r += len;
    } else if (op == BAM_CMATCH) {
      for (int q = 0; q < len; ++q) score += base_score(read[r++], ref[g++]);
    } else {
      score -= kOpen + kExtend * len;
      if (op == BAM_CINS) r += len;
      if (op == BAM_CDEL) g += len;
    }
  }
  return score;
}

// No gap can move one base left and leave the alignment the same.
void expect_left_aligned(const mapper::Alignment& a, const std::string& read, const std::string& ref) {
  size_t r = 0;
  int64_t g = a.ref_begin;
  int prev = -1;
  for (uint32_t c : a.cigar) {
    const int op = bam_cigar_op(c);
    const int len = static_cast<int>(bam_cigar_oplen(c));
    if (op == BAM_CDEL && prev == BAM_CMATCH) {
      EXPECT_NE(ref[g - 1], ref[g + len - 1]) << "deletion at " << g << " could move left";
    }
    if (op == BAM_CINS && prev == BAM_CMATCH) {
      EXPECT_NE(read[r - 1], read[r + len - 1]) << "insertion at read " << r << " could move left";
    }
    if (op == BAM_CMATCH || op == BAM_CINS || op == BAM_CSOFT_CLIP) r += len;
    if (op == BAM_CMATCH || op == BAM_CDEL) g += len;
    prev = op;
  }
}

struct Case {
  mapper::Alignment aln;
  int64_t lo, hi;
};

// The reference window spans `margin` bases (default: the band) either side of the read.
Case align(const std::string& text, const std::string& read, int64_t diag, int band, int margin = -1) {
  const int m = static_cast<int>(read.size());
  const int64_t len = static_cast<int64_t>(text.size());
  if (margin < 0) margin = band;
  const int64_t lo = std::max<int64_t>(0, diag - margin), hi = std::min<int64_t>(len, diag + m + margin);
  const auto codes = codes_of(read);
  mapper::AffineScratch scratch;
  return {mapper::affine_align(codes.data(), m, window_of(text, lo, hi), 0, len, diag, band, 0, scratch), lo, hi};
}

std::string cigar_string(const mapper::Alignment& a) {
  std::string s;
  for (uint32_t c : a.cigar) s += std::to_string(bam_cigar_oplen(c)) + BAM_CIGAR_STR[bam_cigar_op(c)];
  return s;
}

}  // namespace

// With a band wider than the window, the banded DP sees every alignment the full one does.
TEST(Affine, ScoreEqualsUnbandedDpOnRandomEdits) {
  std::mt19937_64 rng(5);
  const std::string text = test::random_dna(rng, 4000);
  for (int trial = 0; trial < 400; ++trial) {
    const int m = 20 + static_cast<int>(rng() % 100);
    const int64_t pos = 200 + static_cast<int64_t>(rng() % (text.size() - m - 400));
    std::string read = text.substr(pos, m);
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) {
      const size_t at = rng() % read.size();
      const int len = 1 + static_cast<int>(rng() % 8);
      switch (rng() % 4) {
        case 0: read[at] = "ACGTN"[rng() % 5]; break;
        case 1: read.insert(at, test::random_dna(rng, len)); break;
        case 2: read.erase(at, std::min<size_t>(len, read.size() - at - 1)); break;
        default: read.replace(at, std::min<size_t>(len, read.size() - at), test::random_dna(rng, len));
      }
    }
    // A band of m + 40 holds every alignment inside a window 40 bases either side.
    const Case c = align(text, read, pos, m + 40, 40);
    ASSERT_EQ(cigar_score(c.aln, read, text), oracle_score(read, text, c.lo, c.hi))
        << "trial " << trial << " " << cigar_string(c.aln);
    check_alignment(c.aln, read, text);
    expect_left_aligned(c.aln, read, text);
  }
}

TEST(Affine, RepeatInsertionIsOneGapLeftAligned) {
  std::mt19937_64 rng(8);
  // The base before the repeat is not its last (G): no further left shift.
  const std::string left = test::random_dna(rng, 199) + "C", right = test::random_dna(rng, 200);
  const std::string text = left + "TTTGTTTGTTTGTTTG" + right;
  // The donor carries two more copies of TTTG: an 8-base insertion anywhere in the repeat.
  const std::string donor = left + "TTTGTTTGTTTGTTTGTTTGTTTG" + right;
  const std::string read = donor.substr(150, 101);
  const Case c = align(text, read, 150, 10);
  EXPECT_EQ(cigar_string(c.aln), "50M8I43M");  // leftmost: right after the read's first 50 bases
  EXPECT_EQ(c.aln.edits, 8);
  check_alignment(c.aln, read, text);
}

TEST(Affine, LongDeletionInAWideBandIsOneGap) {
  std::mt19937_64 rng(9);
  const std::string text = test::random_dna(rng, 1000);
  // 70 read bases, 36 deleted reference bases, 80 more read bases.
  const std::string read = text.substr(300, 70) + text.substr(406, 80);
  const Case c = align(text, read, 300, 100);
  ASSERT_EQ(c.aln.cigar.size(), 3u) << cigar_string(c.aln);
  EXPECT_EQ(c.aln.cigar[1], bam_cigar_gen(36, BAM_CDEL)) << cigar_string(c.aln);
  EXPECT_EQ(c.aln.ref_begin, 300);
  EXPECT_EQ(c.aln.edits, 36);
  check_alignment(c.aln, read, text);
  expect_left_aligned(c.aln, read, text);
  // In a narrow band the long side stays aligned and the short one is clipped.
  const Case narrow = align(text, read, 300, 10);
  EXPECT_EQ(narrow.aln.cigar.back(), bam_cigar_gen(150 - bam_cigar_oplen(narrow.aln.cigar[0]), BAM_CSOFT_CLIP)) << cigar_string(narrow.aln);
  EXPECT_EQ(narrow.aln.ref_begin, 300);
}

TEST(Affine, AdapterTailIsClipped) {
  std::mt19937_64 rng(10);
  const std::string text = test::random_dna(rng, 600);
  const std::string read = text.substr(200, 120) + "AGATCGGAAGAGCACACGTCTGAACTCC";
  const Case c = align(text, read, 200, 20);
  EXPECT_EQ(cigar_string(c.aln), "120M28S");
  check_alignment(c.aln, read, text);
}

TEST(Affine, GapsShiftLeftThroughRepeats) {
  const std::string ref = "GACTTTTTGCACACAGT", read_del = "GACTTTTGCACACAGT", read_ins = "GACTTTTTGCACACACAGT";
  const auto win = window_of(ref, 0, static_cast<int64_t>(ref.size()));
  // One T deleted, placed at the run's right end: moves to its left end.
  std::vector<char> ops(7, 'M');
  ops.push_back('D');
  ops.insert(ops.end(), 8, 'M');
  mapper::left_align_gaps(ops, codes_of(read_del).data(), 0, win, 0);
  EXPECT_EQ(std::string(ops.begin(), ops.end()), "MMMDMMMMMMMMMMMM");
  // "CA" inserted after the last CA of the read: moves to the first.
  ops.assign(15, 'M');
  ops.insert(ops.end(), {'I', 'I', 'M', 'M'});
  mapper::left_align_gaps(ops, codes_of(read_ins).data(), 0, win, 0);
  EXPECT_EQ(std::string(ops.begin(), ops.end()), "MMMMMMMMMIIMMMMMMMM");
  // A gap stops behind the first aligned base, whatever the bases say.
  ops = {'M', 'M', 'D', 'M'};
  mapper::left_align_gaps(ops, codes_of("AAA").data(), 0, window_of("AAAA", 0, 4), 0);
  EXPECT_EQ(std::string(ops.begin(), ops.end()), "MDMM");
}
