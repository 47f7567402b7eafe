// MappedBuffer: records survive every growth (mremap moves them), never past the most
// asked for, and the memory is kept by clear() and given back by release(). Sorted on
// all threads, a buffer holds what std::sort gives, for any number of threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "io/mapped_buffer.hpp"
#include "io/sort/parallel_sort.hpp"

namespace {
struct Rec {
  int64_t key;
  int32_t value;
  uint8_t flag;
};
}  // namespace

TEST(MappedBuffer, RecordsSurviveEveryGrowth) {
  gatemap::io::MappedBuffer<Rec> buf;
  const int64_t n = 3'000'000;  // ~72 MB: several doublings past the first megabyte
  for (int64_t i = 0; i < n; ++i) buf.push_back({i * 7, static_cast<int32_t>(i % 1000), static_cast<uint8_t>(i)}, n);
  ASSERT_EQ(buf.size(), static_cast<size_t>(n));
  int64_t i = 0;
  for (const Rec& r : buf) {
    ASSERT_EQ(r.key, i * 7);
    ASSERT_EQ(r.value, i % 1000);
    ASSERT_EQ(r.flag, static_cast<uint8_t>(i));
    ++i;
  }
  const Rec* before = buf.data();
  buf.clear();
  EXPECT_TRUE(buf.empty());
  buf.push_back({1, 2, 3}, n);
  EXPECT_EQ(buf.data(), before);  // clear() keeps the block
  buf.release();
  EXPECT_TRUE(buf.empty());
  EXPECT_EQ(buf.data(), nullptr);
}

TEST(MappedBuffer, GrowsToTheMostAskedFor) {
  gatemap::io::MappedBuffer<Rec> buf;
  for (int i = 0; i < 10; ++i) buf.push_back({i, i, 0}, 10);
  EXPECT_EQ(buf.capacity(), 10u);  // not the first megabyte's worth
  buf.push_back({10, 10, 0}, 10);  // full at the most: one more
  EXPECT_EQ(buf.capacity(), 11u);
  ASSERT_EQ(buf.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(buf.begin()[i].key, i);
}

TEST(MappedBuffer, SortedOnAllThreadsAsByStdSort) {
  struct Keyed {
    uint32_t key;
    uint32_t input;  // completes the key: no two equal
    bool operator<(const Keyed& o) const { return key != o.key ? key < o.key : input < o.input; }
  };
  std::mt19937 rng(5);
  const int before = omp_get_max_threads();
  // Sizes around the least slice (16384) and not divisible by the threads; keys with ties.
  for (const size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{16384 * 2 + 1}, size_t{16384 * 7 + 13}, size_t{400000}}) {
    for (const int threads : {1, 2, 3, 7}) {
      omp_set_num_threads(threads);
      gatemap::io::MappedBuffer<Keyed> buf;
      std::vector<Keyed> expected;
      for (size_t i = 0; i < n; ++i) {
        const Keyed k{static_cast<uint32_t>(rng() % 5000), static_cast<uint32_t>(i)};
        buf.push_back(k, n);
        expected.push_back(k);
      }
      gatemap::io::sort_on_all_threads(buf, std::less<Keyed>());
      std::sort(expected.begin(), expected.end());
      ASSERT_EQ(buf.size(), n) << n << " records, " << threads << " threads";
      for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(buf[i].key == expected[i].key && buf[i].input == expected[i].input)
            << "record " << i << " of " << n << ", " << threads << " threads";
      }
    }
  }
  omp_set_num_threads(before);
}
