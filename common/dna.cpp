#include "common/dna.hpp"

#include <array>

namespace gatemap {
namespace {
constexpr std::array<uint8_t, 256> make_table() {
  std::array<uint8_t, 256> t{};
  for (auto& v : t) v = kBaseN;
  t['A'] = t['a'] = 0;
  t['C'] = t['c'] = 1;
  t['G'] = t['g'] = 2;
  t['T'] = t['t'] = 3;
  return t;
}
constexpr auto kTable = make_table();

// ASCII -> the ASCII of its code's complement (one lookup a base, not three).
constexpr std::array<char, 256> make_complement_table() {
  std::array<char, 256> t{};
  for (size_t c = 0; c < t.size(); ++c) t[c] = kCodeToAscii[kTable[c] < 4 ? 3 - kTable[c] : kBaseN];
  return t;
}
constexpr auto kComplementAscii = make_complement_table();
}  // namespace

const uint8_t kAsciiToCode[256] = {
#define GM_ROW(i) kTable[i], kTable[i + 1], kTable[i + 2], kTable[i + 3], kTable[i + 4], kTable[i + 5], kTable[i + 6], kTable[i + 7]
    GM_ROW(0),   GM_ROW(8),   GM_ROW(16),  GM_ROW(24),  GM_ROW(32),  GM_ROW(40),  GM_ROW(48),  GM_ROW(56),
    GM_ROW(64),  GM_ROW(72),  GM_ROW(80),  GM_ROW(88),  GM_ROW(96),  GM_ROW(104), GM_ROW(112), GM_ROW(120),
    GM_ROW(128), GM_ROW(136), GM_ROW(144), GM_ROW(152), GM_ROW(160), GM_ROW(168), GM_ROW(176), GM_ROW(184),
    GM_ROW(192), GM_ROW(200), GM_ROW(208), GM_ROW(216), GM_ROW(224), GM_ROW(232), GM_ROW(240), GM_ROW(248),
#undef GM_ROW
};

std::string reverse_complement(std::string_view seq) {
  std::string out;
  reverse_complement_into(seq, out);
  return out;
}

void reverse_complement_into(std::string_view seq, std::string& out) {
  out.resize(seq.size());
  const size_t n = seq.size();
  for (size_t i = 0; i < n; ++i) out[n - 1 - i] = kComplementAscii[static_cast<unsigned char>(seq[i])];
}

}  // namespace gatemap
