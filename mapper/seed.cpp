// Seeding: k-mers of the read and of its reverse complement are looked up; hits vote
// for diagonals (reference position - read offset), which are clustered within e into
// candidates. A read within e edits of its origin has an exact segment of
// L = m/(e+1) bases (pigeonhole). The index holds every s-th reference position, so a
// segment is found when s consecutive read offsets inside it are queried: querying
// runs of s offsets every `step` = L-k-s+2 offsets is enough, and far cheaper than all.
#include "mapper/seed.hpp"

#include <algorithm>
#include <cmath>

#include "common/dna.hpp"

namespace gatemap::mapper::detail {

namespace {

// std::merge without its data-dependent branch (which the hits of repeats mispredict
// about half the time): the smaller head is picked with conditional moves.
void merge_two(const uint64_t* a, const uint64_t* a_end, const uint64_t* b, const uint64_t* b_end, uint64_t* out) {
  while (a != a_end && b != b_end) {
    const uint64_t x = *a, y = *b;
    const bool take_b = y < x;
    *out++ = take_b ? y : x;
    a += !take_b;
    b += take_b;
  }
  out = std::copy(a, a_end, out);
  std::copy(b, b_end, out);
}

// Merges the sorted runs hits[runs[i], runs[i+1]) into one sorted array, pairwise
// (log2(runs) passes; cheaper than sorting hits from scratch).
void merge_runs(std::vector<uint64_t>& hits, std::vector<size_t>& runs, std::vector<uint64_t>& buf) {
  if (runs.size() < 2) return;
  runs.push_back(hits.size());
  buf.resize(hits.size());
  while (runs.size() > 2) {
    size_t out = 0;
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const size_t a = runs[r], b = runs[r + 1], c = r + 2 < runs.size() ? runs[r + 2] : b;
      merge_two(hits.data() + a, hits.data() + b, hits.data() + b, hits.data() + c, buf.data() + a);
      runs[out++] = a;
    }
    runs[out++] = hits.size();
    runs.resize(out);
    hits.swap(buf);
  }
}

}  // namespace

void set_read_codes(SeededRead& w, const std::string& seq) {
  const size_t m = seq.size();
  w.codes[0].resize(m);
  w.codes[1].resize(m);
  for (size_t i = 0; i < m; ++i) {
    w.codes[0][i] = base_code(seq[i]);
    w.codes[1][m - 1 - i] = complement_code(w.codes[0][i]);
  }
}

int edit_threshold(const VerifyOptions& opt, int m) {
  if (opt.max_edits >= 0) return opt.max_edits;
  return std::min(kMaxEditsLimit, std::max(2, static_cast<int>(std::ceil(0.04 * m))));
}

void seed_read(const index::Index& idx, const std::string& seq, const MapOptions& opt, SeedScratch& scratch,
               SeededRead& out) {
  set_read_codes(out, seq);
  out.max_edits = edit_threshold(opt.verify, static_cast<int>(seq.size()));
  collect_candidates(idx, out, opt.seed, scratch);
}

void collect_candidates(const index::Index& idx, SeededRead& w, const SeedOptions& opt, SeedScratch& scratch) {
  auto& [hits, merged, runs, strand_cand, seed_pos, order, queries] = scratch;
  const uint32_t max_occ = opt.max_occ ? opt.max_occ : idx.max_occ();
  const int max_candidates = opt.max_candidates;
  const int k = idx.k();
  const int m = static_cast<int>(w.codes[0].size());
  w.cand.clear();
  w.capped = false;
  w.cand_cap_hit = false;
  if (m < k || m >= kMaxSeedReadLen) return;
  const uint64_t low = (uint64_t{1} << k) - 1;
  const int s = idx.stride();
  const int step = std::max(1, m / (w.max_edits + 1) - k - s + 2);
  for (uint8_t strand = 0; strand < 2; ++strand) {
    const uint8_t* codes = w.codes[strand].data();
    // A hit packed as (diagonal + kMaxSeedReadLen, read offset): integer order is by
    // diagonal, then by reference position (= diagonal + offset).
    hits.clear();
    runs.clear();  // each lookup appends a sorted run (positions of a k-mer ascend)
    // The query k-mers first, so that their lookups' cache misses overlap (prefetch).
    queries.clear();
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
      queries.emplace_back((hi & low) | ((lo & low) << k), start);
    }
    for (int stage = 0; stage < 3; ++stage) {
      for (const auto& qk : queries) idx.prefetch(qk.first, stage);
    }
    for (const auto& [key, start] : queries) {
      const index::KmerHits kh = idx.lookup(key);
      if (kh.count > max_occ) {
        w.capped = true;
        continue;
      }
      if (kh.count) runs.push_back(hits.size());
      for (uint32_t h = 0; h < kh.count; ++h) {
        hits.push_back((static_cast<uint64_t>(kh.pos[h]) - start + kMaxSeedReadLen) << kSeedOffsetBits | start);
      }
    }
    merge_runs(hits, runs, merged);
    // Cluster diagonals: a cluster holds the diagonals within e of its first one.
    strand_cand.clear();
    seed_pos.clear();
    const auto diag_of = [](uint64_t h) { return static_cast<int64_t>(h >> kSeedOffsetBits) - kMaxSeedReadLen; };
    const auto pos_of = [&](uint64_t h) {
      return diag_of(h) + static_cast<int64_t>(h & (uint64_t{kMaxSeedReadLen} - 1));
    };
    for (size_t a = 0; a < hits.size();) {
      size_t b = a;
      const int64_t first_diag = diag_of(hits[a]);
      while (b < hits.size() && diag_of(hits[b]) - first_diag <= w.max_edits) ++b;
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
      // The contig field holds the seed position until the cap is applied.
      strand_cand.push_back({strand, 0, best_diag, static_cast<uint32_t>(b - a)});
      seed_pos.push_back(best_pos);
      a = b;
    }
    order.resize(strand_cand.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    if (static_cast<int>(strand_cand.size()) > max_candidates) {
      // The best supported, ties in diagonal order (what a stable sort by support keeps).
      const auto better = [&](uint32_t x, uint32_t y) {
        return strand_cand[x].support != strand_cand[y].support ? strand_cand[x].support > strand_cand[y].support
                                                                : x < y;
      };
      std::nth_element(order.begin(), order.begin() + max_candidates, order.end(), better);
      std::sort(order.begin(), order.begin() + max_candidates, better);
      order.resize(max_candidates);
      w.cand_cap_hit = true;
    }
    for (uint32_t i : order) {
      Candidate c = strand_cand[i];
      c.contig = static_cast<uint32_t>(idx.contig_of(seed_pos[i]));
      w.cand.push_back(c);
    }
  }
}

}  // namespace gatemap::mapper::detail
