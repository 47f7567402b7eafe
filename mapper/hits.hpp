#pragma once
// Ranking a read's verified hits: merging hits of one locus, the best placement with its
// second-best and MAPQ (the other placements' odds against the best).
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/base/types.hpp"

namespace gatemap::mapper::detail {

// Sorts hits best first (edits, then position, strand) and merges hits of the same locus
// (alignment ends within max_edits; the two clipped halves of a long indel).
void dedupe_hits(std::vector<Hit>& hits, int max_edits);

// Placements are ranked by phred-scaled scores (lower is better): the odds of one
// scoring `score` (>= best) against the best one, and the MAPQ of the best (`best_edits`
// edits) when all the others' odds sum to `others`.
double odds_against(int score, int best);
int mapq_from_odds(double others, int best_edits, bool capped);

// One best hit (ties share the best edits).
bool unique(const ReadHits& hits);

struct BestPlacement {
  const Hit* hit = nullptr;  // primary hit, null = unmapped
  int mapq = 0;
};

// The best of a read's hits (sorted best first; ties broken by `tie`, a hash of the
// read name) and its MAPQ.
BestPlacement best_placement(const ReadHits& hits, uint64_t tie, bool capped);

// Deterministic tie-breaking: a hash of the read name, never thread or arrival order.
uint64_t name_hash(const std::string& name);

}  // namespace gatemap::mapper::detail
