#pragma once
// Shared by the pair-HMM tests: the PairHMM benchmark files (real data, tests/DATA.md;
// skipped when absent) and the tolerance checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "caller/pairhmm/pairhmm.hpp"
#include "../test_util.hpp"

namespace gatemap::test {

inline std::string pairhmm_data(const std::string& name) { return real_data("pairhmm-carneiro") + "/" + name; }

inline std::vector<double> read_expected(const std::string& path) {
  std::vector<double> v;
  std::ifstream in(path);
  double x;
  while (in >> x) v.push_back(x);
  return v;
}

// Result lines whose read is the longest of its test case: the generator of the
// expected values padded shorter reads (SOURCE.md), so only these follow the model.
inline std::vector<bool> longest_read_lines(const caller::pairhmm::PairHmmBatch& b) {
  std::vector<bool> keep;
  for (const auto& g : b.groups) {
    int max_len = 0;
    for (int r = 0; r < g.n_reads; ++r) max_len = std::max(max_len, b.read_len[g.first_read + r]);
    for (int r = 0; r < g.n_reads; ++r) {
      for (int h = 0; h < g.n_haps; ++h) keep.push_back(b.read_len[g.first_read + r] == max_len);
    }
  }
  return keep;
}

// Checks the acceptance rule against an expected file: |got - want| <= 1e-5 |want| on
// every longest-read line. Returns the number of lines checked.
inline size_t expect_matches_file(const caller::pairhmm::PairHmmBatch& b, const std::vector<double>& got,
                                  const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  const auto keep = longest_read_lines(b);
  size_t checked = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (!keep[i]) continue;
    ++checked;
    EXPECT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i])) << "line " << i + 1;
  }
  return checked;
}

// Relative agreement in log10 (both -inf counts as agreement).
inline bool close_log10(double got, double want, double rel) {
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(got - want) <= rel * std::fabs(want) + 1e-12;
}

}  // namespace gatemap::test
