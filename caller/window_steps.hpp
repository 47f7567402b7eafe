#pragma once
// A window's steps between its active regions and its calls, each on all threads:
// regions -> read slices and candidate haplotypes (assembly) -> one pair-HMM batch ->
// genotyped sites. The run (call.cpp) orders them and overlaps a window's pair-HMM on the
// GPU with the next window's assembly.
#include <string>
#include <vector>

#include "caller/caller.hpp"
#include "caller/detail.hpp"
#include "caller/pairhmm/pairhmm.hpp"

namespace gatemap::caller::detail {

// n_samples: of the run (the haplotype cap grows with it).
std::vector<RegionWork> assemble_regions(const std::vector<Region>& regions, const std::vector<AlignedRead>& reads,
                                         const std::string& contig_seq, const CallOptions& opt, int n_samples);

// Reads x haplotypes of every region with an alternative, one group each (sets group).
pairhmm::PairHmmBatch pairhmm_batch(std::vector<RegionWork>& work);

// The sites of every region from the batch's likelihoods (n_samples genotyped), sorted
// by position and then by distance from the region's core.
std::vector<SiteRecord> genotype_regions(const std::vector<RegionWork>& work, const pairhmm::PairHmmBatch& batch,
                                         const std::vector<double>& lik, const std::string& contig_seq,
                                         const CallOptions& opt, int n_samples);

}  // namespace gatemap::caller::detail
