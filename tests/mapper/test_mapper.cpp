// End to end on simulated data: accuracy against truth, one primary record per read,
// identical records whatever the filter, thread count or batch size, and bad input.
#include <gtest/gtest.h>

#include <htslib/sam.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "eval/eval.hpp"
#include "io/reads/fasta.hpp"
#include "io/sort/sam_sort.hpp"
#include "sim_fixture.hpp"

using namespace gatemap;

namespace {
const test::SimData& data() {
  static test::SimData d;
  return d;
}

int64_t count_lines(const std::string& sam, bool header) {
  int64_t n = 0;
  size_t at = 0;
  while (at < sam.size()) {
    if ((sam[at] == '@') == header) ++n;
    at = sam.find('\n', at);
    if (at == std::string::npos) break;
    ++at;
  }
  return n;
}
}  // namespace

TEST(MapperE2E, PairedReadsMapAccurately) {
  const auto& d = data();
  mapper::MapStats st;
  const std::string out = d.dir.file("pe_eval.sam");
  d.map(d.pe1, d.pe2, "cpu", 2, 100000, &st, out);
  EXPECT_EQ(st.reads, 6000);
  EXPECT_EQ(st.records, 6000);  // one primary per read
  const auto ev = eval::eval_map(out);
  EXPECT_EQ(ev.total, 6000);
  const auto& q20 = ev.rows[2];
  EXPECT_GE(static_cast<double>(q20.mapped) / ev.total, 0.97);
  EXPECT_LE(static_cast<double>(q20.wrong) / q20.mapped, 0.002);
  EXPECT_GE(st.proper_pairs, 2900);
  EXPECT_GT(st.filter_rejected, 0);
}

TEST(MapperE2E, SingleReadsMapAccurately) {
  const auto& d = data();
  const std::string out = d.dir.file("se_eval.sam");
  d.map(d.se, "", "cpu", 2, 100000, nullptr, out);
  const auto ev = eval::eval_map(out);
  EXPECT_EQ(ev.total, 3000);
  EXPECT_GE(static_cast<double>(ev.rows[2].mapped) / ev.total, 0.96);
  EXPECT_LE(static_cast<double>(ev.rows[2].wrong) / ev.rows[2].mapped, 0.003);
}

TEST(MapperE2E, FilterOnAndOffGiveIdenticalRecords) {
  const auto& d = data();
  mapper::MapStats on, off;
  const std::string a = d.map(d.pe1, d.pe2, "cpu", 2, 100000, &on);
  const std::string b = d.map(d.pe1, d.pe2, "off", 2, 100000, &off);
  EXPECT_EQ(a, b);
  EXPECT_LT(on.verified, off.verified);
  EXPECT_EQ(d.map(d.se, "", "cpu"), d.map(d.se, "", "off"));
}

TEST(MapperE2E, ThreadsAndBatchSizeDoNotChangeOutput) {
  const auto& d = data();
  const std::string a = d.map(d.pe1, d.pe2, "cpu", 1, 100000);
  const std::string b = d.map(d.pe1, d.pe2, "cpu", 2, 100000);
  EXPECT_EQ(a, b);
  // Smaller batches keep the records (the insert size is estimated from the first batch,
  // so compare single-end reads, which do not depend on it).
  EXPECT_EQ(d.map(d.se, "", "cpu", 2, 1000), d.map(d.se, "", "cpu", 1, 100000));
}

// Several lanes (as with one GPU each) map batches at once: the records and the insert
// size are one lane's, in input order; a batch before which fewer than 30 pairs had one
// hit each still estimates its own tolerant model, as one lane would.
TEST(MapperE2E, LanesGiveOneLanesRecords) {
  const auto& d = data();
  for (const size_t batch : {size_t{40}, size_t{400}}) {
    const std::string one = d.map(d.pe1, d.pe2, "cpu", 3, batch);
    for (const int lanes : {2, 3}) {
      mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("lanes.sam"));
      o.batch_reads = batch;
      o.lanes = lanes;
      o.hw.threads = 3;
      const mapper::MapStats st = mapper::run_mapping(o);
      EXPECT_EQ(test::without_pg(test::read_file(o.output)), one) << lanes << " lanes, batches of " << batch;
      EXPECT_EQ(st.reads, 6000);
    }
  }
  mapper::RunOptions o = d.options(d.se, "", d.dir.file("lanes_se.sam"));
  o.batch_reads = 300;
  o.lanes = 3;
  mapper::run_mapping(o);
  EXPECT_EQ(test::without_pg(test::read_file(o.output)), d.map(d.se, "", "cpu", 2, 300));
}

// --bgzf-gpu with several lanes: each lane compresses its own batches (here with the CPU
// twin); the BAM holds one lane's records (samtools view as the reader).
TEST(MapperE2E, LanesCompressingTheirOwnBamWriteOneLanesRecords) {
  if (test::run_command("command -v samtools > /dev/null") != 0) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  const std::string one = d.map(d.pe1, d.pe2, "cpu", 3, 400);
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("lanes_gpu_deflate.bam"));
  o.batch_reads = 400;
  o.lanes = 3;
  o.hw.threads = 3;
  o.bgzf_gpu = true;
  mapper::run_mapping(o);
  std::string records;
  ASSERT_EQ(test::run_command("samtools view " + o.output, &records), 0);
  std::string want;
  for (size_t at = 0; at < one.size();) {  // the SAM's records, its header aside
    const size_t end = one.find('\n', at) + 1;
    if (one[at] != '@') want += one.substr(at, end - at);
    at = end;
  }
  EXPECT_TRUE(records == want);
}

// A bad record in the middle of the input stops every lane: the error names the file and
// the first bad record in file order (the lanes parse their batches at once), and no
// output is left.
TEST(MapperE2E, LanesStopAtABadRecord) {
  const auto& d = data();
  std::string text = test::read_file(d.se);
  text.insert(text.find("\n@", text.size() * 3 / 4) + 1, "@broken2\nACGT\n+\nII\n");
  const size_t at = text.find("\n@", text.size() / 2);
  text.insert(at + 1, "@broken1\nACGT\n+\nII\n");
  const std::string bad = test::write_file(d.dir.file("bad_mid.fq"), text);
  mapper::RunOptions o = d.options(bad, "", d.dir.file("lanes_bad.bam"));
  o.batch_reads = 200;
  o.lanes = 3;
  try {
    mapper::run_mapping(o);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_mid.fq"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'broken1'"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(o.output));
}

TEST(MapperE2E, SamtoolsAcceptsTheOutput) {
  const auto& d = data();
  std::string version;
  if (test::run_command("samtools --version", &version) != 0) GTEST_SKIP() << "samtools not installed";
  const std::string out = d.dir.file("check.bam");
  d.map(d.pe1, d.pe2, "cpu", 2, 100000, nullptr, out);
  EXPECT_EQ(test::run_command("samtools quickcheck " + out), 0);
  std::string flagstat;
  ASSERT_EQ(test::run_command("samtools flagstat " + out, &flagstat), 0);
  EXPECT_NE(flagstat.find("6000 + 0 in total"), std::string::npos) << flagstat;
  EXPECT_NE(flagstat.find("3000 + 0 read1"), std::string::npos) << flagstat;
  // samtools fixmate recomputes mate fields: they must already agree.
  const std::string fixed = d.dir.file("fixed.sam");
  ASSERT_EQ(test::run_command("samtools sort -n -o " + d.dir.file("byname.bam") + " " + out +
                              " && samtools fixmate -O sam " + d.dir.file("byname.bam") + " " + fixed),
            0);
  std::string diff;
  EXPECT_EQ(test::run_command("bash -c \"diff <(samtools view " + d.dir.file("byname.bam") +
                                  " | cut -f 1-9) <(samtools view " + fixed + " | cut -f 1-9)\"",
                              &diff),
            0)
      << diff.substr(0, 2000);
}

// Picard's ValidateSamFile (what GATK users run) accepts the output, NM and MD checked
// against the reference, secondary (-a) and supplementary records included: the
// simulated pairs plus one pair whose mate 2 is chimeric.
TEST(MapperE2E, PicardValidatesTheOutput) {
  const auto& d = data();
  if (test::run_command("command -v PicardCommandLine") != 0) GTEST_SKIP() << "Picard (picard-tools) not installed";
  io::FastaReader fasta(d.ref);
  io::FastaRecord c0, c1;
  ASSERT_TRUE(fasta.next(c0));
  ASSERT_TRUE(fasta.next(c1));
  const std::string mate1 = c0.seq.substr(100000, 150);
  const std::string mate2 = reverse_complement(c0.seq.substr(100300, 90)) + c1.seq.substr(5000, 60);
  const std::string qual(150, 'I');
  const auto r1 = test::write_file(d.dir.file("picard_1.fq"),
                                   test::read_file(d.pe1) + "@chimera/1\n" + mate1 + "\n+\n" + qual + "\n");
  const auto r2 = test::write_file(d.dir.file("picard_2.fq"),
                                   test::read_file(d.pe2) + "@chimera/2\n" + mate2 + "\n+\n" + qual + "\n");
  mapper::RunOptions o = d.options(r1, r2, d.dir.file("picard.bam"));
  o.read_group = "@RG\\tID:x\\tSM:y\\tPL:ILLUMINA";
  o.map.output.all_hits = true;
  const auto st = mapper::run_mapping(o);
  EXPECT_GE(st.supplementary, 1);
  EXPECT_GT(st.secondary, 0);
  const std::string sorted = d.dir.file("picard.sorted.bam");  // reference checks want coordinate order
  io::sort_sam_in_memory(o.output, sorted);
  const std::string dict = d.ref.substr(0, d.ref.size() - 3) + ".dict";  // ref.fa -> ref.dict
  std::string out;
  ASSERT_EQ(test::run_command("PicardCommandLine CreateSequenceDictionary R=" + d.ref + " O=" + dict, &out), 0) << out;
  const std::string validate = "PicardCommandLine ValidateSamFile I=" + sorted + " R=" + d.ref + " MODE=SUMMARY";
  EXPECT_EQ(test::run_command(validate, &out), 0)
      << out.substr(out.size() > 3000 ? out.size() - 3000 : 0);
  EXPECT_NE(out.find("No errors found"), std::string::npos);
}

TEST(MapperEdgeCases, ShortAllNEmptyReadsAreUnmappedRecords) {
  const auto& d = data();
  const auto fq = test::write_file(d.dir.file("edge.fq"),
                                   "@short\nACGTACG\n+\nIIIIIII\n@alln\n" + std::string(100, 'N') + "\n+\n" +
                                       std::string(100, 'I') + "\n@empty\n\n+\n\n@one\nA\n+\nI\n");
  const std::string sam = d.map(fq, "", "cpu");
  EXPECT_EQ(count_lines(sam, false), 4);
  for (const char* name : {"short\t4\t", "alln\t4\t", "empty\t4\t", "one\t4\t"}) {
    EXPECT_NE(sam.find(name), std::string::npos) << name;
  }
}

TEST(MapperEdgeCases, EmptyInputGivesHeaderOnly) {
  const auto& d = data();
  const auto fq = test::write_file(d.dir.file("empty.fq"), "");
  const std::string sam = d.map(fq, "", "cpu");
  EXPECT_EQ(count_lines(sam, false), 0);
  EXPECT_GE(count_lines(sam, true), 4);
}

TEST(MapperEdgeCases, MatesThatDoNotPairAreAnError) {
  const auto& d = data();
  const auto a = test::write_file(d.dir.file("m1.fq"), "@x/1\nACGT\n+\nIIII\n");
  const auto b = test::write_file(d.dir.file("m2.fq"), "@y/2\nACGT\n+\nIIII\n");
  EXPECT_THROW(d.map(a, b, "cpu"), FormatError);
}

TEST(MapperE2E, NmAndMdAgreeWithSamtoolsCalmd) {
  const auto& d = data();
  std::string version;
  if (test::run_command("samtools --version", &version) != 0) GTEST_SKIP() << "samtools not installed";
  const std::string out = d.dir.file("calmd_in.sam");
  d.map(d.pe1, d.pe2, "cpu", 2, 100000, nullptr, out);
  // calmd recomputes NM and MD from the reference and says so for every record it changes.
  std::string log;
  ASSERT_EQ(test::run_command("samtools faidx " + d.ref + " && samtools calmd " + out + " " + d.ref +
                                  " > " + d.dir.file("calmd_out.sam"),
                              &log),
            0)
      << log;
  EXPECT_EQ(log.find("different NM"), std::string::npos) << log.substr(0, 2000);
  EXPECT_EQ(log.find("different MD"), std::string::npos) << log.substr(0, 2000);
}

// bwa mem -p and FASTA reads: the same records as two FASTQ files (FASTA: QUAL '*').
TEST(MapperInput, InterleavedPairsAndFastaReadsMapAsFastq) {
  const auto& d = data();
  const std::string fq1 = test::read_file(d.pe1), fq2 = test::read_file(d.pe2);
  std::string interleaved;
  for (size_t a = 0, b = 0; a < fq1.size();) {  // four lines of each mate in turn
    for (auto [text, at] : {std::pair{&fq1, &a}, std::pair{&fq2, &b}}) {
      size_t end = *at;
      for (int line = 0; line < 4; ++line) end = text->find('\n', end) + 1;
      interleaved += text->substr(*at, end - *at);
      *at = end;
    }
  }
  const auto inter = test::write_file(d.dir.file("inter.fq"), interleaved);
  mapper::RunOptions o = d.options(inter, "", d.dir.file("inter.sam"));
  o.interleaved = true;
  mapper::run_mapping(o);
  EXPECT_EQ(test::without_pg(test::read_file(o.output)), d.map(d.pe1, d.pe2, "cpu"));

  // FASTA: every record as from FASTQ, but for QUAL.
  std::string fasta, line;
  std::istringstream se(test::read_file(d.se));
  for (int n = 0; std::getline(se, line); ++n) {
    if (n % 4 == 0) fasta += ">" + line.substr(1) + "\n";
    if (n % 4 == 1) fasta += line + "\n";
  }
  const std::string from_fasta = d.map(test::write_file(d.dir.file("se.fa"), fasta), "", "cpu");
  const std::string from_fastq = d.map(d.se, "", "cpu");
  std::istringstream a(from_fasta), b(from_fastq);
  std::string la, lb;
  int records = 0;
  while (std::getline(a, la) && std::getline(b, lb)) {
    if (la[0] == '@') continue;
    std::vector<std::string> fa = test::sam_fields(la), fb = test::sam_fields(lb);
    ASSERT_GE(fa.size(), 11u);
    EXPECT_EQ(fa[10], "*");
    fa[10] = fb[10];
    EXPECT_EQ(fa, fb);
    ++records;
  }
  EXPECT_EQ(records, 3000);
}

// MC:Z (the mate's CIGAR, as bwa mem writes it) on every record whose mate is mapped.
TEST(MapperE2E, MateCigarTagMatchesTheMate) {
  const auto& d = data();
  std::istringstream sam(d.map(d.pe1, d.pe2, "cpu"));
  std::map<std::string, std::vector<std::vector<std::string>>> primaries;  // name -> [mate 1, mate 2]
  for (std::string line; std::getline(sam, line);) {
    if (line.empty() || line[0] == '@') continue;
    const std::vector<std::string> f = test::sam_fields(line);
    if (std::stoi(f[1]) & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    primaries[f[0]].push_back(f);
  }
  int checked = 0;
  for (const auto& [name, mates] : primaries) {
    ASSERT_EQ(mates.size(), 2u) << name;
    for (int m = 0; m < 2; ++m) {
      const auto& self = mates[m];
      const auto& mate = mates[1 - m];
      std::string mc;
      for (size_t i = 11; i < self.size(); ++i) {
        if (self[i].rfind("MC:Z:", 0) == 0) mc = self[i].substr(5);
      }
      if (std::stoi(self[1]) & BAM_FMUNMAP) {
        EXPECT_TRUE(mc.empty()) << name;
      } else {
        EXPECT_EQ(mc, mate[5]) << name;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 5900);
}

// bwa mem -C: FASTQ comments made of SAM tags go onto the records; others are an error.
TEST(MapperInput, CommentsCopiedAsSamTagsWithC) {
  const auto& d = data();
  std::istringstream se(test::read_file(d.se));
  std::string fq, line;
  for (int n = 0; std::getline(se, line) && n < 40; ++n) {
    fq += n % 4 == 0 ? line + " BX:Z:ACGT-1\tXN:i:" + std::to_string(n) + " XF:f:0.5 XC:A:q\n" : line + "\n";
  }
  const auto path = test::write_file(d.dir.file("comments.fq"), fq);
  mapper::RunOptions o = d.options(path, "", d.dir.file("comments.sam"));
  o.map.output.copy_comment = true;
  mapper::run_mapping(o);
  const std::string with = test::read_file(o.output);
  EXPECT_NE(with.find("\tBX:Z:ACGT-1\tXN:i:0\tXF:f:0.5\tXC:A:q"), std::string::npos) << with.substr(0, 2000);
  EXPECT_NE(with.find("\tXN:i:36"), std::string::npos);
  o.map.output.copy_comment = false;
  mapper::run_mapping(o);
  EXPECT_EQ(test::read_file(o.output).find("BX:Z:"), std::string::npos);
  // A number tag first (it used to be refused: checked on a record with no data yet).
  o.map.output.copy_comment = true;
  o.reads1 = test::write_file(d.dir.file("numbers.fq"), "@r1 XI:i:5 XF:f:1.5\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n");
  mapper::run_mapping(o);
  EXPECT_NE(test::read_file(o.output).find("\tXI:i:5\tXF:f:1.5"), std::string::npos);
  // Illumina's "1:N:0:ATCACG" is no SAM tag.
  o.reads1 = test::write_file(d.dir.file("illumina.fq"), "@r1 1:N:0:ATCACG\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n");
  try {
    mapper::run_mapping(o);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'1:N:0:ATCACG' is not a SAM tag"), std::string::npos) << e.what();
  }
}
