// The GPU corrector gives exactly the CPU twin's output (skips without a GPU).
#include <gtest/gtest.h>

#include "correct/correct.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/kmer_count.hpp"
#include "tests/correct/correct_fixture.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "tests/test_util.hpp"

namespace gatemap {
namespace {

TEST(CorrectGpu, IdenticalToCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  for (const std::string kind : {"bloom", "exact"}) {
    for (int read_len : {100, 150, 300}) {
      auto set = test::make_correction_set(60000, read_len, 30, 0.6, 3, read_len);
      correct::KmerCounter counter(21);
      counter.add(set.reads);
      const auto spectrum = correct::build_spectrum(counter, correct::first_valley(counter.histogram()), kind, 1e-3);
      correct::CorrectBatch cpu, dev;
      for (const auto& r : set.reads) cpu.add(r.seq), dev.add(r.seq);
      dev.add(std::string(1500, 'A'));  // too long for the device: passes unchanged, as on the CPU
      cpu.add(std::string(1500, 'A'));
      correct::correct_reads_cpu(spectrum, correct::CorrectOptions{}, cpu);
      correct::KmerCorrectGpu engine(spectrum);
      double ms = 0;
      engine.correct(correct::CorrectOptions{}, dev, &ms);
      ASSERT_EQ(cpu.codes, dev.codes) << kind << " " << read_len;
      ASSERT_EQ(cpu.status, dev.status);
      ASSERT_EQ(cpu.changed, dev.changed);
      EXPECT_GT(ms, 0);
    }
  }
}

}  // namespace
}  // namespace gatemap

namespace gatemap {
namespace {

// The command with each batch split over two engines (device 0 twice stands in for two
// GPUs) writes the CPU twin's output.
TEST(CorrectGpu, DeviceListEqualsCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  test::TempDir dir;
  const auto set = test::make_correction_set(30000, 100, 30, 0.5, 1, 9);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::CorrectRunOptions o;
  o.in1 = dir.file("in.fq");
  o.out1 = dir.file("cpu.fq");
  o.backend = "cpu";
  o.batch_reads = 7000;
  correct::run_correct(o);
  o.out1 = dir.file("gpu.fq");
  o.backend = "gpu";
  o.device = "0,0";
  const auto sum = correct::run_correct(o);
  EXPECT_GT(sum.reads_changed, 0);
  EXPECT_EQ(test::read_file(dir.file("gpu.fq")), test::read_file(dir.file("cpu.fq")));
}

}  // namespace
}  // namespace gatemap
