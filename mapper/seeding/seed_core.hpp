#pragma once
// The rules of seeding shared by the CPU (seed_cpu.cpp) and the GPU seeder
// (seed.cu), so that both give the same candidates: which read offsets are looked
// up, how a hit is packed, and how sorted hits cluster into candidate diagonals.
#include <cstdint>

#include "gpu/host_device.hpp"

namespace gatemap::mapper::seeding {

// A hit packed as (diagonal + kMaxSeedReadLen, read offset): integer order is by
// diagonal, then by reference position (= diagonal + offset). Reads of kMaxSeedReadLen
// bases or more get no candidates.
constexpr int kSeedOffsetBits = 22;
constexpr int kMaxSeedReadLen = 1 << kSeedOffsetBits;

GATEMAP_HD uint64_t pack_hit(uint32_t ref_pos, int read_offset) {
  return (static_cast<uint64_t>(ref_pos) - static_cast<uint64_t>(read_offset) + kMaxSeedReadLen) << kSeedOffsetBits |
         static_cast<uint64_t>(read_offset);
}
GATEMAP_HD int64_t hit_diag(uint64_t h) { return static_cast<int64_t>(h >> kSeedOffsetBits) - kMaxSeedReadLen; }
GATEMAP_HD uint32_t hit_offset(uint64_t h) { return static_cast<uint32_t>(h & (uint64_t{kMaxSeedReadLen} - 1)); }

// A read within e edits of its origin has an exact segment of m/(e+1) bases
// (pigeonhole); with every s-th reference k-mer indexed, runs of s offsets every `step`
// offsets find it.
GATEMAP_HD int seed_step(int m, int max_edits, int k, int stride) {
  const int step = m / (max_edits + 1) - k - stride + 2;
  return step < 1 ? 1 : step;
}

// Calls query(key, start) for each looked-up k-mer of a read of m bases (code(q) gives
// base q, 0..3 or 4 = N) in offset order: N-free k-mers whose start % step < stride.
// Key: base j of the k-mer at bit j of the hi plane (bits 0..k-1) and the lo plane (k..2k-1).
template <class Code, class Query>
GATEMAP_HD void for_each_query(int m, int k, int stride, int step, Code code, Query query) {
  const uint64_t low = (uint64_t{1} << k) - 1;
  uint64_t hi = 0, lo = 0;
  int valid = 0;  // bases since the last N
  for (int q = 0; q < m; ++q) {
    const uint8_t c = code(q);
    if (c > 3) {
      valid = 0;
      continue;
    }
    hi = (hi >> 1) | (static_cast<uint64_t>(c >> 1) << (k - 1));
    lo = (lo >> 1) | (static_cast<uint64_t>(c & 1) << (k - 1));
    if (++valid < k) continue;
    const int start = q - k + 1;
    if (start % step >= stride) continue;
    query((hi & low) | ((lo & low) << k), start);
  }
}

// The least seed support of a place within `edits` edits of a read (q-gram lemma), fed
// the offsets of the read's looked-up queries (skipped ones left out) in order. A query
// matches at such a place where the index samples the reference (every s-th position:
// the queries of one offset residue mod s) unless an edit covers it. An edit at base y
// costs at most the most queries one base is covered by; an indel also moves the
// sampled residue from some r (left of it) to some r' (right), so it costs at most
// max over y, r, r' of (r'-queries at or before y) - (r-queries before y - k + 1): `loss`
// (with r = r' that is the substitution's cost). So a place within `edits` keeps at
// least min over r of (r-queries) - edits * loss. A cluster with less support holds no
// hit within `edits` (keep_supported). Strides over kMaxResidues give 0.
class SupportBound {
 public:
  static constexpr int kMaxResidues = 8;
  GATEMAP_HD SupportBound(int k, int stride) : s_(stride), k_mask_((1u << k) - 1) {
    for (int i = 0; i < k; i += stride) same_residue_ |= 1u << i;
    for (int r = 0; r < kMaxResidues; ++r) count_[r] = 0;
  }
  GATEMAP_HD void add(int start) {
    if (s_ > kMaxResidues) return;
    const int gap = start - last_;
    recent_ = (gap >= 32 ? 0u : recent_ << gap) | 1u;  // bit i: a query at start - i
    last_ = start;
    const int res = start % s_;
    ++count_[res];
    for (int r = 0; r < s_; ++r) {
      // r-queries in (start - k, start]: bits i with start - i = r mod s.
      const int shift = (res - r + s_) % s_;
      const int recent_r = popcount(recent_ & (same_residue_ << shift) & k_mask_);
      const int cost = count_[res] - (count_[r] - recent_r);
      if (cost > loss_) loss_ = cost;
    }
  }
  GATEMAP_HD int least(int edits) const {
    if (s_ > kMaxResidues) return 0;
    int fewest = count_[0];
    for (int r = 1; r < s_; ++r) fewest = count_[r] < fewest ? count_[r] : fewest;
    return fewest - edits * loss_;
  }

 private:
  GATEMAP_HD static int popcount(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
  }
  int s_;
  uint32_t k_mask_;
  uint32_t same_residue_ = 0;  // bits 0, s, 2s, ... below k
  uint32_t recent_ = 0;
  int last_ = -64;
  int loss_ = 0;
  int count_[kMaxResidues];
};

// Of n clusters (support(j) gives cluster j's), those with at least `least` support and
// of the others the `lows` best supported (ties: the first): keep(j) for each, in order.
// The others hold no hit within the read's threshold (SupportBound); the best few are
// kept for the clipped fallback, which aligns the best supported candidates whatever
// their edits. On a large genome this leaves out most clusters of chance k-mer hits.
template <class Support, class Keep>
GATEMAP_HD void keep_supported(int64_t n, Support support, int least, int64_t lows, Keep keep) {
  const auto low = [&](int64_t j) { return static_cast<int64_t>(support(j)) < least; };
  int64_t n_low = 0;
  uint32_t top = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (!low(j)) continue;
    ++n_low;
    top = support(j) > top ? support(j) : top;
  }
  // Lows kept: those over `cut`, and the first `ties` at it.
  uint32_t cut = 0;
  int64_t ties = n_low;
  if (n_low > lows) {
    const auto at_least = [&](uint32_t s) {
      int64_t k = 0;
      for (int64_t j = 0; j < n; ++j) k += low(j) && support(j) >= s;
      return k;
    };
    uint32_t lo = 0, hi = top + 1;  // the largest s that `lows` lows reach (0 when lows is 0)
    while (lo + 1 < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (at_least(mid) >= lows) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    cut = lo;
    ties = lows - at_least(lo + 1);
  }
  for (int64_t j = 0; j < n; ++j) {
    if (!low(j) || support(j) > cut || (support(j) == cut && ties-- > 0)) keep(j);
  }
}

// Clusters n sorted hits: a cluster holds the hits whose diagonals are within e of its
// first one; its centre is the diagonal with the most hits (the first on ties), and its
// seed offset the read offset of that diagonal's first hit. Calls
// emit(diag, seed_offset, support) in order.
template <class Emit>
GATEMAP_HD void cluster_hits(const uint64_t* hits, int64_t n, int max_edits, Emit emit) {
  for (int64_t a = 0; a < n;) {
    int64_t b = a;
    const int64_t first_diag = hit_diag(hits[a]);
    while (b < n && hit_diag(hits[b]) - first_diag <= max_edits) ++b;
    int64_t best_diag = first_diag;
    uint32_t best_offset = hit_offset(hits[a]);
    int64_t best_n = 0;
    for (int64_t x = a; x < b;) {
      int64_t y = x;
      const int64_t d = hit_diag(hits[x]);
      while (y < b && hit_diag(hits[y]) == d) ++y;
      if (y - x > best_n) {
        best_n = y - x;
        best_diag = d;
        best_offset = hit_offset(hits[x]);
      }
      x = y;
    }
    emit(best_diag, best_offset, static_cast<uint32_t>(b - a));
    a = b;
  }
}

}  // namespace gatemap::mapper::seeding
