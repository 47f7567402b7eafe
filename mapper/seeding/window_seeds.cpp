// Diagonals of a read inside a reference window from shared k-mers: where mate rescue
// aligns, so that it runs a narrow band instead of a band as wide as the insert spread.
#include <algorithm>

#include "mapper/seeding/seed.hpp"

namespace gatemap::mapper::detail {

std::vector<int64_t> window_diagonals(const uint8_t* read, int m, const RefWindow& win, int max_diagonals,
                                      int merge) {
  constexpr int k = kWindowSeedK;
  constexpr uint32_t mask = (1u << (2 * k)) - 1;
  // (k-mer, read offset) of every N-free k-mer of the read, sorted.
  std::vector<std::pair<uint32_t, int>> kmers;
  uint32_t key = 0;
  for (int i = 0, run = 0; i < m; ++i) {
    run = read[i] > 3 ? 0 : run + 1;
    key = ((key << 2) | (read[i] & 3)) & mask;
    if (run >= k) kmers.emplace_back(key, i + 1 - k);
  }
  std::sort(kmers.begin(), kmers.end());
  std::vector<int64_t> diags;  // reference position of the read's first base, per shared k-mer
  key = 0;
  for (int64_t j = 0, run = 0, n = static_cast<int64_t>(win.codes.size()); j < n; ++j) {
    const uint8_t c = win.codes[static_cast<size_t>(j)];
    run = c > 3 ? 0 : run + 1;
    key = ((key << 2) | (c & 3)) & mask;
    if (run < k) continue;
    auto it = std::lower_bound(kmers.begin(), kmers.end(), std::make_pair(key, 0));
    for (; it != kmers.end() && it->first == key; ++it) diags.push_back(win.begin + j + 1 - k - it->second);
  }
  std::sort(diags.begin(), diags.end());
  // Clusters of diagonals within `merge` of their first; best supported first, at least two k-mers.
  struct Cluster {
    int64_t diag;
    int support;
  };
  std::vector<Cluster> clusters;
  for (size_t a = 0; a < diags.size();) {
    size_t b = a;
    while (b < diags.size() && diags[b] - diags[a] <= merge) ++b;
    if (b - a >= 2) clusters.push_back({diags[a + (b - a) / 2], static_cast<int>(b - a)});
    a = b;
  }
  std::stable_sort(clusters.begin(), clusters.end(), [](const Cluster& x, const Cluster& y) { return x.support > y.support; });
  std::vector<int64_t> out;
  for (size_t i = 0; i < clusters.size() && static_cast<int>(i) < max_diagonals; ++i) out.push_back(clusters[i].diag);
  return out;
}

}  // namespace gatemap::mapper::detail
