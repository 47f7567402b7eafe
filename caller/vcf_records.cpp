#include "caller/vcf_records.hpp"

#include <htslib/vcf.h>

#include <cmath>
#include <memory>
#include <new>
#include <utility>

namespace gatemap::caller::detail {

namespace {

// AC (per ALT) and AN from the called genotypes.
std::pair<std::vector<int32_t>, int32_t> allele_counts(const SiteCall& c) {
  std::vector<int32_t> ac(c.alleles.size() - 1, 0);
  int32_t an = 0;
  for (const SampleCall& s : c.samples) {
    for (const int a : {s.gt_a, s.gt_b}) {
      if (a < 0) continue;
      ++an;
      if (a > 0) ++ac[a - 1];
    }
  }
  return {ac, an};
}

// An annotation of SiteAnnotations, to 3 decimals as GATK writes them; none where
// undefined (NaN: a rank sum without both alleles' reads).
template <double SiteAnnotations::*value>
void write_float(const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
  const double v = c.annotations.*value;
  if (std::isnan(v)) return;
  const float f = static_cast<float>(std::round(v * 1000) / 1000);
  bcf_update_info_float(hdr, rec, key, &f, 1);
}

// One INFO field: where it is written, its header line, its writer. In GATK's order (by
// key), which is the records' and the header's: a new field is a row here, its value a
// member of SiteAnnotations (caller/annotations.hpp) computed in annotations.cpp.
struct InfoField {
  enum When { always, vcf_only, gvcf_only } when;  // AC/AF/AN: not in a gVCF, whose <NON_REF> has no count
  const char* key;
  const char* number_type_description;
  void (*write)(const char* key, const bcf_hdr_t*, bcf1_t*, const SiteCall&);
};

const InfoField kInfoFields[] = {
    {InfoField::vcf_only, "AC",
     "Number=A,Type=Integer,Description=\"Allele count in genotypes, for each ALT allele, in the same order as "
     "listed\"",
     [](const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
       std::vector<int32_t> ac = allele_counts(c).first;
       bcf_update_info_int32(hdr, rec, key, ac.data(), static_cast<int>(ac.size()));
     }},
    {InfoField::vcf_only, "AF",
     "Number=A,Type=Float,Description=\"Allele Frequency, for each ALT allele, in the same order as listed\"",
     [](const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
       const auto [ac, an] = allele_counts(c);
       std::vector<float> af;
       for (const int32_t n : ac) af.push_back(an ? static_cast<float>(std::round(1000.0 * n / an) / 1000) : 0.0f);
       bcf_update_info_float(hdr, rec, key, af.data(), static_cast<int>(af.size()));
     }},
    {InfoField::vcf_only, "AN", "Number=1,Type=Integer,Description=\"Total number of alleles in called genotypes\"",
     [](const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
       const int32_t an = allele_counts(c).second;
       bcf_update_info_int32(hdr, rec, key, &an, 1);
     }},
    {InfoField::always, "BaseQRankSum",
     "Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt Vs. Ref base qualities\"",
     write_float<&SiteAnnotations::base_q_rank_sum>},
    {InfoField::always, "DP", "Number=1,Type=Integer,Description=\"Reads in the active region over the site\"",
     [](const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
       const int32_t dp = c.dp;
       bcf_update_info_int32(hdr, rec, key, &dp, 1);
     }},
    {InfoField::always, "ExcessHet",
     "Number=1,Type=Float,Description=\"Phred-scaled p-value for exact test of excess heterozygosity\"",
     write_float<&SiteAnnotations::excess_het>},
    {InfoField::always, "FS",
     "Number=1,Type=Float,Description=\"Phred-scaled p-value using Fisher's exact test to detect strand bias\"",
     write_float<&SiteAnnotations::fs>},
    {InfoField::always, "InbreedingCoeff",
     "Number=1,Type=Float,Description=\"Inbreeding coefficient as estimated from the genotype likelihoods "
     "per-sample when compared against the Hardy-Weinberg expectation\"",
     write_float<&SiteAnnotations::inbreeding_coeff>},
    {InfoField::always, "MQ", "Number=1,Type=Float,Description=\"RMS Mapping Quality\"",
     write_float<&SiteAnnotations::mq>},
    {InfoField::always, "MQRankSum",
     "Number=1,Type=Float,Description=\"Z-score From Wilcoxon rank sum test of Alt vs. Ref read mapping "
     "qualities\"",
     write_float<&SiteAnnotations::mq_rank_sum>},
    {InfoField::always, "QD", "Number=1,Type=Float,Description=\"Variant Confidence/Quality by Depth\"",
     write_float<&SiteAnnotations::qd>},
    {InfoField::gvcf_only, "RAW_MQandDP",
     "Number=2,Type=Integer,Description=\"Raw data (sum of squared MQ and total depth) for improved RMS Mapping "
     "Quality calculation\"",
     [](const char* key, const bcf_hdr_t* hdr, bcf1_t* rec, const SiteCall& c) {
       const int32_t raw[2] = {static_cast<int32_t>(std::lround(c.annotations.mq_squares)), c.annotations.reads};
       bcf_update_info_int32(hdr, rec, key, raw, 2);
     }},
    {InfoField::always, "ReadPosRankSum",
     "Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt vs. Ref read position bias\"",
     write_float<&SiteAnnotations::read_pos_rank_sum>},
    {InfoField::always, "SOR",
     "Number=1,Type=Float,Description=\"Symmetric Odds Ratio of 2x2 contingency table to detect strand bias\"",
     write_float<&SiteAnnotations::sor>},
};

bool written(const InfoField& f, bool gvcf) {
  return f.when == InfoField::always || (f.when == InfoField::gvcf_only) == gvcf;
}

}  // namespace

std::vector<std::string> site_header_lines(bool gvcf) {
  std::vector<std::string> lines = {
      "##FILTER=<ID=LowQD,Description=\"QD below --min-qd: few alt reads among many, as errors make them\">"};
  for (const InfoField& f : kInfoFields) {
    if (written(f, gvcf)) lines.push_back(std::string("##INFO=<ID=") + f.key + "," + f.number_type_description + ">");
  }
  lines.insert(lines.end(), {"##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">",
                             "##FORMAT=<ID=AD,Number=R,Type=Integer,Description=\"Informative reads per allele\">",
                             "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Reads scored at the site\">",
                             "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype quality\">",
                             "##FORMAT=<ID=PL,Number=G,Type=Integer,Description=\"Phred-scaled genotype likelihoods\">"});
  if (gvcf) {
    lines.push_back(
        "##FORMAT=<ID=SB,Number=4,Type=Integer,Description=\"Per-sample component statistics which comprise the "
        "Fisher's Exact Test to detect strand bias.\">");
  }
  return lines;
}

namespace {

using Record = std::unique_ptr<bcf1_t, decltype(&bcf_destroy)>;

Record site_record(const bcf_hdr_t* hdr, int rid, const SiteCall& c, bool gvcf, double min_qd) {
  Record rec(bcf_init(), bcf_destroy);
  if (!rec) throw std::bad_alloc();
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
  for (const InfoField& f : kInfoFields) {
    if (written(f, gvcf)) f.write(f.key, hdr, rec.get(), c);
  }
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
  if (gvcf) bcf_update_format_int32(hdr, rec.get(), "SB", c.annotations.strand_table, 4);  // one sample
  return rec;
}

}  // namespace

void write_site(io::VcfWriter& vcf, int rid, const SiteCall& c, bool gvcf, double min_qd) {
  vcf.write(site_record(vcf.header(), rid, c, gvcf, min_qd).get());
}

void format_site(const bcf_hdr_t* hdr, int rid, const SiteCall& c, bool gvcf, double min_qd, std::string& text) {
  const Record rec = site_record(hdr, rid, c, gvcf, min_qd);
  kstring_t line = KS_INITIALIZE;
  const int r = vcf_format(hdr, rec.get(), &line);
  if (r == 0) text.append(line.s, line.l);
  free(line.s);
  if (r != 0) throw std::bad_alloc();
}

}  // namespace gatemap::caller::detail
