// The whole path on real reads: NA12878 pairs (HiSeq 101 bp, ~50x over chr20:10.0-10.1 Mb,
// taken from the bwa BAM in ../shared as FASTQ) mapped by gatemap to all of GRCh37
// chromosome 20, sorted, called by gatemap call: inside the GIAB confident intervals the
// calls must be the GIAB HG001 truth, genotypes included. Skips without the real data (tests/DATA.md).
#include <gtest/gtest.h>
#include <htslib/sam.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/dna.hpp"
#include "../test_util.hpp"
#include "../vcf_check.hpp"

using namespace gatemap;

namespace {

const std::string kShared = test::real_data("");

// Chromosome 20 from its six gzip pieces (only the first has the header).
void write_chr20(const std::string& out_path) {
  std::ofstream out(out_path, std::ios::binary);
  for (int i = 1; i <= 6; ++i) {
    const std::string part = kShared + "/grch37-chr20/20.part" + std::to_string(i) + "-of-6.fa.gz";
    gzFile in = gzopen(part.c_str(), "rb");
    ASSERT_NE(in, nullptr) << part;
    char buf[1 << 16];
    int n;
    while ((n = gzread(in, buf, sizeof buf)) > 0) out.write(buf, n);
    gzclose(in);
  }
  ASSERT_TRUE(out.good()) << out_path;
}

// Primary records of a name-paired BAM as two FASTQ files in original read orientation.
int64_t bam_to_fastq_pairs(const std::string& bam, const std::string& fq1, const std::string& fq2) {
  samFile* fp = sam_open(bam.c_str(), "r");
  sam_hdr_t* h = sam_hdr_read(fp);
  bam1_t* b = bam_init1();
  std::map<std::string, std::string> mates[2];  // name -> FASTQ record
  while (sam_read1(fp, h, b) >= 0) {
    if (b->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    std::string seq(b->core.l_qseq, 'N'), qual(b->core.l_qseq, '!');
    for (int i = 0; i < b->core.l_qseq; ++i) {
      seq[i] = seq_nt16_str[bam_seqi(bam_get_seq(b), i)];
      qual[i] = static_cast<char>(33 + bam_get_qual(b)[i]);
    }
    if (b->core.flag & BAM_FREVERSE) {
      seq = reverse_complement(seq);
      std::reverse(qual.begin(), qual.end());
    }
    const std::string name = bam_get_qname(b);
    mates[(b->core.flag & BAM_FREAD2) ? 1 : 0][name] = "@" + name + "\n" + seq + "\n+\n" + qual + "\n";
  }
  bam_destroy1(b);
  sam_hdr_destroy(h);
  sam_close(fp);
  std::ofstream o1(fq1), o2(fq2);
  int64_t pairs = 0;
  for (const auto& [name, rec] : mates[0]) {
    const auto it = mates[1].find(name);
    if (it == mates[1].end()) continue;  // the mate lies outside the slice
    o1 << rec;
    o2 << it->second;
    ++pairs;
  }
  return pairs;
}

}  // namespace

TEST(RealPipeline, Na12878Chr20FastqToCallsMatchesGiabInConfidentRegions) {
  const std::string d = kShared + "/grch37-chr20-deepvariant-testdata/";
  if (!std::filesystem::exists(kShared + "/grch37-chr20/20.part6-of-6.fa.gz") ||
      !std::filesystem::exists(d + "NA12878_S1.chr20.10_10p1mb.bam")) {
    GTEST_SKIP() << test::real_data_absent("grch37-chr20 and grch37-chr20-deepvariant-testdata");
  }
  test::TempDir tmp;
  write_chr20(tmp.file("20.fa"));
  const int64_t pairs = bam_to_fastq_pairs(d + "NA12878_S1.chr20.10_10p1mb.bam", tmp.file("r1.fq"), tmp.file("r2.fq"));
  ASSERT_GT(pairs, 25000);
  const std::string g = std::string(GATEMAP_BINARY);
  ASSERT_EQ(test::run_command(g + " index -t 2 -o " + tmp.file("20.gmi") + " " + tmp.file("20.fa")), 0);
  ASSERT_EQ(test::run_command(g + " map -t 2 --sort --stats " + tmp.file("stats.json") +
                              " -R '@RG\\tID:NA12878\\tSM:NA12878' -o " + tmp.file("na12878.bam") + " " +
                              tmp.file("20.gmi") + " " + tmp.file("r1.fq") + " " + tmp.file("r2.fq")),
            0);
  ASSERT_EQ(test::run_command(g + " call -t 2 --backend cpu -r " + tmp.file("20.fa") + " -o " + tmp.file("calls.vcf") +
                              " " + tmp.file("na12878.bam")),
            0);
  // Mapping: bwa-mem placed 99.7% of these reads, 99.1% in proper pairs.
  const std::string stats = test::read_file(tmp.file("stats.json"));
  const auto field = [&](const std::string& key) {
    const size_t at = stats.find("\"" + key + "\": ");
    return at == std::string::npos ? -1 : std::stoll(stats.substr(at + key.size() + 4));
  };
  EXPECT_EQ(field("reads"), 2 * pairs);
  EXPECT_GE(field("mapped"), 2 * pairs * 995 / 1000);
  EXPECT_GE(field("proper_pairs"), pairs * 985 / 1000);
  // Calling: the GIAB truth inside its confident intervals, every genotype right.
  const auto bed = test::read_bed(d + "test_giab.b37_chr20_100kbp_at_10mb.bed");
  ASSERT_EQ(bed.size(), 11u);
  const std::string giab =
      d + "HG001_chr20_GRCh37_GIAB_highconf_CG-IllFB-IllGATKHC-Ion-10X-SOLID_CHROM1-X_v.3.3.2_highconf_PGandRTGphasetransfer.vcf.gz";
  const auto truth = test::variants_inside(giab, bed);
  EXPECT_EQ(truth.size(), 49u);
  const auto calls = test::variants_inside(tmp.file("calls.vcf"), bed);
  EXPECT_EQ(calls, truth);
  // Over the whole slice, where the truth is less complete: its SNPs found (with bwa-mem's
  // BAM, 187 of 188; reads of a 6-SNP haplotype placed next to their mates matter here).
  const test::Intervals slice = {{10000000, 10100000}};
  const auto snp_of = [](const std::string& v) {  // "pos A>C a/b" -> "pos A>C" for one-base alleles
    const size_t gt = v.rfind(' ');
    const std::string allele = v.substr(v.find(' ') + 1, gt - v.find(' ') - 1);
    return allele.size() == 3 ? v.substr(0, gt) : std::string();
  };
  std::set<std::string> truth_snps, called_snps;
  for (const auto& v : test::variants_inside(giab, slice)) truth_snps.insert(snp_of(v));
  for (const auto& v : test::variants_inside(tmp.file("calls.vcf"), slice)) called_snps.insert(snp_of(v));
  truth_snps.erase("");
  int found = 0;
  for (const auto& v : truth_snps) found += called_snps.count(v) > 0;
  EXPECT_GE(truth_snps.size(), 180u);
  EXPECT_GE(found * 100, static_cast<int>(truth_snps.size()) * 99) << found << " of " << truth_snps.size();
}
