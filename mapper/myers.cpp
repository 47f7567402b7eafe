#include "mapper/myers.hpp"

#include <cstdlib>

namespace gatemap::mapper {
namespace {

// 64 bases of one plane from position p on (bit j = base p + j; zero past the end).
inline uint64_t plane_at(const uint64_t* plane, int64_t words, int64_t p) {
  const int64_t w = p >> 6;
  const int s = static_cast<int>(p & 63);
  const uint64_t low = plane[w] >> s;
  if (s == 0 || w + 1 >= words) return low;
  return low | (plane[w + 1] << (64 - s));
}

}  // namespace

BandResult myers_banded_distance(const uint8_t* read, int m, const PlaneRef& ref, int64_t diag, int band,
                                 int max_edits) {
  const int w = 2 * band + 1;
  const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  const uint64_t top = uint64_t{1} << (w - 1);
  const int64_t words = (ref.length + 63) / 64;
  // Row 0: a free start anywhere in the band, so every cell is 0 and every delta 0.
  uint64_t vp = 0, vn = 0;  // vertical deltas D(i, t) - D(i, t - 1), +1 and -1
  int score = 0;            // D(i, 0)
  for (int i = 1; i <= m; ++i) {
    // Align the previous row to this row's band; the cell past its right edge is +1.
    vp = (vp >> 1) | top;
    vn >>= 1;
    score += static_cast<int>(vp & 1) - static_cast<int>(vn & 1);  // now D(i-1, 1): above cell (i, 0)
    // Matches of read base i-1 against reference bases diag - band + i - 1 + t.
    const int64_t p = diag - band + i - 1;
    const uint8_t c = read[i - 1];
    uint64_t eq = 0;
    if (c < 4) {
      const uint64_t h = plane_at(ref.hi, words, p) ^ (0 - static_cast<uint64_t>(c >> 1));
      const uint64_t l = plane_at(ref.lo, words, p) ^ (0 - static_cast<uint64_t>(c & 1));
      eq = ~(h | l) & mask;
    }
    const uint64_t x = eq | vn;
    const uint64_t d0 = (((eq & vp) + vp) ^ vp) | x;
    const uint64_t hn = vp & d0;
    const uint64_t hp = vn | ~(vp | d0);
    score += static_cast<int>(hp & 1) - static_cast<int>(hn & 1);
    const uint64_t hx = (hp << 1) | 1;  // the cell left of the band: +1
    vn = hx & d0 & mask;
    vp = ((hn << 1) | ~(hx | d0)) & mask;
    // Row minima never decrease down the rows (Ukkonen's cut-off); this row's minimum is
    // at least D(i, 0) minus every negative delta to its right.
    if (score > max_edits && (score - (w - 1) > max_edits || score - __builtin_popcountll(vn & ~uint64_t{1}) > max_edits)) {
      return {};
    }
  }
  // Last row: fewest edits, then nearest the band centre, then the leftmost end.
  int best = -1, best_t = -1, d = score;
  for (int t = 0; t < w; ++t) {
    if (t > 0) d += static_cast<int>((vp >> t) & 1) - static_cast<int>((vn >> t) & 1);
    if (best_t < 0 || d < best || (d == best && std::abs(t - band) < std::abs(best_t - band))) {
      best = d;
      best_t = t;
    }
  }
  BandResult r;
  if (best <= max_edits) {
    r.edits = best;
    r.ref_end = diag - band + m + best_t;
  }
  return r;
}

}  // namespace gatemap::mapper
