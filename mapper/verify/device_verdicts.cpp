#include "mapper/verify/device_verdicts.hpp"

#include <algorithm>
#include <climits>

namespace gatemap::mapper::detail {

void order_verdicts(const index::Index& idx, const seeding::SeedClusters& clusters,
                    std::vector<verifying::VerifiedCluster>& kept, const std::vector<SeededRead>& seeded,
                    DeviceVerdicts& out) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  const std::vector<int64_t>& cf = clusters.first;
  // Read r's kept clusters: those with an index in [cf[2r], cf[2r + 2]), one after another.
  std::vector<int64_t>& first = out.first;
  first.assign(static_cast<size_t>(n + 1), 0);
  for (int64_t r = 0, k = 0; r < n; ++r) {
    while (k < static_cast<int64_t>(kept.size()) && kept[static_cast<size_t>(k)].index < cf[2 * r + 2]) ++k;
    first[r + 1] = k;
  }
  out.verdicts.resize(kept.size());
  std::vector<uint8_t> need(static_cast<size_t>(n));
  const auto by_support = [](const verifying::VerifiedCluster& a, const verifying::VerifiedCluster& b) {
    return a.cluster.support != b.cluster.support ? a.cluster.support > b.cluster.support : a.index < b.index;
  };
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    const auto begin = kept.begin() + first[r], end = kept.begin() + first[r + 1];
    const auto reverse = std::partition_point(begin, end, [&](const auto& v) { return v.index < cf[2 * r + 1]; });
    if (clusters.cap_hit[2 * r]) std::sort(begin, reverse, by_support);
    if (clusters.cap_hit[2 * r + 1]) std::sort(reverse, end, by_support);
    int32_t contig = -1;  // the last one looked up, [lo, hi): a read's candidates mostly share it
    int64_t lo = 0, hi = 0;
    int best = INT_MAX;
    bool left_to_cpu = false;
    for (auto v = begin; v != end; ++v) {
      const int64_t pos = v->cluster.diag + v->cluster.seed_offset;
      if (contig < 0 || pos < lo || pos >= hi) {
        contig = idx.contig_of(pos);
        if (contig >= 0) {
          lo = idx.contigs()[static_cast<size_t>(contig)].begin;
          hi = lo + idx.contigs()[static_cast<size_t>(contig)].length;
        }
      }
      const auto strand = static_cast<uint8_t>(v < reverse ? 0 : 1);
      out.verdicts[static_cast<size_t>(v - kept.begin())] = {
          {strand, static_cast<uint32_t>(contig), v->cluster.diag, v->cluster.support}, v->result};
      if (v->result.edits == verifying::kNotVerified) {
        left_to_cpu = true;
      } else {
        best = std::min(best, v->result.edits);
      }
    }
    const SeededRead& w = seeded[r];
    need[r] = left_to_cpu || best == INT_MAX || (w.cap_left_hits && 2 * best > w.max_edits);
  }
  out.need_candidates.clear();
  for (int64_t r = 0; r < n; ++r) {
    if (need[r]) out.need_candidates.push_back(static_cast<uint32_t>(r));
  }
}

}  // namespace gatemap::mapper::detail
