#include <gtest/gtest.h>

#include <random>

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

// A plain file is read in parallel pieces (8 MB); FastaReader, which streams it line by
// line, is the oracle: the same records and counts over contigs that span pieces, with
// lowercase, IUPAC codes, CRLF line ends, blank lines and a '>' inside a header.
TEST(Fasta, ParallelReadingEqualsTheStreamingReader) {
  test::TempDir dir;
  std::mt19937_64 rng(7);
  std::string text = "\n";
  const std::string alphabet = "ACGTACGTACGTacgtNnRyk";
  for (int c = 0; c < 5; ++c) {
    text += ">c" + std::to_string(c) + " the > description\r\n";
    const size_t len = c == 1 ? 20000000 : 1000 + rng() % 5000;
    for (size_t i = 0; i < len; ++i) {
      text += alphabet[rng() % alphabet.size()];
      if (i % 61 == 60) text += c == 2 ? "\r\n" : "\n";
    }
    text += c == 3 ? "\n\n" : "\n";
  }
  const auto path = test::write_file(dir.file("p.fa"), text);
  io::FastaStats got_stats, want_stats;
  const auto got = io::read_fasta(path, &got_stats);
  io::FastaReader reader(path);
  std::vector<io::FastaRecord> want;
  for (io::FastaRecord r; reader.next(r);) want.push_back(r);
  want_stats = reader.stats();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_TRUE(got[i].seq == want[i].seq) << want[i].name;
  }
  EXPECT_EQ(got_stats.contigs, want_stats.contigs);
  EXPECT_EQ(got_stats.bases, want_stats.bases);
  EXPECT_EQ(got_stats.lowercase_bases, want_stats.lowercase_bases);
  EXPECT_EQ(got_stats.iupac_to_n, want_stats.iupac_to_n);
  EXPECT_EQ(got_stats.n_bases, want_stats.n_bases);
  EXPECT_GT(got_stats.lowercase_bases, 0);
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
