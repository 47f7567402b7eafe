// Where the mapper places reads that several loci could explain, and how sure it says it
// is: a long indel is one locus, not two; mates in a tandem repeat go where their insert
// is likeliest, with a MAPQ that shares the doubt among the copies.
#include <gtest/gtest.h>

#include <htslib/sam.h>

#include <random>

#include "../test_util.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"
#include "mapper/mapper.hpp"

using namespace gatemap;

namespace {

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

struct Genome {
  test::TempDir dir;
  std::string seq;
  std::unique_ptr<index::Index> idx;
  explicit Genome(std::string s) : seq(std::move(s)) {
    const std::string fa = dir.file("ref.fa");
    io::write_fasta(fa, {{"chr", seq}});
    idx = index::build_index(fa, {});
  }
};

std::vector<bam1_t*> map_reads(const Genome& g, const io::ReadBatch& batch, mapper::MapOptions opt) {
  mapper::Mapper mapper(*g.idx, opt);
  std::vector<bam1_t*> out;
  mapper.map_batch(batch, out);
  return out;
}

void free_records(std::vector<bam1_t*>& recs) {
  for (bam1_t* b : recs) bam_destroy1(b);
  recs.clear();
}

std::string cigar_of(const bam1_t* b) {
  std::string s;
  const uint32_t* c = bam_get_cigar(b);
  for (uint32_t i = 0; i < b->core.n_cigar; ++i) {
    s += std::to_string(bam_cigar_oplen(c[i])) + bam_cigar_opchr(c[i]);
  }
  return s;
}

}  // namespace

// A read with a 22-base insertion (too long for the edit band) is found by the clipped
// fallback twice, once from each side; both halves are one locus, so the read is unique.
TEST(Placement, LongIndelIsOneLocusNotTwo) {
  std::mt19937_64 rng(21);
  const Genome g(test::random_dna(rng, 200000));
  io::ReadBatch batch;
  std::vector<int64_t> at;
  for (int i = 0; i < 40; ++i) {
    const int64_t pos = 1000 + 4000 * i;
    const bool insertion = i % 2 == 0;
    const int len = 14 + static_cast<int>(rng() % 20);
    std::string seq = insertion
                          ? g.seq.substr(pos, 70) + test::random_dna(rng, len) + g.seq.substr(pos + 70, 150 - 70 - len)
                          : g.seq.substr(pos, 75) + g.seq.substr(pos + 75 + len, 75);
    batch.reads.push_back({"r" + std::to_string(i), seq, std::string(seq.size(), 'I'), ""});
    at.push_back(pos);
  }
  mapper::MapOptions opt;
  auto recs = map_reads(g, batch, opt);
  ASSERT_EQ(recs.size(), batch.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    SCOPED_TRACE(bam_get_qname(recs[i]) + std::string(" ") + cigar_of(recs[i]));
    EXPECT_EQ(recs[i]->core.pos, at[i]);
    EXPECT_NE(cigar_of(recs[i]).find(i % 2 == 0 ? 'I' : 'D'), std::string::npos);
    EXPECT_EQ(recs[i]->core.qual, 60);
  }
  free_records(recs);
}

// Mate 2 lies in a tandem repeat of period 60 whose copies all fit it equally; mate 1 is
// unique. The pair whose insert is nearest the library's mean is the likeliest, and the
// copies 60 bases off (2 sd) leave that placement some doubt: 0 < MAPQ < 60.
TEST(Placement, TandemCopyChosenByInsertSize) {
  std::mt19937_64 rng(22);
  std::string seq = test::random_dna(rng, 30000);
  const std::string unit = test::random_dna(rng, 60);
  std::string repeat;
  for (int i = 0; i < 20; ++i) repeat += unit;
  seq.replace(15000, repeat.size(), repeat);
  const Genome g(seq);
  io::ReadBatch batch;
  batch.paired = true;
  std::vector<int64_t> mate2_at;
  for (int i = 0; i < 30; ++i) {
    // Mate 1 (forward) in the unique sequence before the repeat, mate 2 (reverse) inside
    // it, insert 700: copies of mate 2's place lie 60 and 120 bases either side.
    const int64_t begin1 = 14800 + 3 * i;
    const int64_t end2 = begin1 + 700;
    const std::string m1 = seq.substr(begin1, 100);
    const std::string m2 = revcomp(seq.substr(end2 - 100, 100));
    const std::string name = "p" + std::to_string(i);
    batch.reads.push_back({name, m1, std::string(100, 'I'), ""});
    batch.reads.push_back({name, m2, std::string(100, 'I'), ""});
    mate2_at.push_back(end2 - 100);
  }
  mapper::MapOptions opt;
  opt.pair.insert_mean = 700;
  opt.pair.insert_sd = 30;
  auto recs = map_reads(g, batch, opt);
  ASSERT_EQ(recs.size(), batch.size());
  int placed = 0;
  for (size_t i = 0; i < recs.size(); i += 2) {
    const bam1_t* m2 = recs[i + 1];
    SCOPED_TRACE(bam_get_qname(m2));
    EXPECT_TRUE(m2->core.flag & BAM_FPROPER_PAIR);
    placed += m2->core.pos == mate2_at[i / 2];
    EXPECT_GT(m2->core.qual, 0);
    EXPECT_LT(m2->core.qual, 60);
    EXPECT_EQ(recs[i]->core.qual, 60);
  }
  EXPECT_EQ(placed, 30);
  free_records(recs);
}

// A read from one copy of a repeat with 60 others, where the copies' k-mers outnumber
// its home's: the home differs from the read at two bases far apart (6 of its seeds
// lost), each copy at three adjacent ones (fewer lost), so the home ranks below the
// --max-cand best supported candidates. The copies fit at 3 edits, more than half the
// read's threshold of 4: the read is seeded again deeper and placed at its home (2 edits).
TEST(Placement, RepetitiveReadFindsItsHomeBeyondTheCandidateCap) {
  std::mt19937_64 rng(23);
  const std::string unit = test::random_dna(rng, 100);
  const auto other = [](char c) { return c == 'A' ? 'C' : 'A'; };
  std::string seq = test::random_dna(rng, 2000);
  for (int i = 0; i < 60; ++i) {
    std::string copy = unit;
    for (int j : {49, 50, 51}) copy[j] = other(copy[j]);
    seq += copy + test::random_dna(rng, 150);
  }
  std::string home = unit;
  for (int j : {20, 75}) home[j] = other(home[j]);
  const int64_t home_at = static_cast<int64_t>(seq.size());
  seq += home + test::random_dna(rng, 2000);
  const Genome g(seq);
  io::ReadBatch batch;
  batch.reads.push_back({"r", unit, std::string(100, 'I'), ""});
  batch.reads.push_back({"rc", revcomp(unit), std::string(100, 'I'), ""});
  for (const bool filter : {true, false}) {
    mapper::MapOptions opt;
    opt.seed.max_candidates = 8;
    opt.filter = filter;
    auto recs = map_reads(g, batch, opt);
    ASSERT_EQ(recs.size(), 2u);
    for (const bam1_t* b : recs) {
      SCOPED_TRACE(bam_get_qname(b) + std::string(filter ? " filter on" : " filter off"));
      EXPECT_EQ(b->core.pos, home_at);
      EXPECT_EQ(bam_aux2i(bam_aux_get(b, "NM")), 2);
      EXPECT_GT(b->core.qual, 0);
    }
    free_records(recs);
  }
}

namespace {

std::string aux_string(const bam1_t* b, const char* tag) {
  const uint8_t* a = bam_aux_get(b, tag);
  return a ? std::string(bam_aux2Z(a)) : std::string();
}

std::string seq_of(const bam1_t* b) {
  std::string s(b->core.l_qseq, 'N');
  for (int i = 0; i < b->core.l_qseq; ++i) s[i] = seq_nt16_str[bam_seqi(bam_get_seq(b), i)];
  return s;
}

}  // namespace

// A chimeric read: 90 bases from one place, then 60 from another, the second piece
// forward or reverse-complemented (an inversion). The primary record keeps the longer
// piece with the rest soft-clipped; the other piece is a supplementary record, hard-
// clipped (soft with -Y; flagged secondary with -M), and SA:Z links the two.
TEST(Placement, ChimericReadGetsASupplementaryPart) {
  std::mt19937_64 rng(23);
  const Genome g(test::random_dna(rng, 200000));
  for (const bool inverted : {false, true}) {
    for (const int style : {0, 1, 2}) {  // default, -Y, -M
      SCOPED_TRACE(std::string(inverted ? "inverted" : "forward") + " style " + std::to_string(style));
      const std::string piece = g.seq.substr(120000, 60);
      const std::string seq = g.seq.substr(30000, 90) + (inverted ? revcomp(piece) : piece);
      io::ReadBatch batch;
      batch.reads.push_back({"chimera", seq, std::string(150, 'I'), ""});
      mapper::MapOptions opt;
      opt.output.split_soft_clip = style == 1;
      opt.output.split_as_secondary = style == 2;
      auto recs = map_reads(g, batch, opt);
      ASSERT_EQ(recs.size(), 2u);
      const bam1_t* primary = recs[0];
      const bam1_t* part = recs[1];
      EXPECT_EQ(primary->core.flag, 0);
      EXPECT_EQ(primary->core.pos, 30000);
      EXPECT_EQ(cigar_of(primary), "90M60S");
      EXPECT_EQ(part->core.flag, (style == 2 ? BAM_FSECONDARY : BAM_FSUPPLEMENTARY) | (inverted ? BAM_FREVERSE : 0));
      EXPECT_EQ(part->core.pos, 120000);
      const std::string clip = style == 1 ? "90S" : "90H";
      EXPECT_EQ(cigar_of(part), inverted ? "60M" + clip : clip + "60M");
      EXPECT_EQ(seq_of(part), style == 1 ? (inverted ? revcomp(seq) : seq) : piece);
      EXPECT_EQ(aux_string(primary, "SA"),
                std::string("chr,120001,") + (inverted ? "-,60M90S" : "+,90S60M") + ",60,0;");
      EXPECT_EQ(aux_string(part, "SA"), "chr,30001,+,90M60S," + std::to_string(primary->core.qual) + ",0;");
      free_records(recs);
    }
  }
}

// A read from one copy of a duplication that differs from the other by one base: placed
// on its own copy, with the other in XA:Z (position 1-based with the strand as its sign,
// CIGAR, NM), as bwa mem writes it; a unique read has none, and -a writes records instead.
TEST(Placement, OtherPlacementsInXa) {
  std::mt19937_64 rng(24);
  std::string seq = test::random_dna(rng, 100000);
  std::string copy = seq.substr(10000, 500);
  copy[250] = copy[250] == 'A' ? 'C' : 'A';
  seq.replace(60000, 500, copy);
  const Genome g(seq);
  io::ReadBatch batch;
  const std::string read = seq.substr(10200, 150);
  batch.reads.push_back({"fwd", read, std::string(150, 'I'), ""});
  batch.reads.push_back({"rev", revcomp(read), std::string(150, 'I'), ""});
  batch.reads.push_back({"unique", seq.substr(30000, 150), std::string(150, 'I'), ""});
  mapper::MapOptions opt;
  auto recs = map_reads(g, batch, opt);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0]->core.pos, 10200);
  EXPECT_EQ(aux_string(recs[0], "XA"), "chr,+60201,150M,1;");
  EXPECT_EQ(recs[1]->core.pos, 10200);
  EXPECT_EQ(aux_string(recs[1], "XA"), "chr,-60201,150M,1;");
  EXPECT_EQ(aux_string(recs[2], "XA"), "");
  free_records(recs);
  opt.output.all_hits = true;
  recs = map_reads(g, batch, opt);
  ASSERT_EQ(recs.size(), 5u);  // two secondary records
  for (const bam1_t* b : recs) EXPECT_EQ(aux_string(b, "XA"), "");
  free_records(recs);
}

// With -a a chimeric read whose long piece has two homes: the primary and its part carry
// SA:Z, the secondary record (the other home) does not.
TEST(Placement, SecondaryRecordsCarryNoSa) {
  std::mt19937_64 rng(25);
  std::string seq = test::random_dna(rng, 200000);
  seq.replace(80000, 90, seq.substr(30000, 90));  // the long piece's second home
  const Genome g(seq);
  const std::string read = seq.substr(30000, 90) + seq.substr(120000, 60);
  io::ReadBatch batch;
  batch.reads.push_back({"chimera", read, std::string(150, 'I'), ""});
  mapper::MapOptions opt;
  opt.output.all_hits = true;
  auto recs = map_reads(g, batch, opt);
  int primary = 0, supplementary = 0, secondary = 0;
  for (const bam1_t* b : recs) {
    if (b->core.flag & BAM_FSECONDARY) {
      ++secondary;
      EXPECT_EQ(aux_string(b, "SA"), "");
    } else {
      (b->core.flag & BAM_FSUPPLEMENTARY ? supplementary : primary) += 1;
      EXPECT_NE(aux_string(b, "SA"), "");
    }
  }
  EXPECT_EQ(primary, 1);
  EXPECT_EQ(supplementary, 1);
  EXPECT_GE(secondary, 1);
  free_records(recs);
}
