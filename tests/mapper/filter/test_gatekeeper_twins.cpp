// GPU kernel against its CPU twin: the same codes for every pair, with encoding on
// the host and on the device, with two batches in flight.
#include "tests/gpu/gpu_test.hpp"

#include "common/error.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "tests/mapper/filter/filter_fixture.hpp"

using namespace gatemap;

class GateKeeperTwins : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(GateKeeperTwins, GpuEqualsCpuOnEveryPair) {
  GATEMAP_REQUIRE_GPU();
  const auto [len, e] = GetParam();
  static const test::FilterFixture fx(3, 2000000, 4);
  const uint64_t seed = 7 * len + e;
  const auto ps = test::make_pairs(fx, len, e, 200000, seed);
  std::vector<uint8_t> cpu, gpu_host, gpu_dev;
  mapper::filter::gatekeeper_cpu(fx.ref, ps.packed, ps.cand, e, cpu);
  mapper::filter::GateKeeperGpu engine(fx.ref);
  engine.filter(ps.packed, ps.cand, e, gpu_host, false);
  engine.filter(ps.packed, ps.cand, e, gpu_dev, true);
  ASSERT_EQ(cpu.size(), gpu_host.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(cpu[i], gpu_host[i]) << "seed " << seed << " pair " << i;
    ASSERT_EQ(cpu[i], gpu_dev[i]) << "device encoding, seed " << seed << " pair " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Settings, GateKeeperTwins,
                         ::testing::Combine(::testing::Values(50, 100, 150, 250, 512),
                                            ::testing::Values(0, 2, 5, 10, 25)));

TEST(GateKeeperGpu, TwoBatchesInFlight) {
  GATEMAP_REQUIRE_GPU();
  static const test::FilterFixture fx(4, 500000, 2);
  const auto a = test::make_pairs(fx, 100, 4, 50000, 1);
  const auto b = test::make_pairs(fx, 150, 6, 30000, 2);
  std::vector<uint8_t> ca, cb, ga, gb;
  mapper::filter::gatekeeper_cpu(fx.ref, a.packed, a.cand, 4, ca);
  mapper::filter::gatekeeper_cpu(fx.ref, b.packed, b.cand, 6, cb);
  mapper::filter::GateKeeperGpu engine(fx.ref);
  const int ta = engine.submit(a.packed, a.cand, 4);
  const int tb = engine.submit(b.packed, b.cand, 6);
  EXPECT_THROW(engine.submit(a.packed, a.cand, 4), Error);
  mapper::filter::FilterTiming timing;
  engine.collect(ta, ga, &timing);
  engine.collect(tb, gb);
  EXPECT_EQ(ca, ga);
  EXPECT_EQ(cb, gb);
  EXPECT_GT(timing.kernel_ms, 0.0);
  EXPECT_GE(timing.total_ms, timing.kernel_ms);
}

TEST(GateKeeperGpu, EmptyBatch) {
  GATEMAP_REQUIRE_GPU();
  static const test::FilterFixture fx(5, 10000, 1);
  mapper::filter::FilterReads reads;
  mapper::filter::pack_reads({}, reads);
  mapper::filter::FilterCandidates cand;
  std::vector<uint8_t> out{1, 2, 3};
  mapper::filter::GateKeeperGpu engine(fx.ref);
  engine.filter(reads, cand, 3, out);
  EXPECT_TRUE(out.empty());
}

TEST(GateKeeperGpu, LargeBatchFilteredInChunksEqualsCpu) {
  GATEMAP_REQUIRE_GPU();
  static const test::FilterFixture fx(6, 1000000, 3);
  auto ps = test::make_pairs(fx, 150, 5, 100000, 11);
  const size_t base = ps.cand.size();
  for (size_t i = 0; ps.cand.size() < 6000000; ++i) {  // several chunks' worth of pairs
    ps.cand.push(ps.cand.read(i % base), ps.cand.strand(i % base), ps.cand.diag(i % base));
  }
  std::vector<uint8_t> cpu, gpu_codes;
  mapper::filter::gatekeeper_cpu(fx.ref, ps.packed, ps.cand, 5, cpu);
  mapper::filter::GateKeeperGpu engine(fx.ref);
  engine.filter(ps.packed, ps.cand, 5, gpu_codes);
  ASSERT_EQ(cpu.size(), gpu_codes.size());
  EXPECT_TRUE(cpu == gpu_codes);
}
