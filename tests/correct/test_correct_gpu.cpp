// The GPU corrector gives exactly the CPU twin's output (skips without a GPU).
#include <gtest/gtest.h>

#include <algorithm>

#include "correct/correct.hpp"
#include "correct/count_pass.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/kmer_correct_core.hpp"
#include "correct/kmer_count.hpp"
#include "correct/kmer_count_gpu.hpp"
#include "correct/read_input.hpp"
#include "gpu/device.hpp"
#include "tests/correct/correct_fixture.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "tests/test_util.hpp"

namespace gatemap {
namespace {

// The GPU count table counts exactly what the CPU twin counts: k-mers seen, distinct,
// histogram and the solid k-mers, with N and reads of many lengths, at several k.
TEST(CountGpu, CountsEqualTheCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  auto set = test::make_correction_set(50000, 150, 25, 0.7, 3, 5);
  sim::Rng rng(8);
  for (auto& r : set.reads) r.seq.resize(10 + rng.below(r.seq.size() - 9));  // 10..150 bases, some < k
  for (int k : {15, 21, 31}) {
    correct::KmerCounter cpu(k);
    cpu.add(set.reads);
    correct::KmerCountGpu gpu(k, size_t(256) << 20);
    std::vector<correct::KmerPart> dropped;
    gpu.add(std::vector<io::Read>(set.reads.begin(), set.reads.begin() + 1000), dropped);
    gpu.add(std::vector<io::Read>(set.reads.begin() + 1000, set.reads.end()), dropped);
    SCOPED_TRACE(k);
    EXPECT_TRUE(dropped.empty());
    EXPECT_EQ(gpu.kmers_seen(), cpu.total());
    EXPECT_EQ(gpu.distinct(), cpu.distinct());
    EXPECT_EQ(gpu.histogram(255), cpu.histogram(255));
    EXPECT_EQ(gpu.histogram(3), cpu.histogram(3));
    for (uint32_t t : {1u, 2u, 5u}) {
      std::vector<uint64_t> a, b;
      gpu.for_each_solid(t, [&](uint64_t x) { a.push_back(x); });
      cpu.for_each_solid(t, [&](uint64_t x) { b.push_back(x); });
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      ASSERT_EQ(a, b) << t;
      std::vector<std::pair<uint64_t, uint32_t>> ca, cb;  // with their counts
      gpu.for_each_counted(t, [&](uint64_t x, uint32_t c) { ca.emplace_back(x, c); });
      cpu.for_each_counted(t, [&](uint64_t x, uint32_t c) { cb.emplace_back(x, c); });
      std::sort(ca.begin(), ca.end());
      std::sort(cb.begin(), cb.end());
      ASSERT_EQ(ca, cb) << t;
    }
    EXPECT_GT(gpu.kernel_ms(), 0);
  }
}

// A table that starts at 4096 slots doubles (its entries rehashed) many times as the
// k-mers come, and counts what the CPU twin counts, in one part.
TEST(CountGpu, GrowsFromASmallTableToTheCpuTwinsCounts) {
  GATEMAP_REQUIRE_GPU();
  const auto set = test::make_correction_set(60000, 150, 25, 0.7, 3, 11);
  correct::KmerCounter cpu(21);
  cpu.add(set.reads);
  correct::KmerCountGpu gpu(21, size_t(256) << 20, 0, 4096);
  const size_t first_bytes = gpu.bytes();
  std::vector<correct::KmerPart> dropped;
  for (size_t b = 0; b < set.reads.size(); b += 1000) {
    gpu.add(std::vector<io::Read>(set.reads.begin() + b, set.reads.begin() + std::min(b + 1000, set.reads.size())),
            dropped);
  }
  EXPECT_TRUE(dropped.empty());
  EXPECT_GE(gpu.slots() / 4 * 3, cpu.distinct());
  EXPECT_GE(gpu.slots(), 4096u << 6);  // hundreds of thousands of k-mers: six doublings at least
  EXPECT_GT(gpu.bytes(), first_bytes);
  EXPECT_EQ(gpu.kmers_seen(), cpu.total());
  EXPECT_EQ(gpu.distinct(), cpu.distinct());
  EXPECT_EQ(gpu.histogram(255), cpu.histogram(255));
  std::vector<std::pair<uint64_t, uint32_t>> a, b;
  gpu.for_each_counted(1, [&](uint64_t x, uint32_t c) { a.emplace_back(x, c); });
  cpu.for_each_counted(1, [&](uint64_t x, uint32_t c) { b.emplace_back(x, c); });
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

// The exact set the GPU table fills on the device holds exactly the CPU twin's solid
// k-mers (its slots may differ: linear probing in another order), and the table is empty
// after it.
TEST(CountGpu, ExactSpectrumHoldsTheCpuTwinsSolidKmers) {
  GATEMAP_REQUIRE_GPU();
  auto set = test::make_correction_set(20000, 150, 25, 0.7, 3, 7);
  for (int k : {13, 21}) {  // compact slots, whole ones
    correct::KmerCounter cpu(k);
    cpu.add(set.reads);
    std::vector<correct::KmerPart> dropped;
    for (uint32_t t : {2u, 5u}) {
      const auto h = cpu.histogram(correct::kHistogramMax);
      uint64_t solid = 0;
      for (size_t c = t; c < h.size(); ++c) solid += h[c];
      const correct::KmerSpectrum want = correct::build_spectrum(cpu, t, "exact", 0);
      correct::KmerCountGpu again(k, size_t(256) << 20);
      again.add(set.reads, dropped);
      const correct::KmerSpectrum got = again.take_exact_spectrum(t, solid, true);
      SCOPED_TRACE(std::to_string(k) + " " + std::to_string(t));
      EXPECT_EQ(got.kind, k == 13 ? correct::KmerSpectrum::Kind::compact : correct::KmerSpectrum::Kind::exact);
      EXPECT_EQ(got.kind, want.kind);
      EXPECT_EQ(got.n_kmers, want.n_kmers);
      EXPECT_EQ(got.words.size(), want.words.size());
      uint64_t held = 0;
      cpu.for_each_solid(t, [&](uint64_t x) { held += got.contains(x); });
      EXPECT_EQ(held, want.n_kmers);
      EXPECT_EQ(got.slots_filled(), want.n_kmers);
      EXPECT_EQ(again.distinct(), 0u);
    }
    EXPECT_TRUE(dropped.empty());
  }
}

std::string kmer_text(uint64_t x, int k) {
  std::string s(static_cast<size_t>(k), 'A');
  for (int d = 0; d < k; ++d) s[d] = "ACGT"[(x >> (2 * (k - 1 - d))) & 3];
  return s;
}

// Solid k-mers crowding one home of a compact set past the distances its slots can say:
// the GPU fills an exact set of whole k-mers instead, as the CPU twin widens its own.
TEST(CountGpu, ExactSpectrumOfCrowdedKmersIsWidened) {
  GATEMAP_REQUIRE_GPU();
  const int k = 21;
  std::vector<io::Read> reads;
  const auto add_twice = [&](const std::string& seq) {
    for (int i = 0; i < 2; ++i) {
      io::Read r;
      r.name = "r" + std::to_string(reads.size());
      r.seq = seq;
      r.qual = std::string(seq.size(), 'I');
      reads.push_back(r);
    }
  };
  for (uint64_t i = 0; i < 400000; ++i) add_twice(kmer_text(correct::detail::mix64(i) >> 22, k));
  auto layout = correct::KmerSpectrum::make_exact(k, 402000);
  ASSERT_EQ(layout.kind, correct::KmerSpectrum::Kind::compact);
  const uint64_t crowd = correct::detail::compact_max_dist(layout.rem_bits) + 100, home = 777;
  uint64_t placed = 0;
  for (uint64_t rem = 0; placed < crowd; ++rem) {
    const uint64_t x = correct::detail::unpermute_bits(home << layout.rem_bits | rem, 2 * k);
    uint64_t rc = 0;
    for (int d = 0; d < k; ++d) rc = rc << 2 | (3 - ((x >> (2 * d)) & 3));
    if (x > rc) continue;  // the tables keep the canonical form
    add_twice(kmer_text(x, k));
    ++placed;
  }
  correct::KmerCounter cpu(k);
  cpu.add(reads);
  const auto h = cpu.histogram(correct::kHistogramMax);
  uint64_t solid = 0;
  for (size_t c = 2; c < h.size(); ++c) solid += h[c];
  ASSERT_EQ(correct::KmerSpectrum::make_exact(k, solid).kind, correct::KmerSpectrum::Kind::compact);
  const correct::KmerSpectrum want = correct::build_spectrum(cpu, 2, "exact", 0);
  std::vector<correct::KmerPart> dropped;
  correct::KmerCountGpu gpu(k, size_t(256) << 20);
  gpu.add(reads, dropped);
  const correct::KmerSpectrum got = gpu.take_exact_spectrum(2, solid, true);
  EXPECT_EQ(want.kind, correct::KmerSpectrum::Kind::exact);
  EXPECT_EQ(got.kind, correct::KmerSpectrum::Kind::exact);
  EXPECT_EQ(got.n_kmers, solid);
  EXPECT_EQ(want.n_kmers, solid);
  uint64_t held = 0;
  cpu.for_each_solid(2, [&](uint64_t x) { held += got.contains(x) && want.contains(x); });
  EXPECT_EQ(held, solid);
  EXPECT_TRUE(dropped.empty());
}

// In a budget far below the counts, the GPU table counts part after part and gives the
// CPU twin's histogram, threshold and (bit for bit) Bloom spectrum; so does the command.
TEST(CountGpu, PartsInABudgetEqualTheCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  test::TempDir dir;
  const auto set = test::make_correction_set(80000, 100, 30, 0.6, 2, 23);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::KmerCounter whole(21);
  whole.add(set.reads);
  correct::ReadInput input(dir.file("in.fq"), "", 5000, 4, 2);
  correct::KmerCountGpu bounded(21, size_t(1) << 20);
  correct::CountStats stats;
  const auto spectrum = correct::count_and_build_spectrum(bounded, input, {0, "bloom", 1e-3}, stats);
  EXPECT_GE(stats.parts, 4);
  EXPECT_EQ(stats.kmers, whole.total());
  EXPECT_EQ(stats.distinct, whole.distinct());
  EXPECT_EQ(stats.histogram, whole.histogram());
  ASSERT_GE(stats.threshold, 2u);
  EXPECT_EQ(spectrum.words, correct::build_spectrum(whole, stats.threshold, "bloom", 1e-3).words);

  correct::CorrectRunOptions o;
  o.in1 = dir.file("in.fq");
  o.out1 = dir.file("cpu.fq");
  o.backend = "cpu";
  correct::run_correct(o);
  o.out1 = dir.file("gpu.fq");
  o.backend = "gpu";
  o.count_mem = size_t(1) << 20;
  const auto sum = correct::run_correct(o);
  EXPECT_EQ(sum.count_backend, "gpu");
  EXPECT_GT(sum.count_parts, 1);
  EXPECT_EQ(test::read_file(dir.file("gpu.fq")), test::read_file(dir.file("cpu.fq")));
}

// Reads of several lengths (the kernel packs them in 32-base words: lengths and k-mers
// across word ends), with N, at three k.
TEST(CorrectGpu, IdenticalToCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  for (const std::string kind : {"bloom", "exact"}) {
    for (int read_len : {77, 150, 300}) {
      for (int k : {13, 21, 31}) {
        auto set = test::make_correction_set(60000, read_len, 30, 0.6, 3, read_len, 0.1);  // indels near ends too
        if (read_len == 300) {  // lengths from k to 300 in one batch
          for (size_t i = 0; i < set.reads.size(); i += 5) set.reads[i].seq.resize(k + i % (300 - k));
        }
        correct::KmerCounter counter(k);
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
        ASSERT_EQ(cpu.codes, dev.codes) << kind << " " << read_len << " k " << k;
        ASSERT_EQ(cpu.status, dev.status);
        ASSERT_EQ(cpu.changed, dev.changed);
        EXPECT_GT(std::count(dev.status.begin(), dev.status.end(), uint8_t(correct::CorrectStatus::corrected)), 1000);
        EXPECT_GT(ms, 0);
      }
    }
  }
}

}  // namespace
}  // namespace gatemap

namespace gatemap {
namespace {

// The command with each batch split over 1, 2 and 4 engines (ids repeat where fewer GPUs
// exist) writes the CPU twin's output.
TEST(CorrectGpu, EveryDeviceCountEqualsCpuTwin) {
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
  const int visible = static_cast<int>(gpu::list_devices().size());
  for (const int n : {1, 2, 4}) {
    o.device.clear();
    for (int i = 0; i < n; ++i) o.device += (i ? "," : "") + std::to_string(i % visible);
    o.out1 = dir.file("gpu.fq");
    o.backend = "gpu";
    const auto sum = correct::run_correct(o);
    EXPECT_GT(sum.reads_changed, 0);
    EXPECT_EQ(test::read_file(dir.file("gpu.fq")), test::read_file(dir.file("cpu.fq"))) << "--device " << o.device;
  }
}

}  // namespace
}  // namespace gatemap
