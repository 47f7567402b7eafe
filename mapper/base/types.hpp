#pragma once
// The data that flows between the mapper's stages (internal; docs/ARCHITECTURE.md):
// SeededRead (seed) -> CandidateBatch (candidates) -> filter codes -> ReadHits (verify)
// -> ReadPlacement (placement) -> SAM records (records). Positions are global over all
// contigs (the index's coordinates), 0-based; records make them contig-local.
#include <cstdint>
#include <vector>

namespace gatemap::mapper::detail {

// A candidate location: a cluster of seed hits on one diagonal.
struct Candidate {
  uint8_t strand;
  uint32_t contig;
  int64_t diag;      // global position of the read's first base
  uint32_t support;  // seed hits in its cluster
};

// A cluster of seed hits before the --max-cand cap: its centre diagonal, the read offset
// of that diagonal's first hit (diag + seed_offset, its reference position, names the
// contig), and its hits. 16 bytes: the GPU seeder sends these back.
struct SeedCluster {
  int64_t diag;
  uint32_t seed_offset;
  uint32_t support;
};

// A verified location of a read.
struct Hit {
  uint8_t strand = 0;
  uint32_t contig = 0;
  int64_t diag = 0;
  int edits = 0;  // DP cost: edits, plus the clip penalty for clipped hits
  // A clipped hit's alignment, once made (clip_head -1: not yet): its first aligned
  // reference base less diag, and the read bases it soft-clips at each end (dedupe_hits).
  int32_t aligned_from = 0;
  int64_t ref_end = 0;
  bool clipped = false;  // found by the fallback (band 2 * max_edits, soft clips allowed)
  int16_t clip_head = -1, clip_tail = -1;
};

// A read after seeding: its codes on both strands, its edit threshold, its candidates.
struct SeededRead {
  std::vector<uint8_t> codes[2];  // forward and reverse complement, 0..3 and 4 = N
  int max_edits = 0;              // -e, or 4% of the read's length
  bool capped = false;            // some seeds were skipped as too repetitive
  bool cand_cap_hit = false;      // more candidates than --max-cand
  bool cap_left_hits = false;     // of those left out, some whose support can hold a hit (the deep search's cue)
  std::vector<Candidate> cand;    // best supported first, per strand
  int length() const { return static_cast<int>(codes[0].size()); }
};

// A read's verified hits: deduplicated, best first.
using ReadHits = std::vector<Hit>;

constexpr int kClipPenalty = 5;            // cost of leaving one read end unaligned
constexpr int kWideBand = 100;             // band of the affine redraw of clipped alignments
constexpr int kClipCandidates = 8;         // best-supported candidates tried by the fallback
constexpr int kDeepCandidates = 1024;      // candidates per strand of a deep search (deep_search.cpp)
constexpr int kMinRescuedBases = 20;       // aligned bases of a mate rescued next to its partner
constexpr int kMinSplitPart = 30;          // soft-clipped bases mapped as a part of a chimeric read
constexpr size_t kMaxXaHits = 5;           // other placements listed in XA:Z at most (bwa mem -h 5)
constexpr int kTruncatedClippedMapq = 10;  // most MAPQ of a clipped hit of a read at --max-cand
// Edits a mate may take beyond its own best hit to be placed next to its partner, and
// the MAPQ that price is worth (bwa-mem's unpaired penalty of 17 is about 3.4 of its
// mismatches).
constexpr int kUnpairedPenalty = 3;
constexpr int kUnpairedPhred = 100;
// Price of one edit in the phred-scaled scores that rank placements: bwa-mem's mismatch
// (4 + 1 of its score units at 6.02 phred each); one placement an edit behind gets 30.
constexpr int kEditPhred = 30;
// Most an insert size may cost a pair (pair_score): the normal model's density ratio up
// to about an edit and a third, as real libraries have heavier tails than a normal. A
// pair with an edit more and a usual insert beats one with an insert 4.5 sd out.
constexpr int kMaxInsertPhred = 40;

}  // namespace gatemap::mapper::detail
