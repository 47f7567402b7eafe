// BAM written in parallel chunks (io/bam/bam_encode.hpp through io::SamWriter) against htslib
// as the oracle: the same uncompressed bytes as sam_write1 writes, and an index that
// answers region queries as samtools' index (sam_index_build) does.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <htslib/sam.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "io/bam/compress_pool.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/deflate/bgzf_deflate.hpp"
#include "io/sort/bam_sorter.hpp"

using namespace gatemap;

namespace {

io::SamHeaderInfo header_info(int64_t length = 2000000) {
  io::SamHeaderInfo info;
  info.contigs = {{"chrA", length}, {"chrB", 300000}};
  info.command_line = "test";
  info.version = "0";
  return info;
}

// Records of every kind: mapped with indels and clips, unmapped (placed and not), names
// of 1-200 characters, aux tags, and one with a CIGAR of 70000 operations (CG:B,I).
std::vector<bam1_t*> random_records(int n, uint64_t seed, bool sorted) {
  std::mt19937_64 rng(seed);
  std::vector<bam1_t*> recs;
  for (int i = 0; i < n; ++i) {
    const int len = 1 + static_cast<int>(rng() % 300);
    const std::string seq = test::random_dna(rng, static_cast<size_t>(len));
    std::string qual(static_cast<size_t>(len), 'F');
    for (char& q : qual) q = static_cast<char>(33 + rng() % 40);
    std::string name = "r" + std::to_string(i) + std::string(rng() % 200, 'x');
    std::vector<uint32_t> cigar;
    const int kind = static_cast<int>(rng() % 10);
    int tid = static_cast<int>(rng() % 2), flag = 0;
    int64_t pos = static_cast<int64_t>(rng() % 290000);
    if (kind == 0) {  // unmapped, unplaced
      tid = -1, pos = -1, flag = BAM_FUNMAP;
    } else if (kind == 1) {  // unmapped, placed beside its mate
      flag = BAM_FUNMAP | BAM_FPAIRED;
    } else {
      const int clip = static_cast<int>(rng() % std::min(len, 10));
      if (clip) cigar.push_back(bam_cigar_gen(clip, BAM_CSOFT_CLIP));
      const int m1 = (len - clip) / 2, m2 = len - clip - m1;
      if (m1) cigar.push_back(bam_cigar_gen(m1, BAM_CMATCH));
      cigar.push_back(bam_cigar_gen(1 + rng() % 5, BAM_CDEL));
      if (m2) cigar.push_back(bam_cigar_gen(m2, BAM_CMATCH));
      flag = (rng() & 1) ? BAM_FREVERSE : 0;
    }
    bam1_t* b = bam_init1();
    bam_set1(b, name.size(), name.c_str(), static_cast<uint16_t>(flag), tid, pos, static_cast<uint8_t>(rng() % 61),
             cigar.size(), cigar.data(), -1, -1, 0, seq.size(), seq.c_str(), qual.c_str(), 64);
    const int32_t nm = static_cast<int32_t>(rng() % 9);
    bam_aux_append(b, "NM", 'i', 4, reinterpret_cast<const uint8_t*>(&nm));
    bam_aux_append(b, "MD", 'Z', 4, reinterpret_cast<const uint8_t*>("150"));
    recs.push_back(b);
  }
  {  // 70000 operations: 35000 x (1M 1D)
    const std::string seq(35000, 'A'), qual(35000, 'I');
    std::vector<uint32_t> cigar;
    for (int i = 0; i < 35000; ++i) {
      cigar.push_back(bam_cigar_gen(1, BAM_CMATCH));
      cigar.push_back(bam_cigar_gen(1, BAM_CDEL));
    }
    bam1_t* b = bam_init1();
    bam_set1(b, 4, "long", 0, 0, 1000, 60, cigar.size(), cigar.data(), -1, -1, 0, seq.size(), seq.c_str(),
             qual.c_str(), 0);
    recs.push_back(b);
  }
  if (sorted) std::stable_sort(recs.begin(), recs.end(), io::coordinate_less);
  return recs;
}

void destroy(std::vector<bam1_t*>& recs) {
  for (bam1_t* b : recs) bam_destroy1(b);
  recs.clear();
}

// The file's uncompressed bytes after its header.
std::string records_bytes(const std::string& path) {
  samFile* fp = sam_open(path.c_str(), "r");
  EXPECT_NE(fp, nullptr);
  sam_hdr_t* h = sam_hdr_read(fp);
  std::string all;
  char buf[65536];
  ssize_t n;
  while ((n = bgzf_read(fp->fp.bgzf, buf, sizeof buf)) > 0) all.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(n, 0);
  sam_hdr_destroy(h);
  sam_close(fp);
  return all;
}

void write_with_htslib(const std::string& path, const std::vector<bam1_t*>& recs, sam_hdr_t* h) {
  samFile* fp = sam_open(path.c_str(), "wb");
  ASSERT_NE(fp, nullptr);
  ASSERT_EQ(sam_hdr_write(fp, h), 0);
  for (const bam1_t* b : recs) ASSERT_GE(sam_write1(fp, h, b), 0);
  ASSERT_EQ(sam_close(fp), 0);
}

// Names of the records a region query returns, through the file's own index.
std::vector<std::string> query(const std::string& bam, const std::string& index, const char* region) {
  samFile* fp = sam_open(bam.c_str(), "r");
  sam_hdr_t* h = sam_hdr_read(fp);
  hts_idx_t* idx = sam_index_load2(fp, bam.c_str(), index.c_str());
  EXPECT_NE(idx, nullptr) << index;
  std::vector<std::string> names;
  if (idx) {
    hts_itr_t* it = sam_itr_querys(idx, h, region);
    bam1_t* b = bam_init1();
    while (it && sam_itr_next(fp, it, b) >= 0) names.emplace_back(bam_get_qname(b));
    bam_destroy1(b);
    hts_itr_destroy(it);
    hts_idx_destroy(idx);
  }
  sam_hdr_destroy(h);
  sam_close(fp);
  return names;
}

}  // namespace

// With htslib's compression, and with gatemap's (the GPU's CPU twin, io/deflate/bgzf_deflate.hpp)
// through write_all, through prepare(), and through prepare() with a compress pool whose
// two workers compress batches while later ones are encoded (as the GPU lanes do).
TEST(BamOutput, RecordsAreTheBytesHtslibWrites) {
  test::TempDir dir;
  std::vector<bam1_t*> recs = random_records(20000, 5, false);
  for (const int threads : {1, 3}) {
    for (const char* how : {"write()", "write_all()", "twin write_all()", "twin prepare()", "pool prepare()"}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + how);
      const std::string way = how;
      const std::string ours = dir.file("ours.bam"), theirs = dir.file("theirs.bam");
      {
        io::SamWriter w(ours, header_info(), threads, threads == 1 ? 1 : -1);
        auto twin = std::make_shared<io::BgzfDeflateCpu>(threads);
        if (way == "write()") {
          for (const bam1_t* b : recs) w.write(b);
        } else if (way == "write_all()") {
          w.write_all(recs);
        } else if (way == "twin write_all()") {
          w.set_block_compressor(twin);
          w.write_all(recs);
        } else if (way == "pool prepare()") {
          io::CompressPool pool({twin, std::make_shared<io::BgzfDeflateCpu>(threads)});
          std::vector<io::PreparedRecords> prepared(3);  // batches in flight
          size_t k = 0;
          for (size_t from = 0; from < recs.size(); from += 3000, ++k) {
            if (k >= prepared.size()) w.write_prepared(prepared[k % prepared.size()]);
            const std::vector<bam1_t*> part(recs.begin() + from, recs.begin() + std::min(recs.size(), from + 3000));
            w.prepare(part, prepared[k % prepared.size()], &pool);
          }
          for (size_t left = std::min(k, prepared.size()); left > 0; --left) w.write_prepared(prepared[(k - left) % prepared.size()]);
        } else {
          w.set_block_compressor(twin);
          io::PreparedRecords prepared;
          for (size_t from = 0; from < recs.size(); from += 7000) {
            const std::vector<bam1_t*> part(recs.begin() + from, recs.begin() + std::min(recs.size(), from + 7000));
            w.prepare(part, prepared);
            w.write_prepared(prepared);
          }
        }
        write_with_htslib(theirs, recs, w.header());
        w.close();
      }
      EXPECT_TRUE(records_bytes(ours) == records_bytes(theirs));
    }
  }
  destroy(recs);
}

// More records than three windows of one thread (24 chunks of 1024 records each): the
// windows are encoded, compressed (each started beside the one before) and written by
// three threads in turn, in order.
TEST(BamOutput, WindowsInFlightKeepTheirOrder) {
  test::TempDir dir;
  std::vector<bam1_t*> recs = random_records(140000, 8, false);
  const std::string ours = dir.file("ours.bam"), theirs = dir.file("theirs.bam");
  {
    io::SamWriter w(ours, header_info(), 1);
    w.set_block_compressor(std::make_shared<io::LevelDeflateCpu>(2, 1));
    w.write_all(recs);
    write_with_htslib(theirs, recs, w.header());
    w.close();
  }
  EXPECT_TRUE(records_bytes(ours) == records_bytes(theirs));
  destroy(recs);
}

TEST(BamOutput, IndexAnswersRegionsAsSamtoolsIndexDoes) {
  for (const int64_t length : {int64_t{2000000}, int64_t{1} << 30}) {  // BAI, and CSI past BAI's reach
    SCOPED_TRACE(length);
    test::TempDir dir;
    const bool csi = length >= (int64_t{1} << 29);
    std::vector<bam1_t*> recs = random_records(30000, 9, true);
    const std::string ours = dir.file("ours.bam"), theirs = dir.file("theirs.bam");
    const std::string ours_index = ours + (csi ? ".csi" : ".bai"), theirs_index = theirs + (csi ? ".csi" : ".bai");
    test::write_file(ours_index, "an older index, replaced");
    {
      io::SamHeaderInfo info = header_info(length);
      info.coordinate_sorted = true;
      io::SamWriter w(ours, info, 3);
      if (csi) w.set_block_compressor(std::make_shared<io::BgzfDeflateCpu>(3));  // offsets of our own blocks
      w.write_index(ours_index, csi ? 14 : 0);
      w.write_all(recs);
      write_with_htslib(theirs, recs, w.header());
      w.close();
    }
    ASSERT_EQ(sam_index_build2(theirs.c_str(), theirs_index.c_str(), csi ? 14 : 0), 0);
    for (const char* region : {"chrA", "chrB", "chrA:1-1", "chrA:1000-1001", "chrA:50000-120000", "chrB:16384-16385",
                               "chrB:100000-300000", "chrA:289990-300000"}) {
      SCOPED_TRACE(region);
      const auto a = query(ours, ours_index, region), b = query(theirs, theirs_index, region);
      EXPECT_EQ(a, b);
      EXPECT_FALSE(std::string(region) == "chrA" && a.empty());
    }
    destroy(recs);
  }
}
