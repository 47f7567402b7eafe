// Every index the binary writes beside an output (.tbi and .csi of a VCF, gVCF and BCF;
// .bai of a sorted BAM, .crai of a CRAM), made with several threads on files of many BGZF
// blocks: a region query through it (bcftools view -r, samtools view REGION) returns
// exactly the records that overlap the region when the whole file is streamed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"

using gatemap::test::run_command;

namespace {

const std::string kBin = GATEMAP_BINARY;

struct Region {
  std::string contig;
  int64_t begin, end;  // 1-based, inclusive
  std::string text() const { return contig + ":" + std::to_string(begin) + "-" + std::to_string(end); }
};

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) out.push_back(f);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A VCF record's span: POS to POS + len(REF) - 1, or to INFO END (a gVCF block).
bool vcf_overlaps(const std::string& line, const Region& r) {
  const auto f = fields(line);
  if (f.size() < 8 || f[0] != r.contig) return false;
  const int64_t pos = std::stoll(f[1]);
  int64_t end = pos + static_cast<int64_t>(f[3].size()) - 1;
  const std::string info = ";" + f[7];
  const size_t at = info.find(";END=");
  if (at != std::string::npos) end = std::stoll(info.substr(at + 5));
  return pos <= r.end && end >= r.begin;
}

// A SAM record's span: POS to the CIGAR's end on the reference (one base when unmapped).
bool sam_overlaps(const std::string& line, const Region& r) {
  const auto f = fields(line);
  if (f.size() < 6 || f[2] != r.contig) return false;
  const int64_t pos = std::stoll(f[3]);
  int64_t len = 0, n = 0;
  for (const char c : f[5]) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + (c - '0');
    } else {
      if (c == 'M' || c == 'D' || c == 'N' || c == '=' || c == 'X') len += n;
      n = 0;
    }
  }
  return pos <= r.end && pos + std::max<int64_t>(len, 1) - 1 >= r.begin;
}

class Indexes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (run_command("command -v samtools && command -v bcftools") != 0) return;
    dir_ = new gatemap::test::TempDir();
    const std::string g = kBin + " ";
    // Dense variants and 2 threads everywhere: VCFs of several MB, compressed and indexed
    // on several threads, as `call` does by default.
    const std::string setup =
        g + "sim genome --length 1500000 --contigs 3 -o " + f("ref.fa") + " && " + g + "index -o " + f("ref.gmi") +
        " " + f("ref.fa") + " && " + g + "sim variants --snp-rate 0.007 --indel-rate 0.0007 " + f("ref.fa") + " -o " +
        f("donor") + " && " + g + "sim reads " + f("ref.fa") + " --vcf " + f("donor.truth.vcf.gz") +
        " -n 45000 -o " + f("r") + " && " + g + "map -t 2 --sort -o " + f("aln.bam") + " " + f("ref.gmi") + " " +
        f("r_1.fq") + " " + f("r_2.fq") + " && " + g + "map -t 2 --sort -T " + f("ref.fa") + " -o " + f("aln.cram") +
        " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq") + " && " + g + "call -t 2 -r " + f("ref.fa") +
        " -o " + f("calls.vcf.gz") + " " + f("aln.bam") + " && " + g + "call -t 2 -r " + f("ref.fa") + " -o " +
        f("calls.bcf") + " " + f("aln.bam") + " && " + g + "call -t 2 --gvcf -r " + f("ref.fa") + " -o " +
        f("calls.g.vcf.gz") + " " + f("aln.bam");
    std::string out;
    ok_ = run_command(setup, &out) == 0;
    EXPECT_TRUE(ok_) << setup << "\n" << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "samtools and bcftools are needed (scripts/deps.sh --test installs them)";
    ASSERT_TRUE(ok_);
  }
  static std::string f(const std::string& name) { return dir_->file(name); }
  // Windows at each contig's start, middle and end: the middle and end lie many blocks in.
  static std::vector<Region> regions() {
    std::vector<Region> out;
    for (const std::string c : {"1", "2", "3"}) {
      out.push_back({c, 1, 2000});
      out.push_back({c, 240000, 262000});
      out.push_back({c, 480000, 500000});
    }
    return out;
  }
  static void expect_regions_match(const std::string& view, const std::string& file, bool (*overlaps)(const std::string&, const Region&)) {
    std::string all;
    ASSERT_EQ(run_command(view + " " + file + " 2>/dev/null", &all), 0) << all;
    const auto records = lines_of(all);
    int64_t nonempty = 0;
    for (const Region& r : regions()) {
      std::vector<std::string> want;
      for (const auto& line : records) {
        if (overlaps(line, r)) want.push_back(line);
      }
      std::string got;
      ASSERT_EQ(run_command(view + " " + file + " " + r.text() + " 2>/dev/null", &got), 0) << got;
      EXPECT_EQ(lines_of(got), want) << file << " " << r.text();
      nonempty += !want.empty();
    }
    EXPECT_GE(nonempty, 6) << file << ": the regions should hold records";
  }
  static gatemap::test::TempDir* dir_;
  static bool ok_;
};
gatemap::test::TempDir* Indexes::dir_ = nullptr;
bool Indexes::ok_ = false;

int64_t uncompressed_bytes(const std::string& path) {
  std::string out;
  run_command("gzip -dc " + path + " | wc -c", &out);
  return std::stoll(out);
}

TEST_F(Indexes, VcfRegionsThroughTbiEqualTheStreamedRecords) {
  EXPECT_GE(uncompressed_bytes(f("calls.vcf.gz")), 1 << 20);  // many BGZF blocks
  expect_regions_match("bcftools view -H", f("calls.vcf.gz"), vcf_overlaps);
}

TEST_F(Indexes, GvcfRegionsThroughTbiEqualTheStreamedRecords) {
  EXPECT_GE(uncompressed_bytes(f("calls.g.vcf.gz")), 1 << 20);
  expect_regions_match("bcftools view -H", f("calls.g.vcf.gz"), vcf_overlaps);
}

TEST_F(Indexes, BcfRegionsThroughCsiEqualTheStreamedRecords) {
  expect_regions_match("bcftools view -H", f("calls.bcf"), vcf_overlaps);
}

TEST_F(Indexes, BamRegionsThroughBaiEqualTheStreamedRecords) {
  expect_regions_match("samtools view", f("aln.bam"), sam_overlaps);
}

TEST_F(Indexes, CramRegionsThroughCraiEqualTheStreamedRecords) {
  expect_regions_match("samtools view -T " + f("ref.fa"), f("aln.cram"), sam_overlaps);
}

}  // namespace
