// Seeding on the CPU: k-mers of the read and of its reverse complement are looked up
// (seeding::for_each_query says which); hits vote for diagonals (reference position -
// read offset), which are clustered within e into candidates (seeding::cluster_hits).
// The GPU seeder (seeding/seed.cu) follows the same rules.
#include "mapper/seeding/seed.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/dna.hpp"
#include "mapper/seeding/seed_core.hpp"

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
  // Raw pointers: stores through uint8_t may alias anything, and through the vectors
  // they would reload both vectors' data pointers on every base.
  uint8_t* const fwd = w.codes[0].data();
  uint8_t* const rev = w.codes[1].data();
  const char* const text = seq.data();
  for (size_t i = 0; i < m; ++i) {
    const uint8_t code = base_code(text[i]);
    fwd[i] = code;
    rev[m - 1 - i] = complement_code(code);
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

namespace {

// Best supported first, ties in diagonal (index) order: what a stable sort by support keeps.
auto by_support(const SeedCluster* clusters) {
  return [clusters](uint32_t x, uint32_t y) {
    return clusters[x].support != clusters[y].support ? clusters[x].support > clusters[y].support : x < y;
  };
}

void push_candidates(const index::Index& idx, uint8_t strand, const SeedCluster* clusters,
                     const std::vector<uint32_t>& order, SeededRead& w) {
  int32_t contig = -1;  // the last one looked up, [lo, hi): a read's candidates mostly share it
  int64_t lo = 0, hi = 0;
  for (uint32_t i : order) {
    const SeedCluster& c = clusters[i];
    const int64_t pos = c.diag + c.seed_offset;
    if (contig < 0 || pos < lo || pos >= hi) {
      contig = idx.contig_of(pos);
      if (contig >= 0) {
        lo = idx.contigs()[static_cast<size_t>(contig)].begin;
        hi = lo + idx.contigs()[static_cast<size_t>(contig)].length;
      }
    }
    w.cand.push_back({strand, static_cast<uint32_t>(contig), c.diag, c.support});
  }
}

}  // namespace

// The best supported --max-cand, ordered by support, ties in diagonal order (what a
// stable sort by support keeps); of those, the ones seeding::keep_supported keeps.
void add_strand_candidates(const index::Index& idx, uint8_t strand, const SeedCluster* clusters, size_t n,
                           int max_candidates, int least, int lows, SeededRead& w, std::vector<uint32_t>& order) {
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  if (static_cast<int64_t>(n) > max_candidates) {
    const auto better = by_support(clusters);
    std::nth_element(order.begin(), order.begin() + max_candidates, order.end(), better);
    std::sort(order.begin(), order.begin() + max_candidates, better);
    order.resize(static_cast<size_t>(max_candidates));
    w.cand_cap_hit = true;
    const auto supported = std::count_if(clusters, clusters + n, [least](const SeedCluster& c) {
      return static_cast<int64_t>(c.support) >= least;
    });
    w.cap_left_hits = w.cap_left_hits || supported > max_candidates;
  }
  size_t kept = 0;
  seeding::keep_supported(
      static_cast<int64_t>(order.size()), [&](int64_t j) { return clusters[order[j]].support; }, least, lows,
      [&](int64_t j) { order[kept++] = order[j]; });
  order.resize(kept);
  push_candidates(idx, strand, clusters, order, w);
}

void add_kept_candidates(const index::Index& idx, uint8_t strand, const SeedCluster* kept, size_t n, bool cap_hit,
                         SeededRead& w, std::vector<uint32_t>& order) {
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  if (cap_hit) {  // a full order: a stable sort's, without its buffer
    std::sort(order.begin(), order.end(), by_support(kept));
    w.cand_cap_hit = true;
  }
  push_candidates(idx, strand, kept, order, w);
}

void collect_candidates(const index::Index& idx, SeededRead& w, const SeedOptions& opt, SeedScratch& scratch,
                        int within_edits) {
  auto& [hits, merged, runs, clusters, order, queries] = scratch;
  const uint32_t max_occ = opt.max_occ ? opt.max_occ : idx.max_occ();
  const int k = idx.k();
  const int m = w.length();
  w.cand.clear();
  w.capped = false;
  w.cand_cap_hit = false;
  w.cap_left_hits = false;
  if (m < k || m >= seeding::kMaxSeedReadLen) return;
  const int s = idx.stride();
  const int step = seeding::seed_step(m, w.max_edits, k, s);
  for (uint8_t strand = 0; strand < 2; ++strand) {
    const uint8_t* codes = w.codes[strand].data();
    hits.clear();
    runs.clear();  // each lookup appends a sorted run (positions of a k-mer ascend)
    // The query k-mers first, so that their lookups' cache misses overlap (prefetch).
    queries.clear();
    seeding::for_each_query(
        m, k, s, step, [&](int q) { return codes[q]; },
        [&](uint64_t key, int start) { queries.emplace_back(key, start); });
    for (int stage = 0; stage < 3; ++stage) {
      for (const auto& qk : queries) idx.prefetch(qk.first, stage);
    }
    seeding::SupportBound bound(k, s);
    for (const auto& [key, start] : queries) {
      const index::KmerHits kh = idx.lookup(key);
      if (kh.count > max_occ) {
        w.capped = true;
        continue;
      }
      bound.add(start);
      if (kh.count) runs.push_back(hits.size());
      for (uint32_t h = 0; h < kh.count; ++h) hits.push_back(seeding::pack_hit(kh.pos[h], start));
    }
    merge_runs(hits, runs, merged);
    clusters.clear();
    seeding::cluster_hits(hits.data(), static_cast<int64_t>(hits.size()), w.max_edits,
                          [&](int64_t diag, uint32_t seed_offset, uint32_t support) {
                            clusters.push_back({diag, seed_offset, support});
                          });
    // The deep search (within_edits) tries only clusters that can beat the best hit.
    const int least = bound.least(within_edits < 0 ? w.max_edits : within_edits);
    add_strand_candidates(idx, strand, clusters.data(), clusters.size(), opt.max_candidates, least,
                          within_edits < 0 ? kClipCandidates : 0, w, order);
  }
}

}  // namespace gatemap::mapper::detail
