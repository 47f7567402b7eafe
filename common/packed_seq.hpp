#pragma once
// A DNA sequence packed 2 bits per base as two bit-planes: bit i of `hi` and `lo` hold
// the high and low bit of base i's code (A=00 C=01 G=10 T=11). The planes make a shift
// by k bases a shift by k bits, which the GateKeeper filter relies on, and viewed as
// little-endian 32-bit words they are what the GPU kernels read. N is stored as A:
// callers keep N runs aside (see index/) and never trust a packed base inside one.
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/dna.hpp"

namespace gatemap {

struct PackedSeq {
  std::vector<uint64_t> hi;
  std::vector<uint64_t> lo;
  int64_t length = 0;

  void reserve(int64_t bases) {
    hi.reserve((bases + 63) / 64);
    lo.reserve((bases + 63) / 64);
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
  uint8_t base(int64_t i) const {
    return static_cast<uint8_t>((((hi[i >> 6] >> (i & 63)) & 1) << 1) | ((lo[i >> 6] >> (i & 63)) & 1));
  }
  const uint32_t* hi32() const { return reinterpret_cast<const uint32_t*>(hi.data()); }
  const uint32_t* lo32() const { return reinterpret_cast<const uint32_t*>(lo.data()); }
  size_t words32() const { return hi.size() * 2; }
};

}  // namespace gatemap
