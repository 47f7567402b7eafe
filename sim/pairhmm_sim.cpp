#include "sim/pairhmm_sim.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/rng.hpp"

namespace gatemap::sim {

namespace {

int log_uniform(Rng& rng, int lo, int hi) {
  if (hi <= lo) return lo;
  const double x = std::log(lo) + rng.uniform() * (std::log(hi + 1.0) - std::log(lo));
  return std::clamp(static_cast<int>(std::exp(x)), lo, hi);
}

char random_base(Rng& rng) { return "ACGT"[rng.below(4)]; }

}  // namespace

void simulate_pairhmm_batch(const PairHmmSimOptions& opt, caller::pairhmm::PairHmmBatch& batch) {
  Rng rng(opt.seed);
  for (int g = 0; g < opt.groups; ++g) {
    const int group_read_len = log_uniform(rng, opt.min_read_len, opt.max_read_len);
    const int group_hap_len = log_uniform(rng, opt.min_hap_len, opt.max_hap_len);
    const int32_t first_hap = static_cast<int32_t>(batch.hap_len.size());
    // The haplotypes of a region are variants of one founder sequence.
    std::string founder(opt.vary_within_group ? opt.max_hap_len : group_hap_len, 'A');
    for (char& c : founder) c = random_base(rng);
    std::vector<std::string> haps;
    for (int h = 0; h < opt.haps_per_group; ++h) {
      const int len = opt.vary_within_group ? log_uniform(rng, opt.min_hap_len, opt.max_hap_len) : group_hap_len;
      std::string s = founder.substr(0, len);
      const double divergence = std::min(opt.hap_divergence, 2.0 / len);
      for (char& c : s) {
        if (rng.uniform() < divergence) c = random_base(rng);
        if (rng.uniform() < opt.n_rate) c = 'N';
      }
      batch.add_haplotype(s);
      haps.push_back(std::move(s));
    }
    const int32_t first_read = static_cast<int32_t>(batch.read_len.size());
    for (int r = 0; r < opt.reads_per_group; ++r) {
      const int len = opt.vary_within_group ? log_uniform(rng, opt.min_read_len, opt.max_read_len) : group_read_len;
      const std::string& src = haps[rng.below(static_cast<int64_t>(haps.size()))];
      const bool unrelated = rng.uniform() < opt.unrelated_fraction;
      const double err = std::min(opt.max_error_rate * rng.uniform(), 8.0 / len);
      const int64_t start = rng.below(std::max<int64_t>(1, static_cast<int64_t>(src.size()) - len + 1));
      std::string bases(len, 'A');
      std::vector<uint8_t> q(len), ins(len), del(len), gcp(len, 10);
      for (int i = 0; i < len; ++i) {
        const int64_t at = start + i;
        char c = (!unrelated && at < static_cast<int64_t>(src.size())) ? src[at] : random_base(rng);
        if (c == 'N') c = random_base(rng);
        if (rng.uniform() < err) c = "ACGT"[(std::string("ACGT").find(c) + 1 + rng.below(3)) % 4];
        if (rng.uniform() < opt.n_rate) c = 'N';
        bases[i] = c;
        q[i] = static_cast<uint8_t>(rng.range(10, 40));
        ins[i] = static_cast<uint8_t>(rng.range(35, 50));
        del[i] = static_cast<uint8_t>(rng.range(35, 50));
      }
      batch.add_read(bases, q, ins, del, gcp);
    }
    batch.add_group(first_read, opt.reads_per_group, first_hap, opt.haps_per_group);
  }
}

}  // namespace gatemap::sim
