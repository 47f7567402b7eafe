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
