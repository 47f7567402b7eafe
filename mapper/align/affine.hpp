#pragma once
// The alignment a record reports. Hits are found and ranked by edit distance, but an
// edit-distance path may split one indel into several (65M1I4M1I6M6I18M for an 8-base
// insertion in a repeat) or clip a read at a long deletion, and variant callers read
// the CIGAR. So a hit's alignment is drawn again with affine gaps and bwa-mem's scores
// (match +1, mismatch -4, gap -(6 + length), soft clip of either end -5, clipped on a
// tie as bwa mem does), in a band around the hit's diagonal, and every gap is shifted as
// far left as it goes.
#include <cstdint>
#include <vector>

#include "mapper/align/banded_dp.hpp"

namespace gatemap::mapper {

struct AffineScores {
  int match = 1, mismatch = 4, n = 1, gap_open = 6, gap_extend = 1, clip = 5;
};

// Buffers of affine_align, owned by the caller and reused by one thread.
struct AffineScratch {
  std::vector<int> rows;       // H and F rows
  std::vector<uint8_t> moves;  // traceback
};

// Best-scoring alignment of the whole read (either end may be soft-clipped at
// scores.clip) against the diagonal band [diag - band, diag + band] inside the contig.
// window must cover [diag - band, diag + m + band) ∩ contig. read: codes 0..3, 4 = N.
// The result's score field is `score` (the caller's ranking cost), its CIGAR, NM and
// MD describe the affine path. Thread-safe with one `scratch` per thread.
Alignment affine_align(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin, int64_t contig_end,
                       int64_t diag, int band, int score, AffineScratch& scratch, const AffineScores& scores = {});

// Shifts every insertion and deletion of a path (ops 'M', 'I', 'D' over read rows from
// start_row, reference from ref_begin) left while the alignment stays the same, never
// in front of the path's first aligned base.
void left_align_gaps(std::vector<char>& ops, const uint8_t* read, int start_row, const RefWindow& window,
                     int64_t ref_begin);

}  // namespace gatemap::mapper
