#include "mapper/align/myers.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "mapper/align/myers_core.hpp"

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

// The CPU verifier's view of the band: the shared recurrence (myers_core.hpp), each
// cell's cost, and the reference bases of the traceback.
class BandStepper {
 public:
  BandStepper(const PlaneRef& ref, int band) : band_(myers::make_band(ref, band)) {}
  int width() const { return band_.w; }
  void step(MyersRow& r, uint8_t c, int64_t p) const { myers::step(band_, r, c, p); }

  // D(i, t) of a row.
  static int cost(const MyersRow& r, int t) {
    const uint64_t upto = (t >= 63 ? ~uint64_t{0} : (uint64_t{2} << t) - 1) & ~uint64_t{1};
    return r.score + __builtin_popcountll(r.vp & upto) - __builtin_popcountll(r.vn & upto);
  }
  void best_end(const MyersRow& r, int band, int& best, int& best_t) const {
    myers::best_end(band_, r, band, best, best_t);
  }
  uint8_t base(int64_t p) const {
    const PlaneRef& ref = band_.ref;
    return static_cast<uint8_t>((((ref.hi[p >> 6] >> (p & 63)) & 1) << 1) | ((ref.lo[p >> 6] >> (p & 63)) & 1));
  }

 private:
  myers::Band band_;
};

}  // namespace

GM_POPCNT_CLONES
BandResult myers_banded_distance(const uint8_t* read, int m, const PlaneRef& ref, int64_t diag, int band,
                                 int max_edits) {
  return myers::banded_distance([read](int i) { return read[i]; }, m, ref, diag, band, max_edits);
}

GM_POPCNT_CLONES
Alignment myers_banded_align(const uint8_t* read, int m, const PlaneRef& ref, const RefWindow& window,
                             int64_t contig_begin, int64_t contig_end, int64_t diag, int band,
                             std::vector<MyersRow>& rows) {
  const BandStepper stepper(ref, band);
  const int w = stepper.width();
  rows.resize(static_cast<size_t>(m) + 1);
  // The row is carried in registers and only stored: stepping rows[i] in place would
  // reload each row through memory (a store-forwarding stall on every base).
  MyersRow row;
  rows[0] = row;
  for (int i = 1; i <= m; ++i) {
    stepper.step(row, read[i - 1], diag - band + i - 1);
    rows[i] = row;
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
