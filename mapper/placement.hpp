#pragma once
// Placement (mapper stage 5): a read's (or a pair's) verified hits -> where it goes:
// the primary hit with MAPQ and second-best, pairing with the insert model, mate rescue
// next to a placed partner, the reported alignment (affine redraw), the other placements
// (XA:Z, or secondary records with -a) and the parts of a chimeric read. No htslib: the
// records stage formats what this decides.
#include <cstdint>
#include <vector>

#include "mapper/align/banded_dp.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/base/types.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/hits.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/verify/verifier.hpp"

namespace gatemap::mapper::detail {

// A part of a chimeric read: a long soft clip of the primary alignment mapped by itself.
struct SplitPart {
  uint8_t strand = 0;
  uint32_t contig = 0;
  int read_begin = 0, read_end = 0;  // the part's bases, in the read's own orientation
  Alignment aln;                     // of those bases alone, on `strand` (global coordinates)
  int mapq = 0;
  int score = 0;         // AS: bwa-mem's score of aln (mapper/alignment_score.hpp)
  int second_score = 0;  // XS: of the part's best other hit, 0 without one
};

struct OtherPlacement {
  const Hit* hit = nullptr;
  Alignment aln;  // the hit's edit-distance path (not redrawn)
  int score = 0;  // AS of its record with -a
};

struct ReadPlacement {
  const Hit* hit = nullptr;  // the primary hit (into the read's ReadHits); null = unmapped
  int mapq = 0;
  Alignment aln;                       // the primary's reported alignment
  int score = 0;                       // AS: bwa-mem's score of aln (mapper/alignment_score.hpp)
  int second_score = 0;                // XS: of the best other hit, 0 without one (as bwa writes)
  std::vector<OtherPlacement> others;  // -a: every other hit; else at most kMaxXaHits, for XA:Z
  std::vector<SplitPart> parts;        // chimeric parts, away from the primary
};

struct PairPlacement {
  ReadPlacement read[2];
  bool proper = false;  // both placed as a proper pair
  int rescued = 0;      // rescue steps that added hits
};

// Thread-safe with one Workspace per thread; hits of the reads must outlive the placements.
class Placer {
 public:
  Placer(const Reference& ref, const Verifier& verifier, const MapOptions& opt)
      : ref_(ref), verifier_(verifier), opt_(opt) {}

  // tie: a hash of the read's name (hits.hpp), for deterministic ties.
  ReadPlacement place_single(const SeededRead& read, const ReadHits& hits, uint64_t tie, Workspace& ws) const;
  // Mates 0 and 1; rescue may add hits to either mate's ReadHits.
  PairPlacement place_pair(const SeededRead* const read[2], ReadHits* const hits[2], const uint64_t tie[2],
                           const InsertModel& insert, Workspace& ws) const;

 private:
  struct PairChoice {
    const Hit* h[2] = {nullptr, nullptr};  // the chosen proper pair, if any
    int mapq[2] = {0, 0};                  // each mate's: the odds of the pairs that place it elsewhere
  };
  BestPlacement best_of(const SeededRead& read, const ReadHits& hits, uint64_t tie) const;
  PairChoice choose_pair(const SeededRead* const read[2], ReadHits* const hits[2], uint64_t tie,
                         const InsertModel& insert) const;
  // Rescue steps of place_pair; each returns the number of hits added.
  int rescue_lost_mates(const SeededRead* const read[2], ReadHits* const hits[2], const InsertModel& insert,
                        Workspace& ws) const;
  int rescue_next_to_partner(const SeededRead* const read[2], ReadHits* const hits[2], const InsertModel& insert,
                             Workspace& ws) const;
  // mapper/rescue.cpp: hits of `lost` next to `found`'s best hits, where the insert puts it.
  std::vector<Hit> rescue(const ReadHits& found, const SeededRead& lost, int max_cost, const InsertModel& insert,
                          Workspace& ws) const;
  // The alignment, other placements and chimeric parts of a placed read.
  void describe(const SeededRead& read, const ReadHits& hits, uint64_t tie, ReadPlacement& p, Workspace& ws) const;
  // bwa-mem's score of an alignment of `read`'s strand h.strand.
  int score_of(const SeededRead& read, const Hit& h, const Alignment& aln, Workspace& ws) const;
  // XS: the best score among the other placements aligned for XA (others), else the
  // fewest-edits hit other than `chosen`; 0 without one. Never below 0: bwa's
  // suboptimal score is of a local alignment.
  int second_score(const SeededRead& read, const ReadHits& hits, const Hit& chosen,
                   const std::vector<OtherPlacement>& others, Workspace& ws) const;
  // mapper/split_parts.cpp
  std::vector<SplitPart> split_parts(const SeededRead& read, const Hit& primary, const Alignment& aln, uint64_t tie,
                                     Workspace& ws) const;

  const Reference& ref_;
  const Verifier& verifier_;
  const MapOptions& opt_;
};

}  // namespace gatemap::mapper::detail
