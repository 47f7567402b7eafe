#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "index/format.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"

using namespace gatemap;

namespace {

// A reference with the awkward parts: N runs, lowercase, IUPAC, contigs shorter than k,
// many tiny contigs, a repeated element.
std::vector<io::FastaRecord> awkward_reference(std::mt19937_64& rng) {
  std::vector<io::FastaRecord> recs;
  std::string c1 = test::random_dna(rng, 20000);
  for (int i = 1000; i < 1300; ++i) c1[i] = 'N';
  for (int i = 2000; i < 2100; ++i) c1[i] = static_cast<char>(std::tolower(c1[i]));
  c1[5000] = 'R';
  c1[5001] = 'y';
  const std::string repeat = c1.substr(7000, 40);
  for (int copy = 0; copy < 30; ++copy) c1.replace(9000 + copy * 300, 40, repeat);
  recs.push_back({"1", c1});
  recs.push_back({"GL000192.1", "NNNNNACGTACGTNNNN" + test::random_dna(rng, 30)});
  recs.push_back({"short", "ACGTAC"});
  for (int i = 0; i < 50; ++i) recs.push_back({"tiny" + std::to_string(i), test::random_dna(rng, 10 + i)});
  recs.push_back({"MT", test::random_dna(rng, 5000)});
  return recs;
}

// Brute force: key -> sampled positions, from the FASTA text itself.
std::map<uint64_t, std::vector<uint32_t>> brute_force(const std::vector<io::FastaRecord>& recs, int k, int stride) {
  std::map<uint64_t, std::vector<uint32_t>> out;
  int64_t begin = 0;
  for (const auto& r : recs) {
    const std::string seq = r.seq;
    for (int64_t i = 0; i + k <= static_cast<int64_t>(seq.size()); ++i) {
      const int64_t g = begin + i;
      if (g % stride) continue;
      std::vector<uint8_t> codes(k);
      bool ok = true;
      for (int j = 0; j < k; ++j) {
        codes[j] = base_code(seq[i + j]);
        ok = ok && codes[j] < 4;
      }
      if (ok) out[index::Index::key_of(codes.data(), k)].push_back(static_cast<uint32_t>(g));
    }
    begin += static_cast<int64_t>(seq.size());
  }
  return out;
}

void check_against_brute_force(const index::Index& idx, const std::vector<io::FastaRecord>& recs) {
  const auto truth = brute_force(recs, idx.k(), idx.stride());
  int64_t total = 0;
  for (const auto& [key, positions] : truth) {
    const auto hits = idx.lookup(key);
    ASSERT_EQ(hits.count, positions.size()) << "key " << key;
    EXPECT_TRUE(std::equal(positions.begin(), positions.end(), hits.pos));
    EXPECT_EQ(hits.capped, positions.size() > idx.max_occ());
    total += static_cast<int64_t>(positions.size());
  }
  EXPECT_EQ(total, idx.stats().positions);
  EXPECT_EQ(static_cast<int64_t>(truth.size()), idx.stats().distinct_kmers);
}

}  // namespace

class IndexBruteForce : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(IndexBruteForce, EveryKmerAtExactlyItsPositions) {
  const auto [k, stride] = GetParam();
  std::mt19937_64 rng(k * 100 + stride);
  const auto recs = awkward_reference(rng);
  test::TempDir dir;
  const auto fa = dir.file("ref.fa");
  io::write_fasta(fa, recs);
  index::IndexOptions opt;
  opt.k = k;
  opt.stride = stride;
  opt.max_occ = 20;
  opt.threads = 2;
  auto idx = index::build_index(fa, opt);
  check_against_brute_force(*idx, recs);
  EXPECT_GT(idx->stats().capped_kmers, 0);  // the 30-copy repeat
  // Random keys that are absent come back empty.
  EXPECT_EQ(idx->lookup(0).count, brute_force(recs, k, stride)[0].size());

  const auto path = dir.file("ref.gmi");
  index::save_index(*idx, path);
  auto loaded = index::load_index(path);
  check_against_brute_force(*loaded, recs);
  ASSERT_EQ(loaded->contigs().size(), recs.size());
  int64_t begin = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(loaded->contigs()[i].name, recs[i].name);
    EXPECT_EQ(loaded->contigs()[i].begin, begin);
    std::string up = recs[i].seq;
    for (auto& c : up) c = kCodeToAscii[base_code(c)];
    EXPECT_EQ(loaded->sequence(begin, begin + static_cast<int64_t>(up.size())), up);
    begin += static_cast<int64_t>(up.size());
  }
  EXPECT_TRUE(loaded->has_n(1000, 1001));
  EXPECT_TRUE(loaded->has_n(990, 1001));
  EXPECT_FALSE(loaded->has_n(1300, 2000));
  EXPECT_EQ(loaded->contig_of(0), 0);
  EXPECT_EQ(loaded->contig_of(recs[0].seq.size()), 1);
}

INSTANTIATE_TEST_SUITE_P(Params, IndexBruteForce,
                         ::testing::Values(std::make_tuple(8, 1), std::make_tuple(11, 1), std::make_tuple(15, 1),
                                           std::make_tuple(15, 2), std::make_tuple(16, 3)));

TEST(IndexFile, RejectsTruncatedCorruptedAndForeignFiles) {
  std::mt19937_64 rng(5);
  test::TempDir dir;
  const auto fa = dir.file("ref.fa");
  io::write_fasta(fa, {{"a", test::random_dna(rng, 5000)}});
  auto idx = index::build_index(fa, {});
  const auto path = dir.file("ref.gmi");
  index::save_index(*idx, path);
  const std::string bytes = test::read_file(path);

  const auto expect_error = [&](const std::string& content, const std::string& needle) {
    const auto p = test::write_file(dir.file("bad.gmi"), content);
    try {
      index::load_index(p);
      FAIL() << "accepted: " << needle;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // A reference base flipped: the layout is sound, only the checksum tells. Loaded with
  // the checksums left for later, the index is usable, and verify_checksums names it.
  std::string base_flipped = bytes;
  index::detail::FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  base_flipped[header.sections[index::detail::kHi].offset + 3] ^= 0x04;
  expect_error(base_flipped, "section 4 checksum mismatch");
  const auto later = index::load_index(test::write_file(dir.file("later.gmi"), base_flipped), index::Checksums::later);
  EXPECT_EQ(later->length(), 5000);
  try {
    later->verify_checksums();
    ADD_FAILURE() << "a flipped base passed the checksums";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("later.gmi': section 4 checksum mismatch"), std::string::npos) << e.what();
  }
  index::load_index(path, index::Checksums::later)->verify_checksums();  // an intact file passes
  expect_error(bytes.substr(0, bytes.size() - 100), "truncated");
  expect_error(bytes.substr(0, 20), "too short");
  std::string flipped = bytes;
  flipped[bytes.size() - 50] ^= 0x10;
  expect_error(flipped, "checksum mismatch");
  std::string version = bytes;
  version[8] = 9;
  expect_error(version, "format version 9");
  expect_error(std::string(4096, 'x'), "bad magic");
  EXPECT_THROW(index::load_index(dir.file("missing.gmi")), IoError);
}

TEST(IndexBuild, RejectsBadParametersAndInput) {
  test::TempDir dir;
  const auto fa = test::write_file(dir.file("ref.fa"), ">a\nACGT\n");
  index::IndexOptions opt;
  opt.k = 20;
  EXPECT_THROW(index::build_index(fa, opt), UsageError);
  const auto empty = test::write_file(dir.file("empty.fa"), ">a\n>b\nAC\n");
  EXPECT_THROW(index::build_index(empty, {}), FormatError);
}
