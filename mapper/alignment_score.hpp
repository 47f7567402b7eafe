#pragma once
// bwa-mem's alignment score of a reported alignment, for AS:i and XS:i: match +1,
// mismatch -4, N against anything -1, a gap of length L -(6 + L). As bwa's, it is the
// best local score along the alignment: bwa extends a seed and keeps the highest score
// it reached, even where it then aligns on to the read's end (a mismatch 3 bases from
// the end: 150M, AS 141 = 146 bases with one mismatch before it, not 140), and soft
// clips cost nothing (bwa pays its clip penalty only when choosing to clip). Filters
// written for bwa's output (AS >= 0.9 x read length, AS - XS) then work on ours.
#include <cstdint>
#include <vector>

#include "mapper/align/affine.hpp"
#include "mapper/align/banded_dp.hpp"

namespace gatemap::mapper {

// read: codes (0..3, 4 = N) on the alignment's strand, the CIGAR's order; aln's MD must
// describe its aligned bases (an ungapped one is scored from it alone); window covers
// [aln.ref_begin, aln.ref_end) and, for the diagonals on past a gap, as far beyond as
// it reaches. The best-scoring run of the path's bases and gaps, at least 0.
int alignment_score(const uint8_t* read, const Alignment& aln, const RefWindow& window,
                    const AffineScores& scores = {});

}  // namespace gatemap::mapper
