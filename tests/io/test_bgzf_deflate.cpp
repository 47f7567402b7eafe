// gatemap's DEFLATE (io/deflate/deflate_core.hpp, the CPU twin of the GPU's BAM compression)
// against independent oracles: libdeflate inflates every stream back to its input,
// htslib reads the BGZF blocks (CRC and size checked), the RFC 1951 tables written out
// here, and a heap-built Huffman code's cost.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <libdeflate.h>

#include <cstdio>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "io/deflate/bgzf_deflate.hpp"
#include "io/deflate/deflate_core.hpp"
#include "io/deflate/deflate_lazy.hpp"
#include "tests/io/deflate_inputs.hpp"
#include "tests/test_util.hpp"

using namespace gatemap;
namespace deflate = gatemap::io::deflate;

namespace {

// One block through `block_deflate` (the definition, deflate_block, unless told).
using BlockDeflate = uint32_t (*)(const uint8_t*, uint32_t, deflate::Scratch, uint8_t*);
std::string deflate_one(const std::string& in, BlockDeflate block_deflate = deflate::deflate_block) {
  std::vector<uint64_t> buckets(deflate::kBucketWords);
  std::vector<uint32_t> tokens(deflate::kMaxInput);
  std::string out(deflate::kMaxOutput, '\0');
  const uint32_t n = block_deflate(reinterpret_cast<const uint8_t*>(in.data()), static_cast<uint32_t>(in.size()),
                                   {buckets.data(), tokens.data()}, reinterpret_cast<uint8_t*>(out.data()));
  out.resize(n);
  return out;
}

// A BAM file's records (decompressed), or empty when the file is absent.
std::string bam_records(const std::string& path) {
  BGZF* fp = bgzf_open(path.c_str(), "r");
  if (!fp) return {};
  std::string records;
  char buf[65536];
  ssize_t got;
  while ((got = bgzf_read(fp, buf, sizeof buf)) > 0) records.append(buf, static_cast<size_t>(got));
  bgzf_close(fp);
  EXPECT_EQ(got, 0) << path;
  return records;
}

std::string inflate(const std::string& stream, size_t size) {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::string out(size, '\0');
  size_t got = 0;
  const libdeflate_result r = libdeflate_deflate_decompress(d, stream.data(), stream.size(), out.data(), size, &got);
  libdeflate_free_decompressor(d);
  EXPECT_EQ(r, LIBDEFLATE_SUCCESS);
  out.resize(got);
  return out;
}

TEST(Deflate, CodesFollowRfc1951Tables) {
  const int len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  const int len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  const int dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                             193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  for (int c = 0; c < 29; ++c) {
    EXPECT_EQ(deflate::length_base(257 + c), static_cast<uint32_t>(len_base[c]));
    EXPECT_EQ(deflate::length_extra_bits(257 + c), len_extra[c]);
  }
  for (int c = 0; c < 30; ++c) {
    EXPECT_EQ(deflate::distance_base(c), static_cast<uint32_t>(dist_base[c]));
    EXPECT_EQ(deflate::distance_extra_bits(c), c < 4 ? 0 : c / 2 - 1);
  }
  for (uint32_t len = 3; len <= 258; ++len) {  // the last code of 257-284 whose base is <= len; 258 has its own
    int want = 257;
    while (want < 284 && static_cast<uint32_t>(len_base[want + 1 - 257]) <= len) ++want;
    EXPECT_EQ(deflate::length_code(len), len == 258 ? 285 : want) << len;
  }
  for (uint32_t d = 1; d <= 32768; ++d) {
    int want = 0;
    while (want < 29 && static_cast<uint32_t>(dist_base[want + 1]) <= d) ++want;
    ASSERT_EQ(deflate::distance_code(d), want) << d;
  }
}

// Optimal (unlimited) Huffman cost, merging the two lightest with a heap.
uint64_t huffman_cost(const std::vector<uint32_t>& freq) {
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> heap;
  for (uint32_t f : freq) {
    if (f) heap.push(f);
  }
  uint64_t cost = 0;
  while (heap.size() > 1) {
    const uint64_t a = heap.top();
    heap.pop();
    const uint64_t b = heap.top();
    heap.pop();
    cost += a + b;
    heap.push(a + b);
  }
  return cost;
}

TEST(Deflate, HuffmanLengthsAreCompleteLimitedAndOptimalWhenShallow) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int m = trial % 3 == 0 ? 19 : trial % 3 == 1 ? 30 : 286;
    const int limit = m == 19 ? 7 : 15;
    std::vector<uint32_t> freq(static_cast<size_t>(m));
    if (trial % 5 == 0) {  // Fibonacci weights: a natural depth far past the limit
      uint32_t a = 1, b = 1;
      for (auto& f : freq) {
        f = a;
        const uint32_t next = a + b > (1u << 30) ? (1u << 30) : a + b;
        a = b;
        b = next;
      }
    } else {
      for (auto& f : freq) f = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(1 + rng() % (trial % 2 ? 10 : 100000));
    }
    deflate::at_least_two(freq.data(), m);
    std::vector<uint8_t> len(static_cast<size_t>(m));
    deflate::HuffmanWork work;
    deflate::huffman_lengths(freq.data(), m, limit, len.data(), work);
    uint64_t kraft = 0, cost = 0;
    int deepest = 0;
    for (int i = 0; i < m; ++i) {
      ASSERT_EQ(freq[i] == 0, len[i] == 0) << trial << " " << i;
      if (len[i]) kraft += uint64_t{1} << (limit - len[i]);
      cost += uint64_t{freq[i]} * len[i];
      deepest = std::max<int>(deepest, len[i]);
    }
    EXPECT_EQ(kraft, uint64_t{1} << limit) << trial;  // complete: every bit pattern decodes
    EXPECT_LE(deepest, limit);
    const uint64_t best = huffman_cost(freq);
    EXPECT_GE(cost, best);
    if (trial % 5 != 0 && trial % 2 == 1) {
      EXPECT_EQ(cost, best) << trial;  // small weights: never too deep
    }
  }
}

TEST(Deflate, EveryBlockInflatesToItsInput) {
  for (uint64_t seed : {1, 2, 3}) {
    for (const std::string& in : test::deflate_inputs(seed)) {
      const std::string stream = deflate_one(in);
      ASSERT_LE(stream.size(), in.size() + 5);
      ASSERT_EQ(inflate(stream, in.size()), in) << in.size();
    }
  }
  std::mt19937_64 rng(9);
  std::string random(65280, ' ');
  for (char& c : random) c = static_cast<char>(rng());
  EXPECT_EQ(deflate_one(random).size(), random.size() + 5);  // stored, not inflated
  EXPECT_LT(deflate_one(std::string(65280, 'x')).size(), 150u);
}

// The CPU's lazy search (io/deflate/deflate_lazy.hpp) against the stream's definition, every
// position's match found first (deflate_block, the GPU's way): the same bytes.
TEST(Deflate, MatchesSoughtOnlyWhereTheParseAsksGiveTheSameStream) {
  std::vector<std::string> in;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    for (std::string& block : test::deflate_inputs(seed)) in.push_back(std::move(block));
  }
  std::mt19937_64 rng(6);
  for (int i = 0; i < 200; ++i) {  // short periods: matches of every length, ties between ways
    std::string block(1 + rng() % 65280, '\0');
    const size_t period = 1 + rng() % 300, alphabet = 2 + rng() % 6;
    for (size_t k = 0; k < block.size(); ++k) {
      block[k] = k >= period && rng() % 50 ? block[k - period] : static_cast<char>('a' + rng() % alphabet);
    }
    in.push_back(block);
  }
  const std::string records =
      bam_records(test::real_data("grch37-chr20-deepvariant-testdata") + "/NA12878_S1.chr20.10_10p1mb.bam");
  for (size_t at = 0; at < records.size() && at < 200 * size_t{deflate::kMaxInput}; at += deflate::kMaxInput) {
    in.push_back(records.substr(at, deflate::kMaxInput));
  }
  for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(deflate_one(in[i], deflate::deflate_block_lazy) == deflate_one(in[i])) << "input " << i;
}

TEST(Deflate, BamLikeBlocksCompressNearLibdeflateLevel6) {
  std::mt19937_64 rng(4);
  libdeflate_compressor* c6 = libdeflate_alloc_compressor(6);
  size_t ours = 0, theirs = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string in = test::bam_like_block(rng, 65280);
    ours += deflate_one(in).size();
    std::string out(70000, '\0');
    theirs += libdeflate_deflate_compress(c6, in.data(), in.size(), out.data(), out.size());
  }
  libdeflate_free_compressor(c6);
  EXPECT_LT(static_cast<double>(ours), 1.03 * static_cast<double>(theirs)) << ours << " vs " << theirs;
}

// Real reads' BAM records (NA12878 and HG002, chr20), cut in BGZF-sized blocks: within
// 2% of libdeflate level 6's bytes (htslib's default level for BAM).
TEST(Deflate, RealBamRecordsCompressNearLibdeflateLevel6) {
  const std::string dir = test::real_data("grch37-chr20-deepvariant-testdata") + "/";
  for (const char* name : {"NA12878_S1.chr20.10_10p1mb.bam", "HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam"}) {
    const std::string records = bam_records(dir + name);
    if (records.empty()) GTEST_SKIP() << test::real_data_absent("grch37-chr20-deepvariant-testdata");
    ASSERT_GT(records.size(), 1000000u) << name;
    libdeflate_compressor* c6 = libdeflate_alloc_compressor(6);
    size_t ours = 0, theirs = 0;
    std::string out(70000, '\0');
    for (size_t at = 0; at < records.size(); at += deflate::kMaxInput) {
      const std::string in = records.substr(at, deflate::kMaxInput);
      const std::string stream = deflate_one(in);
      ASSERT_EQ(inflate(stream, in.size()), in) << name << " at " << at;
      ours += stream.size();
      theirs += libdeflate_deflate_compress(c6, in.data(), in.size(), out.data(), out.size());
    }
    libdeflate_free_compressor(c6);
    EXPECT_LT(static_cast<double>(ours), 1.02 * static_cast<double>(theirs)) << name << ": " << ours << " vs " << theirs;
  }
}

// Both CPU compressors (the twin, and htslib's levels that a GPU's batches fall back to
// by default) write blocks htslib reads back.
void expect_blocks_read_back(io::BlockCompressor& compressor) {
  const std::vector<std::string> in = test::deflate_inputs(7);
  const std::vector<std::string> blocks = test::compress_blocks(compressor, in);
  test::TempDir dir;
  const std::string path = dir.path() + "/x.gz";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    for (const std::string& b : blocks) std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
  }
  BGZF* fp = bgzf_open(path.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  for (const std::string& want : in) {
    std::string got(want.size(), '\0');
    ASSERT_EQ(bgzf_read(fp, got.data(), got.size()), static_cast<ssize_t>(want.size()));
    ASSERT_EQ(got, want);
  }
  char extra;
  EXPECT_EQ(bgzf_read(fp, &extra, 1), 0);
  bgzf_close(fp);
}

TEST(BgzfDeflate, BlocksReadBackThroughHtslib) {
  io::BgzfDeflateCpu twin(3);
  expect_blocks_read_back(twin);
  for (int level : {-1, 1, 6}) {
    io::LevelDeflateCpu htslib_level(3, level);
    expect_blocks_read_back(htslib_level);
  }
}

}  // namespace
