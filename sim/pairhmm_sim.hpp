#pragma once
// Random pair-HMM batches for tests and benchmarks, shaped like active regions: the
// haplotypes of a group are variants of one random founder sequence, each read is
// copied from one of them with substitutions (optionally some unrelated reads, whose
// likelihoods fall below float range), with GATK-like qualities.
#include <cstdint>

#include "caller/pairhmm/pairhmm.hpp"

namespace gatemap::sim {

struct PairHmmSimOptions {
  int groups = 1;
  int reads_per_group = 32;
  int haps_per_group = 32;
  int min_read_len = 100, max_read_len = 100;  // drawn log-uniformly per group when they differ
  int min_hap_len = 100, max_hap_len = 100;
  bool vary_within_group = false;  // draw lengths per read and haplotype instead of per group
  double hap_divergence = 0.01;    // substitution rate of each haplotype against the founder (at most ~2 per haplotype)
  double max_error_rate = 0.02;    // per-read substitution rate in [0, max] (capped at ~8 per read)
  double unrelated_fraction = 0;   // reads of random bases (log10 likelihood far below float range)
  double n_rate = 0;               // N bases in reads and haplotypes
  uint64_t seed = 1;
};

void simulate_pairhmm_batch(const PairHmmSimOptions& opt, caller::pairhmm::PairHmmBatch& batch);

}  // namespace gatemap::sim
