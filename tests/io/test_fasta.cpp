#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "io/reads/fasta.hpp"

using namespace gatemap;

TEST(Fasta, ReadsNamesAndNormalizesBases) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("a.fa"), ">chr1 first contig\nACGTacgt\nNNRY\n>2\nA\n\n>3\nTTTT\n");
  io::FastaStats stats;
  const auto recs = io::read_fasta(path, &stats);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].name, "chr1");
  EXPECT_EQ(recs[0].seq, "ACGTACGTNNNN");
  EXPECT_EQ(recs[1].seq, "A");
  EXPECT_EQ(recs[2].seq, "TTTT");
  EXPECT_EQ(stats.lowercase_bases, 4);
  EXPECT_EQ(stats.iupac_to_n, 2);
  EXPECT_EQ(stats.n_bases, 4);
}

TEST(Fasta, ReadsGzipAndBgzip) {
  test::TempDir dir;
  test::write_file(dir.file("a.fa"), ">x\nACGT\nGG\n>y\nCCCC\n");
  ASSERT_EQ(test::run_command("gzip -c " + dir.file("a.fa") + " > " + dir.file("a.fa.gz")), 0);
  const auto recs = io::read_fasta(dir.file("a.fa.gz"));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].seq, "ACGTGG");
  io::write_fasta(dir.file("b.fa.gz"), recs);  // bgzip through htslib
  const auto again = io::read_fasta(dir.file("b.fa.gz"));
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].seq, "CCCC");
}

TEST(Fasta, LongContigAcrossManyLines) {
  test::TempDir dir;
  std::mt19937_64 rng(1);
  const std::string seq = test::random_dna(rng, 100000);
  io::write_fasta(dir.file("long.fa"), {{"long", seq}}, 70);
  const auto recs = io::read_fasta(dir.file("long.fa"));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].seq, seq);
}

void expect_format_error(const std::string& text, const std::string& needle) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("bad.fa"), text);
  try {
    io::read_fasta(path);
    FAIL() << "no error for: " << text;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.fa"), std::string::npos) << e.what();
  }
}

TEST(Fasta, RejectsMalformedInput) {
  expect_format_error(">a\nACGT\n>b\n>c\nAC\n", "'b' is empty");
  expect_format_error(">a\nACGT\n>a\nAC\n", "duplicate sequence name 'a'");
  expect_format_error("ACGT\n", "line 1: expected a '>'");
  expect_format_error(">\nACGT\n", "no sequence name");
  expect_format_error(">a\nAC1T\n", "line 2: invalid character '1'");
  expect_format_error("", "no sequences");
}

TEST(Fasta, MissingFileIsIoError) { EXPECT_THROW(io::read_fasta("/nonexistent/x.fa"), IoError); }
