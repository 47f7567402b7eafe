// One test per step of the GateKeeper algorithm on hand-made bit patterns.
#include <gtest/gtest.h>

#include <string>

#include "mapper/filter/gatekeeper_core.hpp"

using namespace gatemap::gpu;
using namespace gatemap::mapper::filter;
using namespace gatemap::mapper::filter::detail;

namespace {
// "1011" -> bit 0 = '1', bit 1 = '0', ... over WW words.
template <int WW>
void bits_from(const std::string& s, uint32_t* v) {
  for (int j = 0; j < WW; ++j) v[j] = 0;
  for (size_t i = 0; i < s.size(); ++i) if (s[i] == '1') v[i / 32] |= 1u << (i % 32);
}
template <int WW>
std::string bits_to(const uint32_t* v, size_t n) {
  std::string s(n, '0');
  for (size_t i = 0; i < n; ++i) s[i] = (v[i / 32] >> (i % 32)) & 1 ? '1' : '0';
  return s;
}
template <int WW>
std::string amend_str(const std::string& mask) {
  uint32_t m[WW], rb[WW], out[WW];
  bits_from<WW>(mask, m);
  for (int j = 0; j < WW; ++j) rb[j] = range_mask(j, 0, static_cast<int64_t>(mask.size()));
  amend<WW>(m, rb, out);
  return bits_to<WW>(out, mask.size());
}
template <int WW>
int count_str(const std::string& mask, int e) {
  uint32_t m[WW];
  bits_from<WW>(mask, m);
  return count_edits<WW>(m, e);
}
}  // namespace

TEST(GateKeeperSteps, DiffMaskIsXorWithBitPairOred) {
  // Codes A=00 C=01 G=10 T=11: each mismatch sets exactly one bit whichever plane differs.
  uint32_t qh[1], ql[1], rh[1], rl[1], rc1[1], rc2[1], valid[1] = {0xffffffffu}, rb[1] = {0xffu}, mask[1];
  uint8_t n = 0;
  pack_read("ACGTACGT", 8, qh, ql, rc1, rc2, 1, &n);
  pack_read("ACGTTCGA", 8, rh, rl, rc1, rc2, 1, &n);  // position 4: A->T (both bits), 7: T->A (both)
  diff_mask<1>(qh, ql, rh, rl, valid, rb, mask);
  EXPECT_EQ(bits_to<1>(mask, 8), "00001001");
  pack_read("ACGTCAGT", 8, rh, rl, rc1, rc2, 1, &n);  // 4: A->C (lo only), 5: C->A (lo only)
  diff_mask<1>(qh, ql, rh, rl, valid, rb, mask);
  EXPECT_EQ(bits_to<1>(mask, 8), "00001100");
}

TEST(GateKeeperSteps, ExposedBasesOutsideTheContigAreMismatches) {
  uint32_t q[1] = {0}, r[1] = {0}, rb[1] = {0xffu}, mask[1];
  uint32_t valid[1] = {static_cast<uint32_t>(range_mask(0, 2, 6))};  // bases 2..5 inside the contig
  diff_mask<1>(q, q, r, r, valid, rb, mask);
  EXPECT_EQ(bits_to<1>(mask, 8), "11000011");
}

TEST(GateKeeperSteps, PackReadGivesReverseComplement) {
  uint32_t fh[1], fl[1], rh[1], rl[1], h2[1], l2[1], x[1], y[1];
  uint8_t n = 0;
  pack_read("AACGT", 5, fh, fl, rh, rl, 1, &n);
  pack_read("ACGTT", 5, h2, l2, x, y, 1, &n);  // reverse complement of AACGT
  EXPECT_EQ(rh[0], h2[0]);
  EXPECT_EQ(rl[0], l2[0]);
  EXPECT_EQ(n, 0);
  pack_read("ACNGT", 5, fh, fl, rh, rl, 1, &n);
  EXPECT_EQ(n, 1);
}

TEST(GateKeeperSteps, AmendmentFlipsShortFlankedZeroStreaksOnly) {
  EXPECT_EQ(amend_str<1>("1011"), "1111");
  EXPECT_EQ(amend_str<1>("10011"), "11111");
  EXPECT_EQ(amend_str<1>("100011"), "100011");
  EXPECT_EQ(amend_str<1>("0111"), "0111");    // read start is no flank
  EXPECT_EQ(amend_str<1>("1110"), "1110");    // read end is no flank
  EXPECT_EQ(amend_str<1>("1100"), "1100");
  EXPECT_EQ(amend_str<1>("0000"), "0000");
  EXPECT_EQ(amend_str<1>("10101001"), "11111111");
  // Across a word boundary: zeros at bits 31 and 32.
  std::string s(40, '1');
  s[31] = s[32] = '0';
  EXPECT_EQ(amend_str<2>(s), std::string(40, '1'));
  s[33] = '0';
  EXPECT_EQ(amend_str<2>(s), s);
}

TEST(GateKeeperSteps, ShiftCarriesBetweenWords) {
  uint32_t v[2] = {0x2u, 0x1u};
  shift_right1<2>(v);
  EXPECT_EQ(v[0], 0x80000001u);
  EXPECT_EQ(v[1], 0u);
}

TEST(GateKeeperSteps, WindowedCountChargesCeilThirdPerRun) {
  EXPECT_EQ(count_str<1>("0000", 5), 0);
  EXPECT_EQ(count_str<1>("0100", 5), 1);
  EXPECT_EQ(count_str<1>("0111", 5), 1);
  EXPECT_EQ(count_str<1>("01111", 5), 2);
  EXPECT_EQ(count_str<1>("1010101", 5), 4);
  EXPECT_EQ(count_str<1>("1110111", 5), 2);
  EXPECT_EQ(count_str<1>("1111111", 5), 3);
  EXPECT_EQ(count_str<1>("1010101", 2), 3);  // capped at e+1
  std::string s(64, '0');
  for (int i = 30; i < 34; ++i) s[i] = '1';  // one run of 4 across the boundary
  EXPECT_EQ(count_str<2>(s, 5), 2);
  s.assign(64, '1');
  EXPECT_EQ(count_str<2>(s, 30), 22);
}

TEST(GateKeeperSteps, RangeMask) {
  EXPECT_EQ(range_mask(0, 0, 32), 0xffffffffu);
  EXPECT_EQ(range_mask(0, 0, 3), 0x7u);
  EXPECT_EQ(range_mask(1, 0, 40), 0xffu);
  EXPECT_EQ(range_mask(1, 40, 70), 0xffffff00u);
  EXPECT_EQ(range_mask(2, 0, 40), 0u);
  EXPECT_EQ(range_mask(0, -5, 2), 0x3u);
}

TEST(GateKeeperSteps, LoadBitsAnywhere) {
  const uint32_t plane[2] = {0xf0000000u, 0x0000000fu};
  EXPECT_EQ(load_bits32(plane, 2, 28), 0xffu);
  EXPECT_EQ(load_bits32(plane, 2, -4), 0u);
  EXPECT_EQ(load_bits32(plane, 2, 60), 0u);
  EXPECT_EQ(load_bits32(plane, 2, 0), 0xf0000000u);
}

TEST(GateKeeperSteps, HostPackingEqualsTheDevicePacker) {
  // pack_reads (host, table-driven) and detail::pack_read (what the device runs) give the
  // same planes and N flags, whatever the letters.
  const std::string alphabet = "ACGTacgtNnRYKM-.";
  std::vector<std::string> reads;
  uint64_t x = 12345;
  for (int r = 0; r < 300; ++r) {
    const int len = 1 + r % 97 + (r % 7 == 0 ? 300 : 0);
    std::string s;
    for (int i = 0; i < len; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const int pick = (x >> 33) % 100;
      s += pick < 92 ? "ACGT"[pick % 4] : alphabet[(x >> 40) % alphabet.size()];
    }
    reads.push_back(s);
  }
  const std::vector<std::string_view> views(reads.begin(), reads.end());
  FilterReads packed;
  pack_reads(views, packed, true);
  const int stride = packed.stride_words;
  std::vector<uint32_t> fh(stride), fl(stride), rh(stride), rl(stride);
  for (size_t r = 0; r < reads.size(); ++r) {
    uint8_t n = 0;
    pack_read(reads[r].data(), static_cast<int>(reads[r].size()), fh.data(), fl.data(), rh.data(), rl.data(), stride,
              &n);
    EXPECT_EQ(packed.has_n[r], n) << r;
    for (int j = 0; j < stride; ++j) {
      ASSERT_EQ(packed.hi[2 * r * stride + j], fh[j]) << r;
      ASSERT_EQ(packed.lo[2 * r * stride + j], fl[j]) << r;
      ASSERT_EQ(packed.hi[(2 * r + 1) * stride + j], rh[j]) << r;
      ASSERT_EQ(packed.lo[(2 * r + 1) * stride + j], rl[j]) << r;
    }
  }
}
