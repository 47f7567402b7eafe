// split_threads: every index in exactly one part, parts contiguous and in order, the
// first part's exception rethrown after all parts ended.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/split_threads.hpp"

using gatemap::split_threads;

TEST(SplitThreads, PartsCoverEveryIndexOnce) {
  for (const auto& [n, threads] : std::vector<std::pair<size_t, int>>{{0, 4}, {1, 4}, {3, 8}, {1000, 1}, {1001, 7}}) {
    std::vector<std::atomic<int>> seen(n);
    std::mutex m;
    std::vector<std::pair<size_t, size_t>> parts;
    split_threads(n, threads, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) seen[i]++;
      std::lock_guard<std::mutex> lock(m);
      parts.emplace_back(begin, end);
    });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << n << " " << threads << " index " << i;
    EXPECT_LE(parts.size(), static_cast<size_t>(threads));
    std::sort(parts.begin(), parts.end());
    size_t next = 0;
    for (const auto& [b, e] : parts) {
      EXPECT_EQ(b, next);
      EXPECT_LT(b, e);
      next = e;
    }
    EXPECT_EQ(next, n);
  }
}

TEST(SplitThreads, TheFirstPartsErrorIsRethrown) {
  std::atomic<int> finished{0};
  try {
    split_threads(80, 8, [&](size_t begin, size_t) {
      if (begin >= 20 && begin < 30) throw std::runtime_error("part 2");  // parts of 10
      if (begin >= 50 && begin < 60) throw std::runtime_error("part 5");
      finished++;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "part 2");
  }
  EXPECT_EQ(finished, 6);  // the other parts still ran to their end
}
