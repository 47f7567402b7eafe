// Cohorts end to end: two simulated samples mapped, called together (`call a.bam b.bam`)
// and one by one into gVCFs merged by `joint`; scored against each sample's truth by
// `eval vcf`, checked by bcftools (norm -c e against the reference).
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "../test_util.hpp"

using gatemap::test::read_file;
using gatemap::test::run_command;

namespace {

const std::string kBin = GATEMAP_BINARY;

class Cohort : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new gatemap::test::TempDir();
    const std::string g = "timeout 300 " + kBin + " ";
    std::string cmd = g + "sim genome --length 300000 --contigs 2 --seed 4 -o " + f("ref.fa") + " && " + g +
                      "index -o " + f("ref.gmi") + " " + f("ref.fa");
    for (const std::string s : {"mom", "dad"}) {
      const std::string seed = s == "mom" ? "1" : "2";
      cmd += " && " + g + "sim variants " + f("ref.fa") + " --seed " + seed + " -o " + f(s) + " && " + g +
             "sim reads " + f("ref.fa") + " --vcf " + f(s + ".truth.vcf.gz") + " -n 25000 --seed " + seed + "7 -o " +
             f(s) + " && " + g + "map -t 2 --sort -R '@RG\\tID:" + s + "\\tSM:" + s + "' -o " + f(s + ".bam") + " " +
             f("ref.gmi") + " " + f(s + "_1.fq") + " " + f(s + "_2.fq") + " && " + g + "call -t 2 -r " + f("ref.fa") +
             " -o " + f(s + ".vcf.gz") + " " + f(s + ".bam") + " && " + g + "call -t 2 --gvcf -r " + f("ref.fa") +
             " -o " + f(s + ".g.vcf.gz") + " " + f(s + ".bam");
    }
    cmd += " && " + g + "call -t 2 -r " + f("ref.fa") + " -o " + f("multi.vcf.gz") + " " + f("mom.bam") + " " +
           f("dad.bam") + " && " + g + "joint -t 2 -r " + f("ref.fa") + " -o " + f("joint.vcf.gz") + " " +
           f("mom.g.vcf.gz") + " " + f("dad.g.vcf.gz");
    std::string out;
    ASSERT_EQ(run_command(cmd, &out), 0) << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string f(const std::string& name) { return dir_->file(name); }
  // eval vcf's F1 of one sample of a VCF (SNP and INDEL rows, TP-weighted).
  static double f1(const std::string& vcf, const std::string& sample) {
    const std::string one = f(sample + "." + std::to_string(++n_) + ".vcf.gz");
    std::string out;
    EXPECT_EQ(run_command("bcftools view -a -s " + sample + " -Oz -o " + one + " " + vcf + " && " + kBin + " eval vcf " +
                              f(sample + ".truth.vcf.gz") + " " + one + " -r " + f("ref.fa") + " 2>/dev/null",
                          &out),
              0)
        << out;
    double tp = 0, fp = 0, fn = 0;
    std::istringstream in(out);
    for (std::string cls; in >> cls;) {
      double a, b, c;
      if ((cls == "SNP" || cls == "INDEL") && (in >> a >> b >> c)) tp += a, fp += b, fn += c;
      std::getline(in, cls);
    }
    return 2 * tp / (2 * tp + fp + fn);
  }
  // CHROM:POS:REF:ALT -> the samples' genotypes.
  static std::map<std::string, std::string> genotypes(const std::string& vcf) {
    std::string out;
    EXPECT_EQ(run_command("bcftools query -f '%CHROM:%POS:%REF:%ALT[ %GT]\\n' " + vcf, &out), 0);
    std::map<std::string, std::string> g;
    std::istringstream in(out);
    for (std::string key, rest; in >> key && std::getline(in, rest);) g[key] = rest;
    return g;
  }
  static gatemap::test::TempDir* dir_;
  static int n_;
};
gatemap::test::TempDir* Cohort::dir_ = nullptr;
int Cohort::n_ = 0;

TEST_F(Cohort, EachSampleIsCalledAtLeastAsWellTogetherAsAlone) {
  for (const std::string s : {"mom", "dad"}) {
    const double alone = f1(f(s + ".vcf.gz"), s);
    EXPECT_GT(alone, 0.95) << s;
    EXPECT_GE(f1(f("multi.vcf.gz"), s), alone - 0.002) << s;
    EXPECT_GE(f1(f("joint.vcf.gz"), s), alone - 0.005) << s;
  }
}

TEST_F(Cohort, JointGenotypesAgreeWithTheMultiSampleCall) {
  const auto joint = genotypes(f("joint.vcf.gz")), multi = genotypes(f("multi.vcf.gz"));
  int both = 0, same = 0;
  for (const auto& [site, gts] : joint) {
    const auto it = multi.find(site);
    if (it == multi.end()) continue;
    ++both;
    same += it->second == gts;
  }
  EXPECT_GT(both, 500);
  EXPECT_GE(same, 0.99 * both) << same << " of " << both;
  EXPECT_GE(both, 0.97 * std::min(joint.size(), multi.size()));
}

TEST_F(Cohort, OutputsAreValidAgainstTheReferenceAndIndexed) {
  for (const std::string v : {"joint.vcf.gz", "multi.vcf.gz", "mom.g.vcf.gz"}) {
    std::string out;
    EXPECT_EQ(run_command("bcftools norm -c e -f " + f("ref.fa") + " -Ou -o /dev/null " + f(v), &out), 0) << v << out;
    EXPECT_EQ(run_command("bcftools view -H -r 1:1000-200000 " + f(v) + " | head -1 | grep -q .", &out), 0) << v;
  }
  const std::string header = read_file(f("mom.g.vcf.gz"));  // bgzip: just that it exists
  EXPECT_FALSE(header.empty());
}

// A gVCF read as indexed bgzip text (its blocks scanned, parsed only where a site falls),
// as plain text read whole, or as BCF: the same joint VCF. Out-of-order records and a
// block whose END is not a number are errors naming the file, however it is read.
TEST_F(Cohort, JointReadsEveryFormOfAGvcfAlike) {
  std::string out;
  std::map<std::string, std::string> body;
  for (const std::string form : {"z", "v", "b"}) {
    std::string inputs;
    for (const std::string s : {"mom", "dad"}) {
      const std::string in = f(s + ".form." + form);
      ASSERT_EQ(run_command("bcftools view -O" + form + " -o " + in + " " + f(s + ".g.vcf.gz") +
                                (form == "v" ? std::string() : " && bcftools index " + in),
                            &out),
                0)
          << out;
      inputs += " " + in;
    }
    const std::string joint = f("joint." + form + ".vcf.gz");
    ASSERT_EQ(run_command(kBin + " joint -t 2 -r " + f("ref.fa") + " -o " + joint + inputs, &out), 0) << out;
    ASSERT_EQ(run_command("bcftools view -H " + joint, &body[form]), 0);
  }
  EXPECT_GT(body["z"].size(), 1000u);
  EXPECT_TRUE(body["z"] == body["v"]) << "plain text differs from bgzip";
  EXPECT_TRUE(body["z"] == body["b"]) << "BCF differs from bgzip";
  // The second block moved before the first; then a block's END made a word.
  const std::string swapped = f("swapped.g.vcf"), bad_end = f("bad_end.g.vcf");
  ASSERT_EQ(run_command("bcftools view -h " + f("mom.g.vcf.gz") + " > " + swapped + " && bcftools view -H " +
                            f("mom.g.vcf.gz") + " | awk 'NR == 1 { a = $0; next } NR == 2 { print; print a; next } 1' >> " +
                            swapped + " && bcftools view -h " + f("mom.g.vcf.gz") + " > " + bad_end +
                            " && bcftools view -H " + f("mom.g.vcf.gz") +
                            " | awk 'BEGIN { OFS = \"\\t\" } $5 == \"<NON_REF>\" && !done { sub(/END=[0-9]+/, \"END=x\", $8); done = 1 } 1' >> " +
                            bad_end,
                        &out),
            0)
      << out;
  for (const std::string& bad : {swapped, bad_end}) {
    EXPECT_EQ(run_command(kBin + " joint -r " + f("ref.fa") + " -o " + f("bad.vcf.gz") + " " + bad + " " +
                              f("dad.g.vcf.gz") + " 2>&1",
                          &out),
              1)
        << bad << out;
    EXPECT_NE(out.find(bad), std::string::npos) << out;
  }
}

TEST_F(Cohort, JointRefusesWhatIsNotACohortOfGvcfs) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " joint -r " + f("ref.fa") + " " + f("mom.g.vcf.gz") + " " + f("mom.g.vcf.gz"), &out), 2)
      << out;
  EXPECT_NE(out.find("given twice"), std::string::npos) << out;
  EXPECT_EQ(run_command(kBin + " joint -r " + f("ref.fa") + " " + f("mom.g.vcf.gz") + " " + f("multi.vcf.gz"), &out), 1)
      << out;
  EXPECT_NE(out.find("one gVCF per sample"), std::string::npos) << out;
  EXPECT_EQ(run_command(kBin + " joint -r " + f("ref.fa") + " " + f("mom.vcf.gz"), &out), 1) << out;
  EXPECT_NE(out.find("not a gVCF"), std::string::npos) << out;
}

}  // namespace
