#include "caller/window_steps.hpp"

#include <algorithm>

#include "common/parallel.hpp"

namespace gatemap::caller::detail {

namespace {
// Bases below this break a read's k-mers in assembly: only Illumina's Q2 ("unreliable
// tail") marks, not --min-base-q (at 10, the Q7 bases of ART's HiSeq 2500 reads cut the
// k-mers around 2 of 3 missed SNPs at 15x). An error at a low-quality base makes an edge
// seen in one read, which pruning (edges seen in fewer than min_prune reads) drops.
constexpr int kAssemblyMinBaseQ = 3;

// Pileup haplotypes that carry an event no assembled haplotype has (a variant whose
// k-mers the graph lost: next to another variant, or at a read's end) join the assembled
// ones, up to max_haplotypes.
void add_missing_events(const std::string& ref_region, int64_t begin, const std::string& seq,
                        const std::vector<std::string>& pileup, int max_haplotypes, RegionWork& w) {
  std::vector<Event> known;
  for (const auto& evs : w.events) known.insert(known.end(), evs.begin(), evs.end());
  for (size_t i = 1; i < pileup.size() && static_cast<int>(w.haps.size()) < max_haplotypes; ++i) {
    if (std::find(w.haps.begin(), w.haps.end(), pileup[i]) != w.haps.end()) continue;
    std::vector<Event> evs = haplotype_events(ref_region, begin, pileup[i], seq);
    const bool adds = std::any_of(evs.begin(), evs.end(),
                                  [&](const Event& e) { return std::find(known.begin(), known.end(), e) == known.end(); });
    if (!adds) continue;
    known.insert(known.end(), evs.begin(), evs.end());
    w.haps.push_back(pileup[i]);
    w.events.push_back(std::move(evs));
  }
}

}  // namespace

std::vector<RegionWork> assemble_regions(const std::vector<Region>& regions, const std::vector<AlignedRead>& reads,
                                         const std::string& seq, const CallOptions& opt, int n_samples) {
  std::vector<RegionWork> work(regions.size());
  // A cohort's region holds every sample's haplotypes: the cap grows with the samples, to
  // GATK's population cap of 128 (each sample's few variants combine into many paths).
  const int max_haps = n_samples > 1 ? std::max(opt.max_haplotypes, std::min(128, opt.max_haplotypes * n_samples))
                                     : opt.max_haplotypes;
  const int64_t longest = longest_span(reads);  // a region's reads start at most this far before it
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < regions.size(); ++i) {
    errors.run([&] {
      RegionWork& w = work[i];
      w.region = regions[i];
      std::string bases;
      std::vector<uint8_t> quals;
      std::vector<const AlignedRead*> used;
      const auto first = std::partition_point(reads.begin(), reads.end(),
                                              [&](const AlignedRead& r) { return r.pos < w.region.begin - longest; });
      for (auto it = first; it != reads.end() && it->pos < w.region.end; ++it) {
        const AlignedRead& r = *it;
        if (r.end <= w.region.begin) continue;
        int first_base = 0;
        read_slice(r, w.region.begin, w.region.end, bases, quals, &first_base);
        if (bases.empty()) continue;
        w.slices.push_back(bases);
        w.quals.push_back(quals);
        const auto [first, last] = unclipped_span(r);
        w.spans.emplace_back(std::max(first, w.region.begin), std::min(last, w.region.end));
        w.slice_reads.push_back({r.pos, r.cigar, static_cast<int>(r.seq.size()), r.mapq, r.reverse, r.sample, first_base});
        used.push_back(&r);
      }
      const std::string ref_region = seq.substr(w.region.begin, w.region.end - w.region.begin);
      std::vector<int> samples;
      if (n_samples > 1) {
        for (const auto& r : w.slice_reads) samples.push_back(r.sample);
      }
      w.haps = assemble(ref_region, w.slices, w.quals, kAssemblyMinBaseQ, opt.min_prune, max_haps, samples);
      const std::vector<std::string> pileup =
          pileup_haplotypes(ref_region, w.region.begin, used, opt.min_base_q, max_haps);
      if (w.haps.size() < 2) {  // no k worked, or the graph shows no alternative to the reference
        w.assembled = false;
        w.haps = pileup;
      }
      for (const std::string& h : w.haps) w.events.push_back(haplotype_events(ref_region, w.region.begin, h, seq));
      if (w.assembled) add_missing_events(ref_region, w.region.begin, seq, pileup, max_haps, w);
      w.capped = static_cast<int>(w.haps.size()) >= max_haps;
      keep_reads_over_sites(w);
    });
  }
  errors.rethrow();
  return work;
}

pairhmm::PairHmmBatch pairhmm_batch(std::vector<RegionWork>& work) {
  // Where each region's reads, bases and haplotypes go (in region order), then every
  // region filled in on all threads.
  pairhmm::PairHmmBatch batch;
  struct At {
    int64_t read = 0, base = 0, hap = 0, hap_base = 0;
  };
  std::vector<At> at(work.size() + 1);
  for (size_t i = 0; i < work.size(); ++i) {
    RegionWork& w = work[i];
    At next = at[i];
    if (w.haps.size() >= 2 && !w.slices.empty()) {
      w.group = static_cast<int32_t>(batch.groups.size());
      batch.groups.push_back({static_cast<int32_t>(at[i].read), static_cast<int32_t>(w.slices.size()),
                              static_cast<int32_t>(at[i].hap), static_cast<int32_t>(w.haps.size())});
      next.read += static_cast<int64_t>(w.slices.size());
      for (const std::string& r : w.slices) next.base += static_cast<int64_t>(r.size());
      next.hap += static_cast<int64_t>(w.haps.size());
      for (const std::string& h : w.haps) next.hap_base += static_cast<int64_t>(h.size());
    }
    at[i + 1] = next;
  }
  const At total = at.back();
  batch.read_begin.resize(total.read), batch.read_len.resize(total.read);
  batch.read_bases.resize(total.base);
  for (auto* v : {&batch.base_q, &batch.ins_q, &batch.del_q, &batch.gcp_q}) v->resize(total.base);
  batch.hap_begin.resize(total.hap), batch.hap_len.resize(total.hap);
  batch.hap_bases.resize(total.hap_base);
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t i = 0; i < work.size(); ++i) {
    const RegionWork& w = work[i];
    if (w.group < 0) continue;
    int64_t read = at[i].read, base = at[i].base;
    for (size_t r = 0; r < w.slices.size(); ++r, ++read) {
      // GATK's base-quality floor (below 18: 6), gap open Q45 both ways, continuation Q10.
      const std::string& s = w.slices[r];
      batch.read_begin[read] = base;
      batch.read_len[read] = static_cast<int32_t>(s.size());
      for (size_t k = 0; k < s.size(); ++k, ++base) {
        batch.read_bases[base] = s[k];
        const uint8_t q = w.quals[r][k];
        batch.base_q[base] = q < 18 ? 6 : q;
        batch.ins_q[base] = 45, batch.del_q[base] = 45, batch.gcp_q[base] = 10;
      }
    }
    int64_t hap = at[i].hap, hap_base = at[i].hap_base;
    for (const std::string& h : w.haps) {
      batch.hap_begin[hap] = hap_base;
      batch.hap_len[hap++] = static_cast<int32_t>(h.size());
      std::copy(h.begin(), h.end(), batch.hap_bases.begin() + hap_base);
      hap_base += static_cast<int64_t>(h.size());
    }
  }
  return batch;
}

std::vector<SiteRecord> genotype_regions(const std::vector<RegionWork>& work, const pairhmm::PairHmmBatch& batch,
                                         const std::vector<double>& lik, const std::string& seq,
                                         const CallOptions& opt, int n_samples) {
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
          call_sites(work[i], lik, offset[work[i].group], seq, opt.het_snp, opt.het_indel, opt.min_qual, opt.gvcf,
                     n_samples);
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
