#pragma once
// Test helpers for alignments: reads and reference windows as codes, and a replay of an
// alignment's CIGAR, NM and MD against the read and the reference text.
#include <gtest/gtest.h>
#include <htslib/sam.h>

#include <cctype>
#include <string>
#include <vector>

#include "common/dna.hpp"
#include "mapper/align/banded_dp.hpp"

namespace gatemap::test {

inline std::vector<uint8_t> codes_of(const std::string& s) {
  std::vector<uint8_t> c(s.size());
  for (size_t i = 0; i < s.size(); ++i) c[i] = base_code(s[i]);
  return c;
}

inline mapper::RefWindow window_of(const std::string& text, int64_t begin, int64_t end) {
  mapper::RefWindow w;
  w.begin = begin;
  for (int64_t p = begin; p < end; ++p) w.codes.push_back(base_code(text[p]));
  return w;
}

// Whether two alignments are the same: CIGAR, MD, NM, score, span and clipped bases.
inline ::testing::AssertionResult same_alignment(const mapper::Alignment& got, const mapper::Alignment& want) {
  const auto differ = [](const char* field) { return ::testing::AssertionFailure() << field << " differs"; };
  if (got.cigar != want.cigar) return differ("CIGAR");
  if (got.md != want.md) return differ("MD");
  if (got.edits != want.edits) return differ("NM");
  if (got.score != want.score) return differ("score");
  if (got.ref_begin != want.ref_begin || got.ref_end != want.ref_end) return differ("reference span");
  if (got.clipped != want.clipped) return differ("clipped bases");
  return ::testing::AssertionSuccess();
}

// Replays the CIGAR: recomputes NM and the reference implied by MD, and checks both.
inline void check_alignment(const mapper::Alignment& a, const std::string& read, const std::string& text) {
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


}  // namespace gatemap::test
