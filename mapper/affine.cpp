#include "mapper/affine.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace gatemap::mapper {
namespace {

constexpr int kNeg = INT_MIN / 4;

// Per cell: how H was reached, and whether E and F extended a gap.
enum : uint8_t { kFromStart = 0, kFromDiag = 1, kFromDel = 2, kFromIns = 3, kDelExtends = 4, kInsExtends = 8 };

}  // namespace

void left_align_gaps(std::vector<char>& ops, const uint8_t* read, int start_row, const RefWindow& window,
                     int64_t ref_begin) {
  const auto ref = [&](int64_t g) { return window.codes[static_cast<size_t>(g - window.begin)]; };
  for (bool moved = true; moved;) {
    moved = false;
    int r = start_row;
    int64_t g = ref_begin;
    for (size_t a = 0; a < ops.size();) {
      if (ops[a] == 'M') {
        ++r;
        ++g;
        ++a;
        continue;
      }
      const char type = ops[a];
      size_t b = a;
      while (b < ops.size() && ops[b] == type) ++b;
      const int len = static_cast<int>(b - a);
      // Moving the aligned base before the gap to after it keeps every comparison when
      // the gap's last base equals the base before it (the gap's sequence rotates).
      while (a > 0 && ops[a - 1] == 'M') {
        const bool same = type == 'D' ? ref(g - 1) == ref(g + len - 1) : read[r - 1] == read[r + len - 1];
        if (!same) break;
        ops[a - 1] = type;
        ops[b - 1] = 'M';
        --a;
        --b;
        --r;
        --g;
        moved = true;
      }
      if (type == 'D') {
        g += len;
      } else {
        r += len;
      }
      a = b;  // the aligned bases moved behind the gap come next
    }
  }
}

Alignment affine_align(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin, int64_t contig_end,
                       int64_t diag, int band, int score, const AffineScores& sc) {
  const int w = 2 * band + 1;
  const int64_t lo = std::max(contig_begin, window.begin);
  const int64_t hi = std::min<int64_t>(contig_end, window.begin + static_cast<int64_t>(window.codes.size()));
  const auto g_of = [&](int i, int t) { return diag - band + i + t; };
  const auto ref = [&](int64_t g) { return window.codes[static_cast<size_t>(g - window.begin)]; };
  const int open = sc.gap_open + sc.gap_extend, extend = sc.gap_extend;

  thread_local std::vector<int> h_prev, h_cur, f_prev, f_cur;
  thread_local std::vector<uint8_t> moves;
  h_prev.assign(w, kNeg);
  f_prev.assign(w, kNeg);
  h_cur.assign(w, kNeg);
  f_cur.assign(w, kNeg);
  moves.assign(static_cast<size_t>(m + 1) * w, kFromStart);

  int best = kNeg, best_i = 0, best_t = -1;
  const auto consider_end = [&](int i, int t, int h) {
    const int s = h - (i < m ? sc.clip : 0);
    const bool better = s > best || (s == best && (i > best_i || (i == best_i && std::abs(t - band) < std::abs(best_t - band))));
    if (better) {
      best = s;
      best_i = i;
      best_t = t;
    }
  };
  for (int t = 0; t < w; ++t) {
    const int64_t g = g_of(0, t);
    if (g >= lo && g <= hi) h_prev[t] = 0;  // the alignment may start anywhere in the band
  }
  for (int i = 1; i <= m; ++i) {
    const uint8_t rc = read[i - 1];
    int e = kNeg;  // deletion state of the cell to the left
    uint8_t* mv = &moves[static_cast<size_t>(i) * w];
    for (int t = 0; t < w; ++t) {
      const int64_t g = g_of(i, t);
      if (g < lo || g > hi) {
        h_cur[t] = f_cur[t] = e = kNeg;
        continue;
      }
      uint8_t flags = 0;
      // Insertion: read base i-1 against no reference, from the cell above (same g).
      int f = kNeg;
      if (t + 1 < w) {
        const int f_open = h_prev[t + 1] - open, f_ext = f_prev[t + 1] - extend;
        f = std::max(f_open, f_ext);
        if (f_ext >= f_open && f_ext > kNeg / 2) flags |= kInsExtends;
      }
      // Deletion: reference base g-1 against no read base, from the cell to the left.
      int d = kNeg;
      if (t > 0 && g - 1 >= lo) {
        const int d_open = h_cur[t - 1] - open, d_ext = e - extend;
        d = std::max(d_open, d_ext);
        if (d_ext >= d_open && d_ext > kNeg / 2) flags |= kDelExtends;
      }
      int h = -sc.clip;  // start here: read bases [0, i) clipped
      uint8_t from = kFromStart;
      if (f > h) {
        h = f;
        from = kFromIns;
      }
      if (d >= h) {
        h = d;
        from = kFromDel;
      }
      if (g - 1 >= lo && h_prev[t] > kNeg / 2) {
        const uint8_t fc = ref(g - 1);
        const int s = (rc > 3 || fc > 3) ? -sc.n : (rc == fc ? sc.match : -sc.mismatch);
        if (h_prev[t] + s >= h) {  // diagonal first among equals: gaps go left
          h = h_prev[t] + s;
          from = kFromDiag;
        }
      }
      h_cur[t] = h;
      f_cur[t] = f;
      e = d;
      mv[t] = static_cast<uint8_t>(from | flags);
      consider_end(i, t, h);
    }
    std::swap(h_prev, h_cur);
    std::swap(f_prev, f_cur);
  }

  // Traceback from the best end; `state` is H, E (deletion) or F (insertion).
  std::vector<char> ops;
  int i = best_i, t = best_t;
  char state = 'H';
  while (i > 0 && t >= 0) {
    const uint8_t mv = moves[static_cast<size_t>(i) * w + t];
    if (state == 'H') {
      const uint8_t from = mv & 3;
      if (from == kFromStart) break;
      if (from == kFromDiag) {
        ops.push_back('M');
        --i;
      } else {
        state = from == kFromDel ? 'E' : 'F';
      }
    } else if (state == 'E') {
      ops.push_back('D');
      state = (mv & kDelExtends) ? 'E' : 'H';
      --t;
    } else {
      ops.push_back('I');
      state = (mv & kInsExtends) ? 'F' : 'H';
      --i;
      ++t;
    }
  }
  std::reverse(ops.begin(), ops.end());
  const int64_t ref_begin = g_of(i, t);
  left_align_gaps(ops, read, i, window, ref_begin);
  return alignment_from_path(read, m, window, contig_begin, contig_end, ops, i, best_i, ref_begin, score,
                             false);  // the DP chose the clips
}

}  // namespace gatemap::mapper
