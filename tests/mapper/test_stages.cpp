// The mapper's stages one by one, on small inputs and without decoding BAM records:
// seeding, candidates, verification, the insert model, MAPQ and ties, pairing, rescue.
#include <gtest/gtest.h>
#include <htslib/sam.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "../test_util.hpp"
#include "alignment_check.hpp"
#include "common/error.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"
#include "mapper/align/myers.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/candidates.hpp"
#include "mapper/hits.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/placement.hpp"
#include "mapper/seeding/seed.hpp"
#include "mapper/seeding/seed_core.hpp"
#include "mapper/verify/verifier.hpp"

using namespace gatemap;
using namespace gatemap::mapper;
using namespace gatemap::mapper::detail;

namespace {

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

// A random 200 kb contig and its index, shared by the tests.
struct SmallGenome {
  test::TempDir dir;
  std::string seq;
  std::unique_ptr<index::Index> idx;
  SmallGenome() {
    std::mt19937_64 rng(11);
    seq = test::random_dna(rng, 200000);
    const std::string fa = dir.file("ref.fa");
    io::write_fasta(fa, {{"chr", seq}});
    idx = index::build_index(fa, {});
  }
};

const SmallGenome& genome() {
  static const SmallGenome g;
  return g;
}

SeededRead seeded(const std::string& seq, const MapOptions& opt = {}) {
  SeedScratch scratch;
  SeededRead w;
  seed_read(*genome().idx, seq, opt, scratch, w);
  return w;
}

Hit hit_at(uint8_t strand, int64_t diag, int64_t len, int edits = 0) {
  Hit h;
  h.strand = strand;
  h.diag = diag;
  h.ref_end = diag + len;
  h.edits = edits;
  return h;
}

}  // namespace

TEST(Seed, FindsTheOriginOnBothStrands) {
  const auto& g = genome();
  for (int64_t pos : {0L, 1234L, 99000L, 199850L}) {
    const std::string read = g.seq.substr(pos, 150);
    for (uint8_t strand : {0, 1}) {
      const SeededRead w = seeded(strand ? revcomp(read) : read);
      EXPECT_EQ(w.max_edits, 6);  // 4% of 150
      bool found = false;
      for (const Candidate& c : w.cand) found |= c.strand == strand && std::llabs(c.diag - pos) <= w.max_edits;
      EXPECT_TRUE(found) << "pos " << pos << " strand " << int(strand);
    }
  }
}

TEST(Seed, ThresholdAndCandidateCap) {
  MapOptions opt;
  EXPECT_EQ(edit_threshold(opt.verify, 100), 4);
  EXPECT_EQ(edit_threshold(opt.verify, 20), 2);
  EXPECT_EQ(edit_threshold(opt.verify, 100000), kMaxEditsLimit);
  opt.verify.max_edits = 9;
  EXPECT_EQ(edit_threshold(opt.verify, 100), 9);
  // A read of one repeated unit seeds many diagonals of a tandem repeat: the cap holds.
  test::TempDir dir;
  std::string tandem;
  std::mt19937_64 rng(3);
  const std::string unit = test::random_dna(rng, 40);
  for (int i = 0; i < 200; ++i) tandem += unit;
  io::write_fasta(dir.file("t.fa"), {{"t", test::random_dna(rng, 5000) + tandem + test::random_dna(rng, 5000)}});
  const auto idx = index::build_index(dir.file("t.fa"), {});
  MapOptions capped;
  capped.seed.max_candidates = 3;
  SeedScratch scratch;
  SeededRead w;
  seed_read(*idx, tandem.substr(0, 120), capped, scratch, w);
  EXPECT_TRUE(w.cand_cap_hit);
  int per_strand[2] = {0, 0};
  for (const Candidate& c : w.cand) ++per_strand[c.strand];
  EXPECT_LE(per_strand[0], 3);
  EXPECT_LE(per_strand[1], 3);
}

// The support bound (seeding::SupportBound) against simulated truth: a read with its
// threshold's worth of substitutions and indels anywhere keeps its origin as a candidate,
// for every sampling stride; of chance k-mers shared with the genome only a few stay.
TEST(Seed, TheSupportBoundKeepsEveryOriginWithinTheThreshold) {
  const auto& g = genome();
  std::mt19937_64 rng(29);
  for (int stride : {1, 2, 3}) {
    test::TempDir dir;
    io::write_fasta(dir.file("ref.fa"), {{"chr", g.seq}});
    index::IndexOptions io;
    io.stride = stride;
    const auto idx = index::build_index(dir.file("ref.fa"), io);
    for (int i = 0; i < 4000; ++i) {
      const int m = std::array{70, 100, 150, 250}[i / 2 % 4];
      const int64_t pos = 1000 + static_cast<int64_t>(rng() % (g.seq.size() - 2000));
      std::string read = g.seq.substr(static_cast<size_t>(pos), static_cast<size_t>(m) + 80);
      MapOptions opt;
      const int e = edit_threshold(opt.verify, m);
      const bool reverse = i % 3 == 0;
      if (i % 2) {
        // e substitutions where they cover the most queries sampled at the origin: the
        // bound's worst case, so its value is tight.
        std::vector<int> sampled;
        seeding::for_each_query(
            m, idx->k(), stride, seeding::seed_step(m, e, idx->k(), stride), [](int) { return uint8_t{0}; },
            [&](uint64_t, int start) {
              const int64_t at = reverse ? pos + m - idx->k() - start : pos + start;
              if (at % stride == 0) sampled.push_back(start);
            });
        for (int k = 0; k < e; ++k) {
          int best = 0, best_at = 0;
          for (int b = 0; b < m; ++b) {
            const auto held = std::count_if(sampled.begin(), sampled.end(),
                                            [&](int q) { return q <= b && b < q + idx->k(); });
            if (held > best) best = static_cast<int>(held), best_at = b;
          }
          sampled.erase(std::remove_if(sampled.begin(), sampled.end(),
                                       [&](int q) { return q <= best_at && best_at < q + idx->k(); }),
                        sampled.end());
          const size_t at = static_cast<size_t>(reverse ? m - 1 - best_at : best_at);
          read[at] = "ACGT"[(std::string("ACGT").find(read[at]) + 1 + rng() % 3) % 4];
        }
      } else {
        // e substitutions and indels, bunched in one part of the read half the time.
        const size_t span = i % 4 ? static_cast<size_t>(m) : 20;
        const size_t from = rng() % (static_cast<size_t>(m) - span + 1);
        for (int k = 0; k < e; ++k) {
          const size_t at = from + rng() % span;
          switch (rng() % 3) {
            case 0: read[at] = "ACGT"[(std::string("ACGT").find(read[at]) + 1 + rng() % 3) % 4]; break;
            case 1: read.insert(at, 1, "ACGT"[rng() % 4]); break;
            default: read.erase(at, 1);
          }
        }
      }
      read.resize(static_cast<size_t>(m));
      SeedScratch scratch;
      SeededRead w;
      seed_read(*idx, reverse ? revcomp(read) : read, opt, scratch, w);
      bool found = false;
      for (const Candidate& c : w.cand) found |= c.strand == reverse && std::llabs(c.diag - pos) <= e;
      ASSERT_TRUE(found) << "stride " << stride << " read " << i << " length " << m << " at " << pos;
    }
  }
  // Twelve looked-up 15-mers (offsets 0, 16, 32, ... of 250 bases at 10 edits, looked up
  // every 8) from twelve places of the genome: clusters of support 1, while a place within
  // 10 edits keeps 10 of the 30 queries. Only kClipCandidates stay (the clipped fallback's):
  // the first ones.
  std::string chance = test::random_dna(rng, 250);
  std::vector<int64_t> diags;
  for (int q = 0; q < 12; ++q) {
    const int64_t from = 10000 + 15000 * q;
    chance.replace(static_cast<size_t>(16 * q), 15, g.seq.substr(static_cast<size_t>(from), 15));
    diags.push_back(from - 16 * q);
  }
  const SeededRead w = seeded(chance);
  EXPECT_FALSE(w.cand_cap_hit);
  std::vector<int64_t> kept;
  for (const Candidate& c : w.cand) {
    EXPECT_EQ(c.support, 1u);
    if (c.strand == 0) kept.push_back(c.diag);
  }
  EXPECT_EQ(kept, std::vector<int64_t>(diags.begin(), diags.begin() + kClipCandidates));
}

TEST(Seed, ShortAndAllNReadsHaveNoCandidates) {
  EXPECT_TRUE(seeded("ACGTACG").cand.empty());
  EXPECT_TRUE(seeded(std::string(150, 'N')).cand.empty());
}

TEST(Candidates, OffsetsThresholdAndFilterEntries) {
  const auto& g = genome();
  io::ReadBatch batch;
  std::vector<SeededRead> reads;
  for (int64_t pos : {500L, 7000L, 150000L}) {
    batch.reads.push_back({"r", g.seq.substr(pos, 100 + pos % 7), "", ""});
    reads.push_back(seeded(batch.reads.back().seq));
  }
  batch.reads.push_back({"empty", "ACG", "", ""});
  reads.push_back(seeded("ACG"));
  CandidateBatch cb;
  build_candidates(batch, reads, true, cb);
  ASSERT_EQ(cb.first.size(), reads.size() + 1);
  int max_edits = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    ASSERT_EQ(cb.first[r + 1] - cb.first[r], static_cast<int64_t>(reads[r].cand.size()));
    max_edits = std::max(max_edits, reads[r].max_edits);
    for (int64_t i = cb.first[r]; i < cb.first[r + 1]; ++i) {
      const Candidate& c = reads[r].cand[i - cb.first[r]];
      EXPECT_EQ(cb.cand.read(i), r);
      EXPECT_EQ(cb.cand.strand(i), c.strand);
      EXPECT_EQ(cb.cand.diag(i), c.diag);
    }
  }
  EXPECT_EQ(cb.max_edits, max_edits);
  EXPECT_EQ(cb.seqs.size(), reads.size());
}

TEST(Verify, PlantedEditsAreCountedAndTheEndFound) {
  const auto& g = genome();
  const Reference ref(*g.idx);
  const Verifier verifier(ref);
  Workspace ws;
  std::string read = g.seq.substr(40000, 150);
  read[30] = read[30] == 'A' ? 'C' : 'A';
  read[90] = read[90] == 'A' ? 'C' : 'A';
  const SeededRead w = seeded(read);
  const Candidate c{0, 0, 40000, 1};
  const Hit h = verifier.verify_one(w, c, w.max_edits, c.diag, ws);
  EXPECT_EQ(h.edits, 2);
  EXPECT_EQ(h.ref_end, 40150);
  const Alignment a = verifier.align(w, h, ws);
  EXPECT_EQ(a.edits, 2);
  EXPECT_EQ(a.ref_begin, 40000);
  // Above the threshold: no hit.
  const Hit far = verifier.verify_one(w, {0, 0, 90000, 1}, w.max_edits, 90000, ws);
  EXPECT_EQ(far.edits, -1);
}

// Hits whose edits are all mismatches on their diagonal take a shortcut (no bit-vector
// pass): the alignment must be exactly the traceback's, as for hits with indels,
// ties between equal edits included (mismatch runs, substitutions next to repeats).
TEST(Verify, AlignmentEqualsTheBitVectorTracebackWithAndWithoutIndels) {
  const auto& g = genome();
  const Reference ref(*g.idx);
  const Verifier verifier(ref);
  Workspace ws;
  std::mt19937_64 rng(23);
  int ungapped = 0, gapped = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int m = 60 + static_cast<int>(rng() % 200);
    const int64_t pos = 1000 + static_cast<int64_t>(rng() % (g.seq.size() - 2000));
    std::string read = g.seq.substr(pos, m);
    const int edits = static_cast<int>(rng() % 8);
    const bool indel = rng() % 3 == 0;
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % read.size();
      if (indel && k == 0) {
        read.erase(read.begin() + at);  // a deletion: the read is one base shorter
      } else {
        const size_t run = 1 + rng() % 3;  // runs of mismatches, ties for a gap pair
        for (size_t j = at; j < std::min(read.size(), at + run); ++j) {
          const int code = static_cast<int>(std::string("ACGT").find(read[j]));
          read[j] = "ACGT"[(code + 1 + static_cast<int>(rng() % 3)) & 3];  // another base
        }
      }
    }
    const SeededRead w = seeded(read);
    const Candidate c{0, 0, pos, 1};
    const Hit h = verifier.verify_one(w, c, w.max_edits, c.diag, ws);
    if (h.edits < 0) continue;
    const Alignment got = verifier.align(w, h, ws);
    const int band = w.max_edits;
    ref.window(0, h.diag - band, h.diag + w.length() + band, ws.align_window);
    const Alignment want = myers_banded_align(w.codes[0].data(), w.length(), ref.planes(), ws.align_window, 0,
                                              static_cast<int64_t>(g.seq.size()), h.diag, band, ws.myers_rows);
    ASSERT_TRUE(test::same_alignment(got, want)) << "trial " << trial;
    const bool has_gap = std::any_of(want.cigar.begin(), want.cigar.end(), [](uint32_t op) {
      return bam_cigar_op(op) == BAM_CINS || bam_cigar_op(op) == BAM_CDEL;
    });
    (has_gap ? gapped : ungapped)++;
  }
  EXPECT_GT(ungapped, 1000);
  EXPECT_GT(gapped, 200);
}

TEST(InsertModel, EstimatedAsBwaMemFromUniquePairs) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> insert(400, 40);
  std::vector<ReadHits> hits;
  for (int f = 0; f < 2000; ++f) {
    const int64_t at = 1000 + 50 * f, len = std::lround(insert(rng));
    hits.push_back({hit_at(0, at, 100)});
    hits.push_back({hit_at(1, at + len - 100, 100)});
  }
  hits.push_back({});  // fragments with a mate without hits do not count
  hits.push_back({hit_at(0, 10, 100)});
  InsertModel model(PairOptions{});
  EXPECT_FALSE(model.known());
  model.estimate(hits, static_cast<int64_t>(hits.size() / 2));
  EXPECT_TRUE(model.known());
  EXPECT_NEAR(model.mean(), 400, 5);
  EXPECT_NEAR(model.sd(), 40, 5);
  EXPECT_LT(model.low(), 300);
  EXPECT_GT(model.high(), 500);
  EXPECT_TRUE(model.proper(hit_at(0, 100, 100), hit_at(1, 400, 100)));
  EXPECT_FALSE(model.proper(hit_at(0, 100, 100), hit_at(0, 400, 100)));     // same strand
  EXPECT_FALSE(model.proper(hit_at(0, 100, 100), hit_at(1, 100000, 100)));  // too far
  // Tied on edits, the insert nearer the mean scores better; an edit outweighs an insert
  // 3 sd out but not one 4.5 sd out (a normal density 1/1,000 and 1/25,000 of the mean's).
  EXPECT_LT(model.pair_score(hit_at(0, 100, 100), hit_at(1, 400, 100)),
            model.pair_score(hit_at(0, 100, 100), hit_at(1, 460, 100)));
  const int one_edit = model.pair_score(hit_at(0, 100, 100), hit_at(1, 400, 100, 1));
  EXPECT_LT(model.pair_score(hit_at(0, 100, 100), hit_at(1, 400 + 3 * 40, 100)), one_edit);
  EXPECT_GT(model.pair_score(hit_at(0, 100, 100), hit_at(1, 400 + 180, 100)), one_edit);
}

TEST(InsertModel, TooFewPairsGiveATolerantModelAndGivenOnesAreKept) {
  std::vector<ReadHits> hits = {{hit_at(0, 0, 100)}, {hit_at(1, 300, 100)}};
  InsertModel model(PairOptions{});
  model.estimate(hits, 1);
  EXPECT_FALSE(model.known());
  EXPECT_EQ(model.low(), 1);
  EXPECT_EQ(model.high(), 1500);
  PairOptions given;
  given.insert_mean = 300;
  given.insert_sd = 10;
  const InsertModel fixed(given);
  EXPECT_TRUE(fixed.known());
  EXPECT_EQ(fixed.low(), 260);
  EXPECT_EQ(fixed.high(), 340);
}

TEST(Mapq, UniqueRepeatAndTies) {
  ReadHits one = {hit_at(0, 100, 100, 1)};
  BestPlacement p = best_placement(one, 0, false);
  EXPECT_EQ(p.hit, &one[0]);
  EXPECT_EQ(p.mapq, 60);
  ReadHits tie = {hit_at(0, 100, 100, 1), hit_at(0, 5000, 100, 1), hit_at(1, 9000, 100, 4)};
  p = best_placement(tie, 0, false);
  EXPECT_EQ(p.mapq, 0);
  // Ties go by the name hash, never by order of arrival: both tied hits get chosen.
  bool chose[2] = {false, false};
  for (uint64_t h = 0; h < 8; ++h)
    chose[best_placement(tie, name_hash("r" + std::to_string(h)), false).hit - &tie[0]] = true;
  EXPECT_TRUE(chose[0] && chose[1]);
  // A clear second best lowers MAPQ less the more edits it has.
  ReadHits near = {hit_at(0, 100, 100, 0), hit_at(0, 5000, 100, 1)};
  ReadHits far = {hit_at(0, 100, 100, 0), hit_at(0, 5000, 100, 3)};
  EXPECT_LT(best_placement(near, 0, false).mapq, best_placement(far, 0, false).mapq);
  EXPECT_TRUE(unique(near));
  EXPECT_FALSE(unique(tie));
}

// The placement stage over the small genome with a known insert size.
struct PairSetup {
  explicit PairSetup(double insert_mean) : ref(*genome().idx), verifier(ref), insert(pair_options(insert_mean)) {}
  static PairOptions pair_options(double mean) {
    PairOptions p;
    p.insert_mean = mean;
    p.insert_sd = 30;
    return p;
  }
  PairPlacement place(const SeededRead& r1, const SeededRead& r2, ReadHits& h1, ReadHits& h2, const uint64_t tie[2]) {
    const SeededRead* const reads[2] = {&r1, &r2};
    ReadHits* const hits[2] = {&h1, &h2};
    return Placer(ref, verifier, opt).place_pair(reads, hits, tie, insert, ws);
  }
  const Reference ref;
  const Verifier verifier;
  const MapOptions opt;
  const InsertModel insert;
  Workspace ws;
};

TEST(Pairing, ProperPairChosenAndLostMateRescued) {
  const auto& g = genome();
  PairSetup setup(350);
  const int64_t at = 60000;
  std::string mate2 = revcomp(g.seq.substr(at + 250, 100));
  for (int i : {10, 30, 50, 70, 90}) mate2[i] = mate2[i] == 'A' ? 'G' : 'A';  // 5 edits: above its threshold of 4
  const SeededRead r1 = seeded(g.seq.substr(at, 100)), r2 = seeded(mate2);
  ReadHits h1, h2;
  for (const Candidate& c : r1.cand) {
    const Hit h = setup.verifier.verify_one(r1, c, r1.max_edits, c.diag, setup.ws);
    if (h.edits >= 0) h1.push_back(h);
  }
  dedupe_hits(h1, r1.max_edits);
  ASSERT_EQ(h1.size(), 1u);
  const uint64_t tie[2] = {name_hash("p/1"), name_hash("p/2")};
  const PairPlacement pp = setup.place(r1, r2, h1, h2, tie);
  EXPECT_EQ(pp.rescued, 1);
  EXPECT_TRUE(pp.proper);
  ASSERT_NE(pp.read[1].hit, nullptr);
  EXPECT_EQ(pp.read[1].hit->strand, 1);
  EXPECT_EQ(pp.read[1].aln.ref_begin, at + 250);
  EXPECT_EQ(pp.read[1].aln.edits, 5);
  EXPECT_EQ(pp.read[0].aln.ref_begin, at);
  EXPECT_GT(pp.read[0].mapq, 0);
}

TEST(Pairing, TheMateNearestTheInsertWinsAmongEqualHits) {
  const auto& g = genome();
  PairSetup setup(300);
  // Hand-made hits (as a repeat would give): mate 2 at two places, equal edits.
  const SeededRead r1 = seeded(g.seq.substr(1000, 100)), r2 = seeded(revcomp(g.seq.substr(1200, 100)));
  ReadHits h1 = {hit_at(0, 1000, 100)};
  ReadHits h2 = {hit_at(1, 1200, 100), hit_at(1, 1260, 100)};
  const uint64_t tie[2] = {1, 2};
  const PairPlacement pp = setup.place(r1, r2, h1, h2, tie);
  ASSERT_TRUE(pp.proper);
  EXPECT_EQ(pp.read[1].hit->diag, 1200);  // insert 300, not 360
  EXPECT_EQ(pp.rescued, 0);
}

// Mate 1 fits A with no edit and B with one; mate 2 fits A's partner with one and B's
// with none: the two pairs are equally likely, so neither mate is sure of its place,
// though each one's own best hit is a clear edit ahead of its second.
TEST(Pairing, MatesWhosePairsTieShareTheDoubt) {
  const auto& g = genome();
  PairSetup setup(300);
  const SeededRead r1 = seeded(g.seq.substr(1000, 100)), r2 = seeded(revcomp(g.seq.substr(1200, 100)));
  ReadHits h1 = {hit_at(0, 1000, 100, 0), hit_at(0, 50000, 100, 1)};
  ReadHits h2 = {hit_at(1, 50200, 100, 0), hit_at(1, 1200, 100, 1)};
  for (uint64_t t = 0; t < 4; ++t) {
    const uint64_t tie[2] = {t, t + 1};
    const PairPlacement pp = setup.place(r1, r2, h1, h2, tie);
    ASSERT_TRUE(pp.proper);
    EXPECT_EQ(pp.read[0].mapq, 0);
    EXPECT_EQ(pp.read[1].mapq, 0);
  }
  // Without B's partner the pair at A is the only proper one: both mates are sure.
  ReadHits h2_alone = {hit_at(1, 1200, 100, 1)};
  const uint64_t tie[2] = {0, 1};
  const PairPlacement pp = setup.place(r1, r2, h1, h2_alone, tie);
  EXPECT_EQ(pp.read[0].hit->diag, 1000);
  EXPECT_EQ(pp.read[0].mapq, 60);
  EXPECT_EQ(pp.read[1].mapq, 60);
}

// Mates placed by the clipped fallback, their candidates cut at --max-cand (a read with a
// long indel in a repetitive region): a proper pair of two such hits, each far ahead of
// its second, stays sure of itself (HG002 reads across a 13-base deletion at
// chr20:10,098,700: bwa mem 60). But where the other mate fits two copies equally, the
// clipped mate cannot tell them apart for it (its own home may be among the candidates
// not tried): both mates share the doubt.
TEST(Pairing, ClippedMatesOfCutCandidatesLeanOnTheirPartners) {
  const auto& g = genome();
  PairSetup setup(300);
  SeededRead r1 = seeded(g.seq.substr(1000, 100)), r2 = seeded(revcomp(g.seq.substr(1200, 100)));
  r1.cand_cap_hit = r2.cand_cap_hit = true;
  const auto clipped = [](Hit h) {
    h.clipped = true;
    return h;
  };
  const uint64_t tie[2] = {0, 1};
  ReadHits h1 = {clipped(hit_at(0, 1000, 100, 9)), clipped(hit_at(0, 90000, 100, 20))};
  ReadHits h2 = {clipped(hit_at(1, 1200, 100, 8)), clipped(hit_at(1, 150000, 100, 19))};
  PairPlacement pp = setup.place(r1, r2, h1, h2, tie);
  ASSERT_TRUE(pp.proper);
  EXPECT_GE(pp.read[0].mapq, 50);
  EXPECT_GE(pp.read[1].mapq, 50);
  // Mate 1 fits two copies exactly; only one has mate 2's clipped hit beside it.
  ReadHits t1 = {hit_at(0, 1000, 100, 0), hit_at(0, 90000, 100, 0)};
  ReadHits t2 = {clipped(hit_at(1, 1200, 100, 8))};
  pp = setup.place(r1, r2, t1, t2, tie);
  ASSERT_TRUE(pp.proper);
  EXPECT_EQ(pp.read[0].mapq, 0);
  EXPECT_EQ(pp.read[1].mapq, 0);
}

// An 11-base deletion next to a GGAA repeat (a read of GRCh37 chr20:29,647,498): the
// edit-distance path found at 8 edits (38M1I111M with 7 mismatches, 12 bases off) is
// drawn again with affine gaps as bwa mem draws it, at its true place.
TEST(Verify, AGapAmongMismatchesIsDrawnAgainAsOneLongerGap) {
  const std::string ref_part =
      "GGAAGGAGAGAAGGAAGGAAGGAGAGAGGGAAGAAAGGAGGGAAGGAAGGAGAGAGGGAAGGAAGGAAGGAGGGAAGGAAGGAGAGAAGGAAGGAAGGAGAGAGG"
      "GAAGAAAGGGAAGGAAGGAGAGAGGGAAGGAAGGAAGTAGGGAGGGAGGGAGGTAGGGACGGAAGGAAGGAAGGAAGTAGGGAGGGAGGGAGGGACGGAAGGAAGG";
  const std::string read =
      "GGAAGAAAGGAGGGAAGGAAGGAGAGAGGGAAGGAAGGAAAGGAGAGAAGGAAGGAAGGAGAGAGGGAAGAAAGGGAAGGAAGGAGAGAGGGAAGGAAGGAAGTA"
      "GGGAGGGAGGGAGGTAGGGACGGAAGGAAGGAAGGAAGTAGGGAG";
  std::mt19937_64 rng(8);
  const std::string seq = test::random_dna(rng, 3000) + ref_part + test::random_dna(rng, 3000);
  test::TempDir dir;
  io::write_fasta(dir.file("g.fa"), {{"chr", seq}});
  const auto idx = index::build_index(dir.file("g.fa"), {});
  const Reference ref(*idx);
  const Verifier verifier(ref);
  Workspace ws;
  SeedScratch scratch;
  SeededRead w;
  seed_read(*idx, read, MapOptions{}, scratch, w);
  const int64_t home = 3000 + 28;  // the read's first base
  const Hit h = verifier.verify_one(w, {0, 0, home + 12, 1}, w.max_edits, home + 12, ws, 9);
  ASSERT_EQ(h.edits, 8);
  const Alignment a = verifier.reported_alignment(w, h, ws);
  std::string cigar;
  for (uint32_t c : a.cigar) cigar += std::to_string(bam_cigar_oplen(c)) + bam_cigar_opchr(c);
  EXPECT_EQ(cigar, "39M11D111M");
  EXPECT_EQ(a.ref_begin, home);
  EXPECT_EQ(a.edits, 11);
}

TEST(Options, OutOfRangeIsAUsageError) {
  MapOptions opt;
  opt.verify.max_edits = 65;
  EXPECT_THROW(validate(opt), UsageError);
  opt.verify.max_edits = -2;
  EXPECT_THROW(validate(opt), UsageError);
  opt.verify.max_edits = 64;
  EXPECT_NO_THROW(validate(opt));
  opt.seed.max_candidates = 0;
  EXPECT_THROW(validate(opt), UsageError);
}
