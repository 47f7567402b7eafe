// Reads from SAM/BAM/CRAM (GATK's unmapped BAM, a BAM mapped before, CRAM) and CRAM
// output: the same records as from the FASTQ, checked with samtools (skipped without it).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>

#include "common/error.hpp"
#include "sim_fixture.hpp"

using namespace gatemap;

namespace {

const test::SimData& data() {
  static test::SimData d(600, 10);
  return d;
}

bool have_samtools() { return test::run_command("samtools --version") == 0; }

// The records of a SAM/BAM/CRAM file as `samtools view` prints them, each record's tags
// sorted (CRAM keeps tags in an order of its own) and RG:Z removed when asked.
std::string records_of(const std::string& path, bool drop_rg = false) {
  std::string text;
  EXPECT_EQ(test::run_command("samtools view -T " + data().ref + " " + path, &text), 0) << text;
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    auto f = test::sam_fields(line);
    if (f.size() < 11) continue;
    std::vector<std::string> tags(f.begin() + 11, f.end());
    if (drop_rg) tags.erase(std::remove_if(tags.begin(), tags.end(), [](const std::string& t) { return t.rfind("RG:Z:", 0) == 0; }), tags.end());
    std::sort(tags.begin(), tags.end());
    f.resize(11);
    for (const auto& t : tags) f.push_back(t);
    for (size_t i = 0; i < f.size(); ++i) out += (i ? "\t" : "") + f[i];
    out += "\n";
  }
  return out;
}

std::string map_to(const std::string& reads, const std::string& out, bool sort = false) {
  const auto& d = data();
  mapper::RunOptions o = d.options(reads, "", out);
  o.reference = d.ref;
  o.sort = sort;
  mapper::run_mapping(o);
  return out;
}

}  // namespace

// samtools import makes GATK's unmapped BAM; its read group goes onto every record and
// its @RG line into the header. A BAM mapped before (reverse-strand records turned back)
// and a CRAM give the FASTQ's records too.
TEST(AlignmentInput, UnmappedMappedAndCramGiveTheFastqsRecords) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  const std::string fastq_records = [&] {
    mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("fq.sam"));
    mapper::run_mapping(o);
    return records_of(o.output);
  }();
  const std::string ubam = d.dir.file("u.bam");
  std::string log;
  ASSERT_EQ(test::run_command("samtools import -1 " + d.pe1 + " -2 " + d.pe2 + " -r ID:g1 -r SM:s1 -o " + ubam, &log),
            0)
      << log;
  const std::string from_ubam = map_to(ubam, d.dir.file("from_u.sam"));
  EXPECT_EQ(records_of(from_ubam, true), fastq_records);
  const std::string text = test::read_file(from_ubam);
  EXPECT_NE(text.find("@RG\tID:g1\tSM:s1"), std::string::npos);
  EXPECT_NE(text.find("\n@CO\tReverse with: samtools fastq"), std::string::npos);  // samtools import's @CO kept
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7 + 1200);  // @HD, 3 @SQ, @RG, @PG, @CO and 1200 records
  EXPECT_EQ(records_of(from_ubam).find("RG:Z:g1") != std::string::npos, true);

  const std::string mapped = map_to(d.dir.file("fq.sam"), d.dir.file("from_mapped.sam"));
  EXPECT_EQ(records_of(mapped), fastq_records);
  const std::string cram = d.dir.file("in.cram");
  ASSERT_EQ(test::run_command("samtools view -C -T " + d.ref + " -o " + cram + " " + d.dir.file("fq.sam"), &log), 0)
      << log;
  EXPECT_EQ(records_of(map_to(cram, d.dir.file("from_cram.sam"))), fastq_records);
}

// An unmapped BAM's own tags (a barcode, original qualities, an array) stay on its records
// with -C, as bwa mem -C keeps FASTQ comments; an earlier alignment's tags (NM, AS, MD of
// a BAM mapped before) give way to the new ones; without -C only the read group stays.
TEST(AlignmentInput, DashCKeepsAnUnmappedBamsTags) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  std::string log;
  const auto with_tags = [&](const std::string& fq, const std::string& out) {
    ASSERT_EQ(test::run_command("awk 'NR % 4 == 1 { print $1 \"\\tBX:Z:ACGT-1\\tOQ:Z:IIII\\tZB:B:s,-3,7\\tNM:i:99\"; next } "
                                "{ print }' " + fq + " > " + out, &log), 0) << log;
  };
  with_tags(d.pe1, d.dir.file("t_1.fq"));
  with_tags(d.pe2, d.dir.file("t_2.fq"));
  const std::string ubam = d.dir.file("tagged.bam");
  ASSERT_EQ(test::run_command("samtools import -T '*' -1 " + d.dir.file("t_1.fq") + " -2 " + d.dir.file("t_2.fq") +
                                  " -r ID:g1 -r SM:s1 -o " + ubam, &log), 0) << log;
  mapper::RunOptions o = d.options(ubam, "", d.dir.file("kept.sam"));
  o.map.output.copy_comment = true;
  mapper::run_mapping(o);
  const std::string kept = records_of(o.output);
  size_t records = 0;
  std::istringstream in(kept);
  for (std::string line; std::getline(in, line); ++records) {
    for (const char* tag : {"\tBX:Z:ACGT-1", "\tOQ:Z:IIII", "\tZB:B:s,-3,7", "\tRG:Z:g1"}) {
      EXPECT_NE(line.find(tag), std::string::npos) << tag << " missing: " << line;
    }
    EXPECT_EQ(line.find("NM:i:99"), std::string::npos) << line;  // the new alignment's NM instead
  }
  EXPECT_EQ(records, 1200u);
  const std::string plain = records_of(map_to(ubam, d.dir.file("plain_tags.sam")));
  EXPECT_EQ(plain.find("BX:Z:"), std::string::npos);
  EXPECT_NE(plain.find("RG:Z:g1"), std::string::npos);
}

// -o x.cram: the SAM's records; with --sort the sorted BAM's, and its .crai.
TEST(AlignmentInput, CramOutputHoldsTheRecordsAndIsIndexed) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("out.cram"));
  o.reference = d.ref;
  mapper::run_mapping(o);
  mapper::RunOptions s = o;
  s.output = d.dir.file("plain.sam");
  mapper::run_mapping(s);
  EXPECT_EQ(records_of(o.output), records_of(s.output));
  o.sort = o.markdup = true;
  o.output = d.dir.file("sorted.cram");
  mapper::run_mapping(o);
  s.sort = s.markdup = true;
  s.output = d.dir.file("sorted.bam");
  mapper::run_mapping(s);
  EXPECT_EQ(records_of(o.output), records_of(s.output));
  EXPECT_TRUE(std::filesystem::exists(o.output + ".crai"));
  std::string region;
  ASSERT_EQ(test::run_command("samtools view -c -T " + d.ref + " " + o.output + " 1:1-200000", &region), 0) << region;
  EXPECT_GT(std::stoi(region), 0);
}

// CRAM keeps NM and MD as the SAM has them, for readers that do not rebuild them from the
// reference (htsjdk, Picard); --cram-no-nm-md leaves them out. Decoded with htslib's
// rebuilding off, so that what the file holds is seen.
TEST(AlignmentInput, CramStoresNmAndMdUnlessAskedNotTo) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  const auto stored_tags = [&](const std::string& cram) {
    std::string text;
    EXPECT_EQ(test::run_command("samtools view --input-fmt-option decode_md=0 -F 4 -T " + d.ref + " " + cram, &text),
              0) << text;
    int records = 0, nm = 0, md = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line); ++records) {
      nm += line.find("\tNM:i:") != std::string::npos;
      md += line.find("\tMD:Z:") != std::string::npos;
    }
    return std::array<int, 3>{records, nm, md};
  };
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("nm_md.cram"));
  o.reference = d.ref;
  mapper::run_mapping(o);
  const auto kept = stored_tags(o.output);
  EXPECT_GT(kept[0], 1000);
  EXPECT_EQ(kept[1], kept[0]);
  EXPECT_EQ(kept[2], kept[0]);
  o.cram_nm_md = false;
  o.output = d.dir.file("lean.cram");
  mapper::run_mapping(o);
  const auto lean = stored_tags(o.output);
  EXPECT_EQ(lean[0], kept[0]);
  EXPECT_EQ(lean[1], 0);
  EXPECT_EQ(lean[2], 0);
}

TEST(AlignmentInput, WhatCannotWorkIsAClearError) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
  const auto& d = data();
  const std::string sorted = d.dir.file("by_coordinate.bam");
  mapper::RunOptions o = d.options(d.pe1, d.pe2, d.dir.file("e.bam"));
  mapper::run_mapping(o);
  std::string log;
  ASSERT_EQ(test::run_command("samtools sort -o " + sorted + " " + o.output, &log), 0) << log;
  o = d.options(sorted, "", d.dir.file("e.sam"));
  try {
    mapper::run_mapping(o);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + sorted + "' is sorted by coordinate"), std::string::npos) << e.what();
  }
  o.reads2 = d.pe2;
  EXPECT_THROW(mapper::run_mapping(o), UsageError);  // SAM/BAM/CRAM reads come in one file
  // A BAM cut at a block boundary (its end-of-file block gone) reads as complete: refused.
  const std::string whole = test::read_file(d.dir.file("e.bam"));  // mates next to each other
  const std::string cut = test::write_file(d.dir.file("cut.bam"), whole.substr(0, whole.size() - 28));
  o = d.options(cut, "", d.dir.file("cut.sam"));
  try {
    mapper::run_mapping(o);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + cut + "' has no BGZF end-of-file marker"), std::string::npos) << e.what();
  }
  // From a pipe the FASTQ reader meets the BAM: it says what it is.
  io::FastqReader as_fastq(sorted);
  io::Read read;
  try {
    as_fastq.next(read);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("SAM/BAM/CRAM, which map reads from a file, not a pipe"), std::string::npos)
        << e.what();
  }
  const std::string cram = d.dir.file("e.cram");
  ASSERT_EQ(test::run_command("samtools view -C -T " + d.ref + " -o " + cram + " " + sorted, &log), 0) << log;
  o = d.options(cram, "", d.dir.file("e2.sam"));
  EXPECT_THROW(mapper::run_mapping(o), UsageError);  // no -T
  o = d.options(d.pe1, d.pe2, d.dir.file("never.cram"));
  EXPECT_THROW(mapper::run_mapping(o), UsageError);  // CRAM output without -T
  o.reference = test::write_file(d.dir.file("other.fa"), ">1\nACGT\n");
  try {
    mapper::run_mapping(o);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is not the index's reference"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(o.output));
}
