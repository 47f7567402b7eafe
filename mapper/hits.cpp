// Ranking verified hits and turning the margin between best and second best into MAPQ.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "mapper/detail.hpp"

namespace gatemap::mapper::detail {

void dedupe_hits(std::vector<Hit>& hits, int e) {
  // Same locus = same strand and contig with alignment ends within e: keep the best.
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    if (a.strand != b.strand) return a.strand < b.strand;
    if (a.ref_end != b.ref_end) return a.ref_end < b.ref_end;
    return a.edits < b.edits;
  });
  std::vector<Hit> kept;
  for (const Hit& h : hits) {
    if (!kept.empty() && kept.back().strand == h.strand && kept.back().contig == h.contig &&
        h.ref_end - kept.back().ref_end <= e) {
      if (h.edits < kept.back().edits) kept.back() = h;
      continue;
    }
    kept.push_back(h);
  }
  // A long indel splits a read into two clipped hits (one per side) a few dozen diagonals
  // apart: one locus, which the affine redraw joins (band up to kWideBand), not a repeat.
  std::vector<Hit> joined;
  for (const Hit& h : kept) {
    const auto same_locus = [&](const Hit& k) {
      return k.clipped && h.clipped && k.strand == h.strand && k.contig == h.contig &&
             std::llabs(k.diag - h.diag) <= kWideBand;
    };
    const auto it = std::find_if(joined.begin(), joined.end(), same_locus);
    if (it == joined.end()) {
      joined.push_back(h);
    } else if (h.edits < it->edits) {
      *it = h;
    }
  }
  kept.swap(joined);
  std::stable_sort(kept.begin(), kept.end(), [](const Hit& a, const Hit& b) { return a.edits < b.edits; });
  hits.swap(kept);
}

// Calibrated on simulated human-like data (docs/BENCHMARKS.md): each edit of margin
// between the best and second-best hit is worth 20; a unique hit gets 60. Reads whose
// seeds were partly skipped as repetitive showed no more errors there, so `capped` only
// matters when the best hit is poor (more than 4 edits).
int mapq_from(int best, int second, int n_best, bool capped) {
  if (n_best > 1) return 0;
  int q = second < 0 ? 60 : std::min(60, 20 * (second - best));
  if (capped && best > 4) q -= 10;
  return std::max(0, q);
}

}  // namespace gatemap::mapper::detail
