// CPU pair-HMM: the double oracle against hand values and the benchmark files, and the
// float twin against the oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "common/error.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "sim/pairhmm_sim.hpp"
#include "tests/caller/pairhmm_fixture.hpp"
#include "tests/test_util.hpp"

namespace gatemap {
namespace {

using caller::pairhmm::PairHmmBatch;
using caller::pairhmm::PairHmmOptions;

std::vector<uint8_t> q(size_t n, uint8_t v) { return std::vector<uint8_t>(n, v); }

PairHmmBatch one_pair(const std::string& read, const std::string& hap, uint8_t base_q = 30, uint8_t gap_q = 45,
                      uint8_t gcp_q = 10) {
  PairHmmBatch b;
  b.add_read(read, q(read.size(), base_q), q(read.size(), gap_q), q(read.size(), gap_q), q(read.size(), gcp_q));
  b.add_haplotype(hap);
  b.add_group(0, 1, 0, 1);
  return b;
}

// One base against one base: the only path is row 0 (1/H) -> M with gm and the prior.
TEST(PairHmmReference, SingleBaseByHand) {
  const double e = 1e-3, gm = 1 - 0.1;
  PairHmmOptions opt;
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("A", "A"), 0, 0, opt), std::log10((1 - e) * gm), 1e-12);
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("A", "C"), 0, 0, opt), std::log10(e / 3 * gm), 1e-12);
  opt.tristate = false;
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("A", "C"), 0, 0, opt), std::log10(e * gm), 1e-12);
  // N matches anything, on either side.
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("N", "C"), 0, 0, opt), std::log10((1 - e) * gm), 1e-12);
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("A", "N"), 0, 0, opt), std::log10((1 - e) * gm), 1e-12);
}

// Two read bases on two haplotype bases, summed by hand over the alignments that end
// in M or X on the last row: (M,M) on the diagonal, read base 1 in M at j=1 or j=2
// followed by base 2 inserted (X), and base 1 at j=1, base 2 at j=2 only.
TEST(PairHmmReference, TwoByTwoByHand) {
  const double e = 1e-3, a = std::pow(10, -4.5), g = 0.1;
  const double mm = 1 - 2 * a, gm = 1 - g, pm = 1 - e;
  const double start = 0.5;  // K / H, K divided out
  // M[1][1] = pm * gm * start, M[1][2] = (e/3) * gm * start ('A' against 'C').
  const double m11 = pm * gm * start, m12 = e / 3 * gm * start;
  // Row 2: M[2][2] = pm * (mm * M[1][1] + gm * (X[1][1] + Y[1][1])); X[1][1] = 0;
  // Y[1][1] = my * M[1][0] + ... = 0. So M[2][2] = pm * mm * m11. M[2][1] = pm*gm*(0) = 0.
  // X[2][j] = mx * M[1][j] (X[1][j] = 0).
  const double expected = pm * mm * m11 + a * m11 + a * m12;
  EXPECT_NEAR(caller::pairhmm::pairhmm_reference_pair(one_pair("AC", "AC", 30, 45), 0, 0, PairHmmOptions{}),
              std::log10(expected), 1e-12);
}

TEST(PairHmmReference, MatchesBenchmarkFilesOnLongestReads) {
  for (const std::string name : {"tiny", "10s", "1m"}) {
    if (!std::filesystem::exists(test::pairhmm_data(name + ".in"))) GTEST_SKIP() << test::real_data_absent("pairhmm-carneiro");
    SCOPED_TRACE(name);
    PairHmmBatch b;
    caller::pairhmm::read_pairhmm_file(test::pairhmm_data(name + ".in"), b);
    const auto want = test::read_expected(test::pairhmm_data(name + ".out"));
    ASSERT_EQ(b.pair_count(), want.size()) << name;
    std::vector<double> got;
    PairHmmOptions opt;
    opt.tristate = false;
    if (name == "1m") {
      caller::pairhmm::pairhmm_cpu(b, opt, got);  // the float twin (the oracle is checked on the smaller files)
    } else {
      caller::pairhmm::pairhmm_reference(b, opt, got);
    }
    const size_t checked = test::expect_matches_file(b, got, want);
    EXPECT_GT(checked, want.size() / 10) << name;
  }
}

TEST(PairHmmCpu, FloatTwinAgreesWithDoubleIncludingUnderflow) {
  sim::PairHmmSimOptions so;
  so.groups = 60;
  so.reads_per_group = 6;
  so.haps_per_group = 4;
  so.min_read_len = 1, so.max_read_len = 600;
  so.min_hap_len = 1, so.max_hap_len = 1200;
  so.vary_within_group = true;
  so.max_error_rate = 0.1;
  so.unrelated_fraction = 0.15;
  so.n_rate = 0.01;
  so.seed = 7;
  PairHmmBatch b;
  sim::simulate_pairhmm_batch(so, b);
  // A gap continuation of Q40 on every fourth read: its unrelated pairs fall faster than
  // rescaling every 32 rows can follow, so the double path is exercised.
  for (size_t r = 0; r < b.read_len.size(); r += 4) {
    std::fill_n(b.gcp_q.begin() + b.read_begin[r], b.read_len[r], uint8_t{40});
  }
  for (bool tristate : {true, false}) {
    PairHmmOptions opt;
    opt.tristate = tristate;
    std::vector<double> ref, fast;
    caller::pairhmm::pairhmm_reference(b, opt, ref);
    caller::pairhmm::PairHmmStats st;
    caller::pairhmm::pairhmm_cpu(b, opt, fast, &st);
    ASSERT_EQ(ref.size(), fast.size());
    EXPECT_GT(st.double_pairs, 0) << "the sample must exercise the double path";
    size_t finite = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_TRUE(test::close_log10(fast[i], ref[i], 1e-4)) << i << ": " << fast[i] << " vs " << ref[i];
      finite += std::isfinite(ref[i]);
    }
    EXPECT_GT(finite, ref.size() * 9 / 10);
  }
}

// One pair through the oracle and the float twin.
struct TwinRun {
  double ref, fast;
  int64_t double_pairs;
};
TwinRun run_twin(const PairHmmBatch& b) {
  std::vector<double> ref, fast;
  caller::pairhmm::PairHmmStats st;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  caller::pairhmm::pairhmm_cpu(b, PairHmmOptions{}, fast, &st);
  return {ref[0], fast[0], st.double_pairs};
}

// A read of 100 mismatches lies near 1e-106: below what float holds over the whole read
// (even scaled by 2^120), but each 32 rows lose far less than float's range, so the
// float pass rescaling its rows gets it, without the double pass.
TEST(PairHmmCpu, RescaledRowsKeepALongMismatchInFloat) {
  const TwinRun t = run_twin(one_pair(std::string(100, 'A'), std::string(100, 'C')));
  ASSERT_TRUE(std::isfinite(t.ref));
  EXPECT_LT(t.ref, -100);
  EXPECT_EQ(t.double_pairs, 0);
  EXPECT_TRUE(test::close_log10(t.fast, t.ref, 1e-6)) << t.fast << " vs " << t.ref;
}

// With a gap continuation of Q40 every row of that read costs at least ~1e-3.5 (no cheap
// insertion run), so 32 rows fall below float's range: the double pass takes it, and
// its result is the oracle's.
TEST(PairHmmCpu, UnderflowWithinRowsTakesTheDoublePath) {
  const TwinRun t = run_twin(one_pair(std::string(100, 'A'), std::string(100, 'C'), 30, 45, 40));
  ASSERT_TRUE(std::isfinite(t.ref));
  EXPECT_EQ(t.double_pairs, 1);
  EXPECT_DOUBLE_EQ(t.fast, t.ref);
}

// Far below double's range the float pass (rescaled) still holds the value, but the
// double computation gives 0: the twin gives -inf, as the oracle does.
TEST(PairHmmCpu, BelowDoubleRangeIsMinusInfinityAsInDouble) {
  const TwinRun t = run_twin(one_pair(std::string(1500, 'A'), std::string(20, 'C')));
  EXPECT_EQ(t.ref, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.fast, t.ref);
  EXPECT_EQ(t.double_pairs, 0);
}

// The split a multi-GPU engine makes: groups [g0, g1) as a batch of their own give the
// same results as within the whole batch, in the same order.
TEST(PairHmmBatchSplit, SubBatchesConcatenateToTheWhole) {
  sim::PairHmmSimOptions so;
  so.groups = 30;
  so.reads_per_group = 5;
  so.haps_per_group = 3;
  so.vary_within_group = true;
  so.seed = 9;
  PairHmmBatch b;
  sim::simulate_pairhmm_batch(so, b);
  std::vector<double> whole, joined, part;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, whole);
  for (const auto& [g0, g1] : {std::pair<size_t, size_t>{0, 1}, {1, 17}, {17, 30}}) {
    const PairHmmBatch sub = caller::pairhmm::sub_batch(b, g0, g1);
    EXPECT_EQ(sub.groups.size(), g1 - g0);
    caller::pairhmm::pairhmm_reference(sub, PairHmmOptions{}, part);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  EXPECT_EQ(joined, whole);
}

TEST(PairHmmBatchInput, ReadsFileAndRejectsBadLines) {
  test::TempDir dir;
  const std::string ok = test::write_file(dir.file("ok.in"), "2 1\nACGT IIII IIII IIII ++++\nAN II II II ++\n"
                                                              "ACGTT\n");
  PairHmmBatch b;
  caller::pairhmm::read_pairhmm_file(ok, b);
  EXPECT_EQ(b.pair_count(), 2u);
  EXPECT_EQ(b.base_q[0], 40);
  EXPECT_EQ(b.gcp_q[0], 10);
  const std::string bad_len = test::write_file(dir.file("bad.in"), "1 1\nACGT III IIII IIII ++++\nACGT\n");
  try {
    PairHmmBatch c;
    caller::pairhmm::read_pairhmm_file(bad_len, c);
    FAIL() << "accepted a quality string of the wrong length";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  const std::string truncated = test::write_file(dir.file("trunc.in"), "2 1\nACGT IIII IIII IIII ++++\n");
  PairHmmBatch c;
  EXPECT_THROW(caller::pairhmm::read_pairhmm_file(truncated, c), FormatError);
}

}  // namespace
}  // namespace gatemap
