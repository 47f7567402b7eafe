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

// Windows at each contig's start, middle and end: the middle and end lie many blocks in.
std::vector<Region> regions() {
  std::vector<Region> out;
  for (const std::string c : {"1", "2", "3"}) {
    out.push_back({c, 1, 2000});
    out.push_back({c, 240000, 262000});
    out.push_back({c, 480000, 500000});
  }
  return out;
}

// `view FILE REGION` (through the index) against `view FILE` filtered by `overlaps`.
void expect_regions_match(const std::string& view, const std::string& file,
                          bool (*overlaps)(const std::string&, const Region&)) {
  std::string all;
  ASSERT_EQ(run_command(view + " " + file + " 2>/dev/null", &all), 0) << all;
  const auto records = lines_of(all);
  int nonempty = 0;
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

int64_t uncompressed_bytes(const std::string& path) {
  std::string out;
  run_command("gzip -dc " + path + " | wc -c", &out);
  return std::stoll(out);
}

// One data set for every format (made once: the calls take most of the time): dense
// variants and 2 threads everywhere, VCFs of over 1 MB compressed and indexed on several
// threads, as `call` does by default.
TEST(Indexes, EveryIndexWrittenAnswersRegionsAsTheStreamedRecords) {
  if (run_command("command -v samtools && command -v bcftools") != 0) {
    GTEST_SKIP() << "samtools and bcftools are needed (scripts/deps.sh --test installs them)";
  }
  gatemap::test::TempDir d;
  const auto f = [&d](const std::string& name) { return d.file(name); };
  const std::string g = kBin + " ";
  const std::string setup =
      g + "sim genome --length 1500000 --contigs 3 -o " + f("ref.fa") + " && " + g + "index -o " + f("ref.gmi") + " " +
      f("ref.fa") + " && " + g + "sim variants --snp-rate 0.007 --indel-rate 0.0007 " + f("ref.fa") + " -o " +
      f("donor") + " && " + g + "sim reads " + f("ref.fa") + " --vcf " + f("donor.truth.vcf.gz") + " -n 45000 -o " +
      f("r") + " && " + g + "map -t 2 --sort -o " + f("aln.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " +
      f("r_2.fq") + " && " + g + "map -t 2 --sort -T " + f("ref.fa") + " -o " + f("aln.cram") + " " + f("ref.gmi") +
      " " + f("r_1.fq") + " " + f("r_2.fq") + " && " + g + "call -t 2 -r " + f("ref.fa") + " -o " +
      f("calls.vcf.gz") + " " + f("aln.bam") + " && " + g + "call -t 2 -r " + f("ref.fa") + " -o " + f("calls.bcf") +
      " " + f("aln.bam") + " && " + g + "call -t 2 --gvcf -r " + f("ref.fa") + " -o " + f("calls.g.vcf.gz") + " " +
      f("aln.bam");
  std::string out;
  ASSERT_EQ(run_command(setup, &out), 0) << out;
  EXPECT_GE(uncompressed_bytes(f("calls.vcf.gz")), 1 << 20);  // many BGZF blocks
  EXPECT_GE(uncompressed_bytes(f("calls.g.vcf.gz")), 1 << 20);
  expect_regions_match("bcftools view -H", f("calls.vcf.gz"), vcf_overlaps);     // .tbi
  expect_regions_match("bcftools view -H", f("calls.g.vcf.gz"), vcf_overlaps);   // .tbi of a gVCF (END)
  expect_regions_match("bcftools view -H", f("calls.bcf"), vcf_overlaps);        // .csi
  expect_regions_match("samtools view", f("aln.bam"), sam_overlaps);             // .bai
  expect_regions_match("samtools view -T " + f("ref.fa"), f("aln.cram"), sam_overlaps);  // .crai
}

}  // namespace

namespace {

// A genome of 26 contigs (names 1..26: "10" sorts before "2" as text) called on two
// threads: the VCF's ##contig lines and records follow the reference's order, and its
// index finds every contig's records.
TEST(GenomeScale, ManyContigsCalledInReferenceOrderWithAWorkingIndex) {
  if (run_command("command -v bcftools") != 0) GTEST_SKIP() << "bcftools not installed";
  gatemap::test::TempDir d;
  const std::string g = kBin + " ";
  std::string out;
  ASSERT_EQ(run_command(g + "sim genome --length 780000 --contigs 26 -o " + d.file("ref.fa") + " && " + g + "index -o " +
                            d.file("ref.gmi") + " " + d.file("ref.fa") + " && " + g + "sim variants " + d.file("ref.fa") +
                            " -o " + d.file("donor") + " && " + g + "sim reads " + d.file("ref.fa") + " --vcf " +
                            d.file("donor.truth.vcf.gz") + " -n 26000 -o " + d.file("r") + " && " + g +
                            "map -t 2 --sort -o " + d.file("aln.bam") + " " + d.file("ref.gmi") + " " + d.file("r_1.fq") +
                            " " + d.file("r_2.fq") + " && " + g + "call -t 2 -r " + d.file("ref.fa") + " -o " +
                            d.file("c.vcf.gz") + " " + d.file("aln.bam"),
                        &out),
            0)
      << out;
  std::vector<std::string> reference;
  for (int c = 1; c <= 26; ++c) reference.push_back(std::to_string(c));
  std::string header;
  ASSERT_EQ(run_command("bcftools view -h " + d.file("c.vcf.gz") + " | grep '^##contig' | sed 's/.*ID=//; s/,.*//'", &header), 0);
  EXPECT_EQ(lines_of(header), reference);
  std::string chroms;
  ASSERT_EQ(run_command("bcftools query -f '%CHROM\\n' " + d.file("c.vcf.gz") + " | uniq", &chroms), 0);
  EXPECT_EQ(lines_of(chroms), reference) << "records of every contig, in the reference's order, each contig once";
  for (const std::string& c : reference) {
    std::string indexed, streamed;
    ASSERT_EQ(run_command("bcftools view -H -r " + c + " " + d.file("c.vcf.gz") + " | wc -l", &indexed), 0);
    ASSERT_EQ(run_command("bcftools view -H " + d.file("c.vcf.gz") + " | awk '$1 == \"" + c + "\"' | wc -l", &streamed), 0);
    EXPECT_EQ(indexed, streamed) << "contig " << c;
    EXPECT_NE(streamed, "0\n") << "contig " << c;
  }
}

}  // namespace
