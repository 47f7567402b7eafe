// The sorter's runs of records: what is written (one by one, or stored and cut in blocks
// on all threads) is read back the same, in order, with blocks decompressed ahead on a
// pool or on the reading thread; a record longer than a block gets a block of its own;
// a cut run is an error naming it, never records lost.
#include <gtest/gtest.h>
#include <htslib/sam.h>

#include <random>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "io/sort/record_arena.hpp"
#include "io/sort/record_runs.hpp"

using namespace gatemap;

namespace {

// Records of random names, positions and sequence lengths (one of 200 kb among them).
std::vector<bam1_t*> records(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<bam1_t*> out;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = i == n / 2 ? 200000 : 1 + rng() % 300;
    const std::string name = "r" + std::to_string(rng());
    const std::string seq(len, "ACGT"[rng() % 4]);
    const std::string qual(len, static_cast<char>(rng() % 40));
    const uint32_t cigar = static_cast<uint32_t>(len) << BAM_CIGAR_SHIFT | BAM_CMATCH;
    bam1_t* b = bam_init1();
    EXPECT_GE(bam_set1(b, name.size(), name.c_str(), 0, 0, static_cast<hts_pos_t>(rng() % 1000000), 60, 1, &cigar, -1,
                       -1, 0, len, seq.c_str(), qual.c_str(), 0),
              0);
    out.push_back(b);
  }
  return out;
}

bool same_record(const bam1_t* a, const bam1_t* b) {
  return a->core.pos == b->core.pos && a->l_data == b->l_data && std::equal(a->data, a->data + a->l_data, b->data);
}

void write_added(const std::string& path, const std::vector<bam1_t*>& recs, size_t block_bytes, int threads) {
  io::RecordRunWriter out(path, block_bytes, threads);
  for (const bam1_t* b : recs) out.add(b);
  out.finish();
}

std::vector<bam1_t*> read_all(const std::string& path, hts_tpool* pool) {
  std::vector<bam1_t*> got;
  io::RecordRunReader in(path, pool);
  while (bam1_t* b = in.next()) got.push_back(bam_dup1(b));
  return got;
}

}  // namespace

TEST(RecordRuns, WhatIsWrittenIsReadBackInOrder) {
  const auto recs = records(20000, 5);
  test::TempDir dir;
  // Written one by one, and stored in an arena and written at once.
  write_added(dir.file("added"), recs, size_t{64} << 10, 3);
  io::RecordArena arena;
  std::vector<const uint8_t*> at;
  {
    size_t bytes = 0;
    for (const bam1_t* b : recs) bytes += io::RecordArena::bytes_of(b);
    uint8_t* p = arena.allocate(bytes);
    for (const bam1_t* b : recs) {
      io::RecordArena::store(b, p);
      at.push_back(p);
      p += io::RecordArena::bytes_of(b);
    }
    io::RecordRunWriter out(dir.file("stored"), size_t{64} << 10, 3);
    out.write_stored(at.size(), [&](size_t i) { return at[i]; });
    out.finish();
  }
  const io::ReadAheadPool pool(4, "test");
  for (const char* run : {"added", "stored"}) {
    for (hts_tpool* p : {pool.get(), static_cast<hts_tpool*>(nullptr)}) {
      const auto got = read_all(dir.file(run), p);
      ASSERT_EQ(got.size(), recs.size()) << run;
      for (size_t i = 0; i < recs.size(); ++i) ASSERT_TRUE(same_record(got[i], recs[i])) << run << " record " << i;
      for (bam1_t* b : got) bam_destroy1(b);
    }
  }
  for (bam1_t* b : recs) bam_destroy1(b);
}

TEST(RecordRuns, ACutRunIsAnErrorNamingIt) {
  const auto recs = records(3000, 6);
  test::TempDir dir;
  write_added(dir.file("run"), recs, size_t{16} << 10, 2);
  const std::string run = test::read_file(dir.file("run"));
  const io::ReadAheadPool pool(2, "test");
  for (const size_t keep : {run.size() - 8, run.size() / 2, size_t{20}}) {  // the end block, a block, a header
    test::write_file(dir.file("cut"), run.substr(0, keep));
    for (hts_tpool* p : {pool.get(), static_cast<hts_tpool*>(nullptr)}) {
      try {
        const auto got = read_all(dir.file("cut"), p);
        for (bam1_t* b : got) bam_destroy1(b);
        FAIL() << "a run cut to " << keep << " bytes was read as complete";
      } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("cut"), std::string::npos) << e.what();
      }
    }
  }
  for (bam1_t* b : recs) bam_destroy1(b);
}
