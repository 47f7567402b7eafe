#pragma once
// k-mer helpers shared word for word by the CPU twin and the CUDA kernel of the
// corrector (internal: include from kmer_correct*.cpp/.cu and correct/ only).
#include <cstdint>

#include "gpu/host_device.hpp"

namespace gatemap::correct::detail {

struct SpectrumView {
  const uint64_t* words = nullptr;
  uint64_t mask = 0;
  int hashes = 0;
  int k = 0;
  bool bloom = true;
};

GATEMAP_HD uint64_t mix64(uint64_t z) {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Bloom filter positions by double hashing: h1 + i * h2 (h2 odd).
GATEMAP_HD uint64_t bloom_h1(uint64_t x) { return mix64(x); }
GATEMAP_HD uint64_t bloom_h2(uint64_t x) { return mix64(x ^ 0x9e3779b97f4a7c15ULL) | 1ULL; }

// The i-th bit of x in a Bloom filter of mask + 1 bits.
GATEMAP_HD uint64_t bloom_bit(uint64_t x, int i, uint64_t mask) {
  return (bloom_h1(x) + static_cast<uint64_t>(i) * bloom_h2(x)) & mask;
}

GATEMAP_HD bool spectrum_contains(const SpectrumView& s, uint64_t x) {
  if (s.bloom) {
    const uint64_t h1 = bloom_h1(x), h2 = bloom_h2(x);
    for (int i = 0; i < s.hashes; ++i) {
      const uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) & s.mask;
      if (!((s.words[bit >> 6] >> (bit & 63)) & 1ULL)) return false;
    }
    return true;
  }
  for (uint64_t slot = mix64(x) & s.mask;; slot = (slot + 1) & s.mask) {
    const uint64_t v = s.words[slot];
    if (v == x) return true;
    if (v == ~uint64_t(0)) return false;
  }
}

// Forward and reverse-complement 2-bit k-mers of codes[i, i+k), an N read as A: returns
// how many N the window holds (counting stops at 2) and where the last one is (d,
// 0-based in the window).
GATEMAP_HD int window_kmers_n(const uint8_t* codes, int i, int k, uint64_t& fwd, uint64_t& rc, int& n_at) {
  fwd = 0, rc = 0;
  int n = 0;
  n_at = -1;
  for (int d = 0; d < k; ++d) {
    uint8_t c = codes[i + d];
    if (c > 3) {
      c = 0;
      n_at = d;
      if (++n == 2) return n;
    }
    fwd = (fwd << 2) | c;
    rc |= static_cast<uint64_t>(3 - c) << (2 * d);
  }
  return n;
}

GATEMAP_HD uint64_t canonical(uint64_t fwd, uint64_t rc) { return fwd < rc ? fwd : rc; }

// Canonical k-mer of the window with position d (0-based in the window) set to base b.
GATEMAP_HD uint64_t substituted(uint64_t fwd, uint64_t rc, int k, int d, uint8_t old_b, uint8_t b) {
  const int fs = 2 * (k - 1 - d), rs = 2 * d;
  fwd ^= static_cast<uint64_t>(old_b ^ b) << fs;
  rc ^= static_cast<uint64_t>((3 - old_b) ^ (3 - b)) << rs;
  return canonical(fwd, rc);
}

}  // namespace gatemap::correct::detail
