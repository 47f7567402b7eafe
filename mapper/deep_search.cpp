// A read whose candidates were cut at --max-cand and whose verified hits are poor (or
// none): a read from one copy of a repeat with hundreds of copies is seeded mostly by
// k-mers the copies share, so its own copy may rank below the best supported ones (a
// 100-base read one edit from its home placed on another copy at 3-4 edits, MAPQ 60).
// It is seeded again with kDeepCandidates per strand, and the candidates not tried
// before whose seed support leaves room for a better hit than its best are verified on
// the CPU, whatever the filter said (so every filter setting and backend gives the same
// records).
#include <algorithm>

#include "mapper/seed.hpp"
#include "mapper/seeding/seed_core.hpp"
#include "mapper/verify.hpp"

namespace gatemap::mapper::detail {

namespace {

int best_edits(const SeededRead& w, const ReadHits& hits) {
  int best = w.max_edits + 1;
  for (const Hit& h : hits) best = std::min(best, h.edits);
  return best;
}

// The least support a place within `edits` edits of the read can have on this strand
// (q-gram lemma): each seed query not skipped as too frequent matches there, at the
// reference positions the index samples, unless an edit covers it, and one edit covers
// at most `kill` of them. The least over the sampling phases, as an indel shifts it.
int least_support(const index::Index& idx, const uint8_t* codes, int m, int max_edits, uint32_t max_occ, int edits,
                  std::vector<int>& starts) {
  const int k = idx.k(), s = idx.stride();
  starts.clear();
  seeding::for_each_query(
      m, k, s, seeding::seed_step(m, max_edits, k, s), [&](int q) { return codes[q]; },
      [&](uint64_t key, int start) {
        if (idx.lookup(key).count <= max_occ) starts.push_back(start);
      });
  int least = static_cast<int>(starts.size());
  for (int phase = 0; phase < s; ++phase) {
    int queries = 0, kill = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      if ((starts[i] + phase) % s != 0) continue;
      ++queries;
      int covering = 0;  // queries whose k-mers hold the base at starts[i] + k - 1
      for (size_t j = i; j < starts.size() && starts[j] < starts[i] + k; ++j) covering += (starts[j] + phase) % s == 0;
      kill = std::max(kill, covering);
    }
    least = std::min(least, queries - edits * kill);
  }
  return least;
}

}  // namespace

bool Verifier::needs_deep_search(const SeededRead& w, const ReadHits& hits) {
  return w.cand_cap_hit && 2 * best_edits(w, hits) > w.max_edits;
}

void Verifier::deep_search(const SeededRead& w, const SeedOptions& opt, ReadHits& hits, Workspace& ws) const {
  const index::Index& idx = ref_.index();
  const uint32_t max_occ = opt.max_occ ? opt.max_occ : idx.max_occ();
  const int edits = std::min(w.max_edits, best_edits(w, hits) - 1);  // a better hit
  int least[2];
  for (int strand = 0; strand < 2; ++strand) {
    least[strand] = least_support(idx, w.codes[strand].data(), w.length(), w.max_edits, max_occ, edits, ws.starts);
  }
  SeededRead& deep = ws.deep;
  deep.codes[0] = w.codes[0];
  deep.codes[1] = w.codes[1];
  deep.max_edits = w.max_edits;
  SeedOptions wide = opt;
  wide.max_candidates = std::max(opt.max_candidates, kDeepCandidates);
  collect_candidates(idx, deep, wide, ws.seed);
  const auto tried = [&](const Candidate& c) {
    return std::any_of(w.cand.begin(), w.cand.end(),
                       [&](const Candidate& t) { return t.strand == c.strand && t.diag == c.diag; });
  };
  for (const Candidate& c : deep.cand) {
    if (static_cast<int>(c.support) < least[c.strand] || tried(c)) continue;
    const Hit h = verify_one(w, c, w.max_edits, c.diag, ws);
    if (h.edits >= 0) hits.push_back(h);
  }
}

}  // namespace gatemap::mapper::detail
