// Verification against a brute-force DP, and every alignment's CIGAR/NM/MD replayed
// against the read and the reference.
#include <gtest/gtest.h>
#include <htslib/sam.h>

#include <random>

#include "common/dna.hpp"
#include "mapper/verify.hpp"
#include "../gpu/gatekeeper_oracles.hpp"
#include "../test_util.hpp"

using namespace gatemap;

namespace {

std::vector<uint8_t> codes_of(const std::string& s) {
  std::vector<uint8_t> c(s.size());
  for (size_t i = 0; i < s.size(); ++i) c[i] = base_code(s[i]);
  return c;
}

mapper::RefWindow window_of(const std::string& text, int64_t begin, int64_t end) {
  mapper::RefWindow w;
  w.begin = begin;
  for (int64_t p = begin; p < end; ++p) w.codes.push_back(base_code(text[p]));
  return w;
}

// Replays the CIGAR: recomputes NM and the reference implied by MD, and checks both.
void check_alignment(const mapper::Alignment& a, const std::string& read, const std::string& text) {
  int64_t g = a.ref_begin;
  size_t r = 0;
  int nm = 0;
  std::string ref_from_md_side;  // reference bases the alignment covers, read off the text
  for (uint32_t c : a.cigar) {
    const int op = bam_cigar_op(c);
    const uint32_t n = bam_cigar_oplen(c);
    for (uint32_t k = 0; k < n; ++k) {
      if (op == BAM_CMATCH) {
        nm += !(read[r] == text[g] && base_code(read[r]) < 4);
        ref_from_md_side += text[g];
        ++r;
        ++g;
      } else if (op == BAM_CINS) {
        ++nm;
        ++r;
      } else if (op == BAM_CDEL) {
        ++nm;
        ref_from_md_side += text[g];
        ++g;
      } else if (op == BAM_CSOFT_CLIP) {
        ++r;
      }
    }
  }
  ASSERT_EQ(r, read.size()) << "CIGAR does not cover the read";
  EXPECT_EQ(nm, a.edits);
  EXPECT_EQ(g, a.ref_end);
  // MD rebuilds the reference from the read's aligned bases.
  std::string rebuilt;
  size_t md = 0, ri = 0;
  int run = 0;
  const auto read_number = [&] {
    while (md < a.md.size() && std::isdigit(static_cast<unsigned char>(a.md[md]))) run = run * 10 + (a.md[md++] - '0');
  };
  read_number();
  for (uint32_t c : a.cigar) {
    const int op = bam_cigar_op(c);
    for (uint32_t k = 0; k < bam_cigar_oplen(c); ++k) {
      if (op == BAM_CMATCH) {
        if (run > 0) {
          rebuilt += read[ri];
          --run;
        } else {
          ASSERT_LT(md, a.md.size()) << a.md;
          rebuilt += a.md[md++];
          read_number();
        }
        ++ri;
      } else if (op == BAM_CDEL) {
        if (k == 0) {
          ASSERT_EQ(a.md[md], '^') << a.md;
          ++md;
        }
        rebuilt += a.md[md++];
        if (k + 1 == bam_cigar_oplen(c)) read_number();
      } else {
        ++ri;
      }
    }
  }
  EXPECT_EQ(run, 0) << a.md;
  EXPECT_EQ(rebuilt, ref_from_md_side) << "MD " << a.md;
}

}  // namespace

TEST(Verify, DistanceEqualsBruteForceDp) {
  std::mt19937_64 rng(11);
  const std::string text = test::random_dna(rng, 50000);
  std::vector<int> scratch;
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
  std::vector<int> scratch;
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
  std::vector<int> scratch;
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
  std::vector<int> scratch;
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
  std::vector<int> scratch;
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
