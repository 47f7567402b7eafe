// On the GPU machine: the GPU seeder's candidates equal the CPU seeding's
// (collect_candidates, the twin) read by read: repeats over --max-occ, the --max-cand
// cap, N runs, reads shorter than k, every threshold, and batches cut into chunks or
// left to the CPU when their hits exceed the device buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string_view>

#include "../gpu/gpu_test.hpp"
#include "../test_util.hpp"
#include "common/dna.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"
#include "mapper/align/myers.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "mapper/seeding/seed.hpp"
#include "mapper/seeding/seed_gpu.hpp"
#include "mapper/verify/device_verdicts.hpp"
#include "mapper/verify/verifier.hpp"
#include "mapper/verify/verify_gpu.hpp"

using namespace gatemap;
using namespace gatemap::mapper;
using namespace gatemap::mapper::detail;

namespace {

// Two contigs: random bases with N runs, and a 1.5 kb unit repeated 60 times with a few
// changes per copy (k-mers over a max_occ of 20, more clusters than --max-cand).
struct RepeatGenome {
  test::TempDir dir;
  std::vector<std::string> contigs;
  std::unique_ptr<index::Index> idx;
  RepeatGenome() {
    std::mt19937_64 rng(5);
    std::string a = test::random_dna(rng, 150000);
    for (int i = 0; i < 5; ++i) a.replace(10000 + 25000 * i, 50 + 40 * i, std::string(50 + 40 * i, 'N'));
    const std::string unit = test::random_dna(rng, 1500);
    std::string b;
    for (int i = 0; i < 60; ++i) {
      std::string copy = unit;
      for (int j = 0; j < 8; ++j) copy[rng() % copy.size()] = "ACGT"[rng() % 4];
      b += copy + test::random_dna(rng, rng() % 40);
    }
    contigs = {a, b};
    const std::string fa = dir.file("ref.fa");
    io::write_fasta(fa, {{"random", a}, {"repeats", b}});
    index::IndexOptions io;
    io.max_occ = 20;
    idx = index::build_index(fa, io);
  }
};

// Reads of every kind: substrings of either contig (mutated, with N, reverse
// complemented), random reads, reads shorter than k and empty ones.
std::vector<std::string> reads_of(const RepeatGenome& g, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind == 0) {
      out.push_back(test::random_dna(rng, 50 + rng() % 200));
      continue;
    }
    if (kind == 1) {
      out.push_back(test::random_dna(rng, rng() % 16));
      continue;
    }
    const std::string& c = g.contigs[rng() % 2];
    const size_t len = 60 + rng() % 250;
    std::string r = c.substr(rng() % (c.size() - len), len);
    for (int e = static_cast<int>(rng() % 8); e > 0; --e) r[rng() % r.size()] = "ACGTN"[rng() % 5];
    if (rng() % 2) r = reverse_complement(r);
    out.push_back(r);
  }
  return out;
}

void expect_same_candidates(const RepeatGenome& g, const std::vector<std::string>& reads, const MapOptions& opt,
                            seeding::SeedGpu& engine) {
  std::vector<SeededRead> gpu(reads.size()), cpu(reads.size());
  SeedScratch scratch;
  for (size_t r = 0; r < reads.size(); ++r) {
    seed_read(*g.idx, reads[r], opt, scratch, cpu[r]);
    set_read_codes(gpu[r], reads[r]);
    gpu[r].max_edits = cpu[r].max_edits;
  }
  seeding::SeedClusters c;
  engine.seed(gpu, opt.seed.max_occ ? opt.seed.max_occ : g.idx->max_occ(), opt.seed.max_candidates, c);
  EXPECT_EQ(c.clusters, nullptr);  // they stay on the device until asked for
  engine.copy_clusters(c);
  // Those of some reads alone: the same as their part of all of them.
  std::vector<uint32_t> some;
  for (size_t r = 0; r < reads.size(); r += 7) {
    if (!c.on_cpu[r]) some.push_back(static_cast<uint32_t>(r));
  }
  std::vector<SeedCluster> fetched;
  engine.copy_clusters_of(some, c, fetched);
  size_t at = 0;
  for (uint32_t r : some) {
    for (int64_t k = c.first[2 * r]; k < c.first[2 * r + 2]; ++k, ++at) {
      ASSERT_LT(at, fetched.size());
      const SeedCluster &x = fetched[at], &y = c.clusters[k];
      ASSERT_TRUE(x.diag == y.diag && x.seed_offset == y.seed_offset && x.support == y.support) << "read " << r;
    }
  }
  EXPECT_EQ(at, fetched.size());
  int64_t capped = 0, at_cap = 0, cands = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    SeededRead& w = gpu[r];
    if (c.on_cpu[r]) {
      collect_candidates(*g.idx, w, opt.seed, scratch);
    } else {
      w.capped = c.capped[2 * r] || c.capped[2 * r + 1];
      w.cap_left_hits = false;
      for (uint8_t s = 0; s < 2; ++s) {
        const int64_t t = 2 * static_cast<int64_t>(r) + s;
        add_kept_candidates(*g.idx, s, c.clusters + c.first[t], c.first[t + 1] - c.first[t], c.cap_hit[t] != 0, w,
                            scratch.order);
        w.cap_left_hits = w.cap_left_hits || (c.cap_hit[t] & seeding::kCapLeftHits) != 0;
      }
    }
    ASSERT_EQ(w.capped, cpu[r].capped) << "read " << r;
    ASSERT_EQ(w.cand_cap_hit, cpu[r].cand_cap_hit) << "read " << r;
    ASSERT_EQ(w.cap_left_hits, cpu[r].cap_left_hits) << "read " << r;
    ASSERT_EQ(w.cand.size(), cpu[r].cand.size()) << "read " << r;
    for (size_t i = 0; i < w.cand.size(); ++i) {
      const Candidate &x = w.cand[i], &y = cpu[r].cand[i];
      ASSERT_TRUE(x.strand == y.strand && x.contig == y.contig && x.diag == y.diag && x.support == y.support)
          << "read " << r << " candidate " << i;
    }
    capped += w.capped;
    at_cap += w.cand_cap_hit;
    cands += static_cast<int64_t>(w.cand.size());
  }
  // The inputs reach every rule (or the comparison above proves little).
  EXPECT_GT(capped, 0);
  EXPECT_GT(at_cap, 0);
  EXPECT_GT(cands, static_cast<int64_t>(reads.size()) / 4);
}

const RepeatGenome& genome() {
  static const RepeatGenome g;
  return g;
}

// The reads' codes and one threshold set, then the batch seeded on the device (whose
// reads the GPU verifier takes).
std::vector<SeededRead> seed_on(seeding::SeedGpu& seeder, const std::vector<std::string>& reads, int max_edits,
                                uint32_t max_cand, seeding::SeedClusters& c) {
  std::vector<SeededRead> w(reads.size());
  for (size_t r = 0; r < reads.size(); ++r) {
    set_read_codes(w[r], reads[r]);
    w[r].max_edits = max_edits;
  }
  seeder.seed(w, genome().idx->max_occ(), max_cand, c);
  return w;
}

}  // namespace

TEST(SeedGpu, CandidatesEqualTheCpuAtEveryThreshold) {
  GATEMAP_REQUIRE_GPU();
  seeding::SeedGpu engine(*genome().idx, 0);
  const std::vector<std::string> reads = reads_of(genome(), 20000, 1);
  for (const int e : {-1, 0, 3, 8, 30}) {
    MapOptions opt;
    opt.verify.max_edits = e;
    opt.seed.max_candidates = 4;
    SCOPED_TRACE("e " + std::to_string(e));
    expect_same_candidates(genome(), reads, opt, engine);
  }
}

TEST(SeedGpu, MaxOccAndTheDefaultCap) {
  GATEMAP_REQUIRE_GPU();
  seeding::SeedGpu engine(*genome().idx, 0);
  const std::vector<std::string> reads = reads_of(genome(), 5000, 2);
  MapOptions opt;
  opt.seed.max_occ = 7;
  opt.seed.max_candidates = 2;
  expect_same_candidates(genome(), reads, opt, engine);
  opt.seed.max_occ = 0;
  opt.seed.max_candidates = 1;
  expect_same_candidates(genome(), reads, opt, engine);
}

// A buffer of 100 hits: the batch runs in many chunks, and read strands with
// more hits than the buffer go to the CPU; the candidates do not change.
TEST(SeedGpu, SmallBufferChunksAndLeavesReadsToTheCpu) {
  GATEMAP_REQUIRE_GPU();
  seeding::SeedGpu engine(*genome().idx, 0, 100);
  const std::vector<std::string> reads = reads_of(genome(), 3000, 3);
  MapOptions opt;
  opt.seed.max_candidates = 3;
  expect_same_candidates(genome(), reads, opt, engine);
  seeding::SeedClusters c;
  const std::vector<SeededRead> w = seed_on(engine, reads, 30, 32, c);
  engine.copy_clusters(c);
  int64_t on_cpu = 0;
  for (uint8_t x : c.on_cpu) on_cpu += x;
  EXPECT_GT(on_cpu, 0);
}

TEST(SeedGpu, EmptyBatch) {
  GATEMAP_REQUIRE_GPU();
  seeding::SeedGpu engine(*genome().idx, 0);
  seeding::SeedClusters c;
  engine.seed({}, 20, 32, c);
  EXPECT_EQ(c.first.size(), 1u);
  EXPECT_EQ(c.n_clusters, 0);
}

// Whether the CPU verifier would take a job with the bit-vector verifier (its window
// inside one contig, free of N): the device must say "not verified" for the others.
bool bit_vector_applies(const RepeatGenome& g, const Verifier& verifier, int64_t diag, int m, int band) {
  if (diag - band < 0) return false;
  const int32_t contig = g.idx->contig_of(diag + m / 2);
  return verifier.myers_applies(m, static_cast<uint32_t>(contig), diag, band);
}

// The GPU verifier on the seeder's reads: the same edits and ends as the CPU's
// myers_banded_distance for every band and threshold, near the read's origin (hits) and
// anywhere (mostly cut off early); windows over N or a contig end not verified.
TEST(VerifyGpu, DistancesEqualTheCpuBitVector) {
  GATEMAP_REQUIRE_GPU();
  const RepeatGenome& g = genome();
  seeding::SeedGpu seeder(*g.idx, 0);
  const Reference ref(*g.idx);
  verifying::VerifyGpu verifier(0, ref.filter_view());
  std::mt19937_64 rng(9);
  std::vector<std::string> reads;
  std::vector<int64_t> origin;
  for (int i = 0; i < 3000; ++i) {
    const std::string& c = g.contigs[0];
    const size_t len = 60 + rng() % 250, at = 200 + rng() % (c.size() - len - 400);
    std::string r = c.substr(at, len);
    for (int e = static_cast<int>(rng() % 6); e > 0; --e) r[rng() % r.size()] = "ACGT"[rng() % 4];
    if (rng() % 4 == 0) r.erase(rng() % r.size(), 1 + rng() % 3);
    if (i % 2) r = reverse_complement(r);  // from the reverse strand: their strand 1 aligns at the origin
    reads.push_back(r);
    origin.push_back(static_cast<int64_t>(at));
  }
  seeding::SeedClusters c;
  const std::vector<SeededRead> w = seed_on(seeder, reads, 6, 32, c);
  std::vector<verifying::VerifyJob> jobs;
  for (size_t r = 0; r < reads.size(); ++r) {
    for (int k = 0; k < 4; ++k) {
      const uint8_t band = static_cast<uint8_t>(rng() % 32), edits = static_cast<uint8_t>(rng() % 40);
      const int64_t diag = k < 3 ? origin[r] + static_cast<int64_t>(rng() % 9) - 4 : 100 + rng() % 100000;
      const uint8_t strand = static_cast<uint8_t>((r % 2) ^ (k == 3));
      jobs.push_back({diag, static_cast<uint32_t>(r), strand, band, edits});
    }
  }
  std::vector<BandResult> out;
  std::vector<uint8_t> codes;
  verifier.verify(seeder.device_reads(), jobs, {}, codes, out);  // the filter off: every job verified
  EXPECT_EQ(std::count(codes.begin(), codes.end(), 0), static_cast<int64_t>(jobs.size()));
  const PlaneRef planes{g.idx->hi(), g.idx->lo(), g.idx->length()};
  const Verifier cpu_verifier(ref);
  int64_t found = 0, not_verified = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const verifying::VerifyJob& j = jobs[k];
    const SeededRead& read = w[j.read];
    if (!bit_vector_applies(g, cpu_verifier, j.diag, read.length(), j.band)) {
      ASSERT_EQ(out[k].edits, verifying::kNotVerified) << "job " << k;
      ++not_verified;
      continue;
    }
    const BandResult cpu =
        myers_banded_distance(read.codes[j.strand].data(), read.length(), planes, j.diag, j.band, j.max_edits);
    ASSERT_EQ(out[k].edits, cpu.edits) << "job " << k;
    if (cpu.edits >= 0) {
      ASSERT_EQ(out[k].ref_end, cpu.ref_end) << "job " << k;
    }
    found += cpu.edits >= 0;
  }
  EXPECT_GT(found, static_cast<int64_t>(jobs.size()) / 4);  // hits as well as misses
  EXPECT_GT(not_verified, 0);                               // windows over N runs
}

// The filter on the seeder's reads: every job's GateKeeper code equals the CPU twin's on
// the arrays the filter stage builds from the reads' text (reads with N, reads hanging
// off contig ends and the reference's first base, N runs in the window, both contigs),
// at e = 0, 2, 5 and 8; jobs the filter rejects are not verified, the others as
// myers_banded_distance gives.
TEST(VerifyGpu, FilterCodesEqualTheCpuTwinAndGateVerification) {
  GATEMAP_REQUIRE_GPU();
  const RepeatGenome& g = genome();
  seeding::SeedGpu seeder(*g.idx, 0);
  const Reference ref(*g.idx);
  verifying::VerifyGpu verifier(0, ref.filter_view());
  const std::vector<std::string> reads = reads_of(g, 2000, 17);
  seeding::SeedClusters c;
  const std::vector<SeededRead> w = seed_on(seeder, reads, 5, 32, c);
  std::mt19937_64 rng(21);
  const int64_t length = g.idx->length();
  std::vector<verifying::VerifyJob> jobs;
  for (size_t r = 0; r < reads.size(); ++r) {
    for (int k = 0; k < 6; ++k) {
      int64_t diag = static_cast<int64_t>(rng() % static_cast<uint64_t>(length));
      if (k == 4) diag = static_cast<int64_t>(g.contigs[0].size()) - static_cast<int64_t>(rng() % 200);  // a contig end
      if (k == 5) diag = -static_cast<int64_t>(rng() % 20);  // off the first base
      const uint8_t strand = static_cast<uint8_t>(rng() % 2);
      // Bit-vector bands inside the reference only, as the mapper sends them.
      const bool inside = diag - 5 >= 0 && diag + static_cast<int64_t>(reads[r].size()) + 5 <= length;
      const auto band = static_cast<uint8_t>(k % 3 && inside ? 5 : verifying::kSkipJob);
      jobs.push_back({diag, static_cast<uint32_t>(r), strand, band, 5});
    }
  }
  std::vector<std::string_view> seqs(reads.begin(), reads.end());
  filter::FilterReads packed;
  filter::pack_reads(seqs, packed, true);
  filter::FilterCandidates cand;
  cand.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) cand.set(i, jobs[i].read, jobs[i].strand, jobs[i].diag);
  int max_len = 1;
  for (const std::string& r : reads) max_len = std::max(max_len, static_cast<int>(r.size()));
  const PlaneRef planes{g.idx->hi(), g.idx->lo(), g.idx->length()};
  const Verifier cpu_verifier(ref);
  for (int e : {0, 2, 5, 8}) {
    std::vector<uint8_t> want, codes;
    filter::gatekeeper_cpu(ref.filter_view(), packed, cand, e, want);
    std::vector<BandResult> out;
    verifier.verify(seeder.device_reads(), jobs, {true, e, max_len}, codes, out);
    int64_t rejected = 0, unfiltered = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      ASSERT_EQ(codes[i], want[i]) << "e " << e << " job " << i;
      const verifying::VerifyJob& j = jobs[i];
      const bool accepted = filter::filter_accepts(codes[i], e);
      rejected += !accepted;
      unfiltered += (codes[i] & filter::kFilterUnfiltered) != 0;
      if (j.band == verifying::kSkipJob || !accepted) {
        ASSERT_EQ(out[i].edits, -1) << "e " << e << " job " << i;
        continue;
      }
      if (!bit_vector_applies(g, cpu_verifier, j.diag, w[j.read].length(), j.band)) {
        ASSERT_EQ(out[i].edits, verifying::kNotVerified) << "e " << e << " job " << i;
        continue;
      }
      const BandResult cpu = myers_banded_distance(w[j.read].codes[j.strand].data(), w[j.read].length(), planes, j.diag,
                                                   j.band, j.max_edits);
      ASSERT_EQ(out[i].edits, cpu.edits) << "e " << e << " job " << i;
    }
    EXPECT_GT(rejected, static_cast<int64_t>(jobs.size()) / 4) << "e " << e;
    EXPECT_GT(unfiltered, 0) << "e " << e;
  }
}

// The verifier on the seeder's clusters, left on the device: what comes back is exactly
// the clusters whose jobs (made here, one per cluster) the filter accepts and the
// bit-vector finds within the read's threshold or does not take, with the same results,
// and the same counts; order_verdicts gives them per read in the order of the read's
// candidates (add_kept_candidates), and asks for the candidates of every read without a
// hit. With the filter on at e = 5 and off, reads of every kind, strands cut at --max-cand.
TEST(VerifyGpu, ClustersOnTheDeviceComeBackAsTheirJobsVerifiedOneByOne) {
  GATEMAP_REQUIRE_GPU();
  const RepeatGenome& g = genome();
  seeding::SeedGpu seeder(*g.idx, 0);
  const Reference ref(*g.idx);
  verifying::VerifyGpu verifier(0, ref.filter_view());
  const std::vector<std::string> reads = reads_of(g, 4000, 23);
  std::vector<SeededRead> w(reads.size());
  int max_len = 1;
  for (size_t r = 0; r < reads.size(); ++r) {
    set_read_codes(w[r], reads[r]);
    w[r].max_edits = static_cast<int>(r % 6);
    max_len = std::max(max_len, w[r].length());
  }
  seeding::SeedClusters c;
  seeder.seed(w, g.idx->max_occ(), 4, c);
  ASSERT_TRUE(std::none_of(c.on_cpu.begin(), c.on_cpu.end(), [](uint8_t x) { return x != 0; }));
  for (size_t r = 0; r < reads.size(); ++r) {
    w[r].capped = c.capped[2 * r] || c.capped[2 * r + 1];
    w[r].cand_cap_hit = c.cap_hit[2 * r] || c.cap_hit[2 * r + 1];
    w[r].cap_left_hits = ((c.cap_hit[2 * r] | c.cap_hit[2 * r + 1]) & seeding::kCapLeftHits) != 0;
  }
  const seeding::DeviceClusters on_device = seeder.device_clusters();
  seeding::SeedClusters host = c;
  seeder.copy_clusters(host);
  std::vector<verifying::VerifyJob> jobs;
  for (size_t r = 0; r < reads.size(); ++r) {
    for (int64_t k = host.first[2 * r]; k < host.first[2 * r + 2]; ++k) {
      const auto strand = static_cast<uint8_t>(k >= host.first[2 * r + 1]);
      const auto e = static_cast<uint8_t>(w[r].max_edits);
      jobs.push_back({host.clusters[k].diag, static_cast<uint32_t>(r), strand, e, e});
    }
  }
  ASSERT_EQ(static_cast<int64_t>(jobs.size()), host.n_clusters);
  for (const bool on : {true, false}) {
    SCOPED_TRACE(on ? "filter on" : "filter off");
    const verifying::JobFilter filter{on, 5, max_len};
    std::vector<uint8_t> codes;
    std::vector<BandResult> want;
    verifier.verify(seeder.device_reads(), jobs, filter, codes, want);
    std::vector<verifying::VerifiedCluster> kept;
    verifying::VerifyCounts counts;
    verifier.verify_clusters(seeder.device_reads(), on_device, filter, kept, counts);
    verifying::VerifyCounts expected;
    size_t at = 0;
    for (size_t k = 0; k < jobs.size(); ++k) {
      const bool accepted = filter::filter_accepts(codes[k], 5);
      expected.rejected += !accepted;
      expected.unfiltered += (codes[k] & filter::kFilterUnfiltered) != 0;
      expected.accepted += accepted;
      expected.on_gpu += accepted && want[k].edits != verifying::kNotVerified;
      if (!accepted || (want[k].edits < 0 && want[k].edits != verifying::kNotVerified)) continue;
      ASSERT_LT(at, kept.size());
      const verifying::VerifiedCluster& v = kept[at++];
      ASSERT_EQ(v.index, k);
      ASSERT_EQ(v.cluster.diag, host.clusters[k].diag);
      ASSERT_EQ(v.result.edits, want[k].edits) << "cluster " << k;
      ASSERT_EQ(v.result.ref_end, want[k].ref_end) << "cluster " << k;
    }
    EXPECT_EQ(at, kept.size());
    EXPECT_EQ(counts.rejected, expected.rejected);
    EXPECT_EQ(counts.unfiltered, expected.unfiltered);
    EXPECT_EQ(counts.accepted, expected.accepted);
    EXPECT_EQ(counts.on_gpu, expected.on_gpu);
    if (on) {
      EXPECT_GT(expected.rejected, 0);
    }
    EXPECT_GT(kept.size(), reads.size() / 4);

    DeviceVerdicts verdicts;
    order_verdicts(*g.idx, c, kept, w, verdicts);
    int64_t at_cap = 0;
    for (size_t r = 0; r < reads.size(); ++r) {
      SeededRead cand = w[r];
      SeedScratch scratch;
      for (uint8_t strand = 0; strand < 2; ++strand) {
        const int64_t t = 2 * static_cast<int64_t>(r) + strand;
        add_kept_candidates(*g.idx, strand, host.clusters + host.first[t], host.first[t + 1] - host.first[t],
                            host.cap_hit[t] != 0, cand, scratch.order);
      }
      at_cap += cand.cand_cap_hit && verdicts.first[r + 1] - verdicts.first[r] > 1;
      // The read's verdicts: a subsequence of its candidates.
      size_t next = 0;
      int best = 1000;
      for (int64_t i = verdicts.first[r]; i < verdicts.first[r + 1]; ++i) {
        const Candidate& x = verdicts.verdicts[i].cand;
        while (next < cand.cand.size() &&
               !(cand.cand[next].strand == x.strand && cand.cand[next].diag == x.diag &&
                 cand.cand[next].contig == x.contig && cand.cand[next].support == x.support)) {
          ++next;
        }
        ASSERT_LT(next++, cand.cand.size()) << "read " << r << " verdict " << i;
        if (verdicts.verdicts[i].result.edits >= 0) best = std::min(best, verdicts.verdicts[i].result.edits);
      }
      const bool asked = std::binary_search(verdicts.need_candidates.begin(), verdicts.need_candidates.end(),
                                            static_cast<uint32_t>(r));
      if (best == 1000 || (w[r].cap_left_hits && 2 * best > w[r].max_edits)) {
        EXPECT_TRUE(asked) << "read " << r;
      }
    }
    EXPECT_GT(at_cap, 0);  // strands in support order were checked
  }
}

// The fallback's clipped verification on the device: the cost and end banded_distance
// with clipping gives on the window Reference::window fetches, for reads with mismatches
// and indels (a clipped end among them), both strands, every band up to
// verifying::kMaxClipBand, candidates at contig ends and over N runs, and random places.
TEST(VerifyGpu, ClipDistancesEqualTheCpuClippedDp) {
  GATEMAP_REQUIRE_GPU();
  const RepeatGenome& g = genome();
  seeding::SeedGpu seeder(*g.idx, 0);
  const Reference ref(*g.idx);
  verifying::VerifyGpu verifier(0, ref.filter_view());
  std::mt19937_64 rng(31);
  std::vector<std::string> reads;
  std::vector<int64_t> origin;
  const int64_t c0 = static_cast<int64_t>(g.contigs[0].size());
  for (int i = 0; i < 3000; ++i) {
    const std::string& c = g.contigs[0];
    const size_t len = 40 + rng() % 260, at = rng() % (c.size() - len);
    std::string r = c.substr(at, len);
    for (int e = static_cast<int>(rng() % 8); e > 0; --e) r[rng() % r.size()] = "ACGTN"[rng() % 5];
    if (rng() % 3 == 0) r.replace(r.size() - r.size() / 4, r.size() / 4, test::random_dna(rng, r.size() / 4));
    if (rng() % 4 == 0) r.erase(rng() % r.size(), 1 + rng() % 5);
    if (i % 2) r = reverse_complement(r);
    reads.push_back(r);
    origin.push_back(static_cast<int64_t>(at));
  }
  seeding::SeedClusters c;
  const std::vector<SeededRead> w = seed_on(seeder, reads, 6, 32, c);
  std::vector<verifying::ClipJob> jobs;
  for (size_t r = 0; r < reads.size(); ++r) {
    for (int k = 0; k < 3; ++k) {
      int64_t diag = origin[r] + static_cast<int64_t>(rng() % 9) - 4;
      if (k == 1) diag = rng() % 2 ? c0 - static_cast<int64_t>(rng() % 300) : static_cast<int64_t>(rng() % 40);
      if (k == 2) diag = static_cast<int64_t>(rng() % static_cast<uint64_t>(c0));
      const auto band = static_cast<uint8_t>(1 + rng() % verifying::kMaxClipBand);
      const int max_cost = 5 + static_cast<int>(rng() % 60);
      jobs.push_back({diag, 0, c0, max_cost, static_cast<uint32_t>(r), static_cast<uint8_t>((r % 2) ^ (k == 2)), band});
    }
  }
  std::vector<verifying::ClipResult> out;
  verifier.clip_distances(seeder.device_reads(), jobs, out);
  ASSERT_EQ(out.size(), jobs.size());
  DpScratch scratch;
  RefWindow win;
  int64_t found = 0, clipped = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const verifying::ClipJob& j = jobs[k];
    const SeededRead& read = w[j.read];
    const int m = read.length();
    ref.window(0, j.diag - j.band, j.diag + m + j.band, win);
    const BandResult cpu = banded_distance(read.codes[j.strand].data(), m, win, 0, c0, j.diag, j.band, j.max_cost,
                                           scratch, kClipPenalty);
    ASSERT_EQ(out[k].band.edits, cpu.edits) << "job " << k;
    if (cpu.edits < 0) continue;
    ASSERT_EQ(out[k].band.ref_end, cpu.ref_end) << "job " << k;
    // The rows bound what the traceback aligns (clip_fallback skips on them).
    const Alignment aln =
        banded_align(read.codes[j.strand].data(), m, win, 0, c0, j.diag, j.band, scratch, kClipPenalty);
    ASSERT_LE(m - aln.clipped, out[k].last_row - out[k].first_row) << "job " << k;
    ASSERT_TRUE(out[k].first_row >= 0 && out[k].last_row <= m) << "job " << k;
    ++found;
    clipped += aln.clipped > 0;
  }
  EXPECT_GT(found, static_cast<int64_t>(jobs.size()) / 4);  // hits as well as misses
  EXPECT_LT(found, static_cast<int64_t>(jobs.size()));
  EXPECT_GT(clipped, found / 10);
}
