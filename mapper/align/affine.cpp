#include "mapper/align/affine.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace gatemap::mapper {
namespace {

constexpr int kNeg = INT_MIN / 4;

// Per cell: how H was reached, and whether E and F extended a gap.
enum : uint8_t { kFromStart = 0, kFromDiag = 1, kFromDel = 2, kFromIns = 3, kDelExtends = 4, kInsExtends = 8 };

// The path from the end cell (i, t) back to its start, whose cell it leaves in (i, t);
// the ops come out last first. `state` is H, E (deletion) or F (insertion).
std::vector<char> trace_back(const uint8_t* moves, int w, int& i, int& t) {
  std::vector<char> ops;
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
  return ops;
}

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
      // the gap's last base equals the base before it (the gap's sequence rotates). The
      // path keeps its first aligned base: no CIGAR starts with a gap.
      while (a > 1 && ops[a - 1] == 'M') {
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
                       int64_t diag, int band, int score, AffineScratch& scratch, const AffineScores& sc) {
  const int w = 2 * band + 1;
  const int64_t lo = std::max(contig_begin, window.begin);
  const int64_t hi = std::min<int64_t>(contig_end, window.begin + static_cast<int64_t>(window.codes.size()));
  const auto g_of = [&](int i, int t) { return diag - band + i + t; };
  const int open = sc.gap_open + sc.gap_extend, extend = sc.gap_extend;

  // Rows of H and F (previous, current) with a spare cell either side of the band (the
  // sources of the edge cells' gaps), and the moves of every cell, in the caller's buffers.
  std::vector<int>& rows = scratch.rows;
  std::vector<uint8_t>& move_buf = scratch.moves;
  rows.assign(4 * static_cast<size_t>(w + 2), kNeg);
  move_buf.assign(static_cast<size_t>(m + 1) * w, kFromStart);
  int* h_prev = rows.data() + 1;
  int* h_cur = h_prev + (w + 2);
  int* f_prev = h_cur + (w + 2);
  int* f_cur = f_prev + (w + 2);
  uint8_t* moves = move_buf.data();

  // Best end: highest score (an end before the read's last base pays the clip; the
  // clipped end wins a tie), then the longest alignment, then nearest the band centre.
  int best = kNeg, best_i = 0, best_t = -1;
  for (int t = 0; t < w; ++t) {
    const int64_t g = g_of(0, t);
    if (g >= lo && g <= hi) h_prev[t] = 0;  // the alignment may start anywhere in the band
  }
  for (int i = 1; i <= m; ++i) {
    const uint8_t rc = read[i - 1];
    int score_of[5];  // read base i-1 against each reference code
    for (int c = 0; c < 5; ++c) score_of[c] = (rc > 3 || c > 3) ? -sc.n : (rc == c ? sc.match : -sc.mismatch);
    // Cells of this row inside [lo, hi], and those with a reference base to their left.
    const int64_t g0 = g_of(i, 0);
    const int t_begin = static_cast<int>(std::clamp<int64_t>(lo - g0, 0, w));
    const int t_end = static_cast<int>(std::clamp<int64_t>(hi - g0 + 1, 0, w));
    const int t_diag = static_cast<int>(std::clamp<int64_t>(lo + 1 - g0, 0, w));
    const uint8_t* ref_left = window.codes.data() + (g0 - 1 - window.begin);  // ref_left[t]: base g-1
    std::fill(h_cur - 1, h_cur + t_begin, kNeg);
    std::fill(f_cur - 1, f_cur + t_begin, kNeg);
    uint8_t* mv = moves + static_cast<size_t>(i) * w;
    int e = kNeg;  // deletion state of the cell to the left
    int row_best = kNeg, row_t = -1;
    // Out-of-band neighbours hold kNeg, whose gaps and diagonals never beat a fresh start.
    for (int t = t_begin; t < t_end; ++t) {
      const int f_open = h_prev[t + 1] - open, f_ext = f_prev[t + 1] - extend;
      const int d_open = h_cur[t - 1] - open, d_ext = e - extend;
      const bool f_extends = f_ext >= f_open, d_extends = d_ext >= d_open;
      const int f = f_extends ? f_ext : f_open, d = d_extends ? d_ext : d_open;
      // At lo there is no reference base to the left: no diagonal.
      const int diagonal = t >= t_diag ? h_prev[t] + score_of[ref_left[t]] : kNeg;
      int h = f, from = kFromIns;
      from = d >= h ? kFromDel : from;
      h = d >= h ? d : h;
      from = diagonal >= h ? kFromDiag : from;  // diagonal first among equals: gaps go left
      h = diagonal >= h ? diagonal : h;
      from = -sc.clip >= h ? kFromStart : from;  // start here, read bases [0, i) clipped: on a
      h = -sc.clip >= h ? -sc.clip : h;          // tie too, as bwa mem clips
      h_cur[t] = h;
      f_cur[t] = f;
      e = d;
      mv[t] = static_cast<uint8_t>(from | (f_extends ? kInsExtends : 0) | (d_extends ? kDelExtends : 0));
      if (h > row_best) {  // ties: nearest the band centre, checked below
        row_best = h;
        row_t = t;
      } else if (h == row_best && std::abs(t - band) < std::abs(row_t - band)) {
        row_t = t;
      }
    }
    std::fill(h_cur + t_end, h_cur + w + 1, kNeg);
    std::fill(f_cur + t_end, f_cur + w + 1, kNeg);
    if (row_t >= 0) {
      // A later row is a longer alignment; the read's end, unclipped, must do better
      // than a clipped one (bwa mem clips on a tie).
      const int end_score = row_best - (i < m ? sc.clip : 0);
      if (i < m ? end_score >= best : end_score > best) {
        best = end_score;
        best_i = i;
        best_t = row_t;
      }
    }
    std::swap(h_prev, h_cur);
    std::swap(f_prev, f_cur);
  }

  int i = best_i, t = best_t;
  std::vector<char> ops = trace_back(moves, w, i, t);
  std::reverse(ops.begin(), ops.end());
  const int64_t ref_begin = g_of(i, t);
  left_align_gaps(ops, read, i, window, ref_begin);
  return alignment_from_path(read, m, window, contig_begin, contig_end, ops, i, best_i, ref_begin, score,
                             false);  // the DP chose the clips
}

}  // namespace gatemap::mapper
