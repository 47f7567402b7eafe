#pragma once
// The per-pair GateKeeper computation, shared word for word by the CPU twin and the
// CUDA kernel so that both give bit-identical results. Internal: include only from
// gatekeeper_cpu.cpp and gatekeeper.cu. See gatekeeper.hpp for the algorithm.
#include <cstdint>

#include "gpu/gatekeeper.hpp"

#ifdef __CUDACC__
#define GM_HD __host__ __device__ __forceinline__
#else
#define GM_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define GM_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define GM_UNROLL  // host pass of nvcc: the host copy of the code is not used for speed
#else
#define GM_UNROLL _Pragma("GCC unroll 32")
#endif

namespace gatemap::gpu::detail {

GM_HD int ctz32(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

// 32 bits of a bit-plane starting at global bit p; bits outside the array read as 0.
GM_HD uint32_t load_bits32(const uint32_t* plane, int64_t words, int64_t p) {
  const int64_t wi = p >= 0 ? p / 32 : -((-p + 31) / 32);
  const int s = static_cast<int>(p - wi * 32);
  const uint32_t a = (wi >= 0 && wi < words) ? plane[wi] : 0u;
  const uint32_t b = (wi + 1 >= 0 && wi + 1 < words) ? plane[wi + 1] : 0u;
  return s ? (a >> s) | (b << (32 - s)) : a;
}

// Ones in bits [begin, end) of word j (bit positions are global over the word array).
GM_HD uint32_t range_mask(int j, int64_t begin, int64_t end) {
  const int64_t lo = begin - 32 * static_cast<int64_t>(j);
  const int64_t hi = end - 32 * static_cast<int64_t>(j);
  if (hi <= 0 || lo >= 32) return 0u;
  const uint32_t upto_hi = hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u);
  const uint32_t from_lo = lo <= 0 ? 0xffffffffu : ~((1u << lo) - 1u);
  return upto_hi & from_lo;
}

// Does [begin, end) overlap an N run? Binary search over the sorted runs.
GM_HD bool overlaps_n(const FilterReference& ref, int64_t begin, int64_t end) {
  int64_t lo = 0, hi = ref.n_runs;
  while (lo < hi) {  // first run whose end > begin
    const int64_t mid = (lo + hi) / 2;
    if (ref.n_end[mid] > begin) hi = mid; else lo = mid + 1;
  }
  return lo < ref.n_runs && ref.n_begin[lo] < end;
}

// Packs one read's bases (ASCII) into forward and reverse-complement bit-planes.
GM_HD void pack_read(const char* s, int m, uint32_t* fh, uint32_t* fl, uint32_t* rh, uint32_t* rl, int stride,
                     uint8_t* has_n) {
  bool n = false;
  for (int j = 0; j < stride; ++j) fh[j] = fl[j] = rh[j] = rl[j] = 0;
  for (int i = 0; i < m; ++i) {
    const char c = s[i];
    uint32_t code = 0;
    switch (c) {
      case 'A': case 'a': code = 0; break;
      case 'C': case 'c': code = 1; break;
      case 'G': case 'g': code = 2; break;
      case 'T': case 't': code = 3; break;
      default: n = true;
    }
    fh[i >> 5] |= (code >> 1) << (i & 31);
    fl[i >> 5] |= (code & 1) << (i & 31);
    const int r = m - 1 - i;
    const uint32_t rc = 3 - code;
    rh[r >> 5] |= (rc >> 1) << (r & 31);
    rl[r >> 5] |= (rc & 1) << (r & 31);
  }
  *has_n = n ? 1 : 0;
}

// ---- the algorithm's steps on bit-vectors of WW 32-bit words (bit i = read base i) ----

// Mismatch mask of one diagonal: XOR of the 2-bit codes with the bit pair ORed, plus
// bits whose reference base lies outside the contig (the leading/trailing fix).
template <int WW>
GM_HD void diff_mask(const uint32_t* qh, const uint32_t* ql, const uint32_t* rh, const uint32_t* rl,
                     const uint32_t* valid, const uint32_t* read_bits, uint32_t* mask) {
GM_UNROLL
  for (int j = 0; j < WW; ++j) mask[j] = ((qh[j] ^ rh[j]) | (ql[j] ^ rl[j]) | ~valid[j]) & read_bits[j];
}

// Amendment: zero streaks of length 1 or 2 flanked by ones become ones. Bits past the
// read must be 0 in `mask`, so the read's ends never count as a flank. out != mask.
template <int WW>
GM_HD void amend(const uint32_t* mask, const uint32_t* read_bits, uint32_t* out) {
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    const uint32_t prev = j > 0 ? mask[j - 1] : 0u;
    const uint32_t next = j + 1 < WW ? mask[j + 1] : 0u;
    const uint32_t l1 = (mask[j] << 1) | (prev >> 31);  // bit i holds mask[i-1]
    const uint32_t l2 = (mask[j] << 2) | (prev >> 30);
    const uint32_t r1 = (mask[j] >> 1) | (next << 31);  // bit i holds mask[i+1]
    const uint32_t r2 = (mask[j] >> 2) | (next << 30);
    const uint32_t zero = ~mask[j];
    const uint32_t single = zero & l1 & r1;
    const uint32_t pair_first = zero & l1 & ~r1 & r2;
    const uint32_t pair_second = zero & ~l1 & l2 & r1;
    out[j] = (mask[j] | single | pair_first | pair_second) & read_bits[j];
  }
}

// Shift a bit-vector right by one bit (one base), carrying between words.
template <int WW>
GM_HD void shift_right1(uint32_t* v) {
GM_UNROLL
  for (int j = 0; j < WW; ++j) v[j] = (v[j] >> 1) | ((j + 1 < WW ? v[j + 1] : 0u) << 31);
}

// Windowed count: each maximal run of L ones costs ceil(L/3) edits. Returns the
// count, or e+1 as soon as it exceeds e.
template <int WW>
GM_HD int count_edits(const uint32_t* acc, int e) {
  int count = 0, run = 0;
  bool in_run = false;
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    const uint32_t x = acc[j];
    int bit = 0;
    while (bit < 32) {
      const uint32_t rest = x >> bit;
      if (!in_run) {
        if (rest == 0) break;
        bit += ctz32(rest);
        in_run = true;
        run = 0;
        continue;
      }
      const uint32_t inv = ~rest;
      int ones = inv ? ctz32(inv) : 32;
      if (ones > 32 - bit) ones = 32 - bit;
      run += ones;
      bit += ones;
      if (bit < 32) {
        count += (run + 2) / 3;
        in_run = false;
        if (count > e) return e + 1;
      }
    }
  }
  if (in_run) count += (run + 2) / 3;
  return count > e ? e + 1 : count;
}

// Edit estimate for one pair, capped at e+1. WW = 32-bit words held per bit-vector;
// needs 32*WW >= m + 2e. Read planes qh/ql hold ceil(m/32) words.
template <int WW>
GM_HD uint8_t gatekeeper_pair(const FilterReference& ref, const uint32_t* qh_in, const uint32_t* ql_in, int m,
                              int64_t pos, int32_t contig, int e) {
  const int64_t contig_lo = ref.contig_begin[contig];
  const int64_t contig_hi = ref.contig_end[contig];
  const int64_t win_begin = pos - e;
  const int n = m + 2 * e;  // window length in bases
  // N in the reference window (inside the contig) passes unfiltered.
  const int64_t nb = win_begin > contig_lo ? win_begin : contig_lo;
  const int64_t ne = win_begin + n < contig_hi ? win_begin + n : contig_hi;
  if (nb < ne && overlaps_n(ref, nb, ne)) return kFilterUnfiltered;

  const int w = (m + 31) / 32;
  uint32_t qh[WW], ql[WW], rh[WW], rl[WW], valid[WW], acc[WW], mask[WW], amended[WW], read_bits[WW];
  const bool all_valid = win_begin >= contig_lo && win_begin + n <= contig_hi;
GM_UNROLL
  for (int j = 0; j < WW; ++j) {
    qh[j] = j < w ? qh_in[j] : 0u;
    ql[j] = j < w ? ql_in[j] : 0u;
    rh[j] = load_bits32(ref.hi, ref.words, win_begin + 32 * j);
    rl[j] = load_bits32(ref.lo, ref.words, win_begin + 32 * j);
    valid[j] = all_valid ? 0xffffffffu : range_mask(j, contig_lo - win_begin, contig_hi - win_begin);
    read_bits[j] = range_mask(j, 0, m);
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
GM_HD int window_words(int m, int e) { return (m + 2 * e + 31) / 32; }

// Dispatch to the smallest instantiation that holds the window.
template <int WW = 1>
GM_HD uint8_t gatekeeper_pair_any(const FilterReference& ref, const uint32_t* qh, const uint32_t* ql, int m,
                                  int64_t pos, int32_t contig, int e) {
  if constexpr (WW >= (kMaxReadLen + 2 * kMaxEdits + 31) / 32) {
    return gatekeeper_pair<WW>(ref, qh, ql, m, pos, contig, e);
  } else {
    if (window_words(m, e) <= WW) return gatekeeper_pair<WW>(ref, qh, ql, m, pos, contig, e);
    return gatekeeper_pair_any<WW + 1>(ref, qh, ql, m, pos, contig, e);
  }
}

// The contig the filter compares a read with: the one holding its middle base. Sound
// whatever contig the mapper seeded: where the two differ, at least m/2 read bases lie
// past the mapper's contig end; on any diagonal of the band at least m/2 - e of them
// stay outside and can only be insertions, so with 4e < m verification rejects the pair
// anyway. With 4e >= m a window that crosses a contig end passes unfiltered.
GM_HD int32_t filter_contig(const FilterReference& ref, int64_t diag, int m) {
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
GM_HD bool candidate_pair(const FilterReference& ref, const int32_t* len, const uint8_t* has_n, int stride,
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

GM_HD uint8_t gatekeeper_candidate(const FilterReference& ref, const uint32_t* read_hi, const uint32_t* read_lo,
                                   const int32_t* len, const uint8_t* has_n, int stride, uint32_t read_strand,
                                   uint32_t diagonal, int e) {
  int m = 0;
  int32_t contig = 0;
  size_t off = 0;
  if (!candidate_pair(ref, len, has_n, stride, read_strand, diagonal, e, m, contig, off)) return kFilterUnfiltered;
  return gatekeeper_pair_any<1>(ref, read_hi + off, read_lo + off, m, diagonal, contig, e);
}

}  // namespace gatemap::gpu::detail
