// The caller's steps against hand-made cases, and planted variants end to end through
// simulation, gatemap's mapper, an in-memory sort and the caller.
#include <gtest/gtest.h>

#include <htslib/sam.h>

#include <cmath>
#include <htslib/vcf.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>

#include "caller/caller.hpp"
#include "caller/detail.hpp"
#include "io/reads/fasta.hpp"
#include "io/sort/sam_sort.hpp"
#include "mapper/run.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"
#include "tests/caller/call_fixture.hpp"
#include "tests/test_util.hpp"
#include "tests/vcf_check.hpp"

namespace gatemap {
namespace {

using caller::detail::Event;

std::string random_seq(size_t n, uint64_t seed) {
  sim::Rng rng(seed);
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng.below(4)];
  return s;
}

TEST(CallerEvents, SnpInsertionDeletionLeftAligned) {
  const std::string contig = random_seq(60, 1) + "GAAAAT" + random_seq(60, 500);
  const std::string ref = contig.substr(10, 100);
  std::string snp = ref;
  snp[40] = snp[40] == 'A' ? 'C' : 'A';
  auto ev = caller::detail::haplotype_events(ref, 10, snp, contig);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pos, 50);
  // Deleting one A of the homopolymer (contig 61..64) left-aligns to the G before it.
  std::string del = ref;
  del.erase(63 - 10, 1);
  ev = caller::detail::haplotype_events(ref, 10, del, contig);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pos, 60);
  EXPECT_EQ(ev[0].ref, "GA");
  EXPECT_EQ(ev[0].alt, "G");
  std::string ins = ref;
  ins.insert(64 - 10, "A");
  ev = caller::detail::haplotype_events(ref, 10, ins, contig);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pos, 60);
  EXPECT_EQ(ev[0].ref, "G");
  EXPECT_EQ(ev[0].alt, "GA");
}

// Read x haplotype likelihoods for two haplotypes (ref, alt): n_ref reads favour the
// first and n_alt the second, each by 3 log10 units.
std::vector<double> lik_for(int n_ref, int n_alt) {
  std::vector<double> lik;
  for (int r = 0; r < n_ref; ++r) lik.insert(lik.end(), {-1.0, -4.0});
  for (int r = 0; r < n_alt; ++r) lik.insert(lik.end(), {-4.0, -1.0});
  return lik;
}

TEST(CallerGenotype, HetHomAndNoEvidence) {
  const std::vector<std::string> alleles{"A", "T"};
  auto het = caller::detail::genotype_site(lik_for(15, 15), 30, 2, {0, 1}, alleles, 1e-3);
  EXPECT_EQ(het.samples[0].gt_a, 0);
  EXPECT_EQ(het.samples[0].gt_b, 1);
  EXPECT_GT(het.qual, 100);
  EXPECT_EQ(het.samples[0].ad, (std::vector<int>{15, 15}));
  EXPECT_EQ(het.samples[0].pl.size(), 3u);
  EXPECT_EQ(het.samples[0].pl[1], 0);
  auto hom = caller::detail::genotype_site(lik_for(0, 30), 30, 2, {0, 1}, alleles, 1e-3);
  EXPECT_EQ(hom.samples[0].gt_a, 1);
  EXPECT_EQ(hom.samples[0].gt_b, 1);
  auto none = caller::detail::genotype_site(lik_for(30, 0), 30, 2, {0, 1}, alleles, 1e-3);
  EXPECT_EQ(none.samples[0].gt_b, 0);
  EXPECT_LT(none.qual, 1);
}

// Deep data: at 6,000 reads a clean het's posterior of 0/0 is far below double's range;
// QUAL keeps growing with the evidence (no cap), so QUAL over the informative reads (QD)
// stays near what it is at 30x instead of falling under GATK's QD < 2 filter.
TEST(CallerGenotype, QualGrowsWithDepthAndQdDoesNot) {
  const std::vector<std::string> alleles{"A", "T"};
  const auto shallow = caller::detail::genotype_site(lik_for(15, 15), 30, 2, {0, 1}, alleles, 1e-3);
  const auto deep = caller::detail::genotype_site(lik_for(3000, 3000), 6000, 2, {0, 1}, alleles, 1e-3);
  EXPECT_EQ(deep.samples[0].gt_a, 0);
  EXPECT_EQ(deep.samples[0].gt_b, 1);
  ASSERT_TRUE(std::isfinite(deep.qual));
  EXPECT_GT(deep.qual, 100 * shallow.qual);  // 200x the reads: QUAL grows about as much
  const double qd_shallow = shallow.qual / 30, qd_deep = deep.qual / 6000;
  EXPECT_GT(qd_deep, 2.0);
  EXPECT_NEAR(qd_deep, qd_shallow, 0.2 * qd_shallow);
}

// Four reads, likelihoods worked out by hand: GL(0/0) = -0.5 - 3 - 2 - 1 = -6.5,
// GL(1/1) = -3.5 - 0.2 - 0.1 - 1 = -4.8, GL(0/1) = sum of log10((10^ref + 10^alt) / 2) =
// -0.80058 - 0.50034 - 0.39559 - 1 = -2.69651; PL 38, 0, 21. With theta 1e-3 the posterior
// of 0/0 is 0.13523 (QUAL 8.69) and of 0/1 0.86144 (GQ 8); the read with equal
// likelihoods is in DP but in neither AD.
TEST(CallerGenotype, HandComputedLikelihoodsAtLowDepth) {
  const std::vector<double> lik{-0.5, -3.5, -3.0, -0.2, -2.0, -0.1, -1.0, -1.0};
  const auto call = caller::detail::genotype_site(lik, 4, 2, {0, 1}, {"A", "T"}, 1e-3);
  EXPECT_EQ(call.samples[0].gt_a, 0);
  EXPECT_EQ(call.samples[0].gt_b, 1);
  EXPECT_EQ(call.samples[0].pl, (std::vector<int>{38, 0, 21}));
  EXPECT_NEAR(call.qual, 8.689, 0.001);
  EXPECT_EQ(call.samples[0].gq, 8);
  EXPECT_EQ(call.dp, 4);
  EXPECT_EQ(call.samples[0].ad, (std::vector<int>{1, 2}));
  // Six reads all for the alt by 2 units: 1/1; PL(0/0) = 120, PL(0/1) = 6 x 10 log10(2) = 18.
  const std::vector<double> alt6{-2.5, -0.5, -2.5, -0.5, -2.5, -0.5, -2.5, -0.5, -2.5, -0.5, -2.5, -0.5};
  const auto hom = caller::detail::genotype_site(alt6, 6, 2, {0, 1}, {"A", "T"}, 1e-3);
  EXPECT_EQ(hom.samples[0].gt_a, 1);
  EXPECT_EQ(hom.samples[0].gt_b, 1);
  EXPECT_EQ(hom.samples[0].pl[0], 120);
  EXPECT_EQ(hom.samples[0].pl[1], 18);
  EXPECT_EQ(hom.samples[0].pl[2], 0);
}

// Two SNPs carried by one haplotype (the assembly lacks the haplotype with the second
// alone): reads that cover only the first say "reference" for both haplotype pairs, but
// they do not reach the second SNP and must not count there. Eight reads over the second
// SNP, all alt: 1/1 with DP 8, AD 0,8; the first SNP, with only reference reads, is not called.
TEST(CallerGenotype, ReadsThatDoNotReachTheSiteDoNotCount) {
  std::string seq(100, 'C');
  seq[10] = 'A', seq[50] = 'G';
  caller::detail::RegionWork w;
  w.region = {0, 100, 0, 100, 0};
  std::string alt_hap = seq;
  alt_hap[10] = 'T', alt_hap[50] = 'T';
  w.haps = {seq, alt_hap};
  w.events = {{}, {Event{10, "A", "T"}, Event{50, "G", "T"}}};
  std::vector<double> lik;
  for (int r = 0; r < 16; ++r) {
    const bool left = r < 8;  // left reads cover [0, 40), right ones [30, 100)
    w.slices.push_back(std::string(left ? 40 : 70, 'C'));
    w.quals.emplace_back(w.slices.back().size(), 30);
    w.spans.emplace_back(left ? 0 : 30, left ? 40 : 100);
    const int length = left ? 40 : 70;
    w.slice_reads.push_back({left ? 0 : 30, {bam_cigar_gen(length, BAM_CMATCH)}, length, 50 + r, r % 2 == 1});
    lik.insert(lik.end(), {left ? -1.0 : -4.0, left ? -4.0 : -1.0});
  }
  const auto sites = caller::detail::call_sites(w, lik, 0, seq, 1e-3, 1.25e-4, 10.0);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].pos, 50);
  EXPECT_EQ(sites[0].call.samples[0].gt_a, 1);
  EXPECT_EQ(sites[0].call.samples[0].gt_b, 1);
  EXPECT_EQ(sites[0].call.dp, 8);
  EXPECT_EQ(sites[0].call.samples[0].ad, (std::vector<int>{0, 8}));
  // INFO from the 8 reads over the site (MQ 58-65, 4 per strand, all alt).
  const auto& a = sites[0].call.annotations;
  double squares = 0;
  for (int mq = 58; mq < 66; ++mq) squares += mq * mq;
  EXPECT_NEAR(a.mq, std::sqrt(squares / 8), 1e-9);
  EXPECT_NEAR(a.qd, sites[0].call.qual / 8, 1e-9);
  EXPECT_NEAR(a.fs, 0.0, 1e-9);
  EXPECT_NEAR(a.sor, std::log(2.0), 1e-9);  // (1 1; 5 5) with pseudocounts: R = 1
  EXPECT_TRUE(std::isnan(a.mq_rank_sum));   // no reference reads
}

// A tandem repeat folds the k = 21 graph into a cycle; a larger k resolves the SNP.
// A het with 3 alt reads of 11 over its position, in a region whose other reads lie
// elsewhere: a pileup candidate (10% of the reads over the position), where 10% of the
// region's 80 reads (8) used to hide it. One alt read is not enough.
TEST(CallerPileup, CandidatesCountTheReadsOverTheirPosition) {
  const std::string ref = random_seq(600, 21);
  std::vector<caller::detail::AlignedRead> reads;
  const auto add = [&](int64_t pos, bool alt_at_300) {
    caller::detail::AlignedRead r;
    r.pos = pos;
    r.end = pos + 100;
    r.seq = ref.substr(static_cast<size_t>(pos), 100);
    if (alt_at_300 && pos <= 300 && 300 < pos + 100) r.seq[static_cast<size_t>(300 - pos)] = ref[300] == 'A' ? 'C' : 'A';
    r.qual.assign(100, 30);
    r.cigar = {bam_cigar_gen(100, BAM_CMATCH)};
    r.mapq = 60;
    reads.push_back(r);
  };
  for (int i = 0; i < 69; ++i) add(i % 2 ? 10 + i : 400 + i % 90, false);  // away from 300
  for (int i = 0; i < 11; ++i) add(250 + i, i < 3);                       // over 300: 3 alt
  std::vector<const caller::detail::AlignedRead*> used;
  for (const auto& r : reads) used.push_back(&r);
  const auto haps = caller::detail::pileup_haplotypes(ref, 0, used, 10, 16);
  ASSERT_EQ(haps.size(), 2u);
  EXPECT_EQ(haps[0], ref);
  EXPECT_NE(haps[1][300], ref[300]);
  reads.resize(reads.size() - 11);
  for (int i = 0; i < 11; ++i) add(250 + i, i < 1);  // one alt read
  used.clear();
  for (const auto& r : reads) used.push_back(&r);
  EXPECT_TRUE(caller::detail::pileup_haplotypes(ref, 0, used, 10, 16).empty());
}

TEST(CallerAssembly, CycleResolvedWithLargerK) {
  std::string repeat;
  for (int i = 0; i < 9; ++i) repeat += "ACGTT";
  const std::string ref = random_seq(100, 3) + repeat + random_seq(100, 1000);  // (seeds n, n+1 overlap)
  std::string alt = ref;
  alt[160] = alt[160] == 'A' ? 'G' : 'A';
  std::vector<std::string> reads;
  std::vector<std::vector<uint8_t>> quals;
  for (int i = 0; i < 10; ++i) {
    reads.push_back(alt.substr(i * 5, 200));
    quals.emplace_back(200, 30);
  }
  const auto haps = caller::detail::assemble(ref, reads, quals, 10, 2, 16);
  ASSERT_GE(haps.size(), 2u);
  EXPECT_EQ(haps[0], ref);
  EXPECT_EQ(haps[1], alt);
}

// A cohort prunes per sample: a change seen once in each of two samples among 40 reads is
// an error recurring by chance (one sample alone would not keep it), twice in one sample
// it is that sample's variant, and once in each of ten samples of three reads a variant
// the pooled reads show. With no samples given, the pooled count decides (one sample).
TEST(CallerAssembly, CohortPrunesEdgesPerSample) {
  const std::string ref = random_seq(200, 11);
  std::string alt = ref;
  alt[100] = alt[100] == 'A' ? 'G' : 'A';
  struct Set {
    std::vector<std::string> reads;
    std::vector<std::vector<uint8_t>> quals;
    std::vector<int> samples;
    void add(const std::string& seq, int sample, int n) {
      for (int i = 0; i < n; ++i) reads.push_back(seq), quals.emplace_back(seq.size(), 30), samples.push_back(sample);
    }
  };
  auto has_alt = [&](const Set& set, bool by_sample) {
    const auto haps = caller::detail::assemble(ref, set.reads, set.quals, 10, 2, 16,
                                               by_sample ? set.samples : std::vector<int>{});
    return std::find(haps.begin(), haps.end(), alt) != haps.end();
  };
  Set recurring;
  for (int s = 0; s < 2; ++s) recurring.add(ref, s, 20), recurring.add(alt, s, 1);
  EXPECT_FALSE(has_alt(recurring, true));
  EXPECT_TRUE(has_alt(recurring, false));
  Set one_sample;
  one_sample.add(ref, 0, 20), one_sample.add(ref, 1, 18), one_sample.add(alt, 1, 2);
  EXPECT_TRUE(has_alt(one_sample, true));
  Set shared;
  for (int s = 0; s < 10; ++s) shared.add(ref, s, 2), shared.add(alt, s, 1);
  EXPECT_TRUE(has_alt(shared, true));
}

// Downsampling one start position: each sample keeps at most `keep` reads, the same ones
// whatever order they came in, in their input order; the rest are handed back.
TEST(CallerDownsample, KeepsTheSameReadsPerSampleInAnyOrder) {
  std::vector<caller::detail::AlignedRead> reads(3);  // before the position: untouched
  for (int i = 0; i < 110; ++i) {
    caller::detail::AlignedRead r;
    r.pos = 1000;
    r.sample = i % 3 == 0 ? 1 : 0;  // 73 of sample 0, 37 of sample 1
    r.seq = random_seq(100, 500 + i);
    r.qual.assign(100, 30);
    reads.push_back(r);
  }
  auto kept_of = [](std::vector<caller::detail::AlignedRead> in, std::vector<std::string>& kept) {
    std::vector<caller::detail::AlignedRead> removed;
    const int64_t moved = caller::detail::downsample_start(in, 3, 25, removed);
    EXPECT_EQ(moved, static_cast<int64_t>(removed.size()));
    EXPECT_EQ(in.size() + removed.size(), 113u);
    int per_sample[2] = {0, 0};
    for (size_t i = 3; i < in.size(); ++i) ++per_sample[in[i].sample], kept.push_back(in[i].seq);
    EXPECT_EQ(per_sample[0], 25);
    EXPECT_EQ(per_sample[1], 25);
    return in;
  };
  std::vector<std::string> kept, kept_shuffled;
  const auto out = kept_of(reads, kept);
  for (size_t i = 4; i < out.size(); ++i) {  // input order kept: positions in `reads` ascend
    const auto at = [&](const std::string& seq) {
      return std::find_if(reads.begin(), reads.end(), [&](const auto& r) { return r.seq == seq; }) - reads.begin();
    };
    EXPECT_LT(at(out[i - 1].seq), at(out[i].seq));
  }
  std::reverse(reads.begin() + 3, reads.end());
  kept_of(reads, kept_shuffled);
  std::sort(kept.begin(), kept.end());
  std::sort(kept_shuffled.begin(), kept_shuffled.end());
  EXPECT_EQ(kept, kept_shuffled);
}

// Variants planted in a simulated genome, reads mapped by gatemap, sorted in memory,
// then called: each with its genotype, and nothing else.
TEST(CallerEndToEnd, PlantedVariantsCalledWithGenotypes) {
  test::TempDir dir;
  sim::GenomeOptions g;
  g.length = 120000;
  g.contigs = 1;
  g.n_gap_fraction = 0;
  g.seed = 5;
  auto genome = sim::simulate_genome(g);
  std::string& seq = genome[0].seq;
  for (char& c : seq) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const int64_t L = static_cast<int64_t>(seq.size());
  auto other = [](char c) { return c == 'A' ? 'C' : 'A'; };
  // Sites away from N runs (the simulated genome has a centromere-like one).
  auto clean = [&](int64_t p) {
    while (seq.substr(p - 400, 800).find('N') != std::string::npos) p += 400;
    return p;
  };
  const int64_t p1 = clean(15000), p2 = clean(p1 + 8000), p3 = clean(p2 + 8000), p4 = clean(p3 + 8000),
                p5 = clean(p4 + 8000), p6 = clean(p5 + 8000), p7 = clean(p6 + 8000);
  ASSERT_LT(p7, L - 1000);
  sim::Donor donor;
  auto add = [&](int64_t pos, std::string ref, std::string alt, int gt) {
    donor.variants.push_back({0, pos, std::move(ref), std::move(alt), gt});
  };
  add(p1, seq.substr(p1, 1), std::string(1, other(seq[p1])), 1);      // het SNP
  add(p2, seq.substr(p2, 1), std::string(1, other(seq[p2])), 3);      // hom SNP
  add(p3, seq.substr(p3, 1), seq.substr(p3, 1) + "TTGCA", 2);        // het insertion
  add(p4, seq.substr(p4, 1), seq.substr(p4, 1) + "GGATC", 3);        // hom insertion
  add(p5, seq.substr(p5, 7), seq.substr(p5, 1), 1);                  // het deletion
  add(p6, seq.substr(p6, 4), seq.substr(p6, 1), 3);                  // hom deletion
  const char b80 = seq[p7];
  const char a1 = b80 == 'A' ? 'C' : 'A', a2 = b80 == 'G' ? 'T' : 'G';
  add(p7, std::string(1, b80), std::string(1, a1), 1);                     // multi-allelic: alt 1 on hap 1,
  add(p7, std::string(1, b80), std::string(1, a2), 2);                     //                alt 2 on hap 2
  add(L - 300, seq.substr(L - 300, 1), std::string(1, other(seq[L - 300])), 3);  // near the contig end
  apply_donor(genome, donor);
  sim::ReadOptions ro;
  ro.n_fragments = static_cast<int64_t>(30.0 * L / 300);
  ro.seed = 8;
  test::write_reference_and_pairs(dir, genome, donor, ro);
  mapper::RunOptions mo;
  mo.index_path = dir.file("ref.gmi");
  mo.reads1 = dir.file("r_1.fq");
  mo.reads2 = dir.file("r_2.fq");
  mo.output = dir.file("r.sam");
  mo.read_group = "@RG\\tID:x\\tSM:planted";
  mapper::run_mapping(mo);
  io::sort_sam_in_memory(dir.file("r.sam"), dir.file("r.bam"));
  caller::CallOptions co;
  co.inputs = {dir.file("r.bam")};
  co.reference = dir.file("ref.fa");
  co.output = dir.file("calls.vcf");
  co.backend = "cpu";
  const auto stats = caller::run_call(co);
  EXPECT_GT(stats.regions, 0);

  // What was called: position (1-based) -> "REF>ALT1,ALT2 GT".
  std::map<int64_t, std::string> got;
  htsFile* fp = hts_open(co.output.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  bcf_hdr_t* hdr = bcf_hdr_read(fp);
  EXPECT_EQ(std::string(hdr->samples[0]), "planted");
  bcf1_t* rec = bcf_init();
  while (bcf_read(fp, hdr, rec) == 0) {
    bcf_unpack(rec, BCF_UN_ALL);
    std::string s = std::string(rec->d.allele[0]) + ">";
    for (int a = 1; a < rec->n_allele; ++a) s += std::string(a > 1 ? "," : "") + rec->d.allele[a];
    int32_t* gt = nullptr;
    int n = 0;
    bcf_get_genotypes(hdr, rec, &gt, &n);
    s += " " + std::to_string(bcf_gt_allele(gt[0])) + "/" + std::to_string(bcf_gt_allele(gt[1]));
    free(gt);
    got[rec->pos + 1] = s;
  }
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(fp);
  std::map<int64_t, std::string> want;
  const std::string gt_of[4] = {"", "0/1", "0/1", "1/1"};
  for (const auto& v : donor.variants) {
    if (v.pos == p7) continue;
    // The caller writes indels left-aligned: the expected form is the event as the
    // caller's own normalisation gives it.
    const int64_t b0 = v.pos - 100;
    std::string hap = seq.substr(b0, 300);
    hap.replace(100, v.ref.size(), v.alt);
    const auto ev = caller::detail::haplotype_events(seq.substr(b0, 300), b0, hap, seq);
    ASSERT_EQ(ev.size(), 1u);
    want[ev[0].pos + 1] = ev[0].ref + ">" + ev[0].alt + " " + gt_of[v.genotype];
  }
  // alt1/alt2 in either order
  const std::string multi1 = std::string(1, b80) + ">" + a1 + "," + a2 + " 1/2";
  const std::string multi2 = std::string(1, b80) + ">" + a2 + "," + a1 + " 1/2";
  ASSERT_TRUE(got.count(p7 + 1)) << "multi-allelic site not called";
  EXPECT_TRUE(got[p7 + 1] == multi1 || got[p7 + 1] == multi2) << got[p7 + 1];
  got.erase(p7 + 1);
  EXPECT_EQ(got, want);  // every planted variant with its genotype, and no other call

  // --min-qd: a call whose INFO QD is below it is written with FILTER LowQD, not dropped
  // (here hets, QD ~10, below 20; homozygotes, QD ~30, pass).
  co.min_qd = 20;
  co.output = dir.file("calls_qd.vcf");
  caller::run_call(co);
  fp = hts_open(co.output.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  hdr = bcf_hdr_read(fp);
  rec = bcf_init();
  int low = 0, pass = 0;
  while (bcf_read(fp, hdr, rec) == 0) {
    bcf_unpack(rec, BCF_UN_ALL);
    float* qd = nullptr;
    int n = 0;
    ASSERT_EQ(bcf_get_info_float(hdr, rec, "QD", &qd, &n), 1);
    const bool is_low = bcf_has_filter(hdr, rec, const_cast<char*>("LowQD")) == 1;
    EXPECT_EQ(is_low, *qd < 20) << "QD " << *qd << " at " << rec->pos + 1;
    EXPECT_EQ(bcf_has_filter(hdr, rec, const_cast<char*>("PASS")) == 1, !is_low);
    free(qd);
    (is_low ? low : pass) += 1;
  }
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(fp);
  EXPECT_EQ(low + pass, static_cast<int>(want.size()) + 1);  // every call written
  EXPECT_GT(low, 0);
  EXPECT_GT(pass, 0);
}

}  // namespace
}  // namespace gatemap

namespace gatemap {
namespace {

// Real reads: NA12878, chr20:10.0-10.1 Mb (bwa, 101 bp, ~50x) against the GIAB/NIST
// truth inside its confident intervals (real data; skipped when absent).
TEST(CallerRealData, Na12878Chr20AgreesWithGiabInConfidentRegions) {
  const std::string d = test::real_data("grch37-chr20-deepvariant-testdata") + "/";
  if (!std::filesystem::exists(d + "NA12878_S1.chr20.10_10p1mb.bam")) {
    GTEST_SKIP() << test::real_data_absent("grch37-chr20-deepvariant-testdata");
  }
  test::TempDir dir;
  caller::CallOptions co;
  co.inputs = {d + "NA12878_S1.chr20.10_10p1mb.bam"};
  co.reference = d + "ucsc.hg19.chr20.unittest.fasta.gz";
  co.output = dir.file("calls.vcf");
  co.backend = "cpu";
  caller::run_call(co);
  const auto bed = test::read_bed(d + "test_nist.b37_chr20_100kbp_at_10mb.bed");
  const auto truth = test::variants_inside(d + "test_nist.b37_chr20_100kbp_at_10mb.vcf.gz", bed);
  const auto calls = test::variants_inside(co.output, bed);
  EXPECT_GE(truth.size(), 40u);
  EXPECT_EQ(calls, truth);  // every confident variant with its genotype, nothing else
}

// Real reads: HG002, chr20:10.0-10.1 Mb (150 bp, ~30x). Sites whose reads all carry the
// alternative allele are homozygous: 10,098,110 G>C, 10,098,135 C>A and 10,098,308 AAT>A
// (bcftools and freebayes say 1/1; each site's reads used to be outvoted by reads of its
// region that do not reach it), and no call with no reference read and 5 or more alt reads
// is heterozygous with the reference. Skipped without the real data.
TEST(CallerRealData, Hg002SitesWithOnlyAltReadsAreHomozygous) {
  const std::string bam =
      test::real_data("grch37-chr20-deepvariant-testdata") + "/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam";
  const std::string chr20 = test::real_data("grch37-chr20");
  if (!std::filesystem::exists(bam) || !std::filesystem::exists(chr20 + "/20.part6-of-6.fa.gz")) {
    GTEST_SKIP() << test::real_data_absent("grch37-chr20-deepvariant-testdata and grch37-chr20");
  }
  test::TempDir dir;
  ASSERT_EQ(test::run_command("zcat " + chr20 + "/20.part*-of-6.fa.gz > " + dir.file("20.fa")), 0);
  caller::CallOptions co;
  co.inputs = {bam};
  co.reference = dir.file("20.fa");
  co.output = dir.file("calls.vcf");
  co.backend = "cpu";
  caller::run_call(co);
  std::map<int64_t, std::string> gt;
  std::istringstream in(test::read_file(co.output));
  int checked = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    ASSERT_EQ(f.size(), 10u) << line;
    std::vector<std::string> sample;
    std::istringstream parts(f[9]);
    for (std::string x; std::getline(parts, x, ':');) sample.push_back(x);
    gt[std::stoll(f[1])] = sample[0];
    std::vector<int> ad;  // the second field (GT:AD:DP:GQ:PL): reads per allele
    std::istringstream ad_text(sample.at(1));
    for (std::string x; std::getline(ad_text, x, ',');) ad.push_back(std::stoi(x));
    const int alt_reads = std::accumulate(ad.begin() + 1, ad.end(), 0);
    if (ad.at(0) == 0 && alt_reads >= 5) {
      ++checked;
      EXPECT_NE(sample[0].substr(0, 2), "0/") << line;
    }
  }
  EXPECT_GE(checked, 50);
  EXPECT_EQ(gt[10098110], "1/1");
  EXPECT_EQ(gt[10098135], "1/1");
  EXPECT_EQ(gt[10098308], "1/1");
}

}  // namespace
}  // namespace gatemap
