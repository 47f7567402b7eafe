#include "caller/vcf_records.hpp"

#include <htslib/vcf.h>

#include <cmath>
#include <memory>

namespace gatemap::caller::detail {

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
  int32_t dp = c.dp;
  bcf_update_info_int32(hdr, rec.get(), "DP", &dp, 1);
  // GATK's annotations, to 3 decimals as GATK writes them; rank sums only where defined.
  const SiteAnnotations& a = c.annotations;
  const auto info = [&](const char* key, double v) {
    if (std::isnan(v)) return;
    const float f = static_cast<float>(std::round(v * 1000) / 1000);
    bcf_update_info_float(hdr, rec.get(), key, &f, 1);
  };
  info("QD", a.qd);
  info("FS", a.fs);
  info("SOR", a.sor);
  info("MQ", a.mq);
  info("MQRankSum", a.mq_rank_sum);
  info("ReadPosRankSum", a.read_pos_rank_sum);
  int32_t gt[2] = {bcf_gt_unphased(c.gt_a), bcf_gt_unphased(c.gt_b)};
  bcf_update_genotypes(hdr, rec.get(), gt, 2);
  int32_t gq = c.gq;
  bcf_update_format_int32(hdr, rec.get(), "GQ", &gq, 1);
  bcf_update_format_int32(hdr, rec.get(), "DP", &dp, 1);
  std::vector<int32_t> ad(c.ad.begin(), c.ad.end());
  const std::vector<int>& pl_in = gvcf ? c.pl_non_ref : c.pl;
  std::vector<int32_t> pl(pl_in.begin(), pl_in.end());
  if (gvcf) ad.push_back(0);
  bcf_update_format_int32(hdr, rec.get(), "AD", ad.data(), static_cast<int>(ad.size()));
  bcf_update_format_int32(hdr, rec.get(), "PL", pl.data(), static_cast<int>(pl.size()));
  vcf.write(rec.get());
}

}  // namespace gatemap::caller::detail
