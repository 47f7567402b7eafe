// Seeding: k-mers of the read and of its reverse complement are looked up; hits vote
// for diagonals (reference position - read offset), which are clustered within e into
// candidates. A read within e edits of its origin has an exact segment of
// L = m/(e+1) bases (pigeonhole). The index holds every s-th reference position, so a
// segment is found when s consecutive read offsets inside it are queried: querying
// runs of s offsets every `step` = L-k-s+2 offsets is enough, and far cheaper than all.
#include <algorithm>

#include "mapper/detail.hpp"

namespace gatemap::mapper::detail {

void collect_candidates(const index::Index& idx, ReadWork& w, uint32_t max_occ, int max_candidates,
                        std::vector<uint64_t>& hits) {
  const int k = idx.k();
  const int m = static_cast<int>(w.codes[0].size());
  w.cand.clear();
  w.capped = false;
  w.cand_cap_hit = false;
  if (m < k || m >= kMaxSeedReadLen) return;
  const uint64_t low = (uint64_t{1} << k) - 1;
  const int s = idx.stride();
  const int step = std::max(1, m / (w.e + 1) - k - s + 2);
  for (uint8_t strand = 0; strand < 2; ++strand) {
    const uint8_t* codes = w.codes[strand].data();
    // A hit packed as (diagonal + kMaxSeedReadLen, read offset): one integer sort orders
    // hits by diagonal, then by reference position (= diagonal + offset).
    hits.clear();
    uint64_t hi = 0, lo = 0;
    int valid = 0;  // bases since the last N
    for (int q = 0; q < m; ++q) {
      const uint8_t c = codes[q];
      if (c > 3) {
        valid = 0;
        continue;
      }
      // Rolling planes: base j of the window at bit j, so shift right and add at bit k-1.
      hi = (hi >> 1) | (static_cast<uint64_t>(c >> 1) << (k - 1));
      lo = (lo >> 1) | (static_cast<uint64_t>(c & 1) << (k - 1));
      if (++valid < k) continue;
      const int start = q - k + 1;
      if (start % step >= s) continue;
      const index::KmerHits kh = idx.lookup((hi & low) | ((lo & low) << k));
      if (kh.count > max_occ) {
        w.capped = true;
        continue;
      }
      for (uint32_t h = 0; h < kh.count; ++h) {
        hits.push_back((static_cast<uint64_t>(kh.pos[h]) - start + kMaxSeedReadLen) << kSeedOffsetBits | start);
      }
    }
    std::sort(hits.begin(), hits.end());
    // Cluster diagonals: a cluster holds the diagonals within e of its first one.
    std::vector<Candidate> strand_cand;
    const auto diag_of = [](uint64_t h) { return static_cast<int64_t>(h >> kSeedOffsetBits) - kMaxSeedReadLen; };
    const auto pos_of = [&](uint64_t h) {
      return diag_of(h) + static_cast<int64_t>(h & (uint64_t{kMaxSeedReadLen} - 1));
    };
    for (size_t a = 0; a < hits.size();) {
      size_t b = a;
      const int64_t first_diag = diag_of(hits[a]);
      while (b < hits.size() && diag_of(hits[b]) - first_diag <= w.e) ++b;
      // The most supported diagonal of the cluster is its centre.
      int64_t best_diag = first_diag, best_pos = pos_of(hits[a]);
      uint32_t best_n = 0;
      for (size_t x = a; x < b;) {
        size_t y = x;
        const int64_t d = diag_of(hits[x]);
        while (y < b && diag_of(hits[y]) == d) ++y;
        if (y - x > best_n) {
          best_n = static_cast<uint32_t>(y - x);
          best_diag = d;
          best_pos = pos_of(hits[x]);
        }
        x = y;
      }
      strand_cand.push_back({strand, static_cast<uint32_t>(idx.contig_of(best_pos)), best_diag,
                             static_cast<uint32_t>(b - a)});
      a = b;
    }
    if (static_cast<int>(strand_cand.size()) > max_candidates) {
      std::stable_sort(strand_cand.begin(), strand_cand.end(),
                       [](const Candidate& x, const Candidate& y) { return x.support > y.support; });
      strand_cand.resize(max_candidates);
      w.cand_cap_hit = true;
    }
    w.cand.insert(w.cand.end(), strand_cand.begin(), strand_cand.end());
  }
}

void fetch_window(const index::Index& idx, int64_t begin, int64_t end, RefWindow& out) {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, idx.length());
  out.begin = begin;
  out.codes.resize(static_cast<size_t>(std::max<int64_t>(0, end - begin)));
  for (int64_t p = begin; p < end; ++p) out.codes[p - begin] = idx.base(p);
  if (idx.has_n(begin, end)) {
    for (int64_t p = begin; p < end; ++p) {
      if (idx.has_n(p, p + 1)) out.codes[p - begin] = 4;
    }
  }
}

}  // namespace gatemap::mapper::detail
