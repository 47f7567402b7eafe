#pragma once
// Internal types shared by the mapper's stages (not part of the public interface).
#include <cstdint>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "mapper/verify.hpp"

namespace gatemap::mapper::detail {

struct Candidate {
  uint8_t strand;
  uint32_t contig;
  int64_t diag;      // global position of the read's first base
  uint32_t support;  // seed hits in its cluster
};

struct Hit {
  uint8_t strand = 0;
  uint32_t contig = 0;
  int64_t diag = 0;
  int edits = 0;          // DP cost: edits, plus the clip penalty for clipped hits
  int64_t ref_end = 0;
  bool clipped = false;   // found by the fallback (band 2e, soft clips allowed)
};

constexpr int kClipPenalty = 5;     // cost of leaving one read end unaligned
constexpr int kWideBand = 100;     // band of the affine redraw of clipped alignments
constexpr int kClipCandidates = 8;  // best-supported candidates tried by the fallback
constexpr int kMinRescuedBases = 20;  // aligned bases of a mate rescued next to its partner
constexpr int kMinSplitPart = 30;     // soft-clipped bases mapped as a part of a chimeric read
constexpr size_t kMaxXaHits = 5;      // other placements listed in XA:Z at most (bwa mem -h 5)
constexpr int kTruncatedClippedMapq = 10;  // most MAPQ of a clipped hit of a read at --max-cand
// Edits a mate may take beyond its own best hit to be placed next to its partner, and
// the MAPQ that price is worth at 20 per edit (bwa-mem's unpaired penalty of 17 is about
// 3.4 of its mismatches).
constexpr int kUnpairedPenalty = 3;
constexpr int kUnpairedPhred = 70;
// Most an insert size may cost a pair (pair_score), below one edit's 20: edits decide first.
constexpr int kMaxInsertPhred = 19;

// Per-read working state for one batch.
struct ReadWork {
  std::vector<uint8_t> codes[2];  // forward and reverse complement, 0..3 and 4 = N
  int e = 0;                      // edit threshold for this read
  bool capped = false;            // some seeds were skipped as too repetitive
  bool cand_cap_hit = false;      // more candidates than --max-cand
  std::vector<Candidate> cand;
  std::vector<Hit> hits;          // verified, deduplicated, best first
};

// Seeds both strands and clusters their diagonals into candidates (best supported first).
// Fills both strands' codes of a read (0..3, 4 = N).
void set_read_codes(ReadWork& w, const std::string& seq);

// Reads longer than kMaxSeedReadLen get no candidates (they are reported unmapped).
constexpr int kSeedOffsetBits = 22;
constexpr int kMaxSeedReadLen = 1 << kSeedOffsetBits;
void collect_candidates(const index::Index& idx, ReadWork& w, uint32_t max_occ, int max_candidates);

// Mate rescue's seeds: the best-supported diagonals (global position of the read's first
// base) of k-mers the read shares with a reference window, clusters of hits within
// `merge`, at least two hits each, at most max_diagonals.
constexpr int kWindowSeedK = 11;
std::vector<int64_t> window_diagonals(const uint8_t* read, int m, const RefWindow& win, int max_diagonals, int merge);

// Reference codes of [begin, end) clipped to the index, N runs as 4.
void fetch_window(const index::Index& idx, int64_t begin, int64_t end, RefWindow& out);

// Sorts hits best first (edits, then position, strand) and merges hits of the same locus.
void dedupe_hits(std::vector<Hit>& hits, int e);

// Price of one edit in the phred-scaled scores that rank placements.
constexpr int kEditPhred = 20;
// MAPQ of the best placement (score `best`, `best_edits` edits) among all placements'
// phred-scaled scores (lower is better; the best one included).
int mapq_from_scores(const std::vector<int>& scores, int best, int best_edits, bool capped);

}  // namespace gatemap::mapper::detail
