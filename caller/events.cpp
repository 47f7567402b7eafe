// Haplotype vs reference: global alignment with affine gaps (GATK's haplotype-to-
// reference weights: match 200, mismatch -150, gap open -260, extend -11), then the
// differences as VCF-style events, indels left-aligned on the contig.
#include <algorithm>
#include <climits>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {

constexpr int kMatch = 200, kMismatch = -150, kOpen = -260, kExtend = -11;
constexpr int kNeg = INT_MIN / 4;

// Left-aligns and trims an event against the contig (vt's normalisation).
Event normalise(Event e, const std::string& contig) {
  for (;;) {
    if (e.ref.size() >= 1 && e.alt.size() >= 1 && e.ref.back() == e.alt.back() &&
        (e.ref.size() > 1 || e.alt.size() > 1)) {
      if (e.ref.size() == 1 || e.alt.size() == 1) {
        if (e.pos == 0) break;
        --e.pos;
        e.ref.insert(e.ref.begin(), contig[e.pos]);
        e.alt.insert(e.alt.begin(), contig[e.pos]);
      }
      e.ref.pop_back();
      e.alt.pop_back();
    } else {
      break;
    }
  }
  while (e.ref.size() > 1 && e.alt.size() > 1 && e.ref[0] == e.alt[0]) {
    e.ref.erase(e.ref.begin());
    e.alt.erase(e.alt.begin());
    ++e.pos;
  }
  return e;
}

// The differences along an alignment path ('M', 'D': ref base only, 'I': hap base only)
// as events, indels anchored on the base before them and normalised; sorted.
std::vector<Event> events_of_path(const std::string& ops, const std::string& ref, int64_t region_begin,
                                  const std::string& hap, const std::string& contig) {
  std::vector<Event> events;
  size_t ri = 0, hj = 0;
  for (size_t k = 0; k < ops.size();) {
    if (ops[k] == 'M') {
      if (ref[ri] != hap[hj]) events.push_back({region_begin + static_cast<int64_t>(ri), ref.substr(ri, 1), hap.substr(hj, 1)});
      ++ri, ++hj, ++k;
      continue;
    }
    const char op = ops[k];
    size_t len = 0;
    while (k < ops.size() && ops[k] == op) ++len, ++k;
    if (ri == 0) {  // an indel before the first base has no anchor: skip (cannot happen with a shared source k-mer)
      (op == 'D' ? ri : hj) += len;
      continue;
    }
    Event e;
    e.pos = region_begin + static_cast<int64_t>(ri) - 1;
    if (op == 'D') {
      e.ref = ref.substr(ri - 1, len + 1);
      e.alt = ref.substr(ri - 1, 1);
      ri += len;
    } else {
      e.ref = ref.substr(ri - 1, 1);
      e.alt = ref.substr(ri - 1, 1) + hap.substr(hj, len);
      hj += len;
    }
    events.push_back(normalise(e, contig));
  }
  std::sort(events.begin(), events.end());
  return events;
}

}  // namespace

std::vector<Event> haplotype_events(const std::string& ref, int64_t region_begin, const std::string& hap,
                                    const std::string& contig) {
  if (hap == ref) return {};  // the reference haplotype (one in every region): nothing to align
  const size_t n = ref.size(), m = hap.size();
  // M: ends in a match/mismatch, D: in a deletion (ref base vs gap), I: in an insertion.
  const size_t W = m + 1;
  // Kept per thread: a fresh 3 x 4 x n x m bytes for every haplotype was a third of this
  // step. Only the first row and column are set here: the loops below write every other
  // cell before reading it.
  thread_local std::vector<int> M, D, I;
  for (auto* v : {&M, &D, &I}) {
    if (v->size() < (n + 1) * W) v->resize((n + 1) * W);
    std::fill(v->begin(), v->begin() + W, kNeg);
    for (size_t i = 1; i <= n; ++i) (*v)[i * W] = kNeg;
  }
  M[0] = 0;
  for (size_t i = 1; i <= n; ++i) D[i * W] = kOpen + static_cast<int>(i - 1) * kExtend;
  for (size_t j = 1; j <= m; ++j) I[j] = kOpen + static_cast<int>(j - 1) * kExtend;
  for (size_t i = 1; i <= n; ++i) {
    // M and D come from the row above only (a loop the compiler vectorises), I from its left.
    int* m_row = &M[i * W];
    int* d_row = &D[i * W];
    int* i_row = &I[i * W];
    const int* m_up = &M[(i - 1) * W];
    const int* d_up = &D[(i - 1) * W];
    const int* i_up = &I[(i - 1) * W];
    const char r = ref[i - 1];
    for (size_t j = 1; j <= m; ++j) {
      const int s = r == hap[j - 1] ? kMatch : kMismatch;
      m_row[j] = std::max(std::max(m_up[j - 1], d_up[j - 1]), i_up[j - 1]) + s;
      d_row[j] = std::max(std::max(m_up[j] + kOpen, d_up[j] + kExtend), i_up[j] + kOpen);
    }
    // I[j] = max(open[j], I[j-1] + extend) is a running maximum of open[k] - extend x k,
    // shifted back by extend x j: one max per cell on the serial chain instead of two.
    int run = i_row[0];
    for (size_t j = 1; j <= m; ++j) {
      const int shift = kExtend * static_cast<int>(j);
      run = std::max(run, std::max(m_row[j - 1], d_row[j - 1]) + kOpen - shift);
      i_row[j] = run + shift;
    }
  }
  // Traceback into operations: 'M', 'D' (ref base only), 'I' (hap base only).
  std::string ops;
  size_t i = n, j = m;
  int state = 0;  // 0 M, 1 D, 2 I
  {
    const size_t at = n * W + m;
    const int best = std::max({M[at], D[at], I[at]});
    state = best == M[at] ? 0 : best == D[at] ? 1 : 2;
  }
  while (i > 0 || j > 0) {
    const size_t at = i * W + j;
    if (state == 0) {
      ops.push_back('M');
      const size_t diag = (i - 1) * W + j - 1;
      const int prev = M[at] - (ref[i - 1] == hap[j - 1] ? kMatch : kMismatch);
      state = prev == M[diag] ? 0 : prev == D[diag] ? 1 : 2;
      --i, --j;
    } else if (state == 1) {
      ops.push_back('D');
      const size_t up = (i - 1) * W + j;
      state = D[at] == M[up] + kOpen ? 0 : D[at] == D[up] + kExtend ? 1 : 2;
      if (i == 1 && j == 0) state = 1;
      --i;
    } else {
      ops.push_back('I');
      const size_t left = i * W + j - 1;
      state = I[at] == M[left] + kOpen ? 0 : I[at] == I[left] + kExtend ? 2 : 1;
      if (j == 1 && i == 0) state = 2;
      --j;
    }
  }
  std::reverse(ops.begin(), ops.end());
  return events_of_path(ops, ref, region_begin, hap, contig);
}

}  // namespace gatemap::caller::detail
