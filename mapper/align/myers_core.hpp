#pragma once
// The banded Myers bit-vector recurrence (layout in myers.hpp), shared by the CPU
// verifier (myers.cpp) and the GPU one (verify/verify.cu) so that both give the
// same edits and ends.
#include <cstdint>

#include "gpu/host_device.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/align/myers.hpp"

namespace gatemap::mapper::myers {

GATEMAP_HD int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

// 64 bases of one plane from position p on (bit j = base p + j; zero past the end).
GATEMAP_HD uint64_t plane_at(const uint64_t* plane, int64_t words, int64_t p) {
  const int64_t w = p >> 6;
  const int s = static_cast<int>(p & 63);
  const uint64_t low = plane[w] >> s;
  if (s == 0 || w + 1 >= words) return low;
  return low | (plane[w + 1] << (64 - s));
}

// A band of 2 * band + 1 cells over the reference.
struct Band {
  PlaneRef ref;
  int64_t words;
  int w;
  uint64_t mask, top;
};

GATEMAP_HD Band make_band(const PlaneRef& ref, int band) {
  const int w = 2 * band + 1;
  return {ref, (ref.length + 63) / 64, w, w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1, uint64_t{1} << (w - 1)};
}

// One band row's state: vertical deltas D(i, t) - D(i, t - 1) as +1 (vp) and -1 (vn)
// bits, and the cost of its first cell D(i, 0). Row 0 has a free start anywhere in the
// band: every cell 0, every delta 0. step() turns row i-1 into row i for read base c at
// reference p = diag - band + i - 1.
GATEMAP_HD void step(const Band& b, MyersRow& r, uint8_t c, int64_t p) {
  // Align the previous row to this row's band; the cell past its right edge is +1.
  const uint64_t vp = (r.vp >> 1) | b.top;
  const uint64_t vn = r.vn >> 1;
  r.score += static_cast<int>(vp & 1) - static_cast<int>(vn & 1);  // now D(i-1, 1): above cell (i, 0)
  uint64_t eq = 0;
  if (c < 4) {
    const uint64_t h = plane_at(b.ref.hi, b.words, p) ^ (0 - static_cast<uint64_t>(c >> 1));
    const uint64_t l = plane_at(b.ref.lo, b.words, p) ^ (0 - static_cast<uint64_t>(c & 1));
    eq = ~(h | l) & b.mask;
  }
  const uint64_t x = eq | vn;
  const uint64_t d0 = (((eq & vp) + vp) ^ vp) | x;
  const uint64_t hn = vp & d0;
  const uint64_t hp = vn | ~(vp | d0);
  r.score += static_cast<int>(hp & 1) - static_cast<int>(hn & 1);
  const uint64_t hx = (hp << 1) | 1;  // the cell left of the band: +1
  r.vn = hx & d0 & b.mask;
  r.vp = ((hn << 1) | ~(hx | d0)) & b.mask;
}

// The end of the last row: fewest edits, then nearest the band centre, then leftmost.
GATEMAP_HD void best_end(const Band& b, const MyersRow& r, int band, int& best, int& best_t) {
  const auto dist = [band](int t) { return t > band ? t - band : band - t; };
  best = -1;
  best_t = -1;
  int d = r.score;
  for (int t = 0; t < b.w; ++t) {
    if (t > 0) d += static_cast<int>((r.vp >> t) & 1) - static_cast<int>((r.vn >> t) & 1);
    if (best_t < 0 || d < best || (d == best && dist(t) < dist(best_t))) {
      best = d;
      best_t = t;
    }
  }
}

// myers_banded_distance (myers.hpp) with the read given as code(i), base i of m.
template <class Code>
GATEMAP_HD BandResult banded_distance(Code code, int m, const PlaneRef& ref, int64_t diag, int band, int max_edits) {
  const Band b = make_band(ref, band);
  MyersRow row;
  for (int i = 1; i <= m; ++i) {
    step(b, row, code(i - 1), diag - band + i - 1);
    // Row minima never decrease down the rows (Ukkonen's cut-off); this row's minimum is
    // at least D(i, 0) minus every negative delta to its right.
    if (row.score > max_edits &&
        (row.score - (b.w - 1) > max_edits || row.score - popcount64(row.vn & ~uint64_t{1}) > max_edits)) {
      return {};
    }
  }
  int best = 0, best_t = 0;
  best_end(b, row, band, best, best_t);
  BandResult r;
  if (best <= max_edits) {
    r.edits = best;
    r.ref_end = diag - band + m + best_t;
  }
  return r;
}

}  // namespace gatemap::mapper::myers
