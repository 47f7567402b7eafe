// The banded Myers verifier and aligner against the DP ones (same edits, ends, CIGAR, MD)
// and against a brute-force banded edit distance.
#include <gtest/gtest.h>

#include <random>

#include "../test_util.hpp"
#include "common/dna.hpp"
#include "common/packed_seq.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/align/myers.hpp"
#include "tests/mapper/filter/gatekeeper_oracles.hpp"

using namespace gatemap;

namespace {

struct Text {
  std::string seq;
  PackedSeq packed;
  mapper::PlaneRef planes() const { return {packed.hi.data(), packed.lo.data(), packed.length}; }
};

Text make_text(std::string seq) {
  Text t;
  t.seq = std::move(seq);
  t.packed.append(t.seq.data(), static_cast<int64_t>(t.seq.size()));
  return t;
}

std::string mutate(std::string read, int edits, std::mt19937_64& rng) {
  for (int k = 0; k < edits && !read.empty(); ++k) {
    const size_t at = rng() % read.size();
    switch (rng() % 4) {
      case 0: read[at] = "ACGT"[rng() & 3]; break;
      case 1: read.insert(read.begin() + at, "ACGT"[rng() & 3]); break;
      case 2: read.erase(read.begin() + at); break;
      default: read[at] = 'N';
    }
  }
  return read;
}

// Runs both verifiers on one case and compares; returns the edits found (-1: none).
int compare(const Text& text, const std::string& read, int64_t diag, int band, int max_edits, const char* what) {
  std::vector<uint8_t> codes(read.size());
  for (size_t i = 0; i < read.size(); ++i) codes[i] = base_code(read[i]);
  const int m = static_cast<int>(read.size());
  mapper::RefWindow win;
  win.begin = diag - band;
  for (int64_t p = diag - band; p < diag + m + band; ++p) win.codes.push_back(base_code(text.seq[p]));
  mapper::DpScratch scratch;
  std::vector<mapper::MyersRow> rows;
  const int64_t len = static_cast<int64_t>(text.seq.size());
  const auto dp = mapper::banded_distance(codes.data(), m, win, 0, len, diag, band, max_edits, scratch);
  const auto bv = mapper::myers_banded_distance(codes.data(), m, text.planes(), diag, band, max_edits);
  EXPECT_EQ(bv.edits, dp.edits) << what << " m=" << m << " band=" << band << " max=" << max_edits;
  if (dp.edits >= 0) {
    EXPECT_EQ(bv.ref_end, dp.ref_end) << what << " m=" << m << " band=" << band;
  }
  if (dp.edits >= 0) {  // the alignment too, field by field
    const auto a = mapper::banded_align(codes.data(), m, win, 0, len, diag, band, scratch);
    const auto b = mapper::myers_banded_align(codes.data(), m, text.planes(), win, 0, len, diag, band, rows);
    EXPECT_EQ(b.cigar, a.cigar) << what;
    EXPECT_EQ(b.md, a.md) << what;
    EXPECT_EQ(b.ref_begin, a.ref_begin) << what;
    EXPECT_EQ(b.ref_end, a.ref_end) << what;
    EXPECT_EQ(b.edits, a.edits) << what;
    EXPECT_EQ(b.score, a.score) << what;
    EXPECT_EQ(b.clipped, a.clipped) << what;
  }
  const int truth = test::banded_edit_distance(text.seq, 0, len, read, diag, band);
  EXPECT_EQ(bv.edits, truth <= max_edits ? truth : -1) << what;
  return bv.edits;
}

}  // namespace

TEST(Myers, EqualsDpVerifierOnPlantedEdits) {
  std::mt19937_64 rng(5);
  const Text text = make_text(test::random_dna(rng, 20000));
  int found = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int band = static_cast<int>(rng() % (mapper::kMyersMaxBand + 1));
    const int max_edits = static_cast<int>(rng() % (band + 6));
    const int m = 1 + static_cast<int>(rng() % 300);
    const int64_t pos = 100 + static_cast<int64_t>(rng() % (text.seq.size() - 500));
    const std::string read = mutate(text.seq.substr(pos, m), static_cast<int>(rng() % (max_edits + 3)), rng);
    if (read.empty()) continue;
    const int64_t diag = pos + static_cast<int64_t>(rng() % 7) - 3;
    found += compare(text, read, diag, band, max_edits, "planted") >= 0;
    if (::testing::Test::HasFailure()) FAIL() << "trial " << trial;
  }
  EXPECT_GT(found, 1500);
}

TEST(Myers, EqualsDpVerifierOnUnrelatedReadsUpToTheWholeBand) {
  std::mt19937_64 rng(6);
  const Text text = make_text(test::random_dna(rng, 5000));
  for (int trial = 0; trial < 500; ++trial) {
    const int band = static_cast<int>(rng() % (mapper::kMyersMaxBand + 1));
    const int m = 1 + static_cast<int>(rng() % 200);
    const std::string read = test::random_dna(rng, m);
    const int64_t diag = 100 + static_cast<int64_t>(rng() % 4000);
    compare(text, read, diag, band, 1000, "unrelated");  // every end row value is compared
    if (::testing::Test::HasFailure()) FAIL() << "trial " << trial;
  }
}

TEST(Myers, EqualsDpVerifierOnRepeatsAndHomopolymers) {
  std::mt19937_64 rng(7);
  const Text text = make_text(std::string(200, 'A') + "ACACACACACACACACACACGTGTGTGTGT" + std::string(200, 'C') +
                              "TTTTTTTTTTGATTACAGATTACAGATTACA" + std::string(200, 'G') + test::random_dna(rng, 300));
  for (int64_t pos = 100; pos < 700; pos += 3) {
    for (int band : {0, 1, 3, 6, 12, 31}) {
      std::string read = mutate(text.seq.substr(pos, 80), static_cast<int>(rng() % 4), rng);
      const int64_t diag = pos + static_cast<int64_t>(rng() % 5) - 2;
      for (int max_edits : {0, band, band + 4}) compare(text, read, diag, band, max_edits, "repeats");
      if (::testing::Test::HasFailure()) FAIL() << "pos " << pos << " band " << band;
    }
  }
}
