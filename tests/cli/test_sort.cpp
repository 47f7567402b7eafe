// `gatemap map --sort`: a coordinate-sorted, indexed BAM with bounded memory, the same
// records in the same order as `gatemap map | samtools sort`, runs spilled and merged,
// nothing left behind, a clear error when the runs cannot be written.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>

#include "../test_util.hpp"

using gatemap::test::read_file;
using gatemap::test::run_command;

namespace {

const std::string kBin = GATEMAP_BINARY;

bool have_samtools() { return run_command("command -v samtools") == 0; }

// Twenty random regions of the four test contigs: as many records through each BAM's index.
void expect_same_region_counts(const std::string& ours, const std::string& theirs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int q = 0; q < 20; ++q) {
    const int contig = 1 + static_cast<int>(rng() % 4);
    const int64_t begin = 1 + static_cast<int64_t>(rng() % 70000), end = begin + static_cast<int64_t>(rng() % 5000);
    const std::string region = " " + std::to_string(contig) + ":" + std::to_string(begin) + "-" + std::to_string(end);
    std::string a, b;
    ASSERT_EQ(run_command("samtools view -c " + ours + region, &a), 0);
    ASSERT_EQ(run_command("samtools view -c " + theirs + region, &b), 0);
    EXPECT_EQ(a, b) << region;
  }
}

class Sort : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new gatemap::test::TempDir();
    const std::string g = kBin + " ";
    std::string out;
    ASSERT_EQ(run_command(g + "sim genome --length 300000 --contigs 4 -o " + f("ref.fa") + " && " + g + "index -o " +
                              f("ref.gmi") + " " + f("ref.fa") + " && " + g + "sim reads " + f("ref.fa") +
                              " -n 8000 -o " + f("r"),
                          &out),
              0)
        << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string f(const std::string& name) { return dir_->file(name); }
  static gatemap::test::TempDir* dir_;
};
gatemap::test::TempDir* Sort::dir_ = nullptr;

// Everything in memory (the sorted BAM written in parallel chunks, its index built from
// their offsets): BAM records equal the SAM's, the sorted BAM equals samtools sort of the
// unsorted one, and its index answers region queries as samtools index's does.
TEST_F(Sort, BamEqualsSamAndSortedInMemoryEqualsSamtoolsSort) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  ASSERT_EQ(run_command(kBin + " map -t 3 -o " + d.file("u.sam") + reads + " && " + kBin + " map -t 3 -o " +
                        d.file("u.bam") + reads + " && " + kBin + " map -t 3 --sort -o " + d.file("s.bam") + reads +
                        " && samtools sort -o " + d.file("ss.bam") + " " + d.file("u.bam") + " && samtools index " +
                        d.file("ss.bam")),
            0);
  std::string sam, bam, sorted, theirs;
  ASSERT_EQ(run_command("grep -v '^@' " + d.file("u.sam"), &sam), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("u.bam"), &bam), 0);
  EXPECT_GT(sam.size(), 1000000u);
  EXPECT_TRUE(sam == bam) << "BAM records differ from the SAM's";
  ASSERT_EQ(run_command("samtools view " + d.file("s.bam"), &sorted), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("ss.bam"), &theirs), 0);
  EXPECT_TRUE(sorted == theirs) << "records or order differ from samtools sort";
  ASSERT_TRUE(std::filesystem::exists(d.file("s.bam.bai")));
  expect_same_region_counts(d.file("s.bam"), d.file("ss.bam"), 5);
}

// Many runs (batches of 1,000 reads, 1 MiB per thread) merged: the records and their
// order are samtools sort's, the header says SO:coordinate, the index answers region
// queries as samtools' own index does, and no run is left behind.
TEST_F(Sort, SpilledRunsMergeIntoSamtoolsOrder) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  std::string out;
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 1000 --sort -m 1M -o " + d.file("s.bam") + reads, &out), 0) << out;
  EXPECT_NE(out.find("runs spilled"), std::string::npos);
  EXPECT_EQ(out.find(" 0 runs spilled"), std::string::npos) << out;
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 1000 -o " + d.file("u.bam") + reads + " && samtools sort -o " +
                        d.file("ss.bam") + " " + d.file("u.bam") + " && samtools index " + d.file("ss.bam")),
            0);
  std::string ours, theirs;
  ASSERT_EQ(run_command("samtools view " + d.file("s.bam"), &ours), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("ss.bam"), &theirs), 0);
  EXPECT_GT(ours.size(), 1000000u);
  EXPECT_TRUE(ours == theirs) << "records or order differ from samtools sort";
  ASSERT_EQ(run_command("samtools view -H " + d.file("s.bam"), &out), 0);
  EXPECT_EQ(out.rfind("@HD\tVN:1.6\tSO:coordinate\n", 0), 0u) << out;
  EXPECT_EQ(run_command("samtools quickcheck " + d.file("s.bam")), 0);
  ASSERT_TRUE(std::filesystem::exists(d.file("s.bam.bai")));
  expect_same_region_counts(d.file("s.bam"), d.file("ss.bam"), 4);
  for (const auto& e : std::filesystem::directory_iterator(d.path())) {
    EXPECT_EQ(e.path().filename().string().find(".gatemap"), std::string::npos) << e.path();
  }
}

// The peak RSS figure of a run's last stderr line, in MiB.
long peak_rss_mib(const std::string& log) {
  const size_t at = log.rfind("Peak RSS: ");
  return at == std::string::npos ? -1 : std::stol(log.substr(at + 10));
}

// The number in "(N runs spilled)".
long runs_spilled(const std::string& log) {
  const size_t at = log.find(" runs spilled)");
  if (at == std::string::npos) return -1;
  const size_t begin = log.rfind('(', at);
  return std::stol(log.substr(begin + 1, at - begin - 1));
}

// A genome's worth of runs in small: at least 50 spilled runs (one thread, 1 MiB) merge
// into exactly samtools sort's records and order.
TEST_F(Sort, FiftyRunsMergeIntoSamtoolsOrder) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  std::string out;
  ASSERT_EQ(run_command(kBin + " sim reads " + f("ref.fa") + " -n 80000 --seed 5 -o " + d.file("m"), &out), 0) << out;
  const std::string reads = " " + f("ref.gmi") + " " + d.file("m_1.fq") + " " + d.file("m_2.fq");
  ASSERT_EQ(run_command(kBin + " map -t 1 --batch 1000 --sort -m 1M -o " + d.file("s.bam") + reads, &out), 0) << out;
  EXPECT_GE(runs_spilled(out), 50) << out;
  ASSERT_EQ(run_command(kBin + " map -t 1 --batch 1000 -o " + d.file("u.bam") + reads + " && samtools sort -o " +
                        d.file("ss.bam") + " " + d.file("u.bam")),
            0);
  std::string ours, theirs;
  ASSERT_EQ(run_command("samtools view " + d.file("s.bam"), &ours), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("ss.bam"), &theirs), 0);
  EXPECT_GT(ours.size(), 10000000u);
  EXPECT_TRUE(ours == theirs) << "records or order differ from samtools sort";
}

// Memory flat in the input: with a small sort budget, 4x the reads (4x the runs, on disk)
// do not stay in memory. Holding the 96,000 extra pairs' records would take ~43 MB (300
// bases a pair, 1.5 bytes a base in a record); the peak (each the least of three runs: a
// loaded machine fills the pipeline's slots differently from run to run) may grow by
// less than half of that. Measured on 2 cores: 5-11 MiB (61-65 -> 70-72), part of it the
// reader's read-ahead (a share of the file, at most 32 MB); a sorter or duplicate marker
// that kept the records would add the 43.
TEST_F(Sort, PeakRssFlatInTheNumberOfReads) {
  gatemap::test::TempDir d;
  std::string out;
  for (const auto& [name, pairs] : {std::pair<std::string, int>{"a", 32000}, {"b", 128000}}) {
    ASSERT_EQ(run_command(kBin + " sim reads " + f("ref.fa") + " -n " + std::to_string(pairs) + " --gz --seed 6 -o " +
                              d.file(name),
                          &out),
              0)
        << out;
  }
  const auto peak = [&](const std::string& name) {
    long least = -1;
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(run_command(kBin + " map -t 2 --batch 500 --sort --markdup -m 1M -o " + d.file("p.bam") + " " +
                                f("ref.gmi") + " " + d.file(name + "_1.fq.gz") + " " + d.file(name + "_2.fq.gz"),
                            &out),
                0)
          << out;
      const long rss = peak_rss_mib(out);
      least = least < 0 ? rss : std::min(least, rss);
    }
    return least;
  };
  const long small = peak("a");  // 32,000 pairs
  const long large = peak("b");  // 128,000: 4x
  ASSERT_GT(small, 0);
  EXPECT_LE(large - small, 20) << small << " MiB for 32,000 pairs, " << large << " MiB for 128,000";
}

// The sort does not depend on the memory budget (records of pairs depend on the batch
// size through the insert-size estimate: both runs take the same batches).
TEST_F(Sort, SameOutputForAnyBudget) {
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 500 --sort -o " + d.file("a.bam") + reads), 0);
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 500 --sort -m 1M -o " + d.file("b.bam") + reads), 0);
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  std::string a, b;
  ASSERT_EQ(run_command("samtools view " + d.file("a.bam"), &a), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("b.bam"), &b), 0);
  EXPECT_TRUE(a == b);
}

// Under a low open-file limit (ulimit -n 40: 4 runs a merge) the runs of records and of
// duplicate-marking ends are merged in rounds: the same records and flags.
TEST_F(Sort, MergesInRoundsUnderAnOpenFileLimit) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  const std::string map = kBin + " map -t 1 --batch 500 --sort --markdup -m 1M -o ";
  ASSERT_EQ(run_command(map + d.file("a.bam") + reads), 0);
  std::string out;
  ASSERT_EQ(run_command("bash -c 'ulimit -n 40 && " + map + d.file("b.bam") + reads + "'", &out), 0) << out;
  EXPECT_NE(out.find("sorted runs merged into"), std::string::npos) << out;
  std::string a, b;
  ASSERT_EQ(run_command("samtools view " + d.file("a.bam"), &a), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("b.bam"), &b), 0);
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == b);
}

// -l sets the BAM compression level, sorted or not: the same records, a larger file at
// level 1 than at the default 6; a level outside 0-9 is a usage error.
TEST_F(Sort, CompressionLevelChangesOnlyTheFileSize) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  for (const std::string sort : {"", " --sort"}) {
    ASSERT_EQ(run_command(kBin + " map -t 2" + sort + " -o " + d.file("l6.bam") + reads), 0);
    ASSERT_EQ(run_command(kBin + " map -t 2" + sort + " -l 1 -o " + d.file("l1.bam") + reads), 0);
    std::string a, b;
    ASSERT_EQ(run_command("samtools view " + d.file("l6.bam"), &a), 0);
    ASSERT_EQ(run_command("samtools view " + d.file("l1.bam"), &b), 0);
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << sort;
    EXPECT_GT(std::filesystem::file_size(d.file("l1.bam")), std::filesystem::file_size(d.file("l6.bam"))) << sort;
  }
  std::string out;
  EXPECT_EQ(run_command(kBin + " map -l 10 -o " + d.file("x.bam") + reads, &out), 2) << out;
}

// --bgzf-gpu (here, without a GPU, its CPU twin) writes the same records, sorted and not,
// with an index that answers as samtools' does; it takes BAM only and no -l.
TEST_F(Sort, BgzfGpuChangesOnlyTheFileSize) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  for (const std::string sort : {"", " --sort --markdup"}) {
    ASSERT_EQ(run_command(kBin + " map -t 2" + sort + " -o " + d.file("l6.bam") + reads), 0);
    ASSERT_EQ(run_command(kBin + " map -t 2" + sort + " --bgzf-gpu -o " + d.file("g.bam") + reads), 0);
    std::string a, b;
    ASSERT_EQ(run_command("samtools view " + d.file("l6.bam"), &a), 0);
    ASSERT_EQ(run_command("samtools view " + d.file("g.bam"), &b), 0);
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << sort;
    if (!sort.empty()) {
      ASSERT_EQ(run_command("samtools index -o " + d.file("theirs.bai") + " " + d.file("g.bam")), 0);
      std::string ours_index = read_file(d.file("g.bam.bai")), theirs_index = read_file(d.file("theirs.bai"));
      EXPECT_TRUE(ours_index == theirs_index);
    }
  }
  std::string out;
  EXPECT_EQ(run_command(kBin + " map --bgzf-gpu -l 1 -o " + d.file("x.bam") + reads, &out), 2) << out;
  EXPECT_EQ(run_command(kBin + " map --bgzf-gpu -o " + d.file("x.sam") + reads, &out), 2) << out;
}

// A temporary folder that cannot be written: exit 1 naming it, no output that looks
// complete. Usage errors for a non-BAM output and a bad -m.
TEST_F(Sort, UnwritableTmpDirAndBadOptions) {
  gatemap::test::TempDir d;
  const std::string locked = d.file("locked");
  std::filesystem::create_directory(locked);
  chmod(locked.c_str(), 0500);
  const bool root_ignores_modes = access(locked.c_str(), W_OK) == 0;
  const std::string reads = " " + f("ref.gmi") + " " + f("r_1.fq");
  std::string out;
  if (!root_ignores_modes) {
    EXPECT_EQ(run_command(kBin + " map --sort --tmp-dir " + locked + " -o " + d.file("o.bam") + reads, &out), 1) << out;
    EXPECT_NE(out.find(locked), std::string::npos) << out;
  }
  EXPECT_EQ(run_command(kBin + " map --sort --tmp-dir " + d.file("missing/dir") + " -o " + d.file("o.bam") + reads, &out),
            1)
      << out;
  EXPECT_FALSE(std::filesystem::exists(d.file("o.bam")));
  EXPECT_EQ(run_command(kBin + " map --sort -o " + d.file("o.sam") + reads, &out), 2) << out;
  EXPECT_EQ(run_command(kBin + " map --sort -m 10 -o " + d.file("o.bam") + reads, &out), 2) << out;
  chmod(locked.c_str(), 0700);
}

}  // namespace

namespace {

// Pairs copied with new names and other qualities (PCR duplicates): `--markdup` flags
// the same records as Picard MarkDuplicates on the same sorted BAM, with runs spilled
// and merged on the way (the pair numbers travel through the runs; the read ends are
// sorted in runs on disk too).
TEST_F(Sort, MarkdupAgreesWithPicard) {
  if (!have_samtools() || run_command("command -v PicardCommandLine") != 0) {
    GTEST_SKIP() << "samtools or picard-tools not installed";
  }
  gatemap::test::TempDir d;
  std::mt19937_64 rng(9);
  std::string fq[2] = {read_file(f("r_1.fq")), read_file(f("r_2.fq"))};
  std::string out_fq[2];
  size_t at[2] = {0, 0};
  for (int n = 0; at[0] < fq[0].size(); ++n) {
    std::string rec[2][4];
    for (int m = 0; m < 2; ++m) {
      for (auto& line : rec[m]) {
        const size_t end = fq[m].find('\n', at[m]);
        line = fq[m].substr(at[m], end - at[m]);
        at[m] = end + 1;
      }
      for (const auto& line : rec[m]) out_fq[m] += line + "\n";
    }
    const int copies = rng() % 5 == 0 ? 1 + static_cast<int>(rng() % 2) : 0;
    for (int c = 0; c < copies; ++c) {
      for (int m = 0; m < 2; ++m) {
        std::string qual = rec[m][3];
        for (char& q : qual) q = static_cast<char>(std::clamp<int>(q + static_cast<int>(rng() % 17) - 8, 35, 73));
        const std::string name = rec[m][0].substr(0, rec[m][0].find('/')) + "_dup" + std::to_string(c);
        out_fq[m] += name + (m ? "/2\n" : "/1\n") + rec[m][1] + "\n+\n" + qual + "\n";
      }
    }
  }
  gatemap::test::write_file(d.file("d_1.fq"), out_fq[0]);
  gatemap::test::write_file(d.file("d_2.fq"), out_fq[1]);
  const std::string reads = " -R '@RG\\tID:a\\tSM:s\\tLB:lib1\\tPL:ILLUMINA' " + f("ref.gmi") + " " + d.file("d_1.fq") +
                            " " + d.file("d_2.fq");
  std::string out;
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 2000 -m 1M --sort --markdup -o " + d.file("md.bam") + reads, &out), 0)
      << out;
  EXPECT_NE(out.find("duplicates: "), std::string::npos) << out;
  EXPECT_NE(out.find("read ends sorted in"), std::string::npos) << out;  // -m 1M: the ends spill too
  ASSERT_EQ(run_command(kBin + " map -t 2 --batch 2000 --sort -o " + d.file("s.bam") + reads), 0);
  ASSERT_EQ(run_command("PicardCommandLine MarkDuplicates I=" + d.file("s.bam") + " O=" + d.file("p.bam") +
                            " M=" + d.file("m.txt") + " VALIDATION_STRINGENCY=SILENT QUIET=true",
                        &out),
            0)
      << out;
  std::string ours, theirs, dups;
  ASSERT_EQ(run_command("samtools view " + d.file("md.bam") + " | cut -f 1-4", &ours), 0);
  ASSERT_EQ(run_command("samtools view " + d.file("p.bam") + " | cut -f 1-4", &theirs), 0);
  ASSERT_EQ(run_command("samtools view -c -f 0x400 " + d.file("md.bam"), &dups), 0);
  EXPECT_GT(std::stoi(dups), 1000);
  EXPECT_TRUE(ours == theirs) << "duplicate flags differ from Picard's";
  ASSERT_EQ(run_command("samtools view " + d.file("md.bam") + " | grep -c 'zq:'", &out), 1);  // no helper tag left
  // Picard's ValidateSamFile accepts the sorted, flagged BAM and its index, checked against the reference.
  const std::string dict = d.file("ref.dict"), ref = d.file("ref.fa");
  std::filesystem::copy_file(f("ref.fa"), ref);
  ASSERT_EQ(run_command("PicardCommandLine CreateSequenceDictionary R=" + ref + " O=" + dict + " QUIET=true", &out), 0)
      << out;
  EXPECT_EQ(
      run_command("PicardCommandLine ValidateSamFile I=" + d.file("md.bam") + " R=" + ref + " MODE=SUMMARY", &out), 0)
      << out;
  EXPECT_NE(out.find("No errors found"), std::string::npos) << out;
  EXPECT_EQ(run_command(kBin + " map --markdup -o " + d.file("x.bam") + reads, &out), 2) << out;
}

}  // namespace
