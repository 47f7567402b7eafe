#pragma once
// Independent oracles for the GateKeeper filter: a plain banded edit-distance DP (what
// verification computes) and a byte-per-base reimplementation of the filter's semantics.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "common/dna.hpp"

namespace gatemap::test {

// Reference base at global g, or 0 when outside the contig (never matches).
inline char window_base(const std::string& text, int64_t cb, int64_t ce, int64_t g) {
  return (g >= cb && g < ce) ? text[g] : 0;
}

// Minimum edits aligning the whole read to the reference with every read base on a
// diagonal in [pos-e, pos+e] (semi-global: free start and end inside the band).
inline int banded_edit_distance(const std::string& text, int64_t cb, int64_t ce, const std::string& read,
                                int64_t pos, int e) {
  const int m = static_cast<int>(read.size()), width = 2 * e + 1;
  const int kInf = INT_MAX / 2;
  // Row i, column t = j - i in [0, 2e], where j counts window bases consumed.
  std::vector<int> prev(width, 0), cur(width);
  for (int i = 1; i <= m; ++i) {
    for (int t = 0; t < width; ++t) {
      const int j = i + t;  // window base j-1 = global pos - e + j - 1
      int best = kInf;
      // diagonal move from (i-1, j-1): same t
      const char b = window_base(text, cb, ce, pos - e + j - 1);
      best = std::min(best, prev[t] + (b != 0 && b == read[i - 1] ? 0 : 1));
      // read base inserted, from (i-1, j): t+1 in the previous row
      if (t + 1 < width) best = std::min(best, prev[t + 1] + 1);
      // reference base deleted, from (i, j-1): t-1 in this row
      if (t > 0) best = std::min(best, cur[t - 1] + 1);
      cur[t] = best;
    }
    std::swap(prev, cur);
  }
  return *std::min_element(prev.begin(), prev.end());
}

// GateKeeper semantics one byte per base (no bit tricks): returns the edit estimate
// capped at e+1, or -1 for "unfiltered" (N).
inline int naive_gatekeeper(const std::string& text, int64_t cb, int64_t ce, const std::string& read, int64_t pos,
                            int e) {
  const int m = static_cast<int>(read.size());
  for (char c : read) if (base_code(c) > 3) return -1;
  for (int64_t g = std::max(pos - e, cb); g < std::min<int64_t>(pos + m + e, ce); ++g) {
    if (text[g] == 'N') return -1;
  }
  std::vector<int> acc(m, 1);
  for (int k = -e; k <= e; ++k) {
    std::vector<int> mask(m);
    for (int i = 0; i < m; ++i) mask[i] = window_base(text, cb, ce, pos + i + k) != read[i];
    std::vector<int> amended = mask;
    for (int i = 0; i < m;) {
      if (mask[i]) { ++i; continue; }
      int j = i;
      while (j < m && !mask[j]) ++j;  // zero streak [i, j)
      if (j - i <= 2 && i > 0 && j < m) for (int t = i; t < j; ++t) amended[t] = 1;
      i = j;
    }
    for (int i = 0; i < m; ++i) acc[i] &= amended[i];
  }
  int count = 0;
  for (int i = 0; i < m;) {
    if (!acc[i]) { ++i; continue; }
    int j = i;
    while (j < m && acc[j]) ++j;
    count += (j - i + 2) / 3;
    i = j;
  }
  return std::min(count, e + 1);
}

}  // namespace gatemap::test
