#pragma once
// A DNA sequence packed 2 bits per base as two bit-planes: bit i of `hi` and `lo` hold
// the high and low bit of base i's code (A=00 C=01 G=10 T=11). The planes make a shift
// by k bases a shift by k bits, which the GateKeeper filter relies on, and viewed as
// little-endian 32-bit words they are what the GPU kernels read. N is stored as A:
// callers keep N runs aside (see index/) and never trust a packed base inside one.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/dna.hpp"

namespace gatemap {

struct PackedSeq {
  std::vector<uint64_t> hi;
  std::vector<uint64_t> lo;
  int64_t length = 0;

  void reserve(int64_t bases) {  // grows geometrically: contigs are appended one by one
    const size_t words = static_cast<size_t>((bases + 63) / 64);
    if (words <= hi.capacity()) return;
    hi.reserve(std::max(words, 2 * hi.capacity()));
    lo.reserve(std::max(words, 2 * lo.capacity()));
  }
  void push_back(uint8_t code) {  // code 0..3 (N must be mapped by the caller)
    if ((length & 63) == 0) {
      hi.push_back(0);
      lo.push_back(0);
    }
    hi.back() |= static_cast<uint64_t>((code >> 1) & 1) << (length & 63);
    lo.back() |= static_cast<uint64_t>(code & 1) << (length & 63);
    ++length;
  }
  // Appends ASCII bases (uppercase ACGT; anything else is stored as A: callers track N).
  void append(const char* s, int64_t n) {
    reserve(length + n);
    int64_t i = 0;
    while (i < n && (length & 63)) push_back(code_or_a(s[i++]));
    for (; i + 64 <= n; i += 64) {  // whole words at a time
      uint64_t h = 0, l = 0;
      for (int b = 0; b < 64; ++b) {
        const uint64_t c = code_or_a(s[i + b]);
        h |= ((c >> 1) & 1) << b;
        l |= (c & 1) << b;
      }
      hi.push_back(h);
      lo.push_back(l);
      length += 64;
    }
    while (i < n) push_back(code_or_a(s[i++]));
  }
  static uint8_t code_or_a(char c) {
    const uint8_t code = base_code(c);
    return code < 4 ? code : 0;
  }
  uint8_t base(int64_t i) const {
    return static_cast<uint8_t>((((hi[i >> 6] >> (i & 63)) & 1) << 1) | ((lo[i >> 6] >> (i & 63)) & 1));
  }
  const uint32_t* hi32() const { return reinterpret_cast<const uint32_t*>(hi.data()); }
  const uint32_t* lo32() const { return reinterpret_cast<const uint32_t*>(lo.data()); }
  size_t words32() const { return hi.size() * 2; }
};

}  // namespace gatemap
