#pragma once
// k-mer helpers shared word for word by the CPU twin and the CUDA kernel of the
// corrector (internal: include from kmer_correct*.cpp/.cu and correct/ only).
#include <cstdint>

#include "correct/kmer_correct.hpp"
#include "gpu/host_device.hpp"

namespace gatemap::correct::detail {

struct SpectrumView {
  const uint64_t* words = nullptr;
  uint64_t mask = 0;
  int hashes = 0;
  int k = 0;
  KmerSpectrum::Kind kind = KmerSpectrum::Kind::bloom;
  int rem_bits = 0;  // compact only
};

inline SpectrumView view_of(const KmerSpectrum& s) { return {s.words.data(), s.mask, s.hashes, s.k, s.kind, s.rem_bits}; }

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

// The compact exact set (KmerSpectrum::Kind::compact): a k-mer's 2k bits permuted (a
// bijection of the 2k-bit values), the top bits name its home slot and the rest, its
// remainder, is stored with its distance from home in a 32-bit slot. Remainder and
// distance give back the home and so the k-mer: the set stays exact in half the bytes of
// whole k-mers (a bacterium's 4.5 M solid 21-mers in 32 MiB, which the GPU's L2 holds).
constexpr uint32_t kEmptySlot32 = ~uint32_t(0);
constexpr int kCompactMinDistBits = 10;  // distances up to 1022 (at load <= 2/3 never reached by chance)

GATEMAP_HD uint64_t low_bits_mask(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

// xorshift-multiply rounds kept to `bits` bits: each step is invertible there (a right
// shift by at least half the width, an odd multiplier), and multiplying carries every
// bit into the top ones, which pick the home slot.
constexpr uint64_t kPermuteMul1 = 0xbf58476d1ce4e5b9ULL, kPermuteMul2 = 0x94d049bb133111ebULL;
GATEMAP_HD uint64_t permute_bits(uint64_t x, int bits) {
  const uint64_t mask = low_bits_mask(bits);
  const int r = (bits + 1) / 2;
  x = ((x ^ (x >> r)) * kPermuteMul1) & mask;
  x = ((x ^ (x >> r)) * kPermuteMul2) & mask;
  return x ^ (x >> r);
}

// The inverse of an odd number modulo 2^64 (Newton's iteration doubles the good bits).
GATEMAP_HD uint64_t odd_inverse(uint64_t a) {
  uint64_t inv = a;  // right to 3 bits
  for (int i = 0; i < 5; ++i) inv *= 2 - a * inv;
  return inv;
}

GATEMAP_HD uint64_t unpermute_bits(uint64_t x, int bits) {
  const uint64_t mask = low_bits_mask(bits);
  const int r = (bits + 1) / 2;  // r >= bits / 2: one xorshift undoes one
  x ^= x >> r;
  x = ((x * odd_inverse(kPermuteMul2)) & mask);
  x ^= x >> r;
  x = ((x * odd_inverse(kPermuteMul1)) & mask);
  return x ^ (x >> r);
}

GATEMAP_HD uint32_t compact_max_dist(int rem_bits) {  // all ones: the empty slot (rem_bits may be 0)
  return static_cast<uint32_t>((uint64_t(1) << (32 - rem_bits)) - 2);
}
GATEMAP_HD uint32_t compact_entry(uint64_t rem, uint32_t dist, int rem_bits) {
  return static_cast<uint32_t>(rem) | (dist << rem_bits);
}

// Where x lives in a compact set: its home slot and the remainder its slot keeps.
struct CompactKey {
  uint64_t home, rem;
};
GATEMAP_HD CompactKey compact_key(uint64_t x, int k, int rem_bits) {
  const uint64_t p = permute_bits(x, 2 * k);
  return {p >> rem_bits, p & low_bits_mask(rem_bits)};
}

// Slot i of a compact set: half a 64-bit word, the low half first (as a uint32_t array
// lies in memory on these little-endian machines).
GATEMAP_HD uint32_t compact_slot(const uint64_t* words, uint64_t i) {
  return static_cast<uint32_t>(words[i >> 1] >> (32 * (i & 1)));
}

// Compare-and-swap of a 64-bit word, on either side; returns what the word held.
GATEMAP_HD uint64_t compare_and_swap(uint64_t* word, uint64_t expected, uint64_t desired) {
#ifdef __CUDA_ARCH__
  return atomicCAS(reinterpret_cast<unsigned long long*>(word), expected, desired);
#else
  __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

// Inserts x into an exact set of whole k-mers (linear probing from mix64, the empty slot
// claimed by compare-and-swap: safe beside other threads, host or device, doing the same).
GATEMAP_HD SlotClaim exact_claim(uint64_t* words, uint64_t mask, uint64_t x) {
  for (uint64_t slot = mix64(x) & mask;; slot = (slot + 1) & mask) {
    const uint64_t seen = compare_and_swap(&words[slot], KmerSpectrum::kEmptyKmer, x);
    if (seen == KmerSpectrum::kEmptyKmer) return SlotClaim::added;
    if (seen == x) return SlotClaim::present;
  }
}

// Inserts x into a compact set (linear probing; as safe as exact_claim).
GATEMAP_HD SlotClaim compact_claim(uint64_t* words, uint64_t mask, int rem_bits, int k, uint64_t x) {
  const CompactKey key = compact_key(x, k, rem_bits);
  const uint32_t last = compact_max_dist(rem_bits);
  for (uint32_t d = 0; d <= last; ++d) {
    const uint64_t i = (key.home + d) & mask;
    const int shift = 32 * static_cast<int>(i & 1);
    const uint32_t want = compact_entry(key.rem, d, rem_bits);
    uint64_t word = ~uint64_t(0);  // a guess: the swap says what is there
    for (;;) {
      const uint32_t held = static_cast<uint32_t>(word >> shift);
      if (held == want) return SlotClaim::present;
      if (held != kEmptySlot32) break;  // taken: the next slot
      const uint64_t desired = (word & ~(uint64_t(kEmptySlot32) << shift)) | (uint64_t(want) << shift);
      const uint64_t seen = compare_and_swap(&words[i >> 1], word, desired);
      if (seen == word) return SlotClaim::added;
      word = seen;
    }
  }
  return SlotClaim::too_far;
}

GATEMAP_HD bool spectrum_contains(const SpectrumView& s, uint64_t x) {
  if (s.kind == KmerSpectrum::Kind::compact) {
    const CompactKey key = compact_key(x, s.k, s.rem_bits);
    const uint32_t last = compact_max_dist(s.rem_bits);
    for (uint32_t d = 0; d <= last; ++d) {
      const uint32_t v = compact_slot(s.words, (key.home + d) & s.mask);
      if (v == compact_entry(key.rem, d, s.rem_bits)) return true;
      if (v == kEmptySlot32) return false;
    }
    return false;
  }
  if (s.kind == KmerSpectrum::Kind::bloom) {
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
  if (s.kind == KmerSpectrum::Kind::compact) {  // the home slot
    __builtin_prefetch(s.words + (compact_key(x, s.k, s.rem_bits).home >> 1));
    return;
  }
  __builtin_prefetch(s.words + (s.kind == KmerSpectrum::Kind::bloom ? bloom_block(x, s.mask) >> 6 : mix64(x) & s.mask));
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
