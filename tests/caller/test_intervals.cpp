// The caller's outputs: -L interval parsing against hand-made cases, scattered calling
// against the whole run (intervals cut at and right after called variants together give
// exactly the whole run's records, none lost or written twice), and gVCF: reference
// confidence by hand, every base in exactly one record, blocks split at GQ bands,
// variant sites those of the plain VCF.
#include <gtest/gtest.h>
#include <htslib/sam.h>
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include "caller/caller.hpp"
#include "caller/gvcf.hpp"
#include "caller/intervals.hpp"
#include "caller/vcf_records.hpp"
#include "common/error.hpp"
#include "gpu/device.hpp"
#include "io/reads/fasta.hpp"
#include "mapper/run.hpp"
#include "sim/sim.hpp"
#include "tests/caller/call_fixture.hpp"
#include "tests/test_util.hpp"

namespace gatemap {
namespace {

using caller::Interval;
using caller::parse_intervals;

const std::vector<std::pair<std::string, int64_t>> kContigs = {{"1", 1000}, {"2", 500}, {"HLA:x", 300}};

std::string show(const std::vector<Interval>& ivs) {
  std::string s;
  for (const Interval& iv : ivs)
    s += std::to_string(iv.contig) + ":" + std::to_string(iv.begin) + "-" + std::to_string(iv.end) + " ";
  return s;
}

TEST(CallIntervals, RegionStringsMergedInReferenceOrder) {
  EXPECT_EQ(show(parse_intervals({"2:1-10", "1:1,000-1,000", "1:101-200", "1:150-300", "1"}, kContigs)),
            "0:0-1000 1:0-10 ");
  EXPECT_EQ(show(parse_intervals({"1:101-200", "1:201-250", "2:400"}, kContigs)), "0:100-250 1:399-500 ");
  EXPECT_EQ(show(parse_intervals({"HLA:x", "1:990-5000"}, kContigs)), "0:989-1000 2:0-300 ");  // end clipped
  EXPECT_EQ(show(parse_intervals({"HLA:x:11-20"}, kContigs)), "2:10-20 ");
}

TEST(CallIntervals, BedFilesZeroBasedWithCommentsSkipped) {
  test::TempDir dir;
  test::write_file(dir.file("a.bed"), "# comment\ntrack name=x\n2\t0\t10\textra\n1\t5\t6\n\n1\t6\t9\n");
  EXPECT_EQ(show(parse_intervals({dir.file("a.bed")}, kContigs)), "0:5-9 1:0-10 ");
}

TEST(CallIntervals, BadIntervalsAreClearErrors) {
  test::TempDir dir;
  const auto message = [&](const std::vector<std::string>& specs) {
    try {
      parse_intervals(specs, kContigs);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"chr1:1-10"}).find("no contig 'chr1'"), std::string::npos);
  EXPECT_NE(message({"3"}).find("no such contig"), std::string::npos);
  EXPECT_NE(message({"1:20-10"}).find("end lies before the begin"), std::string::npos);
  EXPECT_NE(message({"1:0-10"}).find("begin must be a position >= 1"), std::string::npos);
  EXPECT_NE(message({"1:5-x"}).find("end must be a position"), std::string::npos);
  EXPECT_NE(message({"2:501-600"}).find("begins past the end"), std::string::npos);
  test::write_file(dir.file("bad.bed"), "1\t0\t10\n1\t30\t20\n");
  EXPECT_NE(message({dir.file("bad.bed")}).find("bad.bed' line 2: the end lies before"), std::string::npos);
  test::write_file(dir.file("bad2.bed"), "1 0 10\n");
  EXPECT_NE(message({dir.file("bad2.bed")}).find("line 1"), std::string::npos);
  EXPECT_NE(message({dir.file("missing.bed")}).find("missing.bed"), std::string::npos);
}

// VCF body lines (header dropped).
std::vector<std::string> records(const std::string& path) {
  std::vector<std::string> out;
  std::string text = test::read_file(path), line;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    line = text.substr(at, nl - at);
    at = nl == std::string::npos ? text.size() : nl + 1;
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

// One simulated sample for the tests below, built once: two contigs, SNPs and indels,
// 30x pairs mapped by gatemap into a sorted, indexed BAM (dir/r.bam, dir/ref.fa).
struct MappedSample {
  test::TempDir dir;
  std::vector<io::FastaRecord> genome;
  // A call of this sample's BAM against its reference on `backend`.
  caller::CallOptions call_options(const std::string& backend = "cpu") const {
    caller::CallOptions co;
    co.inputs = {dir.file("r.bam")};
    co.reference = dir.file("ref.fa");
    co.backend = backend;
    return co;
  }
  MappedSample() {
    sim::GenomeOptions g;
    g.length = 160000;
    g.contigs = 2;
    g.seed = 21;
    genome = sim::simulate_genome(g);
    sim::VariantOptions vo;
    vo.snp_rate = 2e-3;
    vo.indel_rate = 4e-4;
    sim::Donor donor = sim::simulate_donor(genome, vo);
    // A 3 kb cluster of SNPs 45 bp apart (one active stretch, several regions): intervals
    // and their lead-ins start inside it.
    auto& vars = donor.variants;
    const auto dense = [](const sim::Variant& v) { return v.contig == 0 && v.pos >= 39900 && v.pos < 43100; };
    vars.erase(std::remove_if(vars.begin(), vars.end(), dense), vars.end());
    for (int64_t p = 40000; p < 43000; p += 45) {
      const char b = genome[0].seq[p];
      if (b == 'N' || b == 'n') continue;
      vars.push_back({0, p, std::string(1, b), std::string(1, b == 'A' || b == 'a' ? 'C' : 'A'), p % 2 ? 1 : 2});
    }
    std::sort(vars.begin(), vars.end(), [](const sim::Variant& a, const sim::Variant& b) {
      return a.contig != b.contig ? a.contig < b.contig : a.pos < b.pos;
    });
    apply_donor(genome, donor);
    sim::ReadOptions ro;
    ro.n_fragments = 30 * g.length / 300;
    test::write_reference_and_pairs(dir, genome, donor, ro);
    mapper::RunOptions mo;
    mo.index_path = dir.file("ref.gmi");
    mo.reads1 = dir.file("r_1.fq");
    mo.reads2 = dir.file("r_2.fq");
    mo.output = dir.file("r.bam");
    mo.sort = true;  // with its index, which -L needs
    mapper::run_mapping(mo);
  }
};

const MappedSample& mapped_sample() {
  static const MappedSample sample;
  return sample;
}

TEST(CallIntervals, ScatteredCallsEqualTheWholeRun) {
  const MappedSample& sample = mapped_sample();
  const test::TempDir& dir = sample.dir;
  const auto& genome = sample.genome;
  caller::CallOptions co = sample.call_options();
  co.output = dir.file("whole.vcf");
  caller::run_call(co);
  const std::vector<std::string> whole = records(co.output);
  ASSERT_GT(whole.size(), 100u);

  // Interval edges on called sites (every 7th), one base after others (every 11th) and
  // where the lead-in before an interval (2 kb) starts at a site (every 5th), so that sites
  // fall on both sides of edges; the intervals alternate between two jobs.
  std::vector<std::pair<std::string, int64_t>> edges;  // contig, 0-based position where an interval starts
  for (size_t i = 0; i < whole.size(); ++i) {
    const std::string contig = whole[i].substr(0, whole[i].find('\t'));
    const int64_t pos1 = std::stoll(whole[i].substr(contig.size() + 1));
    if (i % 7 == 0) edges.emplace_back(contig, pos1 - 1);
    if (i % 11 == 0) edges.emplace_back(contig, pos1);
    if (i % 5 == 0) edges.emplace_back(contig, pos1 + 2003);  // an interval's lead-in starting next to a site
  }
  std::sort(edges.begin(), edges.end());
  std::string bed[2];
  int job = 0;
  for (const auto& rec : genome) {
    int64_t begin = 0;
    for (const auto& [contig, at] : edges) {
      if (contig != rec.name || at <= begin || at >= static_cast<int64_t>(rec.seq.size())) continue;
      bed[job ^= 1] += rec.name + "\t" + std::to_string(begin) + "\t" + std::to_string(at) + "\n";
      begin = at;
    }
    bed[job ^= 1] += rec.name + "\t" + std::to_string(begin) + "\t" + std::to_string(rec.seq.size()) + "\n";
  }
  std::vector<std::string> scattered;
  for (int j = 0; j < 2; ++j) {
    test::write_file(dir.file("part" + std::to_string(j) + ".bed"), bed[j]);
    co.intervals = {dir.file("part" + std::to_string(j) + ".bed")};
    co.output = dir.file("part" + std::to_string(j) + ".vcf");
    caller::run_call(co);
    const auto part = records(co.output);
    scattered.insert(scattered.end(), part.begin(), part.end());
  }
  std::vector<std::string> want = whole;
  std::sort(want.begin(), want.end());
  std::sort(scattered.begin(), scattered.end());
  EXPECT_EQ(scattered, want);

  // Without an index, -L is a clear error.
  std::filesystem::copy_file(dir.file("r.bam"), dir.file("unindexed.bam"));
  co.inputs = {dir.file("unindexed.bam")};
  co.intervals = {"1:1-1000"};
  co.output = dir.file("x.vcf");
  try {
    caller::run_call(co);
    ADD_FAILURE() << "no error without an index";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no index"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(co.output));  // nothing that looks like a result
}

// Several lanes (one per GPU; here on the CPU) call the genome in parts, as -L would,
// written in order: the whole run's VCF, with -L too; a gVCF is called in one part.
TEST(CallIntervals, LanesCallingPartsWriteTheWholeRunsVcf) {
  const MappedSample& sample = mapped_sample();
  const test::TempDir& dir = sample.dir;
  caller::CallOptions co = sample.call_options();
  co.window = 10000;  // parts of two windows: eight parts of 20 kb
  co.threads = 3;
  const auto call = [&](int lanes, const std::string& name) {
    co.lanes = lanes;
    co.output = dir.file(name);
    const caller::CallStats st = caller::run_call(co);
    return std::make_pair(test::read_file(co.output), st);
  };
  const auto [whole, whole_stats] = call(1, "lanes1.vcf");
  ASSERT_GT(records(dir.file("lanes1.vcf")).size(), 100u);
  for (const int lanes : {2, 3}) {
    const auto [text, st] = call(lanes, "lanes" + std::to_string(lanes) + ".vcf");
    EXPECT_EQ(text, whole) << lanes << " lanes";
    EXPECT_EQ(st.calls, whole_stats.calls);
    // Each part decodes little more than its own reads (a lead-in and a short tail;
    // 1.54x when a part's last window reached a full window past it).
    EXPECT_LT(st.reads, whole_stats.reads * 14 / 10) << lanes << " lanes";
  }
  co.intervals = {"1:30001-90000", "2:5000-70000"};
  EXPECT_EQ(call(3, "lanes_l3.vcf").first, call(1, "lanes_l1.vcf").first);
  co.intervals.clear();
  co.gvcf = true;
  EXPECT_EQ(call(3, "lanes_g3.g.vcf").first, call(1, "lanes_g1.g.vcf").first);
}

// On the GPU machine: --device with 1, 2 and 4 GPUs (ids repeat where fewer exist) writes
// the one-GPU VCF.
TEST(CallIntervals, EveryDeviceCountWritesTheOneGpuVcf) {
  if (!gpu::device_available()) GTEST_SKIP() << "no CUDA device";
  const MappedSample& sample = mapped_sample();
  const test::TempDir& dir = sample.dir;
  caller::CallOptions co = sample.call_options("gpu");
  co.window = 10000;
  co.threads = 4;
  co.output = dir.file("gpu0.vcf");
  caller::run_call(co);
  const std::string one = test::read_file(co.output);
  const int visible = static_cast<int>(gpu::list_devices().size());
  for (const int n : {2, 4}) {
    co.device.clear();
    for (int i = 0; i < n; ++i) co.device += (i ? "," : "") + std::to_string(i % visible);
    co.output = dir.file("gpus.vcf");
    caller::run_call(co);
    EXPECT_EQ(test::read_file(co.output), one) << "--device " << co.device;
  }
}

// A compressed VCF comes with its index, as `bcftools --write-index` writes it (.tbi for
// .vcf.gz, .csi for .bcf): a region read through it holds the plain VCF's records there.
TEST(CallOutput, CompressedVcfIsIndexedAsWritten) {
  const MappedSample& sample = mapped_sample();
  const test::TempDir& dir = sample.dir;
  caller::CallOptions co = sample.call_options();
  co.output = dir.file("plain.vcf");
  caller::run_call(co);
  size_t want = 0;  // records of contig 2 from 20,001 to 90,000
  for (const std::string& rec : records(co.output)) {
    const int64_t pos = std::stoll(rec.substr(rec.find('\t') + 1));
    want += rec.rfind("2\t", 0) == 0 && pos >= 20001 && pos <= 90000;
  }
  ASSERT_GT(want, 10u);
  for (const std::string name : {"x.vcf.gz", "x.bcf"}) {
    co.output = dir.file(name);
    caller::run_call(co);
    const std::string index = co.output + (name == "x.bcf" ? ".csi" : ".tbi");
    ASSERT_TRUE(std::filesystem::exists(index)) << index;
    htsFile* fp = hts_open(co.output.c_str(), "r");
    ASSERT_NE(fp, nullptr);
    bcf_hdr_t* hdr = bcf_hdr_read(fp);
    hts_idx_t* idx = bcf_index_load2(co.output.c_str(), index.c_str());
    tbx_t* tbx = name == "x.bcf" ? nullptr : tbx_index_load2(co.output.c_str(), index.c_str());
    ASSERT_TRUE(idx || tbx) << name;
    hts_itr_t* itr = tbx ? tbx_itr_querys(tbx, "2:20001-90000") : bcf_itr_querys(idx, hdr, "2:20001-90000");
    ASSERT_NE(itr, nullptr);
    size_t got = 0;
    bcf1_t* rec = bcf_init();
    kstring_t line = KS_INITIALIZE;
    if (tbx) {
      while (tbx_itr_next(fp, tbx, itr, &line) >= 0) ++got;
    } else {
      while (bcf_itr_next(fp, itr, rec) >= 0) ++got;
    }
    EXPECT_EQ(got, want) << name;
    ks_free(&line);
    bcf_destroy(rec);
    hts_itr_destroy(itr);
    if (tbx) tbx_destroy(tbx);
    if (idx) hts_idx_destroy(idx);
    bcf_hdr_destroy(hdr);
    hts_close(fp);
  }
}

// Ten reads matching the reference at Q30 over a base: 0/0 best, the het genotype
// 10 x 10 log10(0.999 / ((0.999 + 0.001 / 3) / 2)) = 30 PL below; a base with no reads: no
// evidence (PL 0,0,0, GQ 0); five reads with another base: 0/0 not best, GQ 0.
TEST(CallGvcf, ReferenceConfidenceByHand) {
  const std::string seq = "ACGTACGTAC";
  std::vector<caller::detail::AlignedRead> reads;
  for (int i = 0; i < 10; ++i) {
    caller::detail::AlignedRead r;
    r.pos = 2, r.end = 5, r.seq = i < 5 ? "GTA" : "GTC", r.qual.assign(3, 30);  // reference: GTA
    r.cigar = {bam_cigar_gen(3, BAM_CMATCH)};
    reads.push_back(r);
  }
  caller::RefConfidence c;
  caller::reference_confidence(reads, seq, 0, 6, 10, c);
  EXPECT_EQ(c.dp, (std::vector<int32_t>{0, 0, 10, 10, 10, 0}));
  EXPECT_EQ(c.pl[0], (std::array<int32_t, 3>{0, 0, 0}));
  EXPECT_EQ(c.gq[0], 0);
  EXPECT_EQ(c.pl[2], (std::array<int32_t, 3>{0, 30, 348}));
  EXPECT_EQ(c.gq[2], 30);
  EXPECT_GT(c.pl[4][0], 0);  // five of ten reads show another base: not hom-ref
  EXPECT_EQ(c.gq[4], 0);
  // That position's allele hint: the reference A, then C, G, T, <NON_REF>; its PLs as the
  // textbook diploid model gives them (each read: the mean of the genotype's two alleles'
  // P(base | allele), 1 - e for the allele's own base, e / 3 for any other).
  ASSERT_EQ(c.hints.size(), 1u);
  const caller::AlleleHint& h = c.hints[0];
  EXPECT_EQ(h.pos, 4);
  EXPECT_EQ(h.dp, 10);
  EXPECT_EQ(h.alts, (std::vector<std::string>{"C", "G", "T", "<NON_REF>"}));
  EXPECT_EQ(h.ad, (std::vector<int32_t>{5, 5, 0, 0, 0}));
  ASSERT_EQ(h.pl.size(), 15u);
  const std::string alleles = "ACGT*";  // * : <NON_REF>, no base's
  const double e = 1e-3;
  const auto p_base = [&](char base, char allele) { return base == allele ? 1 - e : e / 3; };
  std::vector<double> gl;
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x <= y; ++x) {
      double sum = 0;
      for (const char base : {'A', 'C'}) {
        sum += 5 * std::log10((p_base(base, alleles[x]) + p_base(base, alleles[y])) / 2);
      }
      gl.push_back(sum);
    }
  }
  const double best = *std::max_element(gl.begin(), gl.end());
  for (size_t g = 0; g < gl.size(); ++g) EXPECT_EQ(h.pl[g], std::lround(-10 * (gl[g] - best))) << "genotype " << g;
  EXPECT_EQ(h.pl[1], 0);  // 0/C
  EXPECT_EQ(h.gq, 0);
}


// GATK's rule: the base before a deletion (the deletion's VCF position) is evidence of
// another allele in the reads that delete, as are the deleted bases; the base after an
// insertion and the base beside a soft clip likewise. Reads 0-4 delete position 4 after
// matching 2-3, reads 5-9 match 2-5: at position 3 (the anchor, its base matching in every
// read) five reads count against the reference, exactly as five mismatches at Q30 would.
TEST(CallGvcf, BasesBesideAnIndelOrAClipAreEvidenceOfAnotherAllele) {
  const std::string seq = "ACGTACGTAC";
  std::vector<caller::detail::AlignedRead> reads;
  for (int i = 0; i < 10; ++i) {
    caller::detail::AlignedRead r;
    r.pos = 2, r.end = 6, r.qual.assign(4, 30);
    if (i < 5) {
      r.seq = "GTC", r.qual.resize(3);  // GT, A deleted, C
      r.cigar = {bam_cigar_gen(2, BAM_CMATCH), bam_cigar_gen(1, BAM_CDEL), bam_cigar_gen(1, BAM_CMATCH)};
    } else {
      r.seq = "GTAC";
      r.cigar = {bam_cigar_gen(4, BAM_CMATCH)};
    }
    reads.push_back(r);
  }
  caller::RefConfidence c;
  caller::reference_confidence(reads, seq, 0, 7, 10, c);
  EXPECT_EQ(c.pl[2], (std::array<int32_t, 3>{0, 30, 348}));  // not beside the deletion: as before
  EXPECT_GT(c.pl[3][0], 0);                                  // the anchor: not hom-ref
  EXPECT_EQ(c.gq[3], 0);
  EXPECT_GT(c.pl[5][0], 0);  // the base after the deletion
  // Their hints: the reads' deletion counts at its anchor (position 3: the base before
  // it) as <DEL>, at Q45 (the pair-HMM's gap open); the deleted base and the one after
  // hold only the other reads' bases and their own: the reference.
  ASSERT_EQ(c.hints.size(), 3u);
  const caller::AlleleHint& anchor = c.hints[0];
  EXPECT_EQ(anchor.pos, 3);
  EXPECT_EQ(anchor.alts, (std::vector<std::string>{"A", "C", "G", "<DEL>", "<NON_REF>"}));  // T the reference
  EXPECT_EQ(anchor.ad, (std::vector<int32_t>{5, 0, 0, 0, 5, 0}));
  const auto het_pl = [](int q_ref, int q_alt, int n) {  // n reads of each: 0/0 against the het
    const double e_ref = std::pow(10.0, -q_ref / 10.0), e_alt = std::pow(10.0, -q_alt / 10.0);
    const double hom = n * std::log10(1 - e_ref) + n * std::log10(e_alt / 3);
    const double het = n * std::log10((1 - e_ref + e_ref / 3) / 2) + n * std::log10((1 - e_alt + e_alt / 3) / 2);
    return std::lround(-10 * (hom - het));
  };
  EXPECT_EQ(anchor.pl[10], 0);  // 0/<DEL>
  EXPECT_EQ(anchor.pl[0], het_pl(30, 45, 5));
  for (size_t k = 1; k < 3; ++k) {
    EXPECT_EQ(c.hints[k].pos, static_cast<int64_t>(3 + k));
    EXPECT_EQ(c.hints[k].alts, (std::vector<std::string>{k == 1 ? "C" : "A", "G", "T", "<NON_REF>"}));
    EXPECT_EQ(c.hints[k].ad[0], k == 1 ? 5 : 10) << k;  // the deleted base: only the other reads
    EXPECT_EQ(c.hints[k].pl[0], 0) << k;
  }
  // A soft clip: the aligned base beside it counts against the reference, the next does not.
  caller::detail::AlignedRead clipped;
  clipped.pos = 2, clipped.end = 4, clipped.seq = "TTGT", clipped.qual.assign(4, 30);
  clipped.cigar = {bam_cigar_gen(2, BAM_CSOFT_CLIP), bam_cigar_gen(2, BAM_CMATCH)};
  caller::reference_confidence({clipped}, seq, 0, 5, 10, c);
  EXPECT_EQ(c.pl[2], (std::array<int32_t, 3>{35, 3, 0}));  // one read: as one mismatch
  EXPECT_EQ(c.pl[3], (std::array<int32_t, 3>{0, 3, 35}));
}

// Reference blocks are printed by GvcfBlocks itself in a text VCF and built as records for
// BCF: htslib's printing of the BCF's records is the oracle for the text's bytes.
TEST(CallGvcf, BlocksPrintedDirectlyAreHtslibsLines) {
  test::TempDir dir;
  io::VcfHeaderInfo info;
  info.contigs = {{"chrA", 1000}, {"chrB", 500}};
  info.samples = {"s"};
  info.extra_lines = caller::detail::site_header_lines(true);
  for (const std::string& line : caller::gvcf_header_lines()) info.extra_lines.push_back(line);
  for (const std::string name : {"b.vcf", "b.bcf"}) {
    io::VcfWriter vcf(dir.file(name), info);
    caller::GvcfBlocks blocks(vcf);
    std::mt19937 rng(3);
    for (int rid = 0; rid < 2; ++rid) {
      for (int64_t p = 0; p < 400; ++p) {
        const int32_t gq = static_cast<int32_t>(rng() % 100), dp = static_cast<int32_t>(rng() % 40);
        const char ref = "ACGTN"[rng() % 5];
        if (p % 13 == 5 && ref != 'N') {  // an allele hint now and then, between blocks
          caller::AlleleHint h;
          h.pos = p, h.dp = dp, h.gq = gq % caller::kHintGq;
          for (const char b : {'A', 'C', 'G', 'T'}) {
            if (b != ref) h.alts.emplace_back(1, b);
          }
          if (p % 2) h.alts.push_back(std::string(1, ref) + "GA"), h.alts.push_back("<DEL>");
          h.alts.push_back("<NON_REF>");
          const size_t n = h.alts.size() + 1;
          for (size_t a = 0; a < n; ++a) h.ad.push_back(static_cast<int32_t>(rng() % 9));
          for (size_t g = 0; g < n * (n + 1) / 2; ++g) h.pl.push_back(static_cast<int32_t>(rng() % 500));
          blocks.add_hint(rid, ref, h);
          continue;
        }
        blocks.add(rid, p, ref, dp, gq, {0, gq, static_cast<int32_t>(rng() % 2000)});
        if (p % 97 == 0) blocks.flush();
      }
      blocks.flush();
    }
    vcf.close();
  }
  std::vector<std::string> printed, text;
  htsFile* fp = hts_open(dir.file("b.bcf").c_str(), "r");
  ASSERT_NE(fp, nullptr);
  bcf_hdr_t* hdr = bcf_hdr_read(fp);
  bcf1_t* rec = bcf_init();
  kstring_t line = KS_INITIALIZE;
  while (bcf_read(fp, hdr, rec) == 0) {
    line.l = 0;
    ASSERT_EQ(vcf_format(hdr, rec, &line), 0);
    printed.emplace_back(line.s, line.l);
  }
  ks_free(&line);
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(fp);
  std::istringstream in(test::read_file(dir.file("b.vcf")));
  for (std::string l; std::getline(in, l);) {
    if (l[0] != '#') text.push_back(l + "\n");
  }
  EXPECT_GT(printed.size(), 100u);
  EXPECT_EQ(text, printed);
}

struct GvcfRecord {
  std::string contig;
  int64_t pos = 0, end = 0;  // 1-based, inclusive
  bool block = false;
  bool hint = false;  // a variant record of genotype 0/0 (caller::AlleleHint)
  std::string text;  // variant records: the line without <NON_REF> and PL
  int gq = 0;
};

// The records of a VCF (gvcf: each ALT list must end with <NON_REF>, left out of `text`).
std::vector<GvcfRecord> read_vcf(const std::string& path, bool gvcf) {
  std::vector<GvcfRecord> out;
  htsFile* fp = hts_open(path.c_str(), "r");
  EXPECT_NE(fp, nullptr) << path;
  if (!fp) return out;
  bcf_hdr_t* hdr = bcf_hdr_read(fp);
  bcf1_t* rec = bcf_init();
  while (bcf_read(fp, hdr, rec) == 0) {
    bcf_unpack(rec, BCF_UN_ALL);
    GvcfRecord g;
    g.contig = bcf_hdr_id2name(hdr, rec->rid);
    g.pos = rec->pos + 1;
    int32_t* end = nullptr;
    int n = 0;
    g.block = bcf_get_info_int32(hdr, rec, "END", &end, &n) > 0;
    g.end = g.block ? end[0] : rec->pos + static_cast<int64_t>(strlen(rec->d.allele[0]));
    free(end);
    int32_t* gq = nullptr;
    n = 0;
    if (bcf_get_format_int32(hdr, rec, "GQ", &gq, &n) > 0) g.gq = gq[0];
    free(gq);
    if (gvcf) {
      EXPECT_STREQ(rec->d.allele[rec->n_allele - 1], "<NON_REF>") << g.contig << ":" << g.pos;
    }
    if (!g.block) {
      g.text = g.contig + ":" + std::to_string(g.pos) + " " + rec->d.allele[0];
      for (int a = 1; a < rec->n_allele - (gvcf ? 1 : 0); ++a) {
        g.text += std::string(a > 1 ? "," : ">") + rec->d.allele[a];
      }
      int32_t* gt = nullptr;
      n = 0;
      if (bcf_get_genotypes(hdr, rec, &gt, &n) == 2) {
        g.text += " " + std::to_string(bcf_gt_allele(gt[0])) + "/" + std::to_string(bcf_gt_allele(gt[1]));
        g.hint = gvcf && bcf_gt_allele(gt[0]) == 0 && bcf_gt_allele(gt[1]) == 0;
      }
      free(gt);
      g.text += " GQ " + std::to_string(g.gq);
    }
    out.push_back(g);
  }
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(fp);
  return out;
}

// GATK's default band of a GQ (lower bounds 0..60 by 1, 70, 80, 90, 99).
int band(int gq) { return gq < 60 ? gq : gq < 70 ? 60 : gq < 80 ? 70 : gq < 90 ? 80 : gq < 99 ? 90 : 99; }

// Every base of [begin, end] (1-based) of each contig in exactly one record, adjacent
// blocks in different GQ bands, allele hints one base each naming the other three bases
// (GQ below kHintGq in the blocks' model, not always in theirs); returns the called
// variant records as text.
std::vector<std::string> check_gvcf(const std::vector<GvcfRecord>& recs,
                                    const std::map<std::string, std::pair<int64_t, int64_t>>& span) {
  std::vector<std::string> variants;
  std::map<std::string, int64_t> last;
  for (size_t i = 0; i < recs.size(); ++i) {
    const GvcfRecord& g = recs[i];
    if (!last.count(g.contig)) last[g.contig] = span.at(g.contig).first - 1;
    EXPECT_EQ(g.pos, last[g.contig] + 1) << "gap or overlap at " << g.contig << ":" << g.pos;
    last[g.contig] = std::max(last[g.contig], g.end);
    if (g.hint) {
      EXPECT_EQ(g.end, g.pos) << g.text;
      const char ref = g.text[g.text.find(' ') + 1];
      std::string others;  // the three other bases, in order, first
      for (const char b : {'A', 'C', 'G', 'T'}) {
        if (b != ref) others += std::string(others.empty() ? "" : ",") + b;
      }
      EXPECT_EQ(g.text.substr(g.text.find(' ') + 1, 7), std::string(1, ref) + ">" + others) << g.text;
    } else if (!g.block) {
      variants.push_back(g.text);
    }
    if (i > 0 && g.block && recs[i - 1].block && recs[i - 1].contig == g.contig && recs[i - 1].end + 1 == g.pos) {
      EXPECT_NE(band(recs[i - 1].gq), band(g.gq)) << "adjacent blocks of one band at " << g.contig << ":" << g.pos;
    }
  }
  for (const auto& [contig, range] : span) EXPECT_EQ(last[contig], range.second) << contig << " not covered to its end";
  return variants;
}

TEST(CallGvcf, EveryBaseOnceBlocksByGqBandVariantsAsInTheVcf) {
  const MappedSample& sample = mapped_sample();
  caller::CallOptions co = sample.call_options();
  co.output = sample.dir.file("plain.vcf");
  caller::run_call(co);
  std::vector<std::string> plain;
  for (const GvcfRecord& g : read_vcf(co.output, false)) plain.push_back(g.text);
  co.gvcf = true;
  co.output = sample.dir.file("g.vcf.gz");
  caller::run_call(co);
  std::map<std::string, std::pair<int64_t, int64_t>> whole;
  for (const auto& c : sample.genome) whole[c.name] = {1, static_cast<int64_t>(c.seq.size())};
  const auto recs = read_vcf(co.output, true);
  EXPECT_EQ(check_gvcf(recs, whole), plain);
  EXPECT_GT(recs.size(), plain.size() + 10);

  // -L: the intervals exactly, the variants inside them as in the whole run.
  co.intervals = {sample.genome[0].name + ":1001-30000", sample.genome[1].name + ":5001-5001"};
  co.output = sample.dir.file("g_part.vcf.gz");
  caller::run_call(co);
  std::vector<std::string> inside;
  for (const std::string& v : plain) {
    const int64_t pos = std::stoll(v.substr(v.find(':') + 1));
    if (v.rfind(sample.genome[0].name + ":", 0) == 0 && pos >= 1001 && pos <= 30000) inside.push_back(v);
  }
  // (contig 2's single base holds no variant in this sample, or it would be listed here)
  const auto part = read_vcf(co.output, true);
  std::map<std::string, std::pair<int64_t, int64_t>> parts = {{sample.genome[0].name, {1001, 30000}},
                                                              {sample.genome[1].name, {5001, 5001}}};
  EXPECT_EQ(check_gvcf(part, parts), inside);
}


// The gVCF is what bcftools expects of one: it reads every record, and `bcftools merge
// --gvcf` joins two samples' blocks (here the same sample twice, renamed) into as many
// records, the variant sites among them at the same places.
TEST(CallGvcf, BcftoolsMergesItWithAnotherSample) {
  if (test::run_command("command -v bcftools") != 0) GTEST_SKIP() << "bcftools not installed";
  const MappedSample& sample = mapped_sample();
  caller::CallOptions co = sample.call_options();
  co.gvcf = true;
  co.output = sample.dir.file("m1.g.vcf.gz");
  caller::run_call(co);
  const std::string d = sample.dir.path() + "/";
  std::string out;
  ASSERT_EQ(test::run_command("cd " + d + " && echo other > name.txt && bcftools reheader -s name.txt -o m2.g.vcf.gz " +
                                  "m1.g.vcf.gz && bcftools index -t m2.g.vcf.gz && " +  // m1's .tbi: call wrote it
                                  "bcftools merge --gvcf ref.fa -Oz -o merged.g.vcf.gz m1.g.vcf.gz m2.g.vcf.gz",
                              &out),
            0)
      << out;
  const auto count = [&](const std::string& args) {
    std::string n;
    EXPECT_EQ(test::run_command("bcftools view -H " + args + " | wc -l", &n), 0) << n;
    return std::stoll(n);
  };
  const int64_t records = count(d + "m1.g.vcf.gz");
  EXPECT_EQ(records, static_cast<int64_t>(read_vcf(co.output, true).size()));
  EXPECT_EQ(count(d + "merged.g.vcf.gz"), records);
  const std::string variants = "-i 'N_ALT>1' ";  // a variant site: its alleles and <NON_REF>
  const std::string sites = " | cut -f1,2,4,5";
  std::string a, b;
  ASSERT_EQ(test::run_command("bcftools view -H " + variants + d + "m1.g.vcf.gz" + sites, &a), 0) << a;
  ASSERT_EQ(test::run_command("bcftools view -H " + variants + d + "merged.g.vcf.gz" + sites, &b), 0) << b;
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace gatemap
