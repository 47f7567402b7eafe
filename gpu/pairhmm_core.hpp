#pragma once
// Per-row pair-HMM parameters, shared by the CPU twins and the CUDA kernels so that
// both round the same double values to the working precision. Internal: include only
// from pairhmm_cpu.cpp and pairhmm.cu (with its kernels, pairhmm_kernels.cuh). The
// model is described in pairhmm.hpp.
#include <cstdint>

#ifdef __CUDACC__
#define PH_HD __host__ __device__ __forceinline__
#else
#define PH_HD inline
#endif

namespace gatemap::gpu::detail {

constexpr uint8_t kCodeN = 4;  // base codes: A C G T = 0..3, anything else N

PH_HD uint8_t base_code(char c) {
  switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return kCodeN;
  }
}

// The scale K: 2^120 for float, 2^1020 for double (exact powers of two).
template <typename T>
struct Scale;
template <>
struct Scale<float> {
  static constexpr double value = 0x1p120;
  static constexpr double log10 = 120 * 0.30102999566398119521;
};
template <>
struct Scale<double> {
  static constexpr double value = 0x1p1020;
  static constexpr double log10 = 1020 * 0.30102999566398119521;
};

// Transitions and emission priors of one read position.
template <typename T>
struct RowParams {
  T mm, gm, mx, my, g;  // g = xx = yy (gap continuation)
  T p_match, p_mismatch;
};

// ph2pr: a 256-entry table of 10^(-q/10) in double (host or device copy).
template <typename T>
PH_HD RowParams<T> row_params(const double* ph2pr, uint8_t base_q, uint8_t ins_q, uint8_t del_q, uint8_t gcp_q,
                              bool read_is_n, bool tristate) {
  const double e = ph2pr[base_q], a = ph2pr[ins_q], b = ph2pr[del_q], g = ph2pr[gcp_q];
  const double mm = 1.0 - (a + b);
  RowParams<T> p;
  p.mm = static_cast<T>(mm > 0 ? mm : 0.0);  // gap-open qualities below Q3 would make it negative
  p.gm = static_cast<T>(1.0 - g);
  p.mx = static_cast<T>(a);
  p.my = static_cast<T>(b);
  p.g = static_cast<T>(g);
  p.p_match = static_cast<T>(1.0 - e);
  p.p_mismatch = read_is_n ? p.p_match : static_cast<T>(tristate ? e / 3.0 : e);
  return p;
}

}  // namespace gatemap::gpu::detail
