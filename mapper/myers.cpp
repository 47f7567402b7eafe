#include "mapper/myers.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

// The cut-off and the traceback count bits. Portable builds (no -march) would call a
// software popcount; on x86-64 GCC also compiles a copy with the POPCNT instruction and
// picks it at load time on CPUs that have it (all since 2008).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GM_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define GM_POPCNT_CLONES
#endif

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

// One band row's state: vertical deltas D(i, t) - D(i, t - 1) as +1 (vp) and -1 (vn)
// bits, and the cost of its first cell D(i, 0).
// Row 0 has a free start anywhere in the band: every cell 0, every delta 0.
// step() turns row i-1 into row i for read base c at reference p = diag - band + i - 1.
class BandStepper {
 public:
  BandStepper(const PlaneRef& ref, int band)
      : ref_(ref), words_((ref.length + 63) / 64), w_(2 * band + 1),
        mask_(w_ == 64 ? ~uint64_t{0} : (uint64_t{1} << w_) - 1), top_(uint64_t{1} << (w_ - 1)) {}
  int width() const { return w_; }

  void step(MyersRow& r, uint8_t c, int64_t p) const {
    // Align the previous row to this row's band; the cell past its right edge is +1.
    uint64_t vp = (r.vp >> 1) | top_;
    uint64_t vn = r.vn >> 1;
    r.score += static_cast<int>(vp & 1) - static_cast<int>(vn & 1);  // now D(i-1, 1): above cell (i, 0)
    uint64_t eq = 0;
    if (c < 4) {
      const uint64_t h = plane_at(ref_.hi, words_, p) ^ (0 - static_cast<uint64_t>(c >> 1));
      const uint64_t l = plane_at(ref_.lo, words_, p) ^ (0 - static_cast<uint64_t>(c & 1));
      eq = ~(h | l) & mask_;
    }
    const uint64_t x = eq | vn;
    const uint64_t d0 = (((eq & vp) + vp) ^ vp) | x;
    const uint64_t hn = vp & d0;
    const uint64_t hp = vn | ~(vp | d0);
    r.score += static_cast<int>(hp & 1) - static_cast<int>(hn & 1);
    const uint64_t hx = (hp << 1) | 1;  // the cell left of the band: +1
    r.vn = hx & d0 & mask_;
    r.vp = ((hn << 1) | ~(hx | d0)) & mask_;
  }

  // D(i, t) of a row.
  static int cost(const MyersRow& r, int t) {
    const uint64_t upto = (t >= 63 ? ~uint64_t{0} : (uint64_t{2} << t) - 1) & ~uint64_t{1};
    return r.score + __builtin_popcountll(r.vp & upto) - __builtin_popcountll(r.vn & upto);
  }

  // The end of the last row: fewest edits, then nearest the band centre, then leftmost.
  void best_end(const MyersRow& r, int band, int& best, int& best_t) const {
    best = -1;
    best_t = -1;
    int d = r.score;
    for (int t = 0; t < w_; ++t) {
      if (t > 0) d += static_cast<int>((r.vp >> t) & 1) - static_cast<int>((r.vn >> t) & 1);
      if (best_t < 0 || d < best || (d == best && std::abs(t - band) < std::abs(best_t - band))) {
        best = d;
        best_t = t;
      }
    }
  }

  uint8_t base(int64_t p) const {
    return static_cast<uint8_t>((((ref_.hi[p >> 6] >> (p & 63)) & 1) << 1) | ((ref_.lo[p >> 6] >> (p & 63)) & 1));
  }

 private:
  PlaneRef ref_;
  int64_t words_;
  int w_;
  uint64_t mask_, top_;
};

}  // namespace

GM_POPCNT_CLONES
BandResult myers_banded_distance(const uint8_t* read, int m, const PlaneRef& ref, int64_t diag, int band,
                                 int max_edits) {
  const BandStepper stepper(ref, band);
  const int w = stepper.width();
  MyersRow row;
  for (int i = 1; i <= m; ++i) {
    stepper.step(row, read[i - 1], diag - band + i - 1);
    // Row minima never decrease down the rows (Ukkonen's cut-off); this row's minimum is
    // at least D(i, 0) minus every negative delta to its right.
    if (row.score > max_edits &&
        (row.score - (w - 1) > max_edits || row.score - __builtin_popcountll(row.vn & ~uint64_t{1}) > max_edits)) {
      return {};
    }
  }
  int best = 0, best_t = 0;
  stepper.best_end(row, band, best, best_t);
  BandResult r;
  if (best <= max_edits) {
    r.edits = best;
    r.ref_end = diag - band + m + best_t;
  }
  return r;
}

GM_POPCNT_CLONES
Alignment myers_banded_align(const uint8_t* read, int m, const PlaneRef& ref, const RefWindow& window,
                             int64_t contig_begin, int64_t contig_end, int64_t diag, int band,
                             std::vector<MyersRow>& rows) {
  const BandStepper stepper(ref, band);
  const int w = stepper.width();
  rows.resize(static_cast<size_t>(m) + 1);
  rows[0] = MyersRow{};
  for (int i = 1; i <= m; ++i) {
    rows[i] = rows[i - 1];
    stepper.step(rows[i], read[i - 1], diag - band + i - 1);
  }
  int cost = 0, t = 0;
  stepper.best_end(rows[m], band, cost, t);
  std::vector<char> ops;  // reversed
  int i = m;
  while (i > 0) {
    const int here = BandStepper::cost(rows[i], t);
    const int64_t p = diag - band + i + t - 1;  // reference base of the diagonal move
    const int mismatch = (read[i - 1] < 4 && read[i - 1] == stepper.base(p)) ? 0 : 1;
    if (BandStepper::cost(rows[i - 1], t) + mismatch == here) {
      ops.push_back('M');
      --i;
    } else if (t + 1 < w && BandStepper::cost(rows[i - 1], t + 1) + 1 == here) {
      ops.push_back('I');
      --i;
      ++t;
    } else {  // a deletion: the only move left
      ops.push_back('D');
      --t;
    }
  }
  std::reverse(ops.begin(), ops.end());
  return alignment_from_path(read, m, window, contig_begin, contig_end, ops, 0, m, diag - band + t, cost);
}

}  // namespace gatemap::mapper
