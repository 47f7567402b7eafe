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

// A blocked Bloom filter: a k-mer's bits all lie in one block of 512 bits (a 64-byte
// cache line), so a lookup reads one line instead of one per hash. mix64(x) picks the
// block; the bits in it are 9-bit pieces of a second hash, 7 per 64-bit word, the word
// mixed again for the next 7 (independent positions: double hashing inside so small a
// block makes keys share bit patterns and raises the false positives several-fold).
constexpr uint64_t kBloomBlockBits = 512;
constexpr int kBloomBitsPerWord = 7;  // 9-bit positions in a 64-bit hash
GATEMAP_HD uint64_t bloom_block(uint64_t x, uint64_t mask) { return mix64(x) & mask & ~(kBloomBlockBits - 1); }
GATEMAP_HD uint64_t bloom_pattern(uint64_t x) { return mix64(x ^ 0x9e3779b97f4a7c15ULL); }
// The bit in the block for hash i, given the pattern word of hash i (advanced every 7).
GATEMAP_HD uint64_t bloom_in_block(uint64_t pattern_word, int i) {
  return (pattern_word >> (9 * (i % kBloomBitsPerWord))) & (kBloomBlockBits - 1);
}

// The i-th bit of x in a Bloom filter of mask + 1 bits (at least one block).
GATEMAP_HD uint64_t bloom_bit(uint64_t x, int i, uint64_t mask) {
  uint64_t word = bloom_pattern(x);
  for (int j = i / kBloomBitsPerWord; j > 0; --j) word = mix64(word);
  return bloom_block(x, mask) | bloom_in_block(word, i);
}

GATEMAP_HD bool spectrum_contains(const SpectrumView& s, uint64_t x) {
  if (s.bloom) {
    const uint64_t* block = s.words + (bloom_block(x, s.mask) >> 6);
    uint64_t word = bloom_pattern(x);
    for (int i = 0; i < s.hashes; ++i) {
      if (i > 0 && i % kBloomBitsPerWord == 0) word = mix64(word);
      const uint64_t bit = bloom_in_block(word, i);
      if (!((block[bit >> 6] >> (bit & 63)) & 1ULL)) return false;
    }
    return true;
  }
  for (uint64_t slot = mix64(x) & s.mask;; slot = (slot + 1) & s.mask) {
    const uint64_t v = s.words[slot];
    if (v == x) return true;
    if (v == ~uint64_t(0)) return false;
  }
}

// Asks for the memory a lookup of x reads first (host code: the CPU twin's lookups
// overlap their cache misses; the GPU hides them with other warps).
inline void spectrum_prefetch(const SpectrumView& s, uint64_t x) {
  __builtin_prefetch(s.words + (s.bloom ? bloom_block(x, s.mask) >> 6 : mix64(x) & s.mask));  // the block, the first slot
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

// An indel near a read's end leaves a few weak windows there that substitutions can
// make solid: the end rewritten as the genome beside it, which is the original shifted
// by the indel's length. Such rewrites are undone: at each end (left, then right), when
// the changes among its first k bases make the segment up to the farthest one the
// original shifted by 1 to 3 bases (one position of it aside, at least 3 changes so
// explained), the segment is put back. Real errors seldom come 3 to an end in that
// pattern (simulated ART and mason-like reads lose 0 and 3 fixes in 120 k and 240 k;
// on `gatemap sim reads`, 3% of whose reads hold an indel, 72% fewer errors introduced).
// Returns whether anything was put back.
GATEMAP_HD bool undo_indel_shifts(uint8_t* codes, const uint8_t* original, int L, int k) {
  bool undone = false;
  const int zone = k < L ? k : L;
  for (int end = 0; end < 2; ++end) {
    const int first = end == 0 ? 0 : L - 1, step = end == 0 ? 1 : -1;
    int far = -1, changes = 0;  // the farthest change from this end (distance), how many
    for (int d = 0; d < zone; ++d) {
      const int j = first + step * d;
      if (codes[j] != original[j]) far = d, ++changes;
    }
    if (changes < 3) continue;
    bool shifted = false;
    for (int s = -3; s <= 3 && !shifted; ++s) {
      int unexplained = 0, explained = 0;
      for (int d = 0; s != 0 && d <= far; ++d) {
        const int j = first + step * d, from = j + s;
        if (from < 0 || from >= L) continue;
        if (codes[j] == original[from]) {
          explained += codes[j] != original[j];
        } else {
          ++unexplained;
        }
      }
      shifted = s != 0 && unexplained <= 1 && explained >= 3;
    }
    if (!shifted) continue;
    for (int d = 0; d <= far; ++d) {
      const int j = first + step * d;
      undone |= codes[j] != original[j];
      codes[j] = original[j];
    }
  }
  return undone;
}

}  // namespace gatemap::correct::detail
