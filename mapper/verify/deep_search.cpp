// A read whose candidates were cut at --max-cand and whose verified hits are poor (or
// none): a read from one copy of a repeat with hundreds of copies is seeded mostly by
// k-mers the copies share, so its own copy may rank below the best supported ones (a
// 100-base read one edit from its home placed on another copy at 3-4 edits, MAPQ 60).
// It is seeded again with kDeepCandidates per strand, and the candidates not tried
// before whose seed support leaves room for a better hit than its best are verified on
// the CPU, whatever the filter said (so every filter setting and backend gives the same
// records).
#include <algorithm>

#include "mapper/seeding/seed.hpp"
#include "mapper/verify/verifier.hpp"

namespace gatemap::mapper::detail {

namespace {

int best_edits(const SeededRead& w, const ReadHits& hits) {
  int best = w.max_edits + 1;
  for (const Hit& h : hits) best = std::min(best, h.edits);
  return best;
}

}  // namespace

bool Verifier::needs_deep_search(const SeededRead& w, const ReadHits& hits, const SeedOptions& opt) {
  // A --max-cand of kDeepCandidates or more already went as deep.
  // Only when the cap left out clusters that can hold a hit: the deep search tries no others.
  return opt.max_candidates < kDeepCandidates && w.cap_left_hits && 2 * best_edits(w, hits) > w.max_edits;
}

void Verifier::deep_search(const SeededRead& w, const SeedOptions& opt, ReadHits& hits, Workspace& ws) const {
  SeededRead& deep = ws.deep;
  deep.codes[0] = w.codes[0];
  deep.codes[1] = w.codes[1];
  deep.max_edits = w.max_edits;
  SeedOptions wide = opt;
  wide.max_candidates = kDeepCandidates;
  const int better = std::min(w.max_edits, best_edits(w, hits) - 1);  // edits of a better hit
  collect_candidates(ref_.index(), deep, wide, ws.seed, better);
  std::vector<std::pair<uint8_t, int64_t>>& tried = ws.tried;
  tried.clear();
  for (const Candidate& c : w.cand) tried.emplace_back(c.strand, c.diag);
  std::sort(tried.begin(), tried.end());
  for (const Candidate& c : deep.cand) {
    if (std::binary_search(tried.begin(), tried.end(), std::pair{c.strand, c.diag})) continue;
    const Hit h = verify_one(w, c, w.max_edits, c.diag, ws);
    if (h.edits >= 0) hits.push_back(h);
  }
}

}  // namespace gatemap::mapper::detail
