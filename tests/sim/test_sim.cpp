// The simulators' truth is right, and eval map counts what an independent reading gives.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <omp.h>

#include <regex>

#include "../test_util.hpp"
#include "common/dna.hpp"
#include "eval/eval.hpp"
#include "io/text/fastq_writer.hpp"
#include "sim/sim.hpp"

using namespace gatemap;

namespace {

std::vector<io::FastaRecord> small_genome(uint64_t seed = 1) {
  sim::GenomeOptions g;
  g.length = 600000;
  g.contigs = 2;
  g.seed = seed;
  return sim::simulate_genome(g);
}

std::vector<std::pair<char, int>> parse_cigar(const std::string& c) {
  std::vector<std::pair<char, int>> out;
  int n = 0;
  for (char ch : c) {
    if (std::isdigit(static_cast<unsigned char>(ch))) n = n * 10 + (ch - '0');
    else { out.emplace_back(ch, n); n = 0; }
  }
  return out;
}

const std::string& contig_seq(const std::vector<io::FastaRecord>& g, const std::string& name) {
  for (const auto& r : g) if (r.name == name) return r.seq;
  throw std::runtime_error("no contig " + name);
}

}  // namespace

TEST(Sim, SameSeedSameBytes) {
  const auto a = small_genome(3), b = small_genome(3), c = small_genome(4);
  EXPECT_EQ(a[0].seq, b[0].seq);
  EXPECT_NE(a[0].seq, c[0].seq);
  sim::ReadOptions ro;
  ro.n_fragments = 500;
  std::vector<sim::SimRead> r1, r2;
  sim::simulate_reads(a, nullptr, ro, r1);
  omp_set_num_threads(1);
  sim::simulate_reads(a, nullptr, ro, r2);
  ASSERT_EQ(r1.size(), r2.size());
  for (size_t i = 0; i < r1.size(); ++i) {
    EXPECT_EQ(r1[i].seq, r2[i].seq);
    EXPECT_EQ(r1[i].name, r2[i].name);
  }
  // Chunks (into a reused vector) give the same reads.
  std::vector<sim::SimRead> chunk;
  sim::simulate_reads(a, nullptr, ro, chunk, 0, 300);
  sim::simulate_reads(a, nullptr, ro, chunk, 300, 200);
  ASSERT_EQ(chunk.size(), 400u);
  for (size_t i = 0; i < chunk.size(); ++i) {
    EXPECT_EQ(chunk[i].seq, r1[600 + i].seq);
    EXPECT_EQ(chunk[i].qual, r1[600 + i].qual);
    EXPECT_EQ(chunk[i].name, r1[600 + i].name);
  }
}

TEST(Sim, GenomeHasHumanFeatures) {
  const auto g = small_genome();
  int64_t lower = 0, n = 0, total = 0;
  for (const auto& r : g) {
    for (char c : r.seq) {
      lower += std::islower(static_cast<unsigned char>(c)) != 0;
      n += c == 'N';
    }
    total += static_cast<int64_t>(r.seq.size());
  }
  EXPECT_EQ(total, 600000);
  EXPECT_GT(lower, total / 10);  // soft-masked repeats
  EXPECT_GT(n, 0);               // gaps
  sim::GenomeOptions like;
  like.like_grch37 = true;
  like.scale = 0.0005;
  const auto b37 = sim::simulate_genome(like);
  ASSERT_EQ(b37.size(), 84u);
  EXPECT_EQ(b37[0].name, "1");
  EXPECT_EQ(b37[24].name, "MT");
  EXPECT_EQ(b37[83].name, "GL000192.1");
  EXPECT_EQ(static_cast<int64_t>(b37[0].seq.size()), static_cast<int64_t>(249250621 * 0.0005));
}

TEST(Sim, TruthCigarRealignsErrorFreeReadsThroughTheDonor) {
  const auto g = small_genome();
  const auto donor = sim::simulate_donor(g, {});
  ASSERT_GT(donor.variants.size(), 100u);
  std::map<std::pair<std::string, int64_t>, std::string> snp_alt;
  for (const auto& v : donor.variants) {
    if (v.ref.size() == 1 && v.alt.size() == 1) snp_alt[{g[v.contig].name, v.pos}] = v.alt;
  }
  sim::ReadOptions ro;
  ro.n_fragments = 3000;
  ro.sub_rate = ro.indel_rate = ro.n_rate = 0;
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(g, &donor, ro, reads);
  int64_t checked = 0, indel_reads = 0;
  for (const auto& r : reads) {
    const std::string seq = r.truth.reverse ? reverse_complement(r.seq) : r.seq;
    const std::string& ref = contig_seq(g, r.truth.contig);
    int64_t p = r.truth.pos1 - 1;
    size_t q = 0;
    for (const auto& [op, n] : parse_cigar(r.truth.cigar)) {
      if (op == 'M') {
        for (int k = 0; k < n; ++k, ++p, ++q) {
          const char refc = static_cast<char>(std::toupper(ref[p]));
          if (seq[q] != refc) {
            auto it = snp_alt.find({r.truth.contig, p});
            ASSERT_TRUE(it != snp_alt.end() && it->second[0] == seq[q])
                << r.name << " base " << q << " ref " << refc << " read " << seq[q];
          }
          ++checked;
        }
      } else if (op == 'I') {
        q += n;
        ++indel_reads;
      } else if (op == 'D') {
        p += n;
        ++indel_reads;
      }
    }
    ASSERT_EQ(q, seq.size()) << r.name;
  }
  EXPECT_GT(checked, 800000);
  EXPECT_GT(indel_reads, 10);
}

TEST(Sim, ErrorRateAndInsertSizeMatchTheRequest) {
  const auto g = small_genome();
  sim::ReadOptions ro;
  ro.n_fragments = 20000;
  ro.sub_rate = 0.01;
  ro.indel_rate = 0.001;
  ro.insert_mean = 350;
  ro.insert_sd = 30;
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(g, nullptr, ro, reads);
  int64_t errors = 0, bases = 0;
  for (const auto& r : reads) {
    errors += r.errors;
    bases += static_cast<int64_t>(r.seq.size());
  }
  EXPECT_NEAR(static_cast<double>(errors) / bases, 0.011, 0.0015);
  double sum = 0, sum2 = 0;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < reads.size(); i += 2) {
    const auto& a = reads[i].truth;
    const auto& b = reads[i + 1].truth;
    const auto& fwd = a.reverse ? b : a;
    const auto& rev = a.reverse ? a : b;
    int64_t ref_len = 0;
    for (const auto& [op, len] : parse_cigar(rev.cigar)) if (op == 'M' || op == 'D') ref_len += len;
    const double insert = static_cast<double>(rev.pos1 + ref_len - fwd.pos1);
    sum += insert;
    sum2 += insert * insert;
    ++n;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 350, 3);
  EXPECT_NEAR(sd, 30, 3);
}

TEST(Sim, TruthVcfAppliedToTheReferenceGivesTheHaplotypes) {
  const auto g = small_genome();
  const auto donor = sim::simulate_donor(g, {});
  test::TempDir dir;
  const auto vcf = dir.file("truth.vcf.gz");
  sim::write_truth_vcf(vcf, g, donor.variants, "test");
  const auto again = sim::load_donor_vcf(g, vcf);
  ASSERT_EQ(again.variants.size(), donor.variants.size());
  for (int h = 0; h < 2; ++h) {
    for (size_t c = 0; c < g.size(); ++c) EXPECT_EQ(again.hap[h][c].seq, donor.hap[h][c].seq);
  }
  // Left-aligned: no deletion can shift left.
  for (const auto& v : donor.variants) {
    if (v.ref.size() > 1 && v.alt.size() == 1) {
      const std::string& s = g[v.contig].seq;
      EXPECT_NE(std::toupper(s[v.pos]), std::toupper(s[v.pos + v.ref.size() - 1])) << v.pos;
    }
  }
}

// Contigs are simulated on threads of their own, each from its own random substream:
// the same donor, variant for variant and base for base, for any number of threads.
TEST(Sim, DonorDoesNotDependOnTheThreads) {
  const auto g = small_genome();
  sim::VariantOptions one, many;
  many.threads = 3;
  const auto a = sim::simulate_donor(g, one), b = sim::simulate_donor(g, many);
  ASSERT_EQ(a.variants.size(), b.variants.size());
  ASSERT_GT(a.variants.size(), 10u);
  for (size_t i = 0; i < a.variants.size(); ++i) {
    EXPECT_EQ(a.variants[i].contig, b.variants[i].contig) << i;
    EXPECT_EQ(a.variants[i].pos, b.variants[i].pos) << i;
    EXPECT_EQ(a.variants[i].alt, b.variants[i].alt) << i;
  }
  for (int h = 0; h < 2; ++h) {
    for (size_t c = 0; c < g.size(); ++c) EXPECT_EQ(a.hap[h][c].seq, b.hap[h][c].seq) << h << " " << c;
  }
}

TEST(Sim, TruthNamesRoundTrip) {
  sim::ReadTruth a{"GL000192.1", 12345, true, "10S90M2D50M"}, b{"X", 7, false, "150M"};
  const std::string name = sim::encode_truth_name(42, a, &b);
  sim::ReadTruth x, y;
  ASSERT_TRUE(sim::decode_truth_name(name, 1, x));
  ASSERT_TRUE(sim::decode_truth_name(name, 2, y));
  EXPECT_EQ(x.contig, a.contig);
  EXPECT_EQ(x.pos1, a.pos1);
  EXPECT_TRUE(x.reverse);
  EXPECT_EQ(x.cigar, a.cigar);
  EXPECT_EQ(y.contig, "X");
  EXPECT_FALSE(sim::decode_truth_name("plain_read_name", 1, x));
}

TEST(EvalMap, HandMadeCaseGivesTheHandCountedNumbers) {
  test::TempDir dir;
  const std::string hdr = "@HD\tVN:1.6\n@SQ\tSN:1\tLN:100000\n@SQ\tSN:2\tLN:100000\n";
  const auto rec = [](const std::string& name, int flag, const std::string& chr, int pos, int mapq,
                      const std::string& cigar) {
    return name + "\t" + std::to_string(flag) + "\t" + chr + "\t" + std::to_string(pos) + "\t" +
           std::to_string(mapq) + "\t" + cigar + "\t*\t0\t0\t" + std::string(100, 'A') + "\t*\n";
  };
  std::string sam = hdr;
  sam += rec("s0!1!1000!+!100M", 0, "1", 1000, 60, "100M");         // correct
  sam += rec("s1!1!1000!+!100M", 0, "1", 1011, 60, "100M");         // 11 bp off: wrong
  sam += rec("s2!1!1000!+!100M", 16, "1", 1000, 30, "100M");        // wrong strand
  sam += rec("s3!1!1000!-!100M", 16, "1", 1005, 20, "5S95M");       // clip accounted: correct
  sam += rec("s4!2!500!+!50M40D50M", 0, "2", 590, 10, "50S50M");    // clipped across a deletion: correct
  sam += rec("s5!1!1000!+!100M", 0, "2", 1000, 0, "100M");          // wrong contig, MAPQ 0
  sam += "s6!1!1000!+!100M\t4\t*\t0\t0\t*\t*\t0\t0\t" + std::string(100, 'A') + "\t*\n";  // unmapped
  sam += rec("s7!1!1000!+!100M", 256, "1", 5000, 0, "100M");        // secondary: ignored
  const auto path = test::write_file(dir.file("hand.sam"), sam);
  std::FILE* wrong = std::tmpfile();
  const auto ev = eval::eval_map(path, 10, wrong);
  std::string listed(4096, '\0');
  std::rewind(wrong);
  listed.resize(std::fread(listed.data(), 1, listed.size(), wrong));
  std::fclose(wrong);
  // The three misplaced records, each with its MAPQ, place and true place.
  EXPECT_EQ(listed,
            "s1!1!1000!+!100M\t1\t60\t1:1011+\t1:1000+\n"
            "s2!1!1000!+!100M\t1\t30\t1:1000-\t1:1000+\n"
            "s5!1!1000!+!100M\t1\t0\t2:1000+\t1:1000+\n");
  EXPECT_EQ(ev.total, 7);
  EXPECT_EQ(ev.unmapped, 1);
  const auto row = [&](int q) {
    for (const auto& r : ev.rows) if (r.min_mapq == q) return r;
    return eval::MapqRow{};
  };
  EXPECT_EQ(row(60).mapped, 2);
  EXPECT_EQ(row(60).wrong, 1);
  EXPECT_EQ(row(30).mapped, 3);
  EXPECT_EQ(row(30).wrong, 2);
  EXPECT_EQ(row(20).mapped, 4);
  EXPECT_EQ(row(10).mapped, 5);
  EXPECT_EQ(row(10).wrong, 2);
  EXPECT_EQ(row(0).mapped, 6);
  EXPECT_EQ(row(0).wrong, 3);
}

TEST(EvalMap, ScoresBwaMem) {
  std::string out;
  if (test::run_command("bwa 2>&1 | grep -q Version", &out) != 0) GTEST_SKIP() << "bwa not installed";
  test::TempDir dir;
  const auto g = small_genome();
  io::write_fasta(dir.file("ref.fa"), g);
  sim::ReadOptions ro;
  ro.n_fragments = 2000;
  ro.paired = false;
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(g, nullptr, ro, reads);
  io::FastqWriter w(dir.file("r.fq"));
  for (const auto& r : reads) w.write(r.name, r.seq, r.qual);
  w.close();
  ASSERT_EQ(test::run_command("(bwa index " + dir.file("ref.fa") + " && bwa mem " + dir.file("ref.fa") + " " +
                              dir.file("r.fq") + " > " + dir.file("bwa.sam") + ") 2>/dev/null"),
            0);
  const auto ev = eval::eval_map(dir.file("bwa.sam"));
  EXPECT_EQ(ev.total, 2000);
  EXPECT_GT(ev.rows[2].mapped, 1900);
  EXPECT_LT(ev.rows[2].wrong, 20);
}

TEST(EvalVcf, NormalizesBothSidesAndCountsByClass) {
  test::TempDir dir;
  //                      1         2         3         4
  //             1234567890123456789012345678901234567890
  const std::string chr = "ACGTTGCAAGGGGCATCATCATCATTTTTGGGGGCCCCCAGTCAGTTGACATGCA";
  test::write_file(dir.file("ref.fa"), ">1\n" + chr + "\n");
  const std::string header =
      "##fileformat=VCFv4.2\n##contig=<ID=1,length=" + std::to_string(chr.size()) +
      ">\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS\n";
  // Truth: a CAT deletion written left-aligned (after GGGG at 13), SNP at 3, SNP at 45 (missed),
  // an insertion at 30 (het).
  test::write_file(dir.file("truth.vcf"), header +
                                              "1\t3\t.\tG\tT\t.\tPASS\t.\tGT\t0/1\n"
                                              "1\t13\t.\tGCAT\tG\t.\tPASS\t.\tGT\t1/1\n"
                                              "1\t30\t.\tG\tGA\t.\tPASS\t.\tGT\t0/1\n"
                                              "1\t45\t.\tG\tC\t.\tPASS\t.\tGT\t0/1\n");
  // Calls: the same deletion written right-shifted, SNP at 3 with the wrong genotype, the
  // insertion inside a multi-allelic record with a false SNP allele at 30, a filtered call.
  test::write_file(dir.file("calls.vcf"), header +
                                              "1\t3\t.\tG\tT\t50\tPASS\t.\tGT\t1/1\n"
                                              "1\t22\t.\tTCAT\tT\t50\tPASS\t.\tGT\t1/1\n"
                                              "1\t30\t.\tG\tGA,C\t50\tPASS\t.\tGT\t1/2\n"
                                              "1\t50\t.\tC\tG\t50\tLowQual\t.\tGT\t0/1\n");
  const auto ev = eval::eval_vcf(dir.file("truth.vcf"), dir.file("calls.vcf"), dir.file("ref.fa"));
  const auto& snp = ev.classes[0];
  const auto& indel = ev.classes[1];
  EXPECT_EQ(snp.tp, 1);
  EXPECT_EQ(snp.fp, 1);  // 30 G>C; the LowQual call is not scored
  EXPECT_EQ(snp.fn, 1);  // 45
  EXPECT_EQ(snp.genotype_match, 0);
  EXPECT_EQ(indel.tp, 2);  // the shifted deletion matches
  EXPECT_EQ(indel.fp, 0);
  EXPECT_EQ(indel.fn, 0);
  EXPECT_EQ(indel.genotype_match, 2);
  const auto all = eval::eval_vcf(dir.file("truth.vcf"), dir.file("calls.vcf"), dir.file("ref.fa"), false);
  EXPECT_EQ(all.classes[0].fp, 2);
  // Confident regions (BED, 0-based): [0, 20) and [28, 40) leave out the SNP at 45.
  test::write_file(dir.file("conf.bed"), "1\t0\t20\n1\t28\t40\n");
  auto in = eval::eval_vcf(dir.file("truth.vcf"), dir.file("calls.vcf"), dir.file("ref.fa"), true, dir.file("conf.bed"));
  EXPECT_EQ(in.classes[0].tp, 1);
  EXPECT_EQ(in.classes[0].fp, 1);
  EXPECT_EQ(in.classes[0].fn, 0);
  EXPECT_EQ(in.classes[1].tp, 2);
  // [0, 10): the SNP at 3 only (the deletion's GCAT at 12-15 is not inside).
  test::write_file(dir.file("small.bed"), "1\t0\t10\n");
  in = eval::eval_vcf(dir.file("truth.vcf"), dir.file("calls.vcf"), dir.file("ref.fa"), true, dir.file("small.bed"));
  EXPECT_EQ(in.classes[0].tp + in.classes[0].fp + in.classes[0].fn, 1);
  EXPECT_EQ(in.classes[1].tp + in.classes[1].fp + in.classes[1].fn, 0);
}

TEST(EvalVcf, SimulatedTruthAgainstItselfIsPerfect) {
  const auto g = small_genome();
  const auto donor = sim::simulate_donor(g, {});
  test::TempDir dir;
  io::write_fasta(dir.file("ref.fa"), g);
  sim::write_truth_vcf(dir.file("t.vcf.gz"), g, donor.variants, "test");
  const auto ev = eval::eval_vcf(dir.file("t.vcf.gz"), dir.file("t.vcf.gz"), dir.file("ref.fa"));
  for (const auto& c : ev.classes) {
    EXPECT_GT(c.tp, 0);
    EXPECT_EQ(c.fp, 0);
    EXPECT_EQ(c.fn, 0);
    EXPECT_EQ(c.genotype_match, c.tp);
  }
}

TEST(EvalCorrect, CountsFixedAndIntroducedErrors) {
  test::TempDir dir;
  io::write_fasta(dir.file("ref.fa"), small_genome());
  const std::string bin = GATEMAP_BINARY;
  ASSERT_EQ(test::run_command(bin + " sim reads " + dir.file("ref.fa") + " --single -n 3000 -l 100 --sub-rate 0.01 " +
                              "--truth-fastq -o " + dir.file("r")),
            0);
  const auto original = dir.file("r.fq"), truth = dir.file("r.true.fq");
  // Untouched reads: nothing fixed, nothing introduced; the error rate is the simulated one.
  const auto same = eval::eval_correct(original, original, truth);
  EXPECT_EQ(same.reads, 3000);
  EXPECT_EQ(same.fixed, 0);
  EXPECT_EQ(same.introduced, 0);
  EXPECT_NEAR(static_cast<double>(same.errors_before) / same.bases, 0.0105, 0.002);
  // A perfect corrector.
  const auto perfect = eval::eval_correct(original, truth, truth);
  EXPECT_EQ(perfect.errors_after, 0);
  EXPECT_EQ(perfect.fixed, same.errors_before);
  EXPECT_EQ(perfect.reads_fully_corrected, same.reads_with_errors);
  // One correct base changed: one error introduced.
  std::string text = test::read_file(original);
  const size_t seq_at = text.find('\n') + 1;
  const size_t line_end = text.find('\n', seq_at);
  const std::string first_true = test::read_file(truth).substr(seq_at, line_end - seq_at);
  size_t k = 0;
  while (text[seq_at + k] != first_true[k]) ++k;  // a base that is right
  text[seq_at + k] = text[seq_at + k] == 'A' ? 'C' : 'A';
  const auto broken = test::write_file(dir.file("broken.fq"), text);
  const auto one = eval::eval_correct(original, broken, truth);
  EXPECT_EQ(one.introduced, 1);
  EXPECT_EQ(one.errors_after, same.errors_before + 1);
}
