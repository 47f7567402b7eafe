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

// The read's base at reference position `site` (soft clips counted; a site in a
// deletion: the base after it).
int read_base_at(const RegionWork::SliceRead& r, int64_t site) {
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
  return std::clamp(at, 0, std::max(0, r.length - 1));
}

// Alleles that share their last bases (left by dropping the longest reference allele of a
// multi-allelic site: CAG>CAGAG is C>CAG) or their first ones are trimmed to VCF's
// minimal form, one base kept.
void trim_alleles(SiteCall& call) {
  auto& al = call.alleles;
  const auto all_longer_than_one = [&] {
    return std::all_of(al.begin(), al.end(), [](const std::string& a) { return a.size() > 1; });
  };
  while (all_longer_than_one() &&
         std::all_of(al.begin(), al.end(), [&](const std::string& a) { return a.back() == al[0].back(); })) {
    for (std::string& a : al) a.pop_back();
  }
  while (all_longer_than_one() &&
         std::all_of(al.begin(), al.end(), [&](const std::string& a) { return a[0] == al[0][0]; })) {
    for (std::string& a : al) a.erase(0, 1);
    ++call.site.pos;
  }
  call.site.ref = al[0];
}

// The alleles some sample's genotype carries, the reference first.
std::vector<int> called_alleles(const SiteCall& call) {
  std::vector<int> keep{0};
  for (const SampleCall& s : call.samples) {
    for (const int a : {s.gt_a, s.gt_b}) {
      if (a > 0 && std::find(keep.begin(), keep.end(), a) == keep.end()) keep.push_back(a);
    }
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

}  // namespace

std::map<int64_t, std::vector<Event>> region_sites(const std::vector<std::vector<Event>>& events) {
  std::map<int64_t, std::vector<Event>> sites;
  for (const auto& evs : events) {
    for (const Event& e : evs) {
      auto& v = sites[e.pos];
      if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
    }
  }
  return sites;
}

int64_t site_end(int64_t pos, const std::vector<Event>& evs) {
  size_t ref_len = 0;
  for (const Event& e : evs) ref_len = std::max(ref_len, e.ref.size());
  const bool insertion = std::any_of(evs.begin(), evs.end(), [](const Event& e) { return e.alt.size() > e.ref.size(); });
  return pos + static_cast<int64_t>(ref_len) + (insertion ? 1 : 0);
}

void keep_reads_over_sites(RegionWork& w) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const auto& [pos, evs] : region_sites(w.events)) ranges.emplace_back(pos, site_end(pos, evs));
  size_t kept = 0;
  for (size_t r = 0; r < w.slices.size(); ++r) {
    const std::pair<int64_t, int64_t> span = w.spans[r];
    if (std::none_of(ranges.begin(), ranges.end(),
                     [&](const auto& s) { return span.first < s.second && span.second > s.first; })) {
      continue;
    }
    if (kept != r) {
      w.slices[kept] = std::move(w.slices[r]);
      w.quals[kept] = std::move(w.quals[r]);
      w.spans[kept] = w.spans[r];
      w.slice_reads[kept] = std::move(w.slice_reads[r]);
    }
    ++kept;
  }
  w.slices.resize(kept), w.quals.resize(kept), w.spans.resize(kept), w.slice_reads.resize(kept);
}

std::vector<SiteRecord> call_sites(const RegionWork& w, const std::vector<double>& lik, size_t at,
                                   const std::string& seq, double het_snp, double het_indel, double min_qual,
                                   bool with_non_ref, int n_samples) {
  // Sites: events grouped by position; alleles share the longest reference allele.
  const std::map<int64_t, std::vector<Event>> sites = region_sites(w.events);
  const size_t region_reads = w.slices.size(), n_haps = w.haps.size();
  std::vector<double> site_lik;
  std::vector<size_t> site_reads;  // the region's reads over the site
  std::vector<int> read_alleles, read_sample;
  std::vector<SiteRecord> out;
  for (const auto& [pos, evs] : sites) {
    size_t ref_len = 0;
    for (const Event& e : evs) ref_len = std::max(ref_len, e.ref.size());
    const int64_t end = site_end(pos, evs);
    site_lik.clear();
    site_reads.clear();
    read_sample.clear();
    for (size_t r = 0; r < region_reads; ++r) {
      if (w.spans[r].first >= end || w.spans[r].second <= pos) continue;
      site_reads.push_back(r);
      read_sample.push_back(w.slice_reads[r].sample);
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
    const auto genotype = [&](const std::vector<int>& allele_of_hap, const std::vector<std::string>& site_alleles) {
      return genotype_site(site_lik, n_reads, n_haps, allele_of_hap, site_alleles, het, with_non_ref, &read_alleles,
                           read_sample, n_samples);
    };
    SiteCall call = genotype(hap_allele, alleles);
    if (!call.any_non_ref()) continue;
    // Keep the alleles of the called genotypes only (haplotypes with a dropped allele count as reference).
    const std::vector<int> keep = called_alleles(call);
    if (keep.size() < alleles.size()) {
      std::vector<std::string> sub;
      for (int a : keep) sub.push_back(alleles[a]);
      std::vector<int> sub_allele(n_haps, 0);
      for (size_t h = 0; h < n_haps; ++h) {
        const auto it = std::find(keep.begin(), keep.end(), hap_allele[h]);
        sub_allele[h] = it == keep.end() ? 0 : static_cast<int>(it - keep.begin());
      }
      call = genotype(sub_allele, sub);
      if (!call.any_non_ref()) continue;
    }
    if (call.qual < min_qual) continue;
    call.site.pos = pos;
    std::vector<ReadAtSite> facts(n_reads);
    std::vector<bool> non_ref_sample(call.samples.size());
    for (size_t s = 0; s < call.samples.size(); ++s) non_ref_sample[s] = call.samples[s].gt_a > 0 || call.samples[s].gt_b > 0;
    for (size_t i = 0; i < n_reads; ++i) {
      const size_t slice = site_reads[i];
      const RegionWork::SliceRead& r = w.slice_reads[slice];
      const int at = read_base_at(r, pos);
      const int in_slice = at - r.first;
      const int base_q = in_slice >= 0 && in_slice < static_cast<int>(w.quals[slice].size()) ? w.quals[slice][in_slice] : -1;
      facts[i] = {read_alleles[i], r.reverse, r.mapq, std::min(at, r.length - 1 - at), base_q,
                  static_cast<bool>(non_ref_sample[read_sample[i]])};
    }
    call.annotations = annotate_site(facts, call.qual);
    trim_alleles(call);
    // How far the site lies outside this region's core: where regions overlap, the
    // call of the region that has the site in (or nearest to) its core is kept.
    const int64_t ref_end = pos + static_cast<int64_t>(ref_len);
    const int64_t away = ref_end <= w.region.core_begin ? w.region.core_begin - ref_end + 1
                         : pos >= w.region.core_end     ? pos - w.region.core_end + 1
                                                        : 0;
    out.push_back({call.site.pos, away, std::move(call)});
  }
  return out;
}

}  // namespace gatemap::caller::detail
