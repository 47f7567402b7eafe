#pragma once
// Verification of candidates: the exact edit distance of the whole read against the
// reference, restricted to the diagonal band [diag-e, diag+e] (the band GateKeeper
// filters) and to its contig (bases past a contig end can only be insertions, which
// become soft clips). Ukkonen-banded DP, O(m*(2e+1)); the traceback prefers diagonal
// moves, so indels come out left-aligned. With clip_penalty > 0 either read end may be
// left unaligned (soft-clipped) at clip_penalty + (clipped bases)/4: the fallback for reads with no hit within
// e (long indels, adapters), like bwa's clipping penalty.
#include <cstdint>
#include <string>
#include <vector>

namespace gatemap::mapper {

// A reference window as codes 0..3, with 4 for N; position 0 is global `begin`.
struct RefWindow {
  int64_t begin = 0;
  std::vector<uint8_t> codes;
};

// Buffers of the banded DP, owned by the caller and reused by one thread across calls.
struct DpScratch {
  std::vector<int> cost;        // cells of the band (the distance without clipping)
  std::vector<uint64_t> keys;   // cells of the band with the row each path starts at (clipping, alignment)
  std::vector<uint8_t> moves;   // traceback
};

struct BandResult {
  int edits = -1;        // -1 when above max_edits
  int64_t ref_end = 0;   // global end (exclusive) of the best alignment
};

struct Alignment {
  int edits = 0;           // NM: edits in the aligned part
  int score = 0;           // the DP's cost (edits, plus clip penalties)
  int clipped = 0;         // soft-clipped read bases
  int64_t ref_begin = 0;   // global, first reference base of the alignment
  int64_t ref_end = 0;
  std::vector<uint32_t> cigar;  // BAM-encoded; leading/trailing insertions as soft clips
  std::string md;               // MD:Z
};

// Distance only. read: codes (0..3, 4 = N). window must cover [diag-e, diag+m+e) ∩ contig,
// with window.begin >= contig_begin. Ties: fewest edits, then end nearest the band centre,
// then the leftmost end. Thread-safe with one `scratch` per thread.
// `band` is the half-width of the diagonal band (= e for verification, wider for mate
// rescue); alignments above max_edits are not reported.
BandResult banded_distance(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                           int64_t contig_end, int64_t diag, int band, int max_edits, DpScratch& scratch,
                           int clip_penalty = 0);

// Full alignment ending at the result of banded_distance (same inputs).
Alignment banded_align(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                       int64_t contig_end, int64_t diag, int band, DpScratch& scratch, int clip_penalty = 0);

// Both in one pass over the band: banded_distance's result, and when it is within
// max_edits, banded_align's alignment in `aln` (a clipped candidate that passes is
// aligned at once, not filled again).
BandResult banded_align_within(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                               int64_t contig_end, int64_t diag, int band, int max_edits, DpScratch& scratch,
                               int clip_penalty, Alignment& aln);

// The alignment along a path: ops 'M' (match or mismatch), 'I', 'D' in read order,
// covering read rows [start_row, end_row) from reference position ref_begin. Marks
// mismatches, clips the ends as a local aligner would (unless local_ends is false: the
// path's ends are final), and builds CIGAR, NM and MD. window must cover the path.
Alignment alignment_from_path(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                              int64_t contig_end, std::vector<char>& ops, int start_row, int end_row,
                              int64_t ref_begin, int score, bool local_ends = true);

// The alignment of the read at ref_begin without gaps, when it has exactly `edits`
// mismatches there (false otherwise, or when the window does not cover it): what
// alignment_from_path gives for that path (local ends, score = edits), from the
// mismatches alone. Most hits are such.
bool ungapped_alignment(const uint8_t* read, int m, const RefWindow& window, int64_t ref_begin, int edits,
                        Alignment& out);

}  // namespace gatemap::mapper
