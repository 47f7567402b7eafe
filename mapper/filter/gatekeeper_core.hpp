#pragma once
// The per-pair GateKeeper computation, shared word for word by the CPU twin and the
// CUDA kernel so that both give bit-identical results. Internal: include only from
// gatekeeper_cpu.cpp and gatekeeper.cu. See gatekeeper.hpp for the algorithm.
#include <cstdint>

#include "gpu/host_device.hpp"
#include "mapper/filter/gatekeeper.hpp"

#if defined(__CUDA_ARCH__)
#define GM_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define GM_UNROLL  // host pass of nvcc: the host copy of the code is not used for speed
#else
#define GM_UNROLL _Pragma("GCC unroll 32")
#endif

namespace gatemap::mapper::filter::detail {

GATEMAP_HD int ctz_word(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}
GATEMAP_HD int ctz_word(uint64_t x) {
#ifdef __CUDA_ARCH__
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// Bits per word of a bit-vector: the kernel works on 32-bit words, the CPU twin on
// 64-bit words (half the word operations). Both give the same bits: a bit-vector is the
// window's bases in order whatever the word size.
template <typename W>
constexpr int kWordBits = static_cast<int>(sizeof(W) * 8);

// 32 bits of a bit-plane starting at global bit p; bits outside the array read as 0.
GATEMAP_HD uint32_t load_bits32(const uint32_t* plane, int64_t words, int64_t p) {
  const int64_t wi = p >= 0 ? p / 32 : -((-p + 31) / 32);
  const int s = static_cast<int>(p - wi * 32);
  const uint32_t a = (wi >= 0 && wi < words) ? plane[wi] : 0u;
  const uint32_t b = (wi + 1 >= 0 && wi + 1 < words) ? plane[wi + 1] : 0u;
  return s ? (a >> s) | (b << (32 - s)) : a;
}

// 64 bits of a bit-plane (stored as 32-bit words) starting at global bit p.
GATEMAP_HD uint64_t load_bits64(const uint32_t* plane, int64_t words, int64_t p) {
  return load_bits32(plane, words, p) | (static_cast<uint64_t>(load_bits32(plane, words, p + 32)) << 32);
}
GATEMAP_HD uint32_t load_word(const uint32_t* plane, int64_t words, int64_t p, uint32_t) {
  return load_bits32(plane, words, p);
}
GATEMAP_HD uint64_t load_word(const uint32_t* plane, int64_t words, int64_t p, uint64_t) {
  return load_bits64(plane, words, p);
}

// Word j of a read plane packed as `w32` 32-bit words.
GATEMAP_HD uint32_t read_word(const uint32_t* plane, int w32, int j, uint32_t) { return j < w32 ? plane[j] : 0u; }
GATEMAP_HD uint64_t read_word(const uint32_t* plane, int w32, int j, uint64_t) {
  const uint64_t a = 2 * j < w32 ? plane[2 * j] : 0u;
  const uint64_t b = 2 * j + 1 < w32 ? plane[2 * j + 1] : 0u;
  return a | (b << 32);
}

// Ones in bits [begin, end) of word j (bit positions are global over the word array).
template <typename W = uint32_t>
GATEMAP_HD W range_mask(int j, int64_t begin, int64_t end) {
  constexpr int B = kWordBits<W>;
  const int64_t lo = begin - B * static_cast<int64_t>(j);
  const int64_t hi = end - B * static_cast<int64_t>(j);
  if (hi <= 0 || lo >= B) return W(0);
  const W upto_hi = hi >= B ? ~W(0) : ((W(1) << hi) - W(1));
  const W from_lo = lo <= 0 ? ~W(0) : ~((W(1) << lo) - W(1));
  return upto_hi & from_lo;
}

// Does [begin, end) overlap an N run? Binary search over the sorted runs.
GATEMAP_HD bool overlaps_n(const FilterReference& ref, int64_t begin, int64_t end) {
  int64_t lo = 0, hi = ref.n_runs;
  while (lo < hi) {  // first run whose end > begin
    const int64_t mid = (lo + hi) / 2;
    if (ref.n_end[mid] > begin) hi = mid; else lo = mid + 1;
  }
  return lo < ref.n_runs && ref.n_begin[lo] < end;
}

// Packs one read into forward and reverse-complement bit-planes; code(i) is base i as
// 0..3, or above 3 for N (packed as A, and the read flagged).
template <class Code>
GATEMAP_HD void pack_read_codes(Code code, int m, uint32_t* fh, uint32_t* fl, uint32_t* rh, uint32_t* rl, int stride,
                                uint8_t* has_n) {
  bool n = false;
  for (int j = 0; j < stride; ++j) fh[j] = fl[j] = rh[j] = rl[j] = 0;
  for (int i = 0; i < m; ++i) {
    const uint32_t raw = code(i);
    const uint32_t c = raw < 4 ? raw : 0;
    n |= raw > 3;
    fh[i >> 5] |= (c >> 1) << (i & 31);
    fl[i >> 5] |= (c & 1) << (i & 31);
    const int r = m - 1 - i;
    const uint32_t rc = 3 - c;
    rh[r >> 5] |= (rc >> 1) << (r & 31);
    rl[r >> 5] |= (rc & 1) << (r & 31);
  }
  *has_n = n ? 1 : 0;
}

// The same from ASCII bases (any case; other letters are N).
GATEMAP_HD void pack_read(const char* s, int m, uint32_t* fh, uint32_t* fl, uint32_t* rh, uint32_t* rl, int stride,
                          uint8_t* has_n) {
  pack_read_codes(
      [s](int i) -> uint32_t {
        switch (s[i]) {
          case 'A':
          case 'a':
            return 0;
          case 'C':
          case 'c':
            return 1;
          case 'G':
          case 'g':
            return 2;
          case 'T':
          case 't':
            return 3;
          default:
            return 4;
        }
      },
      m, fh, fl, rh, rl, stride, has_n);
}

// ---- the algorithm's steps on bit-vectors of WW words (bit i = read base i) ----

// Mismatch mask of one diagonal: XOR of the 2-bit codes with the bit pair ORed, plus
// bits whose reference base lies outside the contig (the leading/trailing fix).
template <int WW, typename W>
GATEMAP_HD void diff_mask(const W* qh, const W* ql, const W* rh, const W* rl, const W* valid, const W* read_bits, W* mask) {
GM_UNROLL
  for (int j = 0; j < WW; ++j) mask[j] = ((qh[j] ^ rh[j]) | (ql[j] ^ rl[j]) | ~valid[j]) & read_bits[j];
}

// Amendment: zero streaks of length 1 or 2 flanked by ones become ones. Bits past the
// read must be 0 in `mask`, so the read's ends never count as a flank. out != mask.
template <int WW, typename W>
GATEMAP_HD void amend(const W* mask, const W* read_bits, W* out) {
  constexpr int B = kWordBits<W>;
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    const W prev = j > 0 ? mask[j - 1] : W(0);
    const W next = j + 1 < WW ? mask[j + 1] : W(0);
    const W l1 = (mask[j] << 1) | (prev >> (B - 1));  // bit i holds mask[i-1]
    const W l2 = (mask[j] << 2) | (prev >> (B - 2));
    const W r1 = (mask[j] >> 1) | (next << (B - 1));  // bit i holds mask[i+1]
    const W r2 = (mask[j] >> 2) | (next << (B - 2));
    const W zero = ~mask[j];
    const W single = zero & l1 & r1;
    const W pair_first = zero & l1 & ~r1 & r2;
    const W pair_second = zero & ~l1 & l2 & r1;
    out[j] = (mask[j] | single | pair_first | pair_second) & read_bits[j];
  }
}

// Shift a bit-vector right by one bit (one base), carrying between words.
template <int WW, typename W>
GATEMAP_HD void shift_right1(W* v) {
  constexpr int B = kWordBits<W>;
GM_UNROLL
  for (int j = 0; j < WW; ++j) v[j] = (v[j] >> 1) | ((j + 1 < WW ? v[j + 1] : W(0)) << (B - 1));
}

// Windowed count: each maximal run of L ones costs ceil(L/3) edits. Returns the
// count, or e+1 as soon as it exceeds e.
template <int WW, typename W>
GATEMAP_HD int count_edits(const W* acc, int e) {
  constexpr int B = kWordBits<W>;
  int count = 0, run = 0;
  bool in_run = false;
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    const W x = acc[j];
    int bit = 0;
    while (bit < B) {
      const W rest = x >> bit;
      if (!in_run) {
        if (rest == 0) break;
        bit += ctz_word(rest);
        in_run = true;
        run = 0;
        continue;
      }
      const W inv = ~rest;
      int ones = inv ? ctz_word(inv) : B;
      if (ones > B - bit) ones = B - bit;
      run += ones;
      bit += ones;
      if (bit < B) {
        count += (run + 2) / 3;
        in_run = false;
        if (count > e) return e + 1;
      }
    }
  }
  if (in_run) count += (run + 2) / 3;
  return count > e ? e + 1 : count;
}

// Edit estimate for one pair, capped at e+1. WW = words of type W held per bit-vector;
// needs bits(W)*WW >= m + 2e. Read planes qh/ql hold ceil(m/32) 32-bit words.
template <int WW, typename W = uint32_t>
GATEMAP_HD uint8_t gatekeeper_pair(const FilterReference& ref, const uint32_t* qh_in, const uint32_t* ql_in, int m,
                              int64_t pos, int32_t contig, int e) {
  const int64_t contig_lo = ref.contig_begin[contig];
  const int64_t contig_hi = ref.contig_end[contig];
  const int64_t win_begin = pos - e;
  const int n = m + 2 * e;  // window length in bases
  // N in the reference window (inside the contig) passes unfiltered.
  const int64_t nb = win_begin > contig_lo ? win_begin : contig_lo;
  const int64_t ne = win_begin + n < contig_hi ? win_begin + n : contig_hi;
  if (nb < ne && overlaps_n(ref, nb, ne)) return kFilterUnfiltered;

  constexpr int B = kWordBits<W>;
  const int w32 = (m + 31) / 32;
  W qh[WW], ql[WW], rh[WW], rl[WW], valid[WW], acc[WW], mask[WW], amended[WW], read_bits[WW];
  const bool all_valid = win_begin >= contig_lo && win_begin + n <= contig_hi;
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    qh[j] = read_word(qh_in, w32, j, W(0));
    ql[j] = read_word(ql_in, w32, j, W(0));
    rh[j] = load_word(ref.hi, ref.words, win_begin + B * j, W(0));
    rl[j] = load_word(ref.lo, ref.words, win_begin + B * j, W(0));
    valid[j] = all_valid ? ~W(0) : range_mask<W>(j, contig_lo - win_begin, contig_hi - win_begin);
    read_bits[j] = range_mask<W>(j, 0, m);
    acc[j] = read_bits[j];
  }
  // Diagonal pos + (k - e) compares read base i with window base i + k: the window is
  // shifted one base per step (the 2e shifted masks), the Hamming mask at k = e.
  for (int k = 0; k <= 2 * e; ++k) {
    diff_mask<WW>(qh, ql, rh, rl, valid, read_bits, mask);
    amend<WW>(mask, read_bits, amended);
GM_UNROLL
    for (int j = 0; j < WW; ++j) acc[j] &= amended[j];
    shift_right1<WW>(rh);
    shift_right1<WW>(rl);
    shift_right1<WW>(valid);
  }
  return static_cast<uint8_t>(count_edits<WW>(acc, e));
}

// Words per bit-vector needed for a read of m bases at threshold e.
template <typename W = uint32_t>
GATEMAP_HD int window_words(int m, int e) { return (m + 2 * e + kWordBits<W> - 1) / kWordBits<W>; }

// Dispatch to the smallest instantiation that holds the window.
template <typename W, int WW = 1>
GATEMAP_HD uint8_t gatekeeper_pair_any(const FilterReference& ref, const uint32_t* qh, const uint32_t* ql, int m,
                                  int64_t pos, int32_t contig, int e) {
  if constexpr (WW >= (kMaxReadLen + 2 * kMaxEdits + kWordBits<W> - 1) / kWordBits<W>) {
    return gatekeeper_pair<WW, W>(ref, qh, ql, m, pos, contig, e);
  } else {
    if (window_words<W>(m, e) <= WW) return gatekeeper_pair<WW, W>(ref, qh, ql, m, pos, contig, e);
    return gatekeeper_pair_any<W, WW + 1>(ref, qh, ql, m, pos, contig, e);
  }
}

// The contig the filter compares a read with: the one holding its middle base. Sound
// whatever contig the mapper seeded: where the two differ, at least m/2 read bases lie
// past the mapper's contig end; on any diagonal of the band at least m/2 - e of them
// stay outside and can only be insertions, so with 4e < m verification rejects the pair
// anyway. With 4e >= m a window that crosses a contig end passes unfiltered.
GATEMAP_HD int32_t filter_contig(const FilterReference& ref, int64_t diag, int m) {
  const int64_t mid = diag + m / 2;
  int32_t lo = 0, hi = ref.n_contigs - 1;
  while (lo < hi) {  // last contig starting at or before mid
    const int32_t c = (lo + hi + 1) / 2;
    if (ref.contig_begin[c] <= mid) lo = c; else hi = c - 1;
  }
  return lo;
}

// One pair from the batch arrays: false when it passes unfiltered (flagged diagonal, N
// in the read, too long, or crossing a contig end at 4e >= m); else its read length,
// contig and the word offset of its read planes.
GATEMAP_HD bool candidate_pair(const FilterReference& ref, const int32_t* len, const uint8_t* has_n, int stride,
                          uint32_t read_strand, uint32_t diagonal, int e, int& m, int32_t& contig, size_t& off) {
  if (read_strand & FilterCandidates::kOutside) return false;
  const uint32_t read = read_strand >> 1;
  m = len[read];
  if (has_n[read] || m > kMaxReadLen || m <= 0) return false;
  const int64_t diag = diagonal;
  contig = filter_contig(ref, diag, m);
  if (4 * e >= m && (diag - e < ref.contig_begin[contig] || diag + m + e > ref.contig_end[contig])) return false;
  off = static_cast<size_t>(read_strand) * stride;  // (2 * read + strand) * stride
  return true;
}

// The CPU twin's entry: W = 64-bit words by default (same bits as the kernel's 32).
template <typename W = uint64_t>
GATEMAP_HD uint8_t gatekeeper_candidate(const FilterReference& ref, const uint32_t* read_hi, const uint32_t* read_lo,
                                   const int32_t* len, const uint8_t* has_n, int stride, uint32_t read_strand,
                                   uint32_t diagonal, int e) {
  int m = 0;
  int32_t contig = 0;
  size_t off = 0;
  if (!candidate_pair(ref, len, has_n, stride, read_strand, diagonal, e, m, contig, off)) return kFilterUnfiltered;
  return gatekeeper_pair_any<W, 1>(ref, read_hi + off, read_lo + off, m, diagonal, contig, e);
}

}  // namespace gatemap::mapper::filter::detail
