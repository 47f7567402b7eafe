#include "mapper/align/banded_dp.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>

#include "common/error.hpp"

namespace gatemap::mapper {
namespace {

constexpr int kInf = INT_MAX / 4;

// DP over rows i = 0..m (read prefix) and band columns t = 0..2*band, where cell (i, t)
// ends at global reference position g = diag - band + i + t (exclusive).
struct Band {
  const uint8_t* read;
  int m, w, half;
  int64_t diag, lo, hi;  // usable reference [lo, hi)
  const RefWindow* win;
  int clip;  // cost of clipping a read end (0: end-to-end, no clipping)
  int64_t g(int i, int t) const { return diag - half + i + t; }
  bool in_ref(int64_t pos) const { return pos >= lo && pos <= hi; }
  uint8_t ref_code(int64_t pos) const { return win->codes[static_cast<size_t>(pos - win->begin)]; }
  // Clipping k read bases costs clip + k/4 (0 when clipping is off or k = 0).
  int clip_cost(int k) const { return (clip && k > 0) ? clip + k / 4 : 0; }
  int end_cost(int i) const { return clip_cost(m - i); }
};

Band make_band(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin, int64_t contig_end,
               int64_t diag, int band, int clip) {
  return Band{read, m, 2 * band + 1, band, diag, std::max(contig_begin, window.begin),
              std::min<int64_t>(contig_end, window.begin + static_cast<int64_t>(window.codes.size())), &window, clip};
}

enum Move : uint8_t { kStart, kDiag, kIns, kDel };

// A cell of the DP that tracks where each alignment starts: its cost in the high half,
// the read row its path starts at in the low half, so that one comparison prefers the
// cheaper cell, then the longer alignment (the earlier start).
using Key = uint64_t;
constexpr Key kOneEdit = Key{1} << 32;
constexpr Key make_key(int cost, int start) { return (static_cast<Key>(cost) << 32) | static_cast<uint32_t>(start); }
int key_cost(Key k) { return static_cast<int>(k >> 32); }
int key_start(Key k) { return static_cast<int>(k & 0xffffffffu); }

// The rows of the DP that tracks each cell's start row, and with kMoves the move taken
// (M). Among equal costs a later start (a shorter alignment) loses; then diagonal moves
// win over insertions, deletions and clipped starts, which places gaps leftmost in the
// traceback. Cells off the usable reference keep what fill_keys() set (kInf, 0, kStart).
template <bool kMoves>
void fill_tracked(const Band& b, Key* K, uint8_t* M) {
  const int w = b.w;
  for (int i = 1; i <= b.m; ++i) {
    Key* krow = K + static_cast<size_t>(i) * w;
    const Key* kprev = krow - w;
    uint8_t* mrow = kMoves ? M + static_cast<size_t>(i) * w : nullptr;
    const uint8_t rc = b.read[i - 1];
    const int64_t g0 = b.g(i, 0);  // cell t ends at reference position g0 + t
    const int t_first = static_cast<int>(std::clamp<int64_t>(b.lo - g0, 0, w));
    const int t_last = static_cast<int>(std::clamp<int64_t>(b.hi - g0 + 1, 0, w));  // exclusive
    const int t_diag = static_cast<int>(std::clamp<int64_t>(b.lo + 1 - g0, 0, w));  // first with a base before it
    const uint8_t* ref = t_last > t_diag ? &b.win->codes[static_cast<size_t>(g0 + t_diag - 1 - b.win->begin)] : nullptr;
    const Key none = make_key(kInf, i);
    // Starting here, the first i bases clipped (never cheaper than `none` without clipping).
    const Key clipped_start = b.clip ? make_key(b.clip_cost(i), i) : none;
    for (int t = t_first; t < t_last; ++t) {
      Key best = none;
      uint8_t move = kStart;
      const bool has_diag = t >= t_diag;
      if (has_diag) {  // diagonal: read base i-1 against reference base g-1
        const uint8_t fc = ref[t - t_diag];
        const Key k = kprev[t] + ((rc == fc && rc < 4) ? 0 : kOneEdit);
        if (k < best) {
          best = k;
          move = kDiag;
        }
      }
      if (t + 1 < w && kprev[t + 1] + kOneEdit < best) {  // read base inserted
        best = kprev[t + 1] + kOneEdit;
        move = kIns;
      }
      if (has_diag && t > 0 && krow[t - 1] + kOneEdit < best) {  // reference base deleted
        best = krow[t - 1] + kOneEdit;
        move = kDel;
      }
      if (clipped_start < best) {
        best = clipped_start;
        move = kStart;
      }
      krow[t] = best;
      if constexpr (kMoves) mrow[t] = move;
    }
  }
}

// The tracked DP's table (and with moves, M): every cell (kInf, start 0, kStart) but the
// free starts of row 0, then fill_tracked.
void fill_keys(const Band& b, std::vector<Key>& K, std::vector<uint8_t>* M) {
  const size_t cells = static_cast<size_t>(b.m + 1) * b.w;
  K.assign(cells, make_key(kInf, 0));
  for (int t = 0; t < b.w; ++t) {
    if (b.in_ref(b.g(0, t))) K[t] = make_key(0, 0);  // free start anywhere in the band
  }
  if (M) {
    M->assign(cells, kStart);
    fill_tracked<true>(b, K.data(), M->data());
  } else {
    fill_tracked<false>(b, K.data(), nullptr);
  }
}

// The hot path of verification (no clipping): costs only, with Ukkonen's cut-off.
void fill_costs(const Band& b, std::vector<int>& D, int cutoff) {
  const size_t cells = static_cast<size_t>(b.m + 1) * b.w;
  D.assign(cells, kInf);
  for (int t = 0; t < b.w; ++t) {
    if (b.in_ref(b.g(0, t))) D[t] = 0;  // free start anywhere in the band
  }
  for (int i = 1; i <= b.m; ++i) {
    int* row = &D[static_cast<size_t>(i) * b.w];
    const int* prev = row - b.w;
    const uint8_t rc = b.read[i - 1];
    int row_min = kInf;
    for (int t = 0; t < b.w; ++t) {
      const int64_t g = b.g(i, t);
      if (!b.in_ref(g)) continue;
      int best = kInf;
      if (g - 1 >= b.lo) {
        const uint8_t fc = b.ref_code(g - 1);
        best = prev[t] + ((rc == fc && rc < 4) ? 0 : 1);
        if (t > 0 && row[t - 1] + 1 < best) best = row[t - 1] + 1;
      }
      if (t + 1 < b.w && prev[t + 1] + 1 < best) best = prev[t + 1] + 1;
      row[t] = best;
      row_min = std::min(row_min, best);
    }
    // Costs never decrease down the rows: once a whole row is above the cutoff, so is
    // the end (Ukkonen's cut-off). The rows left at kInf make the caller see no hit.
    if (row_min > cutoff) return;
  }
}

// Best end cell of the untracked DP (no clipping): lowest cost, then nearest the band
// centre, then the leftmost column.
void best_end(const Band& b, const std::vector<int>& D, int& row, int& col, int& cost) {
  row = b.m;
  col = -1;
  cost = kInf;
  const size_t r = static_cast<size_t>(b.m) * b.w;
  for (int t = 0; t < b.w; ++t) {
    if (D[r + t] >= kInf) continue;
    if (D[r + t] < cost || (D[r + t] == cost && std::abs(t - b.half) < std::abs(col - b.half))) {
      cost = D[r + t];
      col = t;
    }
  }
}

// Best end cell of the tracked DP: lowest cost (with the end clip), then the longest
// alignment, then nearest the band centre, then the leftmost column.
void best_end(const Band& b, const std::vector<Key>& K, int& row, int& col, int& cost) {
  row = b.m;
  col = -1;
  cost = kInf;
  int best_len = -1;
  const int first_row = b.clip ? 1 : b.m;
  for (int i = b.m; i >= first_row; --i) {
    const size_t r = static_cast<size_t>(i) * b.w;
    for (int t = 0; t < b.w; ++t) {
      const int d = key_cost(K[r + t]);
      if (d >= kInf) continue;
      const int c = d + b.end_cost(i);
      const int len = i - key_start(K[r + t]);
      if (c < cost || (c == cost && (len > best_len || (len == best_len && std::abs(t - b.half) < std::abs(col - b.half))))) {
        cost = c;
        row = i;
        col = t;
        best_len = len;
      }
    }
  }
}

// Soft-clips alignment ends the way a local aligner would: with bwa's scores (match +1,
// mismatch -4, gap open -6, extension -1) an end whose score falls to -kEndClip or below
// is clipped (on a tie too, as bwa mem does). Leaves [first, last) as the ops kept; the
// kept part starts and ends with a match or mismatch. Insertions at the very ends (bases
// past a contig end) are always clipped.
constexpr int kEndClip = 5;

int op_score(const std::vector<char>& ops, size_t k, bool extends) {
  switch (ops[k]) {
    case 'M': return 1;
    case 'X': return -4;
    default: return extends ? -1 : -7;
  }
}

void clip_ends(const std::vector<char>& ops, bool head_clipped, bool tail_clipped, size_t& first, size_t& last) {
  first = 0;
  last = ops.size();
  // Prefix: the lowest running score at a point followed by an aligned base (for an end
  // that is clipped already, the last such point at that score: no worse, fewer edits).
  int score = 0, best = 0;
  size_t cut = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    score += op_score(ops, k, k > 0 && ops[k - 1] == ops[k]);
    const bool next_aligned = k + 1 < ops.size() && (ops[k + 1] == 'M' || ops[k + 1] == 'X');
    if (next_aligned && (score < best || (head_clipped && score == best))) {
      best = score;
      cut = k + 1;
    }
    if (score > kEndClip * 4) break;  // far enough in: nothing later is worth clipping from here
  }
  if (best <= (head_clipped ? 0 : -kEndClip)) first = cut;  // a clipped end moves for free
  while (first < ops.size() && ops[first] != 'M' && ops[first] != 'X') ++first;  // end insertions/deletions
  // Suffix, mirrored.
  score = 0;
  best = 0;
  cut = ops.size();
  for (size_t k = ops.size(); k-- > first;) {
    score += op_score(ops, k, k + 1 < ops.size() && ops[k + 1] == ops[k]);
    const bool prev_aligned = k > first && (ops[k - 1] == 'M' || ops[k - 1] == 'X');
    if (prev_aligned && (score < best || (tail_clipped && score == best))) {
      best = score;
      cut = k;
    }
    if (score > kEndClip * 4) break;
  }
  if (best <= (tail_clipped ? 0 : -kEndClip)) last = cut;
  while (last > first && ops[last - 1] != 'M' && ops[last - 1] != 'X') --last;
}

}  // namespace

BandResult banded_distance(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                           int64_t contig_end, int64_t diag, int band, int max_edits, DpScratch& scratch,
                           int clip_penalty) {
  const Band b = make_band(read, m, window, contig_begin, contig_end, diag, band, clip_penalty);
  int row = 0, col = -1, cost = kInf;
  if (b.clip) {
    fill_keys(b, scratch.keys, nullptr);
    best_end(b, scratch.keys, row, col, cost);
  } else {
    fill_costs(b, scratch.cost, max_edits);
    best_end(b, scratch.cost, row, col, cost);
  }
  BandResult r;
  if (col >= 0 && cost <= max_edits) {
    r.edits = cost;
    r.ref_end = b.g(row, col);
  }
  return r;
}

namespace {

// The path into cell (i, t) of a filled band (with moves), as an alignment.
Alignment trace_back(const Band& b, const std::vector<uint8_t>& moves, int i, int t, int cost, int64_t contig_begin,
                     int64_t contig_end) {
  const int end_row = i;
  std::vector<char> ops;  // reversed: M (match or mismatch), I, D
  while (i > 0) {
    const uint8_t mv = moves[static_cast<size_t>(i) * b.w + t];
    if (mv == kDiag) {
      ops.push_back('M');
      --i;
    } else if (mv == kIns) {
      ops.push_back('I');
      --i;
      ++t;
    } else if (mv == kDel) {
      ops.push_back('D');
      --t;
    } else {
      break;  // clipped start: read bases [0, i) are not aligned
    }
  }
  std::reverse(ops.begin(), ops.end());
  return alignment_from_path(b.read, b.m, *b.win, contig_begin, contig_end, ops, i, end_row, b.g(i, t), cost);
}

}  // namespace

Alignment banded_align(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                       int64_t contig_end, int64_t diag, int band, DpScratch& scratch, int clip_penalty) {
  Alignment aln;
  banded_align_within(read, m, window, contig_begin, contig_end, diag, band, kInf, scratch, clip_penalty, aln);
  return aln;
}

BandResult banded_align_within(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                               int64_t contig_end, int64_t diag, int band, int max_edits, DpScratch& scratch,
                               int clip_penalty, Alignment& aln) {
  const Band b = make_band(read, m, window, contig_begin, contig_end, diag, band, clip_penalty);
  fill_keys(b, scratch.keys, &scratch.moves);
  int i = 0, t = -1, cost = kInf;
  best_end(b, scratch.keys, i, t, cost);
  BandResult r;
  if (t < 0 || cost > max_edits) return r;
  r.edits = cost;
  r.ref_end = b.g(i, t);
  aln = trace_back(b, scratch.moves, i, t, cost, contig_begin, contig_end);
  return r;
}

Alignment alignment_from_path(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                              int64_t contig_end, std::vector<char>& ops, int start_row, int end_row,
                              int64_t ref_begin, int score, bool local_ends) {
  const Band b = make_band(read, m, window, contig_begin, contig_end, ref_begin, 0, 0);
  Alignment aln;
  aln.score = score;
  aln.ref_begin = ref_begin;
  // Per base: 'M' match, 'X' mismatch, 'I', 'D'.
  int64_t g = aln.ref_begin;
  int r = start_row;
  for (char& op : ops) {
    if (op == 'M') {
      const uint8_t fc = b.ref_code(g);
      if (!(read[r] == fc && fc < 4)) op = 'X';
      ++g;
      ++r;
    } else if (op == 'I') {
      ++r;
    } else {
      ++g;
    }
  }
  size_t first = 0, last = ops.size();
  if (local_ends) clip_ends(ops, start_row > 0, end_row < m, first, last);
  int head = start_row;
  for (size_t k = 0; k < first; ++k) {
    if (ops[k] != 'D') ++head;
    if (ops[k] != 'I') ++aln.ref_begin;
  }
  const int tail = (m - end_row) + static_cast<int>(std::count_if(ops.begin() + last, ops.end(),
                                                                  [](char op) { return op != 'D'; }));
  const auto push = [&](int op, uint32_t n) {
    if (n == 0) return;
    if (!aln.cigar.empty() && bam_cigar_op(aln.cigar.back()) == static_cast<uint32_t>(op)) {
      aln.cigar.back() = bam_cigar_gen(bam_cigar_oplen(aln.cigar.back()) + n, op);
    } else {
      aln.cigar.push_back(bam_cigar_gen(n, op));
    }
  };
  push(BAM_CSOFT_CLIP, static_cast<uint32_t>(head));
  // MD: matches counted, mismatched reference bases written, deletions as ^bases. The
  // path is taken in runs of one CIGAR operation (M and X are both M).
  char digits[16];
  const auto append_count = [&](int n) { aln.md.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr); };
  g = aln.ref_begin;
  int run = 0, edits = 0;
  for (size_t k = first; k < last;) {
    const char op = ops[k];
    size_t end = k;
    if (op == 'M' || op == 'X') {
      for (; end < last && (ops[end] == 'M' || ops[end] == 'X'); ++end, ++g) {
        if (ops[end] == 'M') {
          ++run;
          continue;
        }
        append_count(run);
        aln.md += "ACGTN"[b.ref_code(g)];
        run = 0;
        ++edits;
      }
      push(BAM_CMATCH, static_cast<uint32_t>(end - k));
    } else if (op == 'I') {
      while (end < last && ops[end] == 'I') ++end;
      push(BAM_CINS, static_cast<uint32_t>(end - k));
      edits += static_cast<int>(end - k);
    } else {
      append_count(run);
      aln.md += '^';
      run = 0;
      for (; end < last && ops[end] == 'D'; ++end, ++g) aln.md += "ACGTN"[b.ref_code(g)];
      push(BAM_CDEL, static_cast<uint32_t>(end - k));
      edits += static_cast<int>(end - k);
    }
    k = end;
  }
  append_count(run);
  push(BAM_CSOFT_CLIP, static_cast<uint32_t>(tail));
  aln.edits = edits;
  aln.ref_end = g;
  aln.clipped = head + tail;
  return aln;
}

bool ungapped_alignment(const uint8_t* read, int m, const RefWindow& window, int64_t ref_begin, int edits,
                        Alignment& out) {
  constexpr int kMaxUngappedEdits = 64;  // -e's limit
  const int64_t offset = ref_begin - window.begin;
  if (edits < 0 || offset < 0 || offset + m > static_cast<int64_t>(window.codes.size())) return false;
  const uint8_t* ref = window.codes.data() + offset;
  // Mismatch positions (an N on either side is one); at most edits + 1 of them are kept.
  int mism[kMaxUngappedEdits + 1];
  if (edits > kMaxUngappedEdits) return false;
  int n = 0;
  for (int i = 0; i < m; ++i) {
    if ((read[i] != ref[i]) | (ref[i] > 3)) {
      if (n > edits) return false;
      mism[n++] = i;
    }
  }
  if (n != edits) return false;
  // clip_ends on this path, scored as bwa (+1 a match, -4 a mismatch): the running score
  // before mismatch j (from either end) is the matches passed less 5 per mismatch passed;
  // a scan stops once it is above 4 * kEndClip, and only a mismatch with an aligned base
  // after it (before it, from the tail) can be a cut.
  int first = 0, last = m;
  {
    int best = 0, cut = 0;
    for (int j = 0; j < n && mism[j] - 5 * j <= 4 * kEndClip; ++j) {
      const int score = mism[j] - 5 * j - 4;
      if (mism[j] + 1 < m && score < best) {
        best = score;
        cut = mism[j] + 1;
      }
    }
    if (best <= -kEndClip) first = cut;
  }
  {
    int best = 0, cut = m;
    for (int j = 0; j < n && mism[n - 1 - j] >= first; ++j) {
      const int q = mism[n - 1 - j];
      if ((m - 1 - q) - 5 * j > 4 * kEndClip) break;
      const int score = (m - q) - 5 * (j + 1);
      if (q > first && score < best) {
        best = score;
        cut = q;
      }
    }
    if (best <= -kEndClip) last = cut;
  }
  out.score = edits;
  out.ref_begin = ref_begin + first;
  out.ref_end = ref_begin + last;
  out.clipped = first + (m - last);
  out.cigar.clear();
  if (first > 0) out.cigar.push_back(bam_cigar_gen(static_cast<uint32_t>(first), BAM_CSOFT_CLIP));
  out.cigar.push_back(bam_cigar_gen(static_cast<uint32_t>(last - first), BAM_CMATCH));
  if (last < m) out.cigar.push_back(bam_cigar_gen(static_cast<uint32_t>(m - last), BAM_CSOFT_CLIP));
  out.md.clear();
  char digits[16];
  const auto append_count = [&](int k) { out.md.append(digits, std::to_chars(digits, digits + sizeof digits, k).ptr); };
  int at = first, kept = 0;
  for (int j = 0; j < n; ++j) {
    if (mism[j] < first || mism[j] >= last) continue;
    append_count(mism[j] - at);
    out.md += "ACGTN"[ref[mism[j]]];
    at = mism[j] + 1;
    ++kept;
  }
  append_count(last - at);
  out.edits = kept;
  return true;
}

}  // namespace gatemap::mapper
