#pragma once
// Per-row pair-HMM parameters, shared by the CPU twins and the CUDA kernels so that
// both round the same double values to the working precision. Internal: include only
// from pairhmm_cpu.cpp and pairhmm.cu (with its kernels, pairhmm_kernels.cuh). The
// model is described in pairhmm.hpp.
#include <climits>
#include <cmath>
#include <cstdint>

#include "gpu/host_device.hpp"

namespace gatemap::caller::pairhmm::detail {

constexpr uint8_t kCodeN = 4;  // base codes: A C G T = 0..3, anything else N

GATEMAP_HD uint8_t base_code(char c) {
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
GATEMAP_HD RowParams<T> row_params(const double* ph2pr, uint8_t base_q, uint8_t ins_q, uint8_t del_q, uint8_t gcp_q,
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

// The float pass keeps its rows in range by scaling them by powers of two (by a band of
// rows on the GPU, every kRescaleRows rows in the CPU twin): a row whose largest value
// is brought to 2^kRescaleTarget, unless it is already below 2^-kRescaleTarget, where
// precision is lost and the pair goes to the double pass.
constexpr int kRescaleTarget = 100;
constexpr float kRescaleFloor = 0x1p-100f;  // 2^-kRescaleTarget
// Rows between two rescalings: the CPU twin's step, and the tallest GPU band a read far
// longer than its haplotype may take (values fall by at most ~10^-32 over 32 rows at the
// usual Q10 gap continuation, well inside float's range above 2^-100).
constexpr int kRescaleRows = 32;

// The power of two that brings a row whose largest value is `top` to 2^kRescaleTarget,
// or INT_MIN when the row has lost precision.
GATEMAP_HD int rescale_shift(float top) {
  if (!(top >= kRescaleFloor)) return INT_MIN;
  const int shift = kRescaleTarget - ilogbf(top);
  return shift < 126 ? shift : 126;
}

// What a float pass's scaled last-row sum (and the powers of two its rows were scaled
// by) gives: the result, or the double pass below GATK's threshold (1e-28), or -inf
// where the likelihood lies below double's range, as the double computation (GATK's,
// and the oracle's) gives there; within 100 powers of two of that border the double
// pass decides.
enum class FloatOutcome { value, redo, minus_inf };
GATEMAP_HD FloatOutcome classify_float_sum(double sum, int shift, double underflow) {
  if (!(sum >= underflow && sum <= 1e300)) return FloatOutcome::redo;
  // The exponent the double pass's sum would have (scaled by 2^1020, smallest 2^-1074);
  // ilogb is exact to one unit, far inside the margins.
  const int in_double = ilogb(sum) - shift + (1020 - 120);  // Scale<double> over Scale<float>
  if (in_double >= -1000) return FloatOutcome::value;
  return in_double > -1100 ? FloatOutcome::redo : FloatOutcome::minus_inf;
}

// log10 of the likelihood from a float pass's scaled sum.
GATEMAP_HD double float_log10(double sum, int shift) {
  return log10(sum) - Scale<float>::log10 - shift * 0.30102999566398119521;
}

}  // namespace gatemap::caller::pairhmm::detail
