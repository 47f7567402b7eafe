#include "mapper/verify.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <climits>

namespace gatemap::mapper {
namespace {

constexpr int kInf = INT_MAX / 4;

// DP over rows i = 0..m (read prefix) and band columns t = 0..2e, where cell (i, t)
// ends at global reference position g = diag - e + i + t (exclusive).
struct Band {
  const uint8_t* read;
  int m, w, e;
  int64_t diag, lo, hi;  // usable reference [lo, hi)
  const RefWindow* win;
  int64_t g(int i, int t) const { return diag - e + i + t; }
  bool in_ref(int64_t pos) const { return pos >= lo && pos <= hi; }
  uint8_t ref_code(int64_t pos) const { return win->codes[static_cast<size_t>(pos - win->begin)]; }
};

void fill(const Band& b, std::vector<int>& D) {
  D.assign(static_cast<size_t>(b.m + 1) * b.w, kInf);
  for (int t = 0; t < b.w; ++t) {
    if (b.in_ref(b.g(0, t))) D[t] = 0;  // free start anywhere in the band
  }
  for (int i = 1; i <= b.m; ++i) {
    int* row = &D[static_cast<size_t>(i) * b.w];
    const int* prev = &D[static_cast<size_t>(i - 1) * b.w];
    const uint8_t rc = b.read[i - 1];
    for (int t = 0; t < b.w; ++t) {
      const int64_t g = b.g(i, t);
      if (!b.in_ref(g)) continue;
      int best = kInf;
      if (g - 1 >= b.lo) {  // diagonal: read base i-1 against reference base g-1
        const uint8_t fc = b.ref_code(g - 1);
        best = prev[t] + ((rc == fc && rc < 4) ? 0 : 1);
        if (t > 0 && row[t - 1] + 1 < best) best = row[t - 1] + 1;  // reference base deleted
      }
      if (t + 1 < b.w && prev[t + 1] + 1 < best) best = prev[t + 1] + 1;  // read base inserted
      row[t] = best;
    }
  }
}

int best_column(const Band& b, const std::vector<int>& D, int& best) {
  const int* last = &D[static_cast<size_t>(b.m) * b.w];
  int col = -1;
  best = kInf;
  for (int t = 0; t < b.w; ++t) {
    if (last[t] < best || (last[t] == best && std::abs(t - b.e) < std::abs(col - b.e))) {
      best = last[t];
      col = t;
    }
  }
  return col;
}

}  // namespace

BandResult banded_distance(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                           int64_t contig_end, int64_t diag, int band, int max_edits, std::vector<int>& scratch) {
  const Band b{read, m, 2 * band + 1, band, diag, std::max(contig_begin, window.begin),
               std::min<int64_t>(contig_end, window.begin + static_cast<int64_t>(window.codes.size())), &window};
  fill(b, scratch);
  int best = kInf;
  const int col = best_column(b, scratch, best);
  BandResult r;
  if (col >= 0 && best <= max_edits) {
    r.edits = best;
    r.ref_end = b.g(m, col);
  }
  return r;
}

Alignment banded_align(const uint8_t* read, int m, const RefWindow& window, int64_t contig_begin,
                       int64_t contig_end, int64_t diag, int band, std::vector<int>& scratch) {
  const Band b{read, m, 2 * band + 1, band, diag, std::max(contig_begin, window.begin),
               std::min<int64_t>(contig_end, window.begin + static_cast<int64_t>(window.codes.size())), &window};
  fill(b, scratch);
  int best = kInf;
  int t = best_column(b, scratch, best);
  Alignment aln;
  aln.edits = best;
  aln.ref_end = b.g(m, t);
  // Traceback from (m, t), diagonal moves first so that gaps end up leftmost.
  std::vector<char> ops;  // in reverse: M (match or mismatch), I, D
  int i = m;
  const auto at = [&](int ii, int tt) { return scratch[static_cast<size_t>(ii) * b.w + tt]; };
  while (i > 0) {
    const int64_t g = b.g(i, t);
    const int cur = at(i, t);
    if (g - 1 >= b.lo) {
      const uint8_t fc = b.ref_code(g - 1);
      const int cost = (read[i - 1] == fc && fc < 4) ? 0 : 1;
      if (at(i - 1, t) + cost == cur) {
        ops.push_back('M');
        --i;
        continue;
      }
    }
    if (t + 1 < b.w && at(i - 1, t + 1) + 1 == cur) {
      ops.push_back('I');
      --i;
      ++t;
      continue;
    }
    ops.push_back('D');  // from (i, t-1)
    --t;
  }
  aln.ref_begin = b.g(0, t);
  std::reverse(ops.begin(), ops.end());
  // Leading/trailing insertions are read bases past the usable reference: soft clips.
  size_t first = 0, last = ops.size();
  while (first < last && ops[first] == 'I') ++first;
  while (last > first && ops[last - 1] == 'I') --last;
  const auto push = [&](int op, uint32_t n) {
    if (n == 0) return;
    if (!aln.cigar.empty() && bam_cigar_op(aln.cigar.back()) == static_cast<uint32_t>(op)) {
      aln.cigar.back() = bam_cigar_gen(bam_cigar_oplen(aln.cigar.back()) + n, op);
    } else {
      aln.cigar.push_back(bam_cigar_gen(n, op));
    }
  };
  push(BAM_CSOFT_CLIP, static_cast<uint32_t>(first));
  // MD: matches counted, mismatched reference bases written, deletions as ^bases.
  int64_t g = aln.ref_begin;
  int r = static_cast<int>(first);
  int run = 0;
  bool last_was_deletion = false;
  for (size_t k = first; k < last; ++k) {
    const char op = ops[k];
    if (op == 'M') {
      push(BAM_CMATCH, 1);
      const uint8_t fc = b.ref_code(g);
      if (read[r] == fc && fc < 4) {
        ++run;
      } else {
        aln.md += std::to_string(run);
        aln.md += "ACGTN"[fc];
        run = 0;
      }
      ++g;
      ++r;
      last_was_deletion = false;
    } else if (op == 'I') {
      push(BAM_CINS, 1);
      ++r;
      last_was_deletion = false;
    } else {
      push(BAM_CDEL, 1);
      if (!last_was_deletion) {
        aln.md += std::to_string(run);
        aln.md += '^';
        run = 0;
      }
      aln.md += "ACGTN"[b.ref_code(g)];
      ++g;
      last_was_deletion = true;
    }
  }
  aln.md += std::to_string(run);
  push(BAM_CSOFT_CLIP, static_cast<uint32_t>(ops.size() - last));
  // Soft-clipped bases were counted as edits by the DP; NM excludes them.
  aln.edits -= static_cast<int>(first + (ops.size() - last));
  aln.ref_end = g;
  return aln;
}

}  // namespace gatemap::mapper
