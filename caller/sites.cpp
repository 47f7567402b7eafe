// The sites of a region: events of its haplotypes grouped by position (alleles sharing
// the longest reference allele), each genotyped from the read x haplotype likelihoods of
// the reads that cover it (as GATK marginalises over overlapping reads: a read that does
// not reach the site tells the haplotypes apart by their other events, not by this one);
// multi-allelic sites are re-genotyped with the called alleles only.
#include <htslib/sam.h>

#include <algorithm>
#include <map>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {

// The distance of reference position `site` from the read's nearer end, in read bases
// (soft clips counted; a site in a deletion: the base after it).
int read_position(const RegionWork::SliceRead& r, int64_t site) {
  int at = 0;
  int64_t g = r.pos;
  for (const uint32_t c : r.cigar) {
    const int len = static_cast<int>(bam_cigar_oplen(c));
    const int type = bam_cigar_type(bam_cigar_op(c));  // bit 1: reads bases, bit 2: reference
    if ((type & 2) && site < g + len) {
      if (type & 1) at += static_cast<int>(site - g);
      break;
    }
    if (type & 1) at += len;
    if (type & 2) g += len;
  }
  at = std::clamp(at, 0, std::max(0, r.length - 1));
  return std::min(at, r.length - 1 - at);
}

}  // namespace

std::vector<SiteRecord> call_sites(const RegionWork& w, const std::vector<double>& lik, size_t at,
                                   const std::string& seq, double het_snp, double het_indel, double min_qual,
                                   bool with_non_ref) {
  // Sites: events grouped by position; alleles share the longest reference allele.
  std::map<int64_t, std::vector<Event>> sites;
  for (const auto& evs : w.events) {
    for (const Event& e : evs) {
      auto& v = sites[e.pos];
      if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
    }
  }
  const size_t region_reads = w.slices.size(), n_haps = w.haps.size();
  std::vector<double> site_lik;
  std::vector<size_t> site_reads;  // the region's reads over the site
  std::vector<int> read_alleles;
  std::vector<SiteRecord> out;
  for (auto& [pos, evs] : sites) {
    size_t ref_len = 0;
    for (const Event& e : evs) ref_len = std::max(ref_len, e.ref.size());
    // The reads over the site's reference allele (an insertion's: its anchor and the base after).
    const bool insertion = std::any_of(evs.begin(), evs.end(), [](const Event& e) { return e.alt.size() > e.ref.size(); });
    const int64_t site_end = pos + static_cast<int64_t>(ref_len) + (insertion ? 1 : 0);
    site_lik.clear();
    site_reads.clear();
    for (size_t r = 0; r < region_reads; ++r) {
      if (w.spans[r].first >= site_end || w.spans[r].second <= pos) continue;
      site_reads.push_back(r);
      const auto row = lik.begin() + static_cast<int64_t>(at + r * n_haps);
      site_lik.insert(site_lik.end(), row, row + static_cast<int64_t>(n_haps));
    }
    const size_t n_reads = site_lik.size() / n_haps;
    if (n_reads == 0) continue;
    const std::string ref_allele = seq.substr(pos, ref_len);
    std::vector<std::string> alleles{ref_allele};
    for (const Event& e : evs) alleles.push_back(e.alt + ref_allele.substr(e.ref.size()));
    std::vector<int> hap_allele(n_haps, 0);
    for (size_t h = 0; h < n_haps; ++h) {
      for (const Event& e : w.events[h]) {
        if (e.pos != pos) continue;
        hap_allele[h] = 1 + static_cast<int>(std::find(evs.begin(), evs.end(), e) - evs.begin());
      }
    }
    const bool snp =
        std::all_of(evs.begin(), evs.end(), [](const Event& e) { return e.ref.size() == 1 && e.alt.size() == 1; });
    const double het = snp ? het_snp : het_indel;
    SiteCall call =
        genotype_site(site_lik, n_reads, n_haps, hap_allele, alleles, het, with_non_ref, &read_alleles);
    if (call.gt_a == 0 && call.gt_b == 0) continue;
    if (alleles.size() > 2) {
      // Keep the alleles of the called genotype only (haplotypes with a dropped allele count as reference).
      std::vector<int> keep{0};
      if (call.gt_a) keep.push_back(call.gt_a);
      if (call.gt_b && call.gt_b != call.gt_a) keep.push_back(call.gt_b);
      if (keep.size() < alleles.size()) {
        std::vector<std::string> sub;
        for (int a : keep) sub.push_back(alleles[a]);
        std::vector<int> sub_allele(n_haps, 0);
        for (size_t h = 0; h < n_haps; ++h) {
          const auto it = std::find(keep.begin(), keep.end(), hap_allele[h]);
          sub_allele[h] = it == keep.end() ? 0 : static_cast<int>(it - keep.begin());
        }
        call = genotype_site(site_lik, n_reads, n_haps, sub_allele, sub, het, with_non_ref, &read_alleles);
        if (call.gt_a == 0 && call.gt_b == 0) continue;
      }
    }
    if (call.qual < min_qual) continue;
    call.site.pos = pos;
    std::vector<ReadAtSite> facts(n_reads);
    for (size_t i = 0; i < n_reads; ++i) {
      const RegionWork::SliceRead& r = w.slice_reads[site_reads[i]];
      facts[i] = {read_alleles[i], r.reverse, r.mapq, read_position(r, pos)};
    }
    call.annotations = annotate_site(facts, call.qual, true);
    // How far the site lies outside this region's core: where regions overlap, the
    // call of the region that has the site in (or nearest to) its core is kept.
    const int64_t ref_end = pos + static_cast<int64_t>(ref_len);
    const int64_t away = ref_end <= w.region.core_begin ? w.region.core_begin - ref_end + 1
                         : pos >= w.region.core_end     ? pos - w.region.core_end + 1
                                                        : 0;
    out.push_back({pos, away, std::move(call)});
  }
  return out;
}

}  // namespace gatemap::caller::detail
