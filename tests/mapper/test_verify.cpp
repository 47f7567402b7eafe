// Verification against a brute-force DP, and every alignment's CIGAR/NM/MD replayed
// against the read and the reference.
#include <gtest/gtest.h>

#include <random>

#include "../test_util.hpp"
#include "alignment_check.hpp"
#include "mapper/align/banded_dp.hpp"
#include "tests/mapper/filter/gatekeeper_oracles.hpp"

using namespace gatemap;
using test::check_alignment;
using test::codes_of;
using test::window_of;

TEST(Verify, DistanceEqualsBruteForceDp) {
  std::mt19937_64 rng(11);
  const std::string text = test::random_dna(rng, 50000);
  mapper::DpScratch scratch;
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int m = 50 + static_cast<int>(rng() % 200);
    const int e = static_cast<int>(rng() % 12);
    const int64_t pos = 100 + static_cast<int64_t>(rng() % (text.size() - m - 300));
    std::string read = text.substr(pos, m);
    for (int k = static_cast<int>(rng() % (e + 3)); k > 0; --k) {
      const size_t at = rng() % read.size();
      switch (rng() % 3) {
        case 0: read[at] = "ACGT"[rng() & 3]; break;
        case 1: read.insert(read.begin() + at, "ACGT"[rng() & 3]); break;
        default: read.erase(read.begin() + at);
      }
    }
    const int64_t diag = pos + static_cast<int64_t>(rng() % 5) - 2;
    const int len = static_cast<int>(read.size());
    const auto win = window_of(text, diag - e, diag + len + e);
    const auto codes = codes_of(read);
    const auto r = mapper::banded_distance(codes.data(), len, win, 0, text.size(), diag, e, e, scratch);
    const int truth = test::banded_edit_distance(text, 0, text.size(), read, diag, e);
    ASSERT_EQ(r.edits, truth <= e ? truth : -1) << "trial " << trial;
    if (r.edits >= 0) {
      const auto a = mapper::banded_align(codes.data(), len, win, 0, text.size(), diag, e, scratch);
      EXPECT_EQ(a.score, truth);
      check_alignment(a, read, text);
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(Verify, AdversarialRepeatsAndHomopolymers) {
  mapper::DpScratch scratch;
  const std::string text = std::string(200, 'A') + "ACACACACACACACACACACGTGTGTGTGT" + std::string(200, 'C') +
                           "TTTTTTTTTTGATTACAGATTACAGATTACA" + std::string(200, 'G');
  for (int64_t pos = 150; pos < 500; pos += 7) {
    for (int e : {0, 1, 3, 6}) {
      std::string read = text.substr(pos, 80);
      if (read.size() > 40) read.erase(read.begin() + 40);  // a deletion inside a repeat
      const int len = static_cast<int>(read.size());
      const auto win = window_of(text, std::max<int64_t>(0, pos - e), std::min<int64_t>(text.size(), pos + len + e));
      const auto codes = codes_of(read);
      const auto r = mapper::banded_distance(codes.data(), len, win, 0, text.size(), pos, e, e, scratch);
      const int truth = test::banded_edit_distance(text, 0, text.size(), read, pos, e);
      ASSERT_EQ(r.edits, truth <= e ? truth : -1) << pos << " " << e;
      if (r.edits >= 0) {
        const auto a = mapper::banded_align(codes.data(), len, win, 0, text.size(), pos, e, scratch);
        check_alignment(a, read, text);
      }
    }
  }
}

TEST(Verify, IndelsAreLeftAligned) {
  mapper::DpScratch scratch;
  const std::string text = "ACGTTGCAAGGGGCATCATCATCATTTTTGGGGGCCCCCAGTCAGTTGAC";
  const std::string read = "ACGTTGCAAGGGGCATCATCATTTTTGGGGGCCCCCAGTCAGTTGAC";  // one CAT deleted in the repeat
  const auto codes = codes_of(read);
  const auto win = window_of(text, 0, text.size());
  const auto a = mapper::banded_align(codes.data(), read.size(), win, 0, text.size(), 0, 4, scratch);
  ASSERT_EQ(a.score, 3);
  ASSERT_EQ(a.cigar.size(), 3u);
  EXPECT_EQ(bam_cigar_op(a.cigar[1]), static_cast<uint32_t>(BAM_CDEL));
  EXPECT_EQ(bam_cigar_oplen(a.cigar[0]), 13u);  // ...GGGG then the deletion, as far left as it goes
  EXPECT_EQ(a.md, "13^CAT34");
}

TEST(Verify, ContigEndsBecomeSoftClips) {
  mapper::DpScratch scratch;
  std::mt19937_64 rng(2);
  const std::string text = test::random_dna(rng, 1000);
  // The read runs 5 bases past the start of the contig at 500.
  const std::string read = "ACGTA" + text.substr(500, 95);
  const auto codes = codes_of(read);
  const auto win = window_of(text, 495, 605);
  const auto a = mapper::banded_align(codes.data(), read.size(), win, 500, 1000, 495, 5, scratch);
  ASSERT_FALSE(a.cigar.empty());
  EXPECT_EQ(bam_cigar_op(a.cigar[0]), static_cast<uint32_t>(BAM_CSOFT_CLIP));
  EXPECT_GE(a.ref_begin, 500);
  check_alignment(a, read, text);
}

TEST(Verify, ClippingFallbackKeepsTheLongSideOfALongDeletion) {
  mapper::DpScratch scratch;
  std::mt19937_64 rng(3);
  const std::string text = test::random_dna(rng, 2000);
  const std::string read = text.substr(1000, 100) + text.substr(1140, 50);  // 40 bp deleted
  const auto codes = codes_of(read);
  const auto win = window_of(text, 980, 1200);
  EXPECT_EQ(mapper::banded_distance(codes.data(), read.size(), win, 0, 2000, 1000, 12, 6, scratch).edits, -1);
  const auto r = mapper::banded_distance(codes.data(), read.size(), win, 0, 2000, 1000, 12, 40, scratch, 5);
  ASSERT_GE(r.edits, 0);
  const auto a = mapper::banded_align(codes.data(), read.size(), win, 0, 2000, 1000, 12, scratch, 5);
  EXPECT_EQ(a.ref_begin, 1000);
  EXPECT_EQ(a.clipped, 50);
  EXPECT_EQ(a.edits, 0);
  check_alignment(a, read, text);
}

// The ungapped shortcut gives alignment_from_path's alignment of the straight path
// (local ends clipped as bwa scores them), and checks out against the read and the
// reference; mismatches cluster at either end, near each other or spread, N on either
// side; a count other than the hit's edits is refused.
TEST(Verify, UngappedAlignmentEqualsThePathsAlignment) {
  std::mt19937_64 rng(29);
  const std::string text = test::random_dna(rng, 20000);
  int clipped = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int m = 20 + static_cast<int>(rng() % 200);
    const int64_t pos = 50 + static_cast<int64_t>(rng() % (text.size() - m - 100));
    std::string read = text.substr(pos, m);
    const int k = static_cast<int>(rng() % 9);
    for (int j = 0; j < k; ++j) {
      const int zone = static_cast<int>(rng() % 3);  // the head, the tail, anywhere
      const int at = zone == 0 ? static_cast<int>(rng() % std::min(m, 12))
                     : zone == 1 ? m - 1 - static_cast<int>(rng() % std::min(m, 12))
                                 : static_cast<int>(rng() % m);
      read[at] = rng() % 20 == 0 ? 'N' : "ACGT"[rng() & 3];
    }
    std::string ref_text = text;
    if (rng() % 10 == 0) ref_text[pos + rng() % m] = 'N';
    const auto win = window_of(ref_text, pos - 5, pos + m + 5);
    const auto codes = codes_of(read);
    int edits = 0;
    for (int i = 0; i < m; ++i) edits += read[i] != ref_text[pos + i] || ref_text[pos + i] == 'N';
    std::vector<char> ops(static_cast<size_t>(m), 'M');
    const mapper::Alignment want =
        mapper::alignment_from_path(codes.data(), m, win, 0, text.size(), ops, 0, m, pos, edits);
    mapper::Alignment got;
    ASSERT_TRUE(mapper::ungapped_alignment(codes.data(), m, win, pos, edits, got)) << "trial " << trial;
    ASSERT_TRUE(test::same_alignment(got, want)) << "trial " << trial;
    check_alignment(got, read, ref_text);
    clipped += got.clipped > 0;
    mapper::Alignment refused;
    EXPECT_FALSE(mapper::ungapped_alignment(codes.data(), m, win, pos, edits + 1, refused));
    if (edits > 0) {
      EXPECT_FALSE(mapper::ungapped_alignment(codes.data(), m, win, pos, edits - 1, refused));
    }
  }
  EXPECT_GT(clipped, 1000);  // the end rules were reached
}
