// MappedBuffer: records survive every growth (mremap moves them), never past the most
// asked for, and the memory is kept by clear() and given back by release().
#include <gtest/gtest.h>

#include <cstdint>

#include "io/mapped_buffer.hpp"

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
