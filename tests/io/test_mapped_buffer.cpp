// MappedBuffer: records survive every growth (mremap moves them), never past the most
// asked for, and the memory is kept by clear() and given back by release(). Sorted on
// all threads, a buffer holds what std::sort gives, for any number of threads; so does
// one whose slices were sorted as they came (merge_sorted_slices, SpilledSort::seal).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "io/mapped_buffer.hpp"
#include "io/parallel_sort.hpp"
#include "io/spilled_sort.hpp"
#include "../test_util.hpp"

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

namespace {
struct Keyed {
  uint32_t key;
  uint32_t input;  // completes the key: no two equal
  bool operator<(const Keyed& o) const { return key != o.key ? key < o.key : input < o.input; }
  bool operator==(const Keyed& o) const { return key == o.key && input == o.input; }
};
}  // namespace

// Slices of many sizes (empty ones, one record, past the least slice), each sorted,
// merged on 1-7 threads: std::sort's order.
TEST(MappedBuffer, SortedSlicesMergeAsByStdSort) {
  std::mt19937 rng(6);
  const int before = omp_get_max_threads();
  for (const int threads : {1, 2, 7}) {
    omp_set_num_threads(threads);
    for (int trial = 0; trial < 5; ++trial) {
      gatemap::io::MappedBuffer<Keyed> buf;
      std::vector<Keyed> expected;
      std::vector<size_t> ends;
      const int slices = 1 + static_cast<int>(rng() % 40);
      for (int s = 0; s < slices; ++s) {
        const size_t first = buf.size(), n = rng() % 4 == 0 ? rng() % 2 : rng() % 40000;
        for (size_t i = 0; i < n; ++i) {
          const Keyed k{static_cast<uint32_t>(rng() % 3000), static_cast<uint32_t>(expected.size())};
          buf.push_back(k, 1u << 24);
          expected.push_back(k);
        }
        std::sort(buf.begin() + first, buf.end());
        ends.push_back(buf.size());
      }
      gatemap::io::merge_sorted_slices(buf, ends, std::less<Keyed>());
      std::sort(expected.begin(), expected.end());
      ASSERT_TRUE(std::equal(buf.begin(), buf.end(), expected.begin(), expected.end()))
          << slices << " slices, " << threads << " threads";
    }
  }
  omp_set_num_threads(before);
}

// Batches sealed as they come, some spilling mid-batch (a small budget) and some left
// unsealed at the end: every record once, in std::sort's order.
TEST(SpilledSort, SealedBatchesComeOutSorted) {
  gatemap::test::TempDir dir;
  int files = 0;
  for (const size_t budget : {size_t{1} << 30, size_t{200000} * sizeof(Keyed)}) {
    gatemap::io::SpilledSort<Keyed, std::less<Keyed>> sorter(budget, [&] { return dir.file("run" + std::to_string(files++)); });
    std::mt19937 rng(7);
    std::vector<Keyed> expected;
    for (int batch = 0; batch < 30; ++batch) {
      const size_t n = rng() % 50000;
      for (size_t i = 0; i < n; ++i) {
        const Keyed k{static_cast<uint32_t>(rng() % 100000), static_cast<uint32_t>(expected.size())};
        sorter.push(k);
        expected.push_back(k);
      }
      if (batch % 7 != 6) sorter.seal();
    }
    std::sort(expected.begin(), expected.end());
    std::vector<Keyed> got;
    sorter.for_each_sorted([&](const Keyed& k) { got.push_back(k); });
    EXPECT_TRUE(got == expected) << "budget " << budget << " bytes";
    if (budget < (size_t{1} << 30)) {
      EXPECT_GT(sorter.runs(), 0u);
    }
  }
}
