// On the GPU machine: --filter gpu gives the same records as cpu and off.
#include <gtest/gtest.h>

#include "gpu/device.hpp"
#include "sim_fixture.hpp"

using namespace gatemap;

TEST(MapperGpu, FilterGpuEqualsCpuAndOff) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  mapper::MapStats g, c;
  const std::string gpu_pe = d.map(d.pe1, d.pe2, "gpu", 4, 100000, &g);
  const std::string cpu_pe = d.map(d.pe1, d.pe2, "cpu", 4, 100000, &c);
  EXPECT_EQ(gpu_pe, cpu_pe);
  EXPECT_EQ(g.filter_rejected, c.filter_rejected);
  EXPECT_EQ(gpu_pe, d.map(d.pe1, d.pe2, "off", 4));
  EXPECT_EQ(d.map(d.se, "", "gpu"), d.map(d.se, "", "cpu"));
}

// Batches spread over two filter engines (device 0 twice stands in for two GPUs): the
// same records as the CPU twin.
TEST(MapperGpu, DeviceListSpreadsBatchesWithTheSameRecords) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("two_engines.sam"));
  o.filter = "gpu";
  o.device = "0,0";
  o.batch_reads = 4000;  // ten batches, five on each engine
  mapper::run_mapping(o);
  EXPECT_EQ(test::without_pg(test::read_file(o.output)), d.map(d.pe1, d.pe2, "cpu", 2, 4000));
}

// A device budget too small for a full batch (an artificial out-of-memory): those
// batches are seeded on the CPU with a warning, the last, smaller one on the GPU; the
// records do not change and none is lost.
TEST(MapperGpu, BatchOverTheDeviceBudgetIsSeededOnTheCpu) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("budget.sam"));
  o.filter = "gpu";
  o.batch_reads = 6000;                   // 40,000 reads: six batches of 6,000 and one of 4,000
  o.hw.seed_batch_bytes_limit = 1000000;  // 4,000 reads of 150 bp take 872,000 bytes, 6,000 take 1,308,000
  const mapper::MapStats st = mapper::run_mapping(o);
  EXPECT_EQ(st.seed_cpu_fallbacks, 6);
  EXPECT_EQ(st.reads, 40000);
  EXPECT_EQ(test::without_pg(test::read_file(o.output)), d.map(d.pe1, d.pe2, "cpu", 2, 6000));
}

// Seed hits in small chunks: a batch seeded in many chunks (the verifier's jobs made on
// the device from the clusters of all of them), and, smaller still, batches with reads
// whose hits fit no chunk (seeded on the CPU: host-made jobs). The same records as the CPU.
TEST(MapperGpu, SeedingInChunksAndReadsLeftToTheCpuKeepTheRecords) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  const std::string cpu = d.map(d.pe1, d.pe2, "cpu", 2, 6000);
  for (int64_t slots : {int64_t{20000}, int64_t{50}}) {
    mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("chunks_" + std::to_string(slots) + ".sam"));
    o.filter = "gpu";
    o.batch_reads = 6000;
    o.hw.seed_max_hit_slots = slots;
    const mapper::MapStats st = mapper::run_mapping(o);
    EXPECT_EQ(st.reads, 40000);
    EXPECT_GT(st.verified_on_gpu, 0) << slots;
    EXPECT_EQ(test::without_pg(test::read_file(o.output)), cpu) << slots;
  }
}

// The GPU verifier over its budget (an artificial out-of-memory after seeding: the
// candidates are still on the device): every batch's candidates come back, are filtered
// and verified on the CPU path with a warning, and the records do not change.
TEST(MapperGpu, VerificationOverTheDeviceBudgetGoesToTheCpuPath) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("verify_budget.sam"));
  o.filter = "gpu";
  o.batch_reads = 6000;
  o.hw.verify_jobs_limit = 1;
  const mapper::MapStats st = mapper::run_mapping(o);
  EXPECT_EQ(st.reads, 40000);
  EXPECT_EQ(st.verified_on_gpu, 0);
  EXPECT_EQ(st.seed_cpu_fallbacks, 0);  // seeded on the GPU
  EXPECT_EQ(test::without_pg(test::read_file(o.output)), d.map(d.pe1, d.pe2, "cpu", 2, 6000));
}
