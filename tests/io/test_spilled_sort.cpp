// The external sort's runs as compressed blocks: any budget and any merge width (rounds
// of merges under a low open-file limit) give std::sort's order, and a damaged run is an
// error naming it, not records lost.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "io/sort/spilled_sort.hpp"

using namespace gatemap;

namespace {

struct Rec {
  uint64_t key;
  uint32_t input;
  int32_t value;
};
struct ByKey {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key || (a.key == b.key && a.input < b.input); }
};

std::vector<Rec> records(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Rec> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = {rng() % 100000, static_cast<uint32_t>(i), static_cast<int32_t>(rng())};
  return out;
}

std::vector<Rec> sorted_through_runs(const std::vector<Rec>& in, size_t budget, const test::TempDir& dir, size_t* runs) {
  int n = 0;
  io::SpilledSort<Rec, ByKey> sort(budget, [&] { return dir.file("run" + std::to_string(n++)); });
  for (const Rec& r : in) sort.push(r);
  std::vector<Rec> out;
  sort.for_each_sorted([&](const Rec& r) { out.push_back(r); });
  if (runs) *runs = sort.runs();
  return out;
}

bool same(const std::vector<Rec>& a, const std::vector<Rec>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const Rec& x, const Rec& y) {
           return x.key == y.key && x.input == y.input && x.value == y.value;
         });
}

TEST(SpilledSort, CompressedRunsMergeIntoStdSortOrder) {
  const auto in = records(300000, 7);
  auto want = in;
  std::sort(want.begin(), want.end(), ByKey());
  for (const size_t budget : {size_t{16} << 10, size_t{200} << 10, size_t{1} << 30}) {
    test::TempDir dir;
    size_t runs = 0;
    EXPECT_TRUE(same(sorted_through_runs(in, budget, dir, &runs), want)) << budget;
    if (budget < (size_t{1} << 20)) {
      EXPECT_GT(runs, 10u) << budget;
    }
  }
}

TEST(SpilledSort, MergesInRoundsUnderALowOpenFileLimit) {
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  rlimit low = old;
  low.rlim_cur = 40;  // merges of 4 runs: rounds of merged runs, themselves compressed
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  const auto in = records(100000, 8);
  auto want = in;
  std::sort(want.begin(), want.end(), ByKey());
  test::TempDir dir;
  size_t runs = 0;
  const auto got = sorted_through_runs(in, size_t{16} << 10, dir, &runs);
  setrlimit(RLIMIT_NOFILE, &old);
  EXPECT_GT(runs, 16u);
  EXPECT_TRUE(same(got, want));
}

TEST(SpilledSort, ADamagedRunIsAnErrorNamingIt) {
  const auto in = records(50000, 9);
  // Cut in the middle of a block, and at a block boundary (only its end block gone).
  for (const bool at_boundary : {false, true}) {
    test::TempDir dir;
    int n = 0;
    io::SpilledSort<Rec, ByKey> sort(size_t{64} << 10, [&] { return dir.file("run" + std::to_string(n++)); });
    for (const Rec& r : in) sort.push(r);
    ASSERT_GT(sort.runs(), 1u);
    const std::string run = test::read_file(dir.file("run1"));
    test::write_file(dir.file("run1"), run.substr(0, at_boundary ? run.size() - 8 : run.size() / 2));
    try {
      sort.for_each_sorted([](const Rec&) {});
      FAIL() << "a cut run was read as complete (at a boundary: " << at_boundary << ")";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("run1"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
