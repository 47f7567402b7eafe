#include "caller/window_steps.hpp"

#include <algorithm>

#include "common/parallel.hpp"

namespace gatemap::caller::detail {

std::vector<RegionWork> assemble_regions(const std::vector<Region>& regions, const std::vector<AlignedRead>& reads,
                                         const std::string& seq, const CallOptions& opt) {
  std::vector<RegionWork> work(regions.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < regions.size(); ++i) {
    errors.run([&] {
      RegionWork& w = work[i];
      w.region = regions[i];
      std::string bases;
      std::vector<uint8_t> quals;
      std::vector<const AlignedRead*> used;
      for (const AlignedRead& r : reads) {
        if (r.pos >= w.region.end || r.end <= w.region.begin) continue;
        read_slice(r, w.region.begin, w.region.end, bases, quals);
        if (bases.empty()) continue;
        w.slices.push_back(bases);
        w.quals.push_back(quals);
        used.push_back(&r);
      }
      const std::string ref_region = seq.substr(w.region.begin, w.region.end - w.region.begin);
      w.haps = assemble(ref_region, w.slices, w.quals, opt.min_base_q, opt.min_prune, opt.max_haplotypes);
      if (w.haps.size() < 2) {  // no k worked, or the graph shows no alternative to the reference
        w.assembled = false;
        w.haps = pileup_haplotypes(ref_region, w.region.begin, used, opt.min_base_q, opt.max_haplotypes);
      }
      for (const std::string& h : w.haps) w.events.push_back(haplotype_events(ref_region, w.region.begin, h, seq));
    });
  }
  errors.rethrow();
  return work;
}

pairhmm::PairHmmBatch pairhmm_batch(std::vector<RegionWork>& work) {
  pairhmm::PairHmmBatch batch;
  size_t bases = 0;
  for (const RegionWork& w : work) {
    for (const std::string& s : w.slices) bases += s.size();
  }
  for (auto* v : {&batch.base_q, &batch.ins_q, &batch.del_q, &batch.gcp_q}) v->reserve(bases);
  batch.read_bases.reserve(bases);
  for (RegionWork& w : work) {
    if (w.haps.size() < 2 || w.slices.empty()) continue;
    const int32_t first_read = static_cast<int32_t>(batch.read_len.size());
    for (size_t r = 0; r < w.slices.size(); ++r) {
      // Appended in place (no copies per read): GATK's base-quality floor (below 18: 6),
      // gap open Q45 both ways, gap continuation Q10.
      const std::string& s = w.slices[r];
      batch.read_begin.push_back(static_cast<int64_t>(batch.read_bases.size()));
      batch.read_len.push_back(static_cast<int32_t>(s.size()));
      batch.read_bases.insert(batch.read_bases.end(), s.begin(), s.end());
      for (uint8_t q : w.quals[r]) batch.base_q.push_back(q < 18 ? 6 : q);
      batch.ins_q.insert(batch.ins_q.end(), s.size(), 45);
      batch.del_q.insert(batch.del_q.end(), s.size(), 45);
      batch.gcp_q.insert(batch.gcp_q.end(), s.size(), 10);
    }
    const int32_t first_hap = static_cast<int32_t>(batch.hap_len.size());
    for (const std::string& h : w.haps) batch.add_haplotype(h);
    w.group = static_cast<int32_t>(batch.groups.size());
    batch.add_group(first_read, static_cast<int32_t>(w.slices.size()), first_hap, static_cast<int32_t>(w.haps.size()));
  }
  return batch;
}

std::vector<SiteRecord> genotype_regions(const std::vector<RegionWork>& work, const pairhmm::PairHmmBatch& batch,
                                         const std::vector<double>& lik, const std::string& seq,
                                         const CallOptions& opt) {
  std::vector<size_t> offset(batch.groups.size() + 1, 0);
  for (size_t g = 0; g < batch.groups.size(); ++g) {
    offset[g + 1] = offset[g] + static_cast<size_t>(batch.groups[g].n_reads) * batch.groups[g].n_haps;
  }
  std::vector<std::vector<SiteRecord>> per_region(work.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < work.size(); ++i) {
    errors.run([&] {
      if (work[i].group < 0) return;
      per_region[i] =
          call_sites(work[i], lik, offset[work[i].group], seq, opt.het_snp, opt.het_indel, opt.min_qual, opt.gvcf);
    });
  }
  errors.rethrow();
  std::vector<SiteRecord> records;
  for (auto& v : per_region) records.insert(records.end(), v.begin(), v.end());
  std::stable_sort(records.begin(), records.end(), [](const SiteRecord& a, const SiteRecord& b) {
    return a.pos != b.pos ? a.pos < b.pos : a.away < b.away;
  });
  return records;
}

}  // namespace gatemap::caller::detail
