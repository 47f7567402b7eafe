// GPU pair-HMM against the double oracle and the benchmark files (skips without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "caller/pairhmm/pairhmm.hpp"
#include "sim/pairhmm_sim.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "tests/caller/pairhmm_fixture.hpp"

namespace gatemap {
namespace {

using caller::pairhmm::PairHmmBatch;
using caller::pairhmm::PairHmmOptions;

void expect_gpu_matches_reference(const PairHmmBatch& b, const PairHmmOptions& opt, bool expect_double) {
  std::vector<double> ref, got, cpu;
  caller::pairhmm::pairhmm_reference(b, opt, ref);
  caller::pairhmm::PairHmmGpu engine;
  caller::pairhmm::PairHmmStats st;
  engine.compute(b, opt, got, &st);
  caller::pairhmm::pairhmm_cpu(b, opt, cpu);
  ASSERT_EQ(got.size(), ref.size());
  if (expect_double) {
    EXPECT_GT(st.double_pairs, 0);
  }
  size_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!test::close_log10(got[i], ref[i], 1e-4) || !test::close_log10(got[i], cpu[i], 1e-4)) {
      if (++bad <= 10) ADD_FAILURE() << "pair " << i << ": gpu " << got[i] << " ref " << ref[i] << " cpu " << cpu[i];
    }
  }
  EXPECT_EQ(bad, 0u);
}

// Kernel shape k forced (or the dispatcher, k = -1) on the batch: every result within
// 1e-4 of the oracle's (the first five misses reported). Returns the stats.
caller::pairhmm::PairHmmStats expect_shape_matches(caller::pairhmm::PairHmmGpu& engine, int k, const PairHmmBatch& b,
                                       const std::vector<double>& ref) {
  engine.force_kernel_shape(k);
  std::vector<double> got;
  caller::pairhmm::PairHmmStats st;
  engine.compute(b, PairHmmOptions{}, got, &st);
  EXPECT_EQ(got.size(), ref.size());
  size_t bad = 0;
  for (size_t i = 0; i < std::min(got.size(), ref.size()); ++i) {
    if (!test::close_log10(got[i], ref[i], 1e-4) && ++bad <= 5) {
      ADD_FAILURE() << "pair " << i << ": gpu " << got[i] << " ref " << ref[i];
    }
  }
  EXPECT_EQ(bad, 0u);
  return st;
}

// Mixed pairs: lengths drawn per read and haplotype in [r0, r1] and [h0, h1], reads with
// up to 8% substitutions, a tenth unrelated (far below float's range), some N.
PairHmmBatch mixed_batch(int groups, int r0, int r1, int h0, int h1, uint64_t seed) {
  sim::PairHmmSimOptions so;
  so.groups = groups;
  so.reads_per_group = 5;
  so.haps_per_group = 3;
  so.min_read_len = r0, so.max_read_len = r1;
  so.min_hap_len = h0, so.max_hap_len = h1;
  so.vary_within_group = true;
  so.max_error_rate = 0.08;
  so.unrelated_fraction = 0.1;
  so.n_rate = 0.005;
  so.seed = seed;
  PairHmmBatch b;
  sim::simulate_pairhmm_batch(so, b);
  return b;
}

// Every kernel shape: short pairs many to a warp, one band, several bands with the
// boundary in shared memory, and long haplotypes whose boundary spills to global memory.
TEST(PairHmmGpu, AgreesWithReferenceOverTheSizeRange) {
  GATEMAP_REQUIRE_GPU();
  struct Range {
    int r0, r1, h0, h1, groups;
  };
  for (const Range rg : {Range{1, 40, 1, 80, 300}, Range{30, 300, 30, 400, 120}, Range{200, 1500, 100, 2000, 20},
                         Range{1000, 4096, 2000, 8192, 3}}) {
    const PairHmmBatch b = mixed_batch(rg.groups, rg.r0, rg.r1, rg.h0, rg.h1, static_cast<uint64_t>(rg.r1));
    SCOPED_TRACE("reads " + std::to_string(rg.r0) + ".." + std::to_string(rg.r1));
    expect_gpu_matches_reference(b, PairHmmOptions{}, rg.r1 >= 300 && rg.r1 <= 1500);
  }
}

// Each kernel shape forced on the same pairs (one band, several bands, long reads, and
// pairs that underflow float), whatever the dispatcher would pick: all agree with the
// oracle.
TEST(PairHmmGpu, EveryKernelShapeAgreesWithReference) {
  const PairHmmBatch b = mixed_batch(24, 1, 1200, 1, 700, 77);
  // The batch reaches four 256-row bands (the block kernel's whole block) and has reads
  // far longer than their haplotype (in float through rescaled bands on the shapes of
  // at most 32 rows per band, straight to double on the others).
  int64_t four_bands = 0, much_longer = 0;
  for (const auto& [r, h] : b.pairs()) {
    four_bands += b.read_len[r] > 768;
    much_longer += b.read_len[r] > b.hap_len[h] + 80;
  }
  ASSERT_GT(four_bands, 0);
  ASSERT_GT(much_longer, 0);
  GATEMAP_REQUIRE_GPU();
  std::vector<double> ref;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  caller::pairhmm::PairHmmGpu engine;
  for (int k = 0; k < caller::pairhmm::PairHmmGpu::kernel_shapes(); ++k) {
    SCOPED_TRACE(caller::pairhmm::PairHmmGpu::kernel_shape_name(k));
    EXPECT_GT(expect_shape_matches(engine, k, b, ref).double_pairs, 0);
  }
}

// Reads ten times longer than their haplotypes lie far below float's range, but each
// band of at most 32 rows stays within it: the float pass rescales boundary rows, and
// most such pairs must finish there (not in the double pass) with the oracle's values.
TEST(PairHmmGpu, LongReadsFinishInFloatThroughRescaledBands) {
  sim::PairHmmSimOptions so;
  so.groups = 40;
  so.reads_per_group = 4;
  so.haps_per_group = 4;
  so.min_read_len = 160, so.max_read_len = 1280;
  so.min_hap_len = 16, so.max_hap_len = 128;
  so.vary_within_group = true;
  so.seed = 11;
  PairHmmBatch b;
  sim::simulate_pairhmm_batch(so, b);
  int64_t long_pairs = 0;
  for (const auto& [r, h] : b.pairs()) long_pairs += b.read_len[r] > b.hap_len[h] + 80;
  ASSERT_GT(long_pairs, static_cast<int64_t>(b.pair_count()) / 2);
  GATEMAP_REQUIRE_GPU();
  std::vector<double> ref, got;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  caller::pairhmm::PairHmmGpu engine;
  caller::pairhmm::PairHmmStats st;
  engine.compute(b, PairHmmOptions{}, got, &st);
  ASSERT_EQ(got.size(), ref.size());
  EXPECT_LT(st.double_pairs, long_pairs / 10);
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_TRUE(test::close_log10(got[i], ref[i], 1e-4)) << i << ": gpu " << got[i] << " ref " << ref[i];
  }
}

// A gap continuation of Q0 (gm = 0) cannot be folded into X and Y (the tall shapes'
// float pass): such pairs must still come out right, through the double pass.
TEST(PairHmmGpu, GapContinuationQ0TakesTheExactPath) {
  PairHmmBatch b = mixed_batch(8, 100, 600, 100, 600, 5);
  for (size_t i = 0; i < b.gcp_q.size(); i += 7) b.gcp_q[i] = 0;
  GATEMAP_REQUIRE_GPU();
  std::vector<double> ref;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  caller::pairhmm::PairHmmGpu engine;
  for (const std::string shape : {"G16xR8", "G32xR8", "B32xR8"}) {
    SCOPED_TRACE(shape);
    int k = 0;
    while (k < caller::pairhmm::PairHmmGpu::kernel_shapes() && caller::pairhmm::PairHmmGpu::kernel_shape_name(k) != shape) ++k;
    ASSERT_LT(k, caller::pairhmm::PairHmmGpu::kernel_shapes());
    engine.force_kernel_shape(k);
    std::vector<double> got;
    engine.compute(b, PairHmmOptions{}, got);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_TRUE(test::close_log10(got[i], ref[i], 1e-4)) << i;
  }
}

// Every 16- and 32-row shape forced on the batch, and the dispatcher: all agree with the
// oracle.
void expect_every_tall_shape_matches(const PairHmmBatch& b) {
  std::vector<double> ref;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  caller::pairhmm::PairHmmGpu engine;
  for (const std::string shape : {"G4xR16", "G8xR16", "G16xR16", "G32xR16", "G8xR32", "G16xR32", "G32xR32", ""}) {
    SCOPED_TRACE(shape.empty() ? "dispatcher" : shape);
    int k = 0;
    while (k < caller::pairhmm::PairHmmGpu::kernel_shapes() && caller::pairhmm::PairHmmGpu::kernel_shape_name(k) != shape) ++k;
    ASSERT_TRUE(shape.empty() || k < caller::pairhmm::PairHmmGpu::kernel_shapes());
    expect_shape_matches(engine, shape.empty() ? -1 : k, b, ref);
  }
}

// The 16- and 32-row shapes take reads whose gap continuation is one value at every base
// (any quality above Q0); the others (and Q0) take the same lanes with 8 rows even when
// such a shape is forced. Reads of every length pad their first band differently.
// Also haplotypes long enough that the band boundaries of most of these shapes go
// through global memory.
TEST(PairHmmGpu, TallLaneShapesTakeUniformGapContinuationReads) {
  for (const bool long_haps : {false, true}) {
    SCOPED_TRACE(long_haps ? "haplotypes 2000..5000" : "haplotypes 1..600");
    PairHmmBatch b = long_haps ? mixed_batch(4, 200, 1500, 2000, 5000, 17) : mixed_batch(30, 1, 1100, 1, 600, 16);
    const uint8_t qualities[] = {1, 5, 10, 25, 40, 0};
    for (size_t r = 0; r < b.read_len.size(); ++r) {
      uint8_t* gcp = b.gcp_q.data() + b.read_begin[r];
      for (int32_t i = 0; i < b.read_len[r]; ++i) gcp[i] = r % 7 == 6 ? static_cast<uint8_t>(i % 30) : qualities[r % 6];
    }
    GATEMAP_REQUIRE_GPU();
    expect_every_tall_shape_matches(b);
  }
}

// Reads of 700..1024 bases with 0-6% substitutions lie far below float's range (down to
// ~1e-250) in a single band of 1024 rows (or the last of two 512-row bands), where no band
// boundary can be rescaled: the 32-row shapes scale their lanes instead, so such pairs
// finish in float with the oracle's values. (Haplotypes of 1024 bases: reads longer than
// their haplotype by 80+ would skip the float pass on these shapes.)
TEST(PairHmmGpu, SingleBandLongReadsFinishInFloatThroughLaneScaling) {
  PairHmmBatch b = mixed_batch(4, 700, 1024, 1024, 1024, 23);
  static const char kBases[] = "ACGT";
  std::mt19937_64 rng(5);
  for (size_t r = 0; r < b.read_len.size(); ++r) {
    const double rate = 0.02 * static_cast<double>(r % 4);
    for (int32_t i = 0; i < b.read_len[r]; ++i) {
      char& base = b.read_bases[b.read_begin[r] + i];
      const char* at = std::strchr(kBases, base);
      if (at && std::uniform_real_distribution<double>(0, 1)(rng) < rate) base = kBases[(at - kBases + 1 + rng() % 3) % 4];
    }
  }
  GATEMAP_REQUIRE_GPU();
  std::vector<double> ref;
  caller::pairhmm::pairhmm_reference(b, PairHmmOptions{}, ref);
  int64_t below_float = 0;
  for (double v : ref) below_float += std::isfinite(v) && v < -70;
  ASSERT_GT(below_float, static_cast<int64_t>(ref.size()) / 5);
  caller::pairhmm::PairHmmGpu engine;
  for (const std::string shape : {"G32xR32", "G16xR32"}) {
    SCOPED_TRACE(shape);
    int k = 0;
    while (k < caller::pairhmm::PairHmmGpu::kernel_shapes() && caller::pairhmm::PairHmmGpu::kernel_shape_name(k) != shape) ++k;
    ASSERT_LT(k, caller::pairhmm::PairHmmGpu::kernel_shapes());
    const caller::pairhmm::PairHmmStats st = expect_shape_matches(engine, k, b, ref);
    EXPECT_LT(st.double_pairs, below_float * 3 / 4);  // all of them without lane scaling
  }
}

TEST(PairHmmGpu, EqualLengthGroupsNoTristate) {
  GATEMAP_REQUIRE_GPU();
  for (int len : {16, 64, 256, 700}) {
    sim::PairHmmSimOptions so;
    so.groups = 4;
    so.min_read_len = so.max_read_len = so.min_hap_len = so.max_hap_len = len;
    so.seed = static_cast<uint64_t>(len);
    PairHmmBatch b;
    sim::simulate_pairhmm_batch(so, b);
    PairHmmOptions opt;
    opt.tristate = false;
    expect_gpu_matches_reference(b, opt, false);
  }
}

TEST(PairHmmGpu, MatchesBenchmarkFiles) {
  GATEMAP_REQUIRE_GPU();
  for (const std::string name : {"tiny", "10s", "1m"}) {
    if (!std::filesystem::exists(test::pairhmm_data(name + ".in"))) GTEST_SKIP() << test::real_data_absent("pairhmm-carneiro");
    PairHmmBatch b;
    caller::pairhmm::read_pairhmm_file(test::pairhmm_data(name + ".in"), b);
    const auto want = test::read_expected(test::pairhmm_data(name + ".out"));
    PairHmmOptions opt;
    opt.tristate = false;
    std::vector<double> got;
    caller::pairhmm::PairHmmGpu engine;
    engine.compute(b, opt, got);
    test::expect_matches_file(b, got, want);
  }
}

// Appends group `g` of `from` to `to`, as a group of its own.
void append_group(PairHmmBatch& to, const PairHmmBatch& from, const PairHmmBatch::Group& g) {
  const auto r0 = static_cast<int32_t>(to.read_len.size()), h0 = static_cast<int32_t>(to.hap_len.size());
  for (int32_t r = g.first_read; r < g.first_read + g.n_reads; ++r) {
    const int64_t at = from.read_begin[r];
    const int32_t n = from.read_len[r];
    auto slice = [&](const std::vector<uint8_t>& q) { return std::vector<uint8_t>(q.begin() + at, q.begin() + at + n); };
    to.add_read(std::string_view(from.read_bases.data() + at, static_cast<size_t>(n)), slice(from.base_q),
                slice(from.ins_q), slice(from.del_q), slice(from.gcp_q));
  }
  for (int32_t h = g.first_hap; h < g.first_hap + g.n_haps; ++h) {
    to.add_haplotype(std::string_view(from.hap_bases.data() + from.hap_begin[h], static_cast<size_t>(from.hap_len[h])));
  }
  to.add_group(r0, g.n_reads, h0, g.n_haps);
}

// A pair's likelihood is the same bits whatever batch it comes in: the caller's windows
// differ when a run is called in parts (`call --device all`), and a window's size once
// decided the kernel shapes, whose float results differ in the last bits. Short reads
// with GATK's fixed gap continuation, in a batch of ~2e9 cells (a window's size) and
// each group alone; and long reads of several band counts in a group, some of which scale
// their lanes in their last band.
TEST(PairHmmGpu, LikelihoodsDoNotDependOnTheBatch) {
  PairHmmBatch b = mixed_batch(400, 100, 250, 100, 500, 41);
  const PairHmmBatch long_reads = mixed_batch(40, 400, 1100, 400, 1500, 43);
  for (const auto& g : long_reads.groups) append_group(b, long_reads, g);
  std::fill(b.gcp_q.begin(), b.gcp_q.end(), uint8_t{10});
  GATEMAP_REQUIRE_GPU();
  PairHmmBatch big;
  for (int copy = 0; copy < 8; ++copy) {
    for (const auto& g : b.groups) append_group(big, b, g);
  }
  ASSERT_GT(big.cell_count(), int64_t{1} << 30);
  caller::pairhmm::PairHmmGpu engine;
  std::vector<double> whole;
  engine.compute(big, PairHmmOptions{}, whole);
  size_t at = whole.size() - b.pair_count();  // the last copy
  size_t differ = 0;
  for (const auto& g : b.groups) {
    PairHmmBatch one;
    append_group(one, b, g);
    std::vector<double> alone;
    engine.compute(one, PairHmmOptions{}, alone);
    for (double v : alone) {
      if (std::memcmp(&v, &whole[at], sizeof v) != 0 && ++differ <= 5) {
        ADD_FAILURE() << "pair " << at << ": " << v << " alone, " << whole[at] << " in the batch";
      }
      ++at;
    }
  }
  EXPECT_EQ(differ, 0u);
}

// Two calls on one engine, the second larger, and a batch split into many chunks
// (reuse of device buffers and the double-buffered slots).
TEST(PairHmmGpu, EngineReuseAcrossBatches) {
  GATEMAP_REQUIRE_GPU();
  caller::pairhmm::PairHmmGpu engine;
  for (int groups : {3, 400}) {
    sim::PairHmmSimOptions so;
    so.groups = groups;
    so.min_read_len = 50, so.max_read_len = 150;
    so.min_hap_len = 100, so.max_hap_len = 300;
    so.seed = static_cast<uint64_t>(groups);
    PairHmmBatch b;
    sim::simulate_pairhmm_batch(so, b);
    std::vector<double> ref, got;
    caller::pairhmm::pairhmm_cpu(b, PairHmmOptions{}, ref);
    engine.compute(b, PairHmmOptions{}, got);
    ASSERT_EQ(ref.size(), got.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_TRUE(test::close_log10(got[i], ref[i], 1e-4)) << i;
  }
}

}  // namespace
}  // namespace gatemap
