// The CPU twin against independent oracles: the byte-wise reimplementation (same
// answer on every pair), banded edit distance (never a false reject, estimate is a
// lower bound) and, when installed, edlib's global distance as in the paper.
#include <gtest/gtest.h>

#include "mapper/filter/gatekeeper.hpp"
#include "mapper/filter/gatekeeper_core.hpp"
#include "tests/mapper/filter/filter_fixture.hpp"
#include "tests/mapper/filter/gatekeeper_oracles.hpp"
#ifdef GATEMAP_HAVE_EDLIB
#include <edlib.h>
#endif

using namespace gatemap;

class GateKeeperOracle : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(GateKeeperOracle, NoFalseRejectsAndMatchesNaiveSemantics) {
  const auto [len, e] = GetParam();
  static const test::FilterFixture fx(42, 400000, 3);
  const uint64_t seed = 1000 * len + e;
  const auto ps = test::make_pairs(fx, len, e, 1500, seed);
  std::vector<uint8_t> codes;
  mapper::filter::gatekeeper_cpu(fx.ref, ps.packed, ps.cand, e, codes);
  int64_t within = 0, false_accepts = 0, rejects = 0;
  for (size_t i = 0; i < ps.cand.size(); ++i) {
    const std::string read = ps.cand.strand(i) ? reverse_complement(ps.reads[i]) : ps.reads[i];
    // The contig holding the read's middle base (the filter's choice; verification would
    // reject the pair in any other).
    const int64_t pos = ps.cand.diag(i);
    const uint32_t c = fx.contig_of(pos + static_cast<int64_t>(read.size()) / 2);
    const int64_t cb = fx.contig_begin[c], ce = fx.contig_end[c];
    const bool crosses = pos - e < cb || pos + len + e > ce;
    const int naive = (4 * e >= len && crosses) ? -1 : test::naive_gatekeeper(fx.text, cb, ce, read, pos, e);
    ASSERT_EQ(naive < 0 ? int{mapper::filter::kFilterUnfiltered} : naive, codes[i]) << "seed " << seed << " pair " << i;
    if (naive < 0) continue;
    const int dist = test::banded_edit_distance(fx.text, cb, ce, read, pos, e);
    ASSERT_LE(static_cast<int>(codes[i]), std::min(dist, e + 1)) << "not a lower bound: seed " << seed << " pair " << i;
    const bool accepted = mapper::filter::filter_accepts(codes[i], e);
    if (dist <= e) {
      ++within;
      ASSERT_TRUE(accepted) << "false reject: seed " << seed << " pair " << i << " distance " << dist;
    } else {
      ++rejects;
      false_accepts += accepted;
    }
#ifdef GATEMAP_HAVE_EDLIB
    if (pos >= cb && pos + len <= ce) {
      const std::string seg = fx.text.substr(pos, len);
      EdlibAlignResult r = edlibAlign(read.data(), len, seg.data(), len, edlibNewAlignConfig(e, EDLIB_MODE_NW,
                                                                                    EDLIB_TASK_DISTANCE, nullptr, 0));
      if (r.editDistance >= 0) {
        EXPECT_TRUE(accepted) << "edlib NW within e but rejected: pair " << i;
      }
      edlibFreeAlignResult(r);
    }
#endif
  }
  EXPECT_GT(within, 100);
  EXPECT_GT(rejects, 100);
  RecordProperty("false_accept_rate", std::to_string(static_cast<double>(false_accepts) / std::max<int64_t>(1, rejects)));
}

INSTANTIATE_TEST_SUITE_P(Settings, GateKeeperOracle,
                         ::testing::Combine(::testing::Values(64, 100, 150, 250, 300),
                                            ::testing::Values(0, 1, 2, 3, 5, 8, 10)));

TEST(GateKeeper, ReadsWithNAndTooLongReadsPassUnfiltered) {
  const test::FilterFixture fx(7, 100000, 1);
  std::string with_n = fx.text.substr(5000, 100);
  with_n[50] = 'N';
  const std::string too_long = fx.text.substr(6000, mapper::filter::kMaxReadLen + 1);
  std::vector<std::string_view> views = {with_n, too_long};
  mapper::filter::FilterReads reads;
  mapper::filter::pack_reads(views, reads);
  mapper::filter::FilterCandidates cand;
  cand.push(0, 0, 90000);  // contig 0 starts at 0
  cand.push(1, 0, 10);
  std::vector<uint8_t> codes;
  mapper::filter::gatekeeper_cpu(fx.ref, reads, cand, 3, codes);
  EXPECT_EQ(codes[0], mapper::filter::kFilterUnfiltered);
  EXPECT_EQ(codes[1], mapper::filter::kFilterUnfiltered);
}

TEST(GateKeeper, ContigEdgesUseTheLeadingTrailingFix) {
  const test::FilterFixture fx(9, 30000, 3);  // contigs of 10 kbp
  // A read that overhangs the start of contig 1 by 3 bases cannot match them.
  const std::string read = "AAA" + fx.text.substr(10000, 97);
  std::vector<std::string_view> views = {read};
  mapper::filter::FilterReads reads;
  mapper::filter::pack_reads(views, reads);
  mapper::filter::FilterCandidates cand;
  cand.push(0, 0, 9997);  // 3 bases before contig 1 (which starts at 10000)
  std::vector<uint8_t> codes;
  mapper::filter::gatekeeper_cpu(fx.ref, reads, cand, 2, codes);
  const int dist = test::banded_edit_distance(fx.text, 10000, 20000, read, 9997, 2);
  EXPECT_GE(dist, 1);
  EXPECT_GE(codes[0], 1);  // the overhang is seen as edits, not as free matches
  EXPECT_LE(static_cast<int>(codes[0]), dist);
}

TEST(GateKeeper, DiagonalsOffTheReferencePassUnfiltered) {
  const test::FilterFixture fx(10, 30000, 3);
  const std::string read = fx.text.substr(0, 100);
  std::vector<std::string_view> views = {read};
  mapper::filter::FilterReads reads;
  mapper::filter::pack_reads(views, reads);
  mapper::filter::FilterCandidates cand;
  cand.push(0, 0, -2);                     // hangs off the reference's first base
  cand.push(0, 0, int64_t{1} << 33);       // beyond 32-bit coordinates
  cand.push(0, 0, 0);                      // an ordinary pair for contrast
  EXPECT_EQ(cand.diag(0), -1);
  std::vector<uint8_t> codes;
  mapper::filter::gatekeeper_cpu(fx.ref, reads, cand, 2, codes);
  EXPECT_EQ(codes[0], mapper::filter::kFilterUnfiltered);
  EXPECT_EQ(codes[1], mapper::filter::kFilterUnfiltered);
  EXPECT_EQ(codes[2], 0);
}

TEST(GateKeeper, ReadsCrossingAContigEndUseTheContigOfTheirMiddle) {
  const test::FilterFixture fx(11, 30000, 3);  // contigs of 10 kbp
  // 70 bases of contig 0's end then 30 of contig 1: compared with contig 0, the last 30
  // bases are outside it (edits); a short read at a large e passes unfiltered instead.
  const std::string read = fx.text.substr(9930, 100);
  const std::string short_read = fx.text.substr(9990, 20);
  std::vector<std::string_view> views = {read, short_read};
  mapper::filter::FilterReads reads;
  mapper::filter::pack_reads(views, reads);
  mapper::filter::FilterCandidates cand;
  cand.push(0, 0, 9930);
  cand.push(1, 0, 9990);
  std::vector<uint8_t> codes;
  mapper::filter::gatekeeper_cpu(fx.ref, reads, cand, 5, codes);
  EXPECT_EQ(static_cast<int>(codes[0]), test::naive_gatekeeper(fx.text, 0, 10000, fx.text.substr(9930, 100), 9930, 5));
  EXPECT_FALSE(mapper::filter::filter_accepts(codes[0], 5));  // 30 bases past the end: more than e
  EXPECT_EQ(codes[1], mapper::filter::kFilterUnfiltered);      // 4e >= m and the window crosses
}

// The CPU twin runs the algorithm on 64-bit words, the kernel on 32-bit words: the same
// bits, so the same code for every pair, including long reads and large e near contig
// ends (both word sizes run here on the host).
TEST(GateKeeper, SixtyFourAndThirtyTwoBitWordsAgree) {
  static const test::FilterFixture fx(12, 200000, 3);
  int64_t compared = 0;
  for (int len : {31, 32, 33, 63, 64, 65, 100, 150, 250, 300, 511, 512}) {
    for (int e : {0, 1, 3, 7, 12, 31, 64}) {
      const auto ps = test::make_pairs(fx, len, std::min(e, 10), 150, 7 * len + e);
      for (size_t i = 0; i < ps.cand.size(); ++i) {
        const auto& r = ps.packed;
        const uint8_t c32 = mapper::filter::detail::gatekeeper_candidate<uint32_t>(fx.ref, r.hi.data(), r.lo.data(), r.len.data(),
                                                                   r.has_n.data(), r.stride_words,
                                                                   ps.cand.read_strand[i], ps.cand.diagonal[i], e);
        const uint8_t c64 = mapper::filter::detail::gatekeeper_candidate<uint64_t>(fx.ref, r.hi.data(), r.lo.data(), r.len.data(),
                                                                   r.has_n.data(), r.stride_words,
                                                                   ps.cand.read_strand[i], ps.cand.diagonal[i], e);
        ASSERT_EQ(c32, c64) << "len " << len << " e " << e << " pair " << i;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10000);
}
