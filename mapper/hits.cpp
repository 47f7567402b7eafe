// Ranking verified hits and turning the other placements' odds against the best into MAPQ.
#include "mapper/hits.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace gatemap::mapper::detail {

void dedupe_hits(std::vector<Hit>& hits, int max_edits) {
  if (hits.size() < 2) return;  // nothing to merge (the common case: no allocation)
  // Same locus = same strand and contig with alignment ends within max_edits: keep the best.
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    if (a.strand != b.strand) return a.strand < b.strand;
    if (a.ref_end != b.ref_end) return a.ref_end < b.ref_end;
    return a.edits < b.edits;
  });
  std::vector<Hit> kept;
  for (const Hit& h : hits) {
    if (!kept.empty() && kept.back().strand == h.strand && kept.back().contig == h.contig &&
        h.ref_end - kept.back().ref_end <= max_edits) {
      if (h.edits < kept.back().edits) kept.back() = h;
      continue;
    }
    kept.push_back(h);
  }
  // A long indel splits a read into two clipped hits (one per side) a few dozen diagonals
  // apart: one locus, which the affine redraw joins (band up to kWideBand), not a repeat.
  // But two hits that align the same part of the read (the same clips) from places
  // further apart are that part on copies of a tandem repeat: placements of their own
  // (bwa-mem: an equal XS, MAPQ ~0).
  std::vector<Hit> joined;
  for (const Hit& h : kept) {
    const auto same_locus = [&](const Hit& k) {
      const bool repeat_copy = k.clip_head >= 0 && h.clip_head >= 0 &&
                               std::abs(k.clip_head - h.clip_head) <= max_edits &&
                               std::abs(k.clip_tail - h.clip_tail) <= max_edits &&
                               std::llabs((k.diag + k.aligned_from) - (h.diag + h.aligned_from)) > max_edits;
      return k.clipped && k.strand == h.strand && k.contig == h.contig && std::llabs(k.diag - h.diag) <= kWideBand &&
             !repeat_copy;
    };
    const auto it = h.clipped ? std::find_if(joined.begin(), joined.end(), same_locus) : joined.end();
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

// 10^(-score difference / 10).
double odds_against(int score, int best) {
  // 10^(-d/10) for the differences that can count (beyond kFar, under 1e-12 each: even
  // hundreds of them move no MAPQ, which only sees odds above 1e-6).
  constexpr int kFar = 120;
  static const auto odds = [] {
    std::array<double, kFar + 1> t{};
    for (int d = 0; d <= kFar; ++d) t[d] = std::pow(10.0, -d / 10.0);
    return t;
  }();
  const int d = score - best;
  return d <= kFar ? odds[d] : 0;
}

// The others' odds against the best (odds_against) summed: -10 log10 of the sum is the
// margin to the next placement less 10 log10 of how many lie near it (bwa-mem's n_sub),
// so that copies of a repeat share the doubt. An edit is worth kEditPhred, 30 as
// bwa-mem's mismatch (at 20, simulated pairs one edit from their second placement got
// 13-19 and 3 in 683 were wrong). Reads whose seeds were partly skipped as repetitive
// showed no more errors there, so `capped` only matters when the best hit is poor (more
// than 4 edits). A placement less than 1.5 times as likely as all others together
// (P < 0.6) gets 0, as a tie does: MAPQ 1 and up mean "more likely right than not,
// clearly" (simulated pairs: the placements just above that line were 27% wrong, MAPQ 2-3).
int mapq_from_odds(double others, int best_edits, bool capped) {
  int q = 60;
  if (others > 1 / 1.5) {
    q = 0;
  } else if (others > 1e-6) {
    q = std::min(60, static_cast<int>(std::lround(-10 * std::log10(others))));
  }
  if (capped && best_edits > 4) q -= 10;
  return std::max(0, q);
}

bool unique(const ReadHits& hits) { return hits.size() == 1 || (hits.size() > 1 && hits[1].edits > hits[0].edits); }

// The clipped fallback's costs (edits, clip penalties, a quarter per clipped base) are a
// coarser measure than edits, and it tries only a few candidates: a unit of its margin
// is worth half an edit's.
BestPlacement best_placement(const ReadHits& hits, uint64_t tie, bool capped) {
  BestPlacement f;
  if (hits.empty()) return f;
  const int best = hits[0].edits;
  int nb = 0;
  while (nb < static_cast<int>(hits.size()) && hits[nb].edits == best) ++nb;
  f.hit = &hits[tie % static_cast<uint64_t>(nb)];
  const int price = hits[0].clipped ? kEditPhred / 2 : kEditPhred;
  double others = -1;  // the best placement itself is among the hits
  for (const Hit& h : hits) others += odds_against(price * h.edits, price * best);
  f.mapq = mapq_from_odds(others, best, capped);
  return f;
}

uint64_t name_hash(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h ^ 0x5bd1e9955bd1e995ULL;
}

}  // namespace gatemap::mapper::detail
