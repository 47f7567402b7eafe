#pragma once
// Seeding (mapper stage 1): a read's k-mers on both strands are looked up in the index;
// hits vote for diagonals, clustered within the read's edit threshold into candidate
// locations, best supported first, at most --max-cand per strand. Also the k-mer seeds
// of mate rescue inside a reference window.
#include <cstdint>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/types.hpp"
#include "mapper/base/workspace.hpp"

namespace gatemap::mapper::detail {

// The edit threshold of a read of m bases: -e, or 4% of m (at least 2, at most 64).
int edit_threshold(const VerifyOptions& opt, int m);

// Fills both strands' codes of a read (0..3, 4 = N).
void set_read_codes(SeededRead& w, const std::string& seq);

// Candidates of w (codes and max_edits set). Thread-safe with one scratch per thread.
// Reads of seeding::kMaxSeedReadLen bases or more get none (they are reported unmapped).
// Of the clusters the --max-cand cap keeps, those seeding::keep_supported keeps: the ones
// whose support leaves room for a hit within w.max_edits, and the kClipCandidates best
// of the others. within_edits >= 0 (the deep search): only the clusters that leave room
// for a hit within that many edits.
void collect_candidates(const index::Index& idx, SeededRead& w, const SeedOptions& opt, SeedScratch& scratch,
                        int within_edits = -1);

// One strand's clusters (seeding::cluster_hits) -> w.cand: the best supported
// max_candidates (sets w.cand_cap_hit when some are left out), of those the ones with at
// least `least` support and the `lows` best of the others, contigs looked up.
void add_strand_candidates(const index::Index& idx, uint8_t strand, const SeedCluster* clusters, size_t n,
                           int max_candidates, int least, int lows, SeededRead& w, std::vector<uint32_t>& order);
// The same from clusters the cap has already chosen (the GPU seeder's, in diagonal
// order): when some were left out (cap_hit), ordered by support as above.
void add_kept_candidates(const index::Index& idx, uint8_t strand, const SeedCluster* kept, size_t n, bool cap_hit,
                         SeededRead& w, std::vector<uint32_t>& order);

// The whole stage for one read: codes, threshold, candidates.
void seed_read(const index::Index& idx, const std::string& seq, const MapOptions& opt, SeedScratch& scratch,
               SeededRead& out);

// Mate rescue's seeds: the best-supported diagonals (global position of the read's first
// base) of k-mers the read shares with a reference window, clusters of hits within
// `merge`, at least two hits each, at most max_diagonals.
constexpr int kWindowSeedK = 11;
std::vector<int64_t> window_diagonals(const uint8_t* read, int m, const RefWindow& win, int max_diagonals, int merge);

}  // namespace gatemap::mapper::detail
