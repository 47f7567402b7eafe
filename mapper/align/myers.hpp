#pragma once
// Banded Myers bit-vector verification (Myers 1999, in the band layout of Hyyro 2003):
// the same distance and end as banded_distance() without clipping, one machine word per
// read base instead of one DP cell per band position.
//
// Layout: bit t of the word for read row i is the band cell (i, t), which ends at
// reference position diag - band + i + t. Moving down one row shifts the band one base
// right, so the previous row's vertical deltas are shifted right by one bit before each
// step. Cells outside the band count as +infinity in banded_distance; a delta of +1 at
// the band's two open edges has the same effect (a move from there never wins), so
// the edges enter the recurrence as positive deltas.
#include <cstdint>
#include <vector>

#include "mapper/align/banded_dp.hpp"

namespace gatemap::mapper {

constexpr int kMyersMaxBand = 31;  // 2 * band + 1 cells fit one 64-bit word

// One read row of the band: vertical deltas (+1 in vp, -1 in vn) and the cost of its
// last cell.
struct MyersRow {
  uint64_t vp = 0, vn = 0;
  int score = 0;
};

// The reference as two bit-planes (PackedSeq layout), `length` bases.
struct PlaneRef {
  const uint64_t* hi = nullptr;
  const uint64_t* lo = nullptr;
  int64_t length = 0;
};

// Equals banded_distance(read, m, window, cb, ce, diag, band, max_edits, scratch) with
// no clipping, provided band <= kMyersMaxBand and the whole band, reference positions
// [diag - band, diag + m + band), lies inside the contig [cb, ce) and holds no N (the
// caller checks both). read: codes 0..3, 4 = N (never matches).
BandResult myers_banded_distance(const uint8_t* read, int m, const PlaneRef& ref, int64_t diag, int band,
                                 int max_edits);

// Equals banded_align(read, m, window, cb, ce, diag, band, scratch) without clipping,
// under the same conditions as myers_banded_distance: the forward pass keeps each row's
// deltas, from which any cell's cost is a popcount away, and the traceback takes the
// DP's moves (diagonal, then insertion, then deletion, first of equal cost).
// window must cover [diag - band, diag + m + band). `rows`: the caller's buffer.
Alignment myers_banded_align(const uint8_t* read, int m, const PlaneRef& ref, const RefWindow& window,
                             int64_t contig_begin, int64_t contig_end, int64_t diag, int band,
                             std::vector<MyersRow>& rows);

}  // namespace gatemap::mapper
