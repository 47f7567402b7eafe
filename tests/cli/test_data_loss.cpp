// Nothing lost, nothing overwritten (round 3): one rule for every path a run touches
// (io/run_paths.hpp), reads from SAM/BAM paired as bwa and samtools pair them or refused,
// names and read groups that would make a broken output, CRAM's reference checked by
// sequence, `call`'s inputs, and the process's edges (its self-restart, a closed stdout).
#include <gtest/gtest.h>
#include <htslib/sam.h>
#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"

using gatemap::test::read_file;
using gatemap::test::run_command;
using gatemap::test::write_file;

namespace {

const std::string kBin = GATEMAP_BINARY;

bool exists(const std::string& path) { return std::filesystem::exists(path); }

class DataLoss : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new gatemap::test::TempDir();
    const std::string g = kBin + " ";
    std::string out;
    const std::string setup =
        g + "sim genome --length 120000 --contigs 3 -o " + f("ref.fa") + " && " + g + "index -o " + f("ref.fa.gmi") +
        " " + f("ref.fa") + " && " + g + "sim reads " + f("ref.fa") + " -n 3000 -o " + f("r") + " && " + g +
        "map -t 2 --sort -o " + f("aln.bam") + " " + f("ref.fa") + " " + f("r_1.fq") + " " + f("r_2.fq");
    ASSERT_EQ(run_command(setup, &out), 0) << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string f(const std::string& name) { return dir_->file(name); }
  static int gm(const std::string& args, std::string* out = nullptr) {
    return run_command("timeout 120 " + kBin + " " + args, out);
  }
  // A copy of a shared file in the test's own folder, to be (not) overwritten.
  static std::string copy(const gatemap::test::TempDir& d, const std::string& name) {
    std::filesystem::copy_file(f(name), d.file(name));
    return d.file(name);
  }
  // The "proper pairs" count of map's final report.
  static long proper_pairs(const std::string& log) {
    const size_t at = log.rfind(", proper pairs ");  // the report, after the insert-size line
    return at == std::string::npos ? -1 : std::stol(log.substr(at + 15));
  }
  static gatemap::test::TempDir* dir_;
};
gatemap::test::TempDir* DataLoss::dir_ = nullptr;

// (2) `map REF` stands for REF.gmi and reads REF itself for CRAM: neither -o, -T's FASTA
// nor --stats may be that FASTA.
TEST_F(DataLoss, MapNeverOverwritesTheFastaBehindItsIndex) {
  gatemap::test::TempDir d;
  const std::string fa = copy(d, "ref.fa");
  copy(d, "ref.fa.gmi");
  const std::string before = read_file(fa);
  for (const std::string& args : {"-o " + fa + " " + fa, "-T " + fa + " -o " + fa + " " + d.file("ref.fa.gmi"),
                                  "--stats " + fa + " -o " + d.file("o.sam") + " " + fa}) {
    std::string out;
    EXPECT_EQ(gm("map " + args + " " + f("r_1.fq"), &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find("refusing to overwrite"), std::string::npos) << out;
    EXPECT_EQ(read_file(fa), before) << args;
  }
  EXPECT_FALSE(exists(d.file("o.sam")));
}

// (3) A side output is never an index (the output's own, an input's), the -L BED, a FASTA
// or an input; it is checked before the main output is begun.
TEST_F(DataLoss, SideOutputsNeverOverwriteIndexesOrInputs) {
  gatemap::test::TempDir d;
  const std::string bam = copy(d, "aln.bam"), bai = copy(d, "aln.bam.bai"), fa = copy(d, "ref.fa");
  copy(d, "ref.fa.gmi");
  const std::string bed = write_file(d.file("x.bed"), "1\t100\t5000\n");
  const std::string out_bam = d.file("out.bam");
  write_file(out_bam + ".bai", "an older index\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"map --sort -o " + out_bam + " --stats " + out_bam + ".bai " + fa + " " + f("r_1.fq"), out_bam + ".bai"},
      {"call -r " + fa + " -o " + d.file("c.vcf") + " --stats " + bai + " " + bam, bai},
      {"call -r " + fa + " -L " + bed + " -o " + d.file("c.vcf") + " --stats " + bed + " " + bam, bed},
      {"map -o " + d.file("o.sam") + " --stats " + fa + " " + fa + " " + f("r_1.fq"), fa},
      {"call -r " + fa + " -o " + d.file("c.vcf") + " --stats " + fa + ".gmi " + bam, fa + ".gmi"},
      {"correct -o " + d.file("c.fq") + " --summary " + f("r_1.fq") + " " + f("r_1.fq"), f("r_1.fq")},
  };
  for (const auto& [args, victim] : cases) {
    const std::string before = read_file(victim);
    std::string out;
    EXPECT_EQ(gm(args, &out), 2) << args << "\n" << out;
    EXPECT_EQ(read_file(victim), before) << args;
  }
  for (const char* name : {"out.bam", "o.sam", "c.vcf", "c.fq"}) EXPECT_FALSE(exists(d.file(name))) << name;
}

// (3) A side output that cannot be written fails the run before any output exists, and a
// report that fails at the end (a full disk) takes the finished output with it.
TEST_F(DataLoss, ASideOutputThatCannotBeWrittenLeavesNoOutput) {
  gatemap::test::TempDir d;
  std::filesystem::create_directory(d.file("folder"));
  const std::string reads = f("r_1.fq") + " " + f("r_2.fq");
  std::string out;
  EXPECT_EQ(gm("map -o " + d.file("a.bam") + " --stats " + d.file("folder") + " " + f("ref.fa") + " " + reads, &out), 1)
      << out;
  EXPECT_NE(out.find("is a folder"), std::string::npos) << out;
  EXPECT_EQ(gm("map --stats " + d.file("none/s.json") + " -o " + d.file("a.bam") + " " + f("ref.fa") + " " + reads, &out), 1);
  EXPECT_FALSE(exists(d.file("a.bam")));
  // Standard output carries the SAM: --stats - would be appended to it.
  EXPECT_EQ(gm("map --stats - " + f("ref.fa") + " " + reads, &out), 2);
  EXPECT_NE(out.find("standard output already carries -o"), std::string::npos) << out;
  // /dev/full: the report's write fails once the sorted BAM and its index are complete.
  EXPECT_EQ(gm("map --sort -o " + d.file("b.bam") + " --stats /dev/full " + f("ref.fa") + " " + reads, &out), 1) << out;
  EXPECT_FALSE(exists(d.file("b.bam")));
  EXPECT_FALSE(exists(d.file("b.bam.bai")));
  EXPECT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("c.vcf.gz") + " --stats /dev/full " + f("aln.bam"), &out), 1);
  EXPECT_FALSE(exists(d.file("c.vcf.gz")));
  EXPECT_FALSE(exists(d.file("c.vcf.gz.tbi")));
}

// (4) Unmapped BAM input whose mates are told by /1 and /2 is paired as from FASTQ; a
// paired BAM whose mates are apart (not collated, not saying SO:coordinate) is refused.
TEST_F(DataLoss, BamInputIsPairedByNamesOrRefused) {
  gatemap::test::TempDir d;
  // Interleaved records, unpaired flags (4), names ending in /1 and /2.
  std::ifstream r1(f("r_1.fq")), r2(f("r_2.fq"));
  std::ofstream sam(d.file("u.sam"));
  sam << "@HD\tVN:1.6\tSO:unsorted\n";
  std::string h1, s1, p1, q1, h2, s2, p2, q2;
  while (std::getline(r1, h1) && std::getline(r1, s1) && std::getline(r1, p1) && std::getline(r1, q1) &&
         std::getline(r2, h2) && std::getline(r2, s2) && std::getline(r2, p2) && std::getline(r2, q2)) {
    const std::string n1 = h1.substr(1, h1.find_first_of(" \t/") - 1), n2 = h2.substr(1, h2.find_first_of(" \t/") - 1);
    sam << n1 << "/1\t4\t*\t0\t0\t*\t*\t0\t0\t" << s1 << "\t" << q1 << "\n";
    sam << n2 << "/2\t4\t*\t0\t0\t*\t*\t0\t0\t" << s2 << "\t" << q2 << "\n";
  }
  sam.close();
  std::string out;
  ASSERT_EQ(run_command("samtools view -b -o " + d.file("u.bam") + " " + d.file("u.sam"), &out), 0) << out;
  ASSERT_EQ(gm("map -o " + d.file("u.out.sam") + " " + f("ref.fa") + " " + d.file("u.bam"), &out), 0) << out;
  EXPECT_GT(proper_pairs(out), 3000 * 9 / 10) << out;  // of 3000 pairs
  // Mates apart: every mate 1, then every mate 2 (flags 77 and 141).
  ASSERT_EQ(run_command("samtools import -1 " + f("r_1.fq") + " -2 " + f("r_2.fq") + " -o " + d.file("p.bam") +
                            " && (samtools view -H " + d.file("p.bam") + "; samtools view -f 64 " + d.file("p.bam") +
                            "; samtools view -f 128 " + d.file("p.bam") + ") | samtools view -b -o " +
                            d.file("apart.bam") + " -",
                        &out),
            0)
      << out;
  EXPECT_EQ(gm("map -o " + d.file("a.sam") + " " + f("ref.fa") + " " + d.file("apart.bam"), &out), 1) << out;
  EXPECT_NE(out.find("samtools collate"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("a.sam")));
}

// A BAM of one unmapped read named `name` with the header text `header`.
void write_one_read_bam(const std::string& path, const std::string& header, const std::string& name,
                        const std::string& aux_rg) {
  samFile* fp = sam_open(path.c_str(), "wb");
  sam_hdr_t* h = sam_hdr_parse(header.size(), header.c_str());
  ASSERT_TRUE(fp && h);
  ASSERT_EQ(sam_hdr_write(fp, h), 0);
  bam1_t* b = bam_init1();
  const std::string seq(60, 'A'), qual(60, 30);
  ASSERT_GE(bam_set1(b, name.size(), name.c_str(), BAM_FUNMAP, -1, -1, 0, 0, nullptr, -1, -1, 0, seq.size(),
                     seq.c_str(), qual.c_str(), 16),
            0);
  if (!aux_rg.empty()) bam_aux_append(b, "RG", 'Z', static_cast<int>(aux_rg.size() + 1), reinterpret_cast<const uint8_t*>(aux_rg.c_str()));
  ASSERT_GE(sam_write1(fp, h, b), 0);
  bam_destroy1(b);
  sam_hdr_destroy(h);
  ASSERT_EQ(sam_close(fp), 0);
}

// (5) Names and read groups that would make an output other tools cannot read.
TEST_F(DataLoss, NamesAndReadGroupsNeverBreakTheOutput) {
  gatemap::test::TempDir d;
  std::string out;
  // A tab or newline in a BAM read's name: refused, naming the record.
  for (const std::string& name : {std::string("a\tb"), std::string("a\nb")}) {
    write_one_read_bam(d.file("n.bam"), "@HD\tVN:1.6\n", name, "");
    EXPECT_EQ(gm("map -o " + d.file("n.sam") + " " + f("ref.fa") + " " + d.file("n.bam"), &out), 1) << out;
    EXPECT_NE(out.find("record 1"), std::string::npos) << out;
    EXPECT_FALSE(exists(d.file("n.sam")));
  }
  // RG:Z without an @RG line: said, not silently dropped.
  write_one_read_bam(d.file("g.bam"), "@HD\tVN:1.6\n", "r1", "lost");
  EXPECT_EQ(gm("map -o " + d.file("g.sam") + " " + f("ref.fa") + " " + d.file("g.bam"), &out), 0) << out;
  EXPECT_NE(out.find("RG:Z:lost, which no @RG line"), std::string::npos) << out;
  // -C with -R: one RG tag, the run's; the comment's other tags kept.
  write_file(d.file("c.fq"), "@x RG:Z:other\tBX:Z:ACGT\n" + std::string(80, 'C') + "\n+\n" + std::string(80, 'I') + "\n");
  ASSERT_EQ(gm("map -C -R '@RG\\tID:run\\tSM:s' -o " + d.file("c.sam") + " " + f("ref.fa") + " " + d.file("c.fq"), &out), 0)
      << out;
  ASSERT_EQ(run_command("samtools view " + d.file("c.sam"), &out), 0);
  EXPECT_NE(out.find("RG:Z:run"), std::string::npos) << out;
  EXPECT_EQ(out.find("RG:Z:other"), std::string::npos) << out;
  EXPECT_NE(out.find("BX:Z:ACGT"), std::string::npos) << out;
  // A malformed -R field is a usage error naming -R, before any file is read.
  EXPECT_EQ(gm("map -R '@RG\\tID:x\\tSMs' " + d.file("no-such.gmi") + " " + f("r_1.fq"), &out), 2) << out;
  EXPECT_NE(out.find("-R '@RG"), std::string::npos) << out;
  EXPECT_NE(out.find("'SMs'"), std::string::npos) << out;
  // A newline in an input's name goes into @PG CL as \n: the output stays readable.
  const std::string odd = d.file("odd\nname.fq");
  std::filesystem::copy_file(f("r_1.fq"), odd);
  ASSERT_EQ(gm("map -o " + d.file("odd.sam") + " " + f("ref.fa") + " '" + odd + "'", &out), 0) << out;
  EXPECT_EQ(run_command("samtools view -c " + d.file("odd.sam"), &out), 0) << out;
  EXPECT_EQ(out, "3000\n");
}

// (6) A FASTA of the same contigs and lengths but another sequence is not CRAM's -T.
TEST_F(DataLoss, CramReferenceIsCheckedBySequence) {
  gatemap::test::TempDir d;
  std::string fa = read_file(f("ref.fa"));
  size_t at = fa.find('\n', fa.find(">2")) + 1000;  // a base of contig 2
  while (!std::isalpha(static_cast<unsigned char>(fa[at]))) ++at;
  fa[at] = std::toupper(static_cast<unsigned char>(fa[at])) == 'A' ? 'C' : 'A';
  const std::string other = write_file(d.file("other.fa"), fa);
  std::string out;
  EXPECT_EQ(gm("map -T " + other + " -o " + d.file("x.cram") + " " + f("ref.fa.gmi") + " " + f("r_1.fq"), &out), 2) << out;
  EXPECT_NE(out.find("contig '2' differs at position"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("x.cram")));
  // The right FASTA in lower case (as soft-masked references are) is the same reference.
  std::string lower = read_file(f("ref.fa"));
  for (size_t i = 0; i < lower.size(); ++i) {
    if (lower[i] == '>') i = lower.find('\n', i);
    else lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[i])));
  }
  const std::string masked = write_file(d.file("masked.fa"), lower);
  EXPECT_EQ(gm("map -T " + masked + " -o " + d.file("y.cram") + " " + f("ref.fa.gmi") + " " + f("r_1.fq"), &out), 0) << out;
}

// (7) `call`'s inputs: a BAM given twice (by any name), an interval that ends before it
// begins, a BAM on stdin cut at a block boundary.
TEST_F(DataLoss, CallRefusesDoubledTruncatedOrBackwardInputs) {
  gatemap::test::TempDir d;
  std::string out;
  const std::string call = "call -r " + f("ref.fa") + " -o " + d.file("c.vcf") + " ";
  EXPECT_EQ(gm(call + f("aln.bam") + " " + f("aln.bam"), &out), 2) << out;
  EXPECT_NE(out.find("given twice"), std::string::npos) << out;
  std::filesystem::create_symlink(f("aln.bam"), d.file("link.bam"));
  EXPECT_EQ(gm(call + f("aln.bam") + " " + d.file("link.bam"), &out), 2) << out;
  EXPECT_EQ(gm(call + "-L 1:100-99 " + f("aln.bam"), &out), 2) << out;
  EXPECT_NE(out.find("the end lies before the begin"), std::string::npos) << out;
  // Without its 28-byte end-of-file block the BAM ends at a block boundary.
  const std::string bam = read_file(f("aln.bam"));
  write_file(d.file("cut.bam"), bam.substr(0, bam.size() - 28));
  EXPECT_EQ(run_command("cat " + d.file("cut.bam") + " | timeout 120 " + kBin + " " + call + "-", &out), 1) << out;
  EXPECT_NE(out.find("truncated"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("c.vcf")));
  // The whole BAM on stdin is called.
  EXPECT_EQ(run_command("cat " + f("aln.bam") + " | timeout 120 " + kBin + " " + call + "-", &out), 0) << out;
}

// (8) Run through the dynamic loader or valgrind, gatemap does not restart itself as
// them; with standard output closed, the error says so before anything is written.
TEST_F(DataLoss, ProcessEdges) {
  gatemap::test::TempDir d;
  std::string out, loader;
  run_command("ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1", &loader);
  if (!loader.empty()) {
    loader.pop_back();
    EXPECT_EQ(run_command(loader + " " + kBin + " map -o " + d.file("l.sam") + " " + f("ref.fa") + " " + f("r_1.fq"), &out), 0)
        << out;
    EXPECT_TRUE(exists(d.file("l.sam")));
  }
  // Under valgrind, /proc/self/exe is valgrind's tool: gatemap runs without restarting.
  if (run_command("command -v valgrind") == 0) {
    EXPECT_EQ(run_command("valgrind -q " + kBin + " version", &out), 0) << out;
    EXPECT_NE(out.find("gatemap "), std::string::npos) << out;
  }
  EXPECT_EQ(run_command("(" + kBin + " map " + f("ref.fa") + " " + f("r_1.fq") + " >&-)", &out), 1) << out;
  EXPECT_NE(out.find("standard output is closed"), std::string::npos) << out;
  // Out of memory anywhere in `correct` (its k-mer counter's OpenMP regions included): at
  // every limit an error with status 1 or a finished run, never an abort, and never a
  // hidden temporary left beside the outputs.
  for (int limit_mb = 250; limit_mb <= 700; limit_mb += 50) {
    gatemap::test::TempDir o;
    const int status = run_command("ulimit -v " + std::to_string(limit_mb * 1024) + "; " + kBin + " correct -t 2 -o " +
                                       o.file("c1.fq") + " -p " + o.file("c2.fq") + " " + f("r_1.fq") + " " + f("r_2.fq"),
                                   &out);
    EXPECT_TRUE(status == 0 || status == 1) << limit_mb << " MB: status " << status << "\n" << out;
    for (const auto& e : std::filesystem::directory_iterator(o.path())) {
      EXPECT_NE(e.path().filename().string()[0], '.') << limit_mb << " MB left " << e.path();
    }
  }
  // sim variants: a contig name a VCF header refuses leaves none of its three files.
  write_file(d.file("bad.fa"), ">a,b\n" + std::string(2000, 'A') + "\n");
  EXPECT_EQ(gm("sim variants " + d.file("bad.fa") + " -o " + d.file("donor"), &out), 1) << out;
  for (const char* name : {"donor.hap1.fa", "donor.hap2.fa", "donor.truth.vcf.gz"}) EXPECT_FALSE(exists(d.file(name))) << name;
}

}  // namespace
