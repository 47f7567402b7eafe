// On the GPU machine: --filter gpu gives the same records as cpu and off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <random>
#include <sstream>

#include "common/dna.hpp"
#include "gpu/device.hpp"
#include "io/reads/fasta.hpp"
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

// One lane per device: 1, 2 and 4 devices (ids repeat where fewer GPUs exist) give the
// CPU twin's records, paired (the insert size shared by the lanes) and single.
TEST(MapperGpu, EveryDeviceCountGivesTheSameRecords) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(20000, 20000);
  const int visible = static_cast<int>(gpu::list_devices().size());
  const std::string cpu_pe = d.map(d.pe1, d.pe2, "cpu", 4, 4000), cpu_se = d.map(d.se, "", "cpu", 4, 4000);
  for (const int n : {1, 2, 4}) {
    std::string devices;
    for (int i = 0; i < n; ++i) devices += (i ? "," : "") + std::to_string(i % visible);
    for (const bool paired : {true, false}) {
      mapper::RunOptions o = paired ? d.options(d.pe1, d.pe2, d.dir.file("lanes.sam"))
                                    : d.options(d.se, "", d.dir.file("lanes.sam"));
      o.filter = "gpu";
      o.device = devices;
      o.batch_reads = 4000;  // ten batches (five for single reads), spread over the lanes
      o.hw.threads = 4;
      mapper::run_mapping(o);
      EXPECT_EQ(test::without_pg(test::read_file(o.output)), paired ? cpu_pe : cpu_se) << "--device " << devices;
    }
  }
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

namespace {

// Pairs of every shape a sequencer or a trimmer leaves (the CPU tests' fixed 100 and
// 150 bases aside): mates of 1 to 600 bases, each length on its own, near or over a
// contig's end, with substitutions, indels, N runs, IUPAC codes, lowercase, or none of
// the genome at all. Every read must come out, and the GPU must not tell them apart.
class ShapeMaker {
 public:
  explicit ShapeMaker(const std::vector<io::FastaRecord>& genome) : genome_(genome) {}

  void write_pairs(int64_t pairs, const std::string& r1, const std::string& r2) {
    io::FastqWriter w1(r1), w2(r2);
    for (int64_t p = 0; p < pairs; ++p) {
      const int len1 = kLengths[pick(std::size(kLengths))];
      const int len2 = kLengths[pick(std::size(kLengths))];
      const std::string& contig = genome_[pick(static_cast<int64_t>(genome_.size()))].seq;
      const std::string frag = fragment(contig, std::max<int64_t>({len1, len2, 250 + pick(300)}));
      std::string m1 = frag.substr(0, static_cast<size_t>(len1));
      std::string m2 = reverse_complement(frag.substr(frag.size() - static_cast<size_t>(len2)));
      if (pick(2)) std::swap(m1, m2);
      if (pick(15) == 0) m1 = random_bases(len1);
      if (pick(15) == 0) m2 = random_bases(len2);
      m1 = mutate(m1);
      m2 = mutate(m2);
      const std::string name = "shape" + std::to_string(p);
      w1.write(name + "/1", m1, quals(m1.size()));
      w2.write(name + "/2", m2, quals(m2.size()));
    }
    w1.close();
    w2.close();
  }

 private:
  static constexpr int kLengths[] = {1,   5,   14,  15,  16,  20,  31,  32,  33,  50,  63,  64,  65, 76,
                                     100, 101, 127, 128, 129, 150, 151, 200, 250, 251, 300, 400, 600};

  int64_t pick(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }

  // One fragment in twenty runs off its contig's end (the rest is the first contig's start).
  std::string fragment(const std::string& contig, int64_t length) {
    const auto size = static_cast<int64_t>(contig.size());
    const int64_t start = pick(20) == 0 ? size - length / 2 : pick(size - length);
    std::string frag = contig.substr(static_cast<size_t>(start), static_cast<size_t>(length));
    if (static_cast<int64_t>(frag.size()) < length) frag += genome_.front().seq.substr(0, length - frag.size());
    return frag;
  }

  std::string random_bases(int n) {
    std::string s(static_cast<size_t>(n), 'A');
    for (char& c : s) c = "ACGT"[pick(4)];
    return s;
  }

  std::string mutate(std::string s) {
    const int kind = static_cast<int>(pick(10));
    const double rate = kind == 0 ? 0.10 : kind < 4 ? 0.02 : 0.005;
    for (char& c : s) {
      if (pick(10000) < rate * 10000) c = "ACGT"[pick(4)];
    }
    const auto at = [&](int64_t margin) { return static_cast<size_t>(pick(static_cast<int64_t>(s.size()) - margin)); };
    if (kind == 4 && s.size() > 40) {  // a deletion
      const size_t from = at(30) + 10;
      s.erase(from, static_cast<size_t>(1 + pick(15)));
    }
    if (kind == 5 && s.size() > 40) {  // an insertion
      const size_t where = at(20) + 10;
      s.insert(where, random_bases(1 + static_cast<int>(pick(12))));
    }
    if (pick(10) == 0 && !s.empty()) {  // an N run
      const size_t from = at(0);
      const size_t n = std::min<size_t>(s.size() - from, static_cast<size_t>(1 + pick(20)));
      s.replace(from, n, std::string(n, 'N'));
    }
    if (pick(50) == 0) s.assign(s.size(), 'N');
    if (pick(30) == 0 && !s.empty()) {
      const size_t where = at(0);
      s[where] = "RYKMSWBDHV"[pick(10)];
    }
    if (pick(10) == 0) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
  }

  std::string quals(size_t n) {
    std::string q(n, 'I');
    for (char& c : q) c = static_cast<char>('#' + pick(40));
    return q;
  }

  const std::vector<io::FastaRecord>& genome_;
  std::mt19937_64 rng_{41};
};

int64_t primary_records(const std::string& sam) {
  int64_t n = 0;
  std::istringstream in(sam);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '@' && (std::stoi(test::sam_fields(line)[1]) & 0x900) == 0) ++n;
  }
  return n;
}

}  // namespace

TEST(MapperGpu, ReadsOfEveryShapeGiveTheCpuRecords) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  static test::SimData d(100, 100);
  const auto genome = io::read_fasta(d.ref);
  const std::string r1 = d.dir.file("shapes_1.fq"), r2 = d.dir.file("shapes_2.fq");
  ShapeMaker(genome).write_pairs(6000, r1, r2);
  for (const auto& [a, b] : {std::pair{r1, r2}, std::pair{r1, std::string()}}) {
    const std::string cpu = d.map(a, b, "cpu", 4, 2500);
    EXPECT_EQ(primary_records(cpu), b.empty() ? 6000 : 12000);
    EXPECT_EQ(d.map(a, b, "gpu", 4, 2500), cpu) << (b.empty() ? "single" : "paired");
    EXPECT_EQ(d.map(a, b, "off", 4, 2500), cpu) << (b.empty() ? "single" : "paired");
  }
}
