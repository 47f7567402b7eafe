#include "caller/vcf_records.hpp"

#include <htslib/vcf.h>

#include <cmath>
#include <memory>

namespace gatemap::caller::detail {

std::vector<std::string> site_header_lines(bool gvcf) {
  std::vector<std::string> lines = {
      "##FILTER=<ID=LowQD,Description=\"QD below --min-qd: few alt reads among many, as errors make them\">"};
  if (!gvcf) {
    lines.insert(lines.end(),
                 {"##INFO=<ID=AC,Number=A,Type=Integer,Description=\"Allele count in genotypes, for each ALT allele, "
                  "in the same order as listed\">",
                  "##INFO=<ID=AF,Number=A,Type=Float,Description=\"Allele Frequency, for each ALT allele, in the same "
                  "order as listed\">",
                  "##INFO=<ID=AN,Number=1,Type=Integer,Description=\"Total number of alleles in called genotypes\">"});
  }
  if (gvcf) {
    lines.insert(lines.end(),
                 {"##INFO=<ID=RAW_MQandDP,Number=2,Type=Integer,Description=\"Raw data (sum of squared MQ and total "
                  "depth) for improved RMS Mapping Quality calculation\">",
                  "##FORMAT=<ID=SB,Number=4,Type=Integer,Description=\"Per-sample component statistics which comprise "
                  "the Fisher's Exact Test to detect strand bias.\">"});
  }
  lines.insert(
      lines.end(),
      {"##INFO=<ID=BaseQRankSum,Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt Vs. Ref "
       "base qualities\">",
       "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Reads in the active region over the site\">",
       "##INFO=<ID=ExcessHet,Number=1,Type=Float,Description=\"Phred-scaled p-value for exact test of excess "
       "heterozygosity\">",
       "##INFO=<ID=InbreedingCoeff,Number=1,Type=Float,Description=\"Inbreeding coefficient as estimated from the "
       "genotype likelihoods per-sample when compared against the Hardy-Weinberg expectation\">",
       "##INFO=<ID=FS,Number=1,Type=Float,Description=\"Phred-scaled p-value using Fisher's exact test to detect strand "
       "bias\">",
       "##INFO=<ID=MQ,Number=1,Type=Float,Description=\"RMS Mapping Quality\">",
       "##INFO=<ID=MQRankSum,Number=1,Type=Float,Description=\"Z-score From Wilcoxon rank sum test of Alt vs. Ref read "
       "mapping qualities\">",
       "##INFO=<ID=QD,Number=1,Type=Float,Description=\"Variant Confidence/Quality by Depth\">",
       "##INFO=<ID=ReadPosRankSum,Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt vs. Ref "
       "read position bias\">",
       "##INFO=<ID=SOR,Number=1,Type=Float,Description=\"Symmetric Odds Ratio of 2x2 contingency table to detect strand "
       "bias\">",
       "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">",
       "##FORMAT=<ID=AD,Number=R,Type=Integer,Description=\"Informative reads per allele\">",
       "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Reads scored at the site\">",
       "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype quality\">",
       "##FORMAT=<ID=PL,Number=G,Type=Integer,Description=\"Phred-scaled genotype likelihoods\">"});
  return lines;
}

void write_site(io::VcfWriter& vcf, int rid, const SiteCall& c, bool gvcf, double min_qd) {
  bcf_hdr_t* hdr = vcf.header();
  const std::unique_ptr<bcf1_t, decltype(&bcf_destroy)> rec(bcf_init(), bcf_destroy);
  rec->rid = rid;
  rec->pos = c.site.pos;
  std::string alleles;
  for (size_t i = 0; i < c.alleles.size(); ++i) alleles += (i ? "," : "") + c.alleles[i];
  if (gvcf) alleles += ",<NON_REF>";
  bcf_update_alleles_str(hdr, rec.get(), alleles.c_str());
  rec->qual = static_cast<float>(c.qual);
  const bool low_qd = !std::isnan(c.annotations.qd) && c.annotations.qd < min_qd;
  int32_t filter = bcf_hdr_id2int(hdr, BCF_DT_ID, low_qd ? "LowQD" : "PASS");
  bcf_update_filter(hdr, rec.get(), &filter, 1);
  // INFO in GATK's order. AC/AF/AN from the called genotypes (not in a gVCF, whose
  // <NON_REF> has no count).
  if (!gvcf) {
    std::vector<int32_t> ac(c.alleles.size() - 1, 0);
    int32_t an = 0;
    for (const SampleCall& s : c.samples) {
      for (const int a : {s.gt_a, s.gt_b}) {
        if (a < 0) continue;
        ++an;
        if (a > 0) ++ac[a - 1];
      }
    }
    std::vector<float> af;
    for (const int32_t n : ac) af.push_back(an ? static_cast<float>(std::round(1000.0 * n / an) / 1000) : 0.0f);
    bcf_update_info_int32(hdr, rec.get(), "AC", ac.data(), static_cast<int>(ac.size()));
    bcf_update_info_float(hdr, rec.get(), "AF", af.data(), static_cast<int>(af.size()));
    bcf_update_info_int32(hdr, rec.get(), "AN", &an, 1);
  }
  // GATK's annotations, to 3 decimals as GATK writes them; rank sums only where defined.
  const SiteAnnotations& a = c.annotations;
  const auto info = [&](const char* key, double v) {
    if (std::isnan(v)) return;
    const float f = static_cast<float>(std::round(v * 1000) / 1000);
    bcf_update_info_float(hdr, rec.get(), key, &f, 1);
  };
  info("BaseQRankSum", a.base_q_rank_sum);
  int32_t dp = c.dp;
  bcf_update_info_int32(hdr, rec.get(), "DP", &dp, 1);
  info("ExcessHet", a.excess_het);
  info("FS", a.fs);
  info("InbreedingCoeff", a.inbreeding_coeff);
  info("MQ", a.mq);
  info("MQRankSum", a.mq_rank_sum);
  info("QD", a.qd);
  if (gvcf) {
    const int32_t raw[2] = {static_cast<int32_t>(std::lround(a.mq_squares)), a.reads};
    bcf_update_info_int32(hdr, rec.get(), "RAW_MQandDP", raw, 2);
  }
  info("ReadPosRankSum", a.read_pos_rank_sum);
  info("SOR", a.sor);
  // FORMAT GT:AD:DP:GQ:PL, a column per sample (./. where no read covers the site).
  std::vector<int32_t> gt, ad, sdp, gq, pl;
  for (const SampleCall& s : c.samples) {
    const bool called = s.gt_a >= 0;
    gt.push_back(called ? bcf_gt_unphased(s.gt_a) : bcf_gt_missing);
    gt.push_back(called ? bcf_gt_unphased(s.gt_b) : bcf_gt_missing);
    if (s.ad.empty()) {  // a reference block's sample (joint): no AD
      ad.push_back(bcf_int32_missing);
      ad.insert(ad.end(), c.alleles.size() - 1 + (gvcf ? 1 : 0), bcf_int32_vector_end);
    } else {
      ad.insert(ad.end(), s.ad.begin(), s.ad.end());
      if (gvcf) ad.push_back(0);
    }
    sdp.push_back(s.dp);
    gq.push_back(called ? s.gq : bcf_int32_missing);
    const std::vector<int>& p = gvcf ? s.pl_non_ref : s.pl;
    pl.insert(pl.end(), p.begin(), p.end());
  }
  const int n = static_cast<int>(c.samples.size());
  bcf_update_genotypes(hdr, rec.get(), gt.data(), static_cast<int>(gt.size()));
  bcf_update_format_int32(hdr, rec.get(), "AD", ad.data(), static_cast<int>(ad.size()));
  bcf_update_format_int32(hdr, rec.get(), "DP", sdp.data(), n);
  bcf_update_format_int32(hdr, rec.get(), "GQ", gq.data(), n);
  bcf_update_format_int32(hdr, rec.get(), "PL", pl.data(), static_cast<int>(pl.size()));
  if (gvcf) bcf_update_format_int32(hdr, rec.get(), "SB", a.strand_table, 4);  // one sample
  vcf.write(rec.get());
}

}  // namespace gatemap::caller::detail
