// CPU pair-HMM: the double-precision oracle and the float twin of the GPU engine.
#include <omp.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "caller/pairhmm/pairhmm.hpp"
#include "caller/pairhmm/pairhmm_core.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"

namespace gatemap::caller::pairhmm {

namespace detail {
const double* ph2pr_table() {
  static const std::vector<double> table = [] {
    std::vector<double> t(256);
    for (int q = 0; q < 256; ++q) t[q] = std::pow(10.0, -q / 10.0);
    return t;
  }();
  return table.data();
}
}  // namespace detail

namespace {

using detail::base_code;
using detail::kCodeN;
using detail::RowParams;

RowParams<double> params_at(const PairHmmBatch& b, int64_t at, bool tristate) {
  return detail::row_params<double>(detail::ph2pr_table(), b.base_q[at], b.ins_q[at], b.del_q[at], b.gcp_q[at],
                                    base_code(b.read_bases[at]) == kCodeN, tristate);
}

}  // namespace

double pairhmm_reference_pair(const PairHmmBatch& b, int32_t read, int32_t hap, const PairHmmOptions& opt) {
  const int R = b.read_len[read], H = b.hap_len[hap];
  const char* rs = b.read_bases.data() + b.read_begin[read];
  const char* hs = b.hap_bases.data() + b.hap_begin[hap];
  const double K = detail::Scale<double>::value;
  std::vector<double> pm(H + 1, 0.0), px(H + 1, 0.0), py(H + 1, K / H);  // row 0
  std::vector<double> cm(H + 1), cx(H + 1), cy(H + 1);
  for (int i = 1; i <= R; ++i) {
    const RowParams<double> p = params_at(b, b.read_begin[read] + i - 1, opt.tristate);
    const uint8_t rb = base_code(rs[i - 1]);
    cm[0] = cx[0] = cy[0] = 0.0;
    for (int j = 1; j <= H; ++j) {
      const uint8_t hb = base_code(hs[j - 1]);
      const double prior = (rb == hb || rb == kCodeN || hb == kCodeN) ? p.p_match : p.p_mismatch;
      cm[j] = prior * (p.mm * pm[j - 1] + p.gm * (px[j - 1] + py[j - 1]));
      cx[j] = p.mx * pm[j] + p.g * px[j];
      cy[j] = p.my * cm[j - 1] + p.g * cy[j - 1];
    }
    std::swap(pm, cm);
    std::swap(px, cx);
    std::swap(py, cy);
  }
  double sum = 0;
  for (int j = 1; j <= H; ++j) sum += pm[j] + px[j];
  return std::log10(sum) - detail::Scale<double>::log10;
}

void pairhmm_reference(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik) {
  const auto pairs = batch.pairs();
  log10_lik.assign(pairs.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t k = 0; k < pairs.size(); ++k) {
    log10_lik[k] = pairhmm_reference_pair(batch, pairs[k].first, pairs[k].second, opt);
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GM_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GM_AVX2_CLONES
#endif

namespace {

// Rows of the float recurrence, reused across the pairs a thread computes.
struct FloatRows {
  std::vector<float> pm, px, py, cm, cx, cy, prior;
  std::vector<uint8_t> hap;
  void resize(int H) {
    for (auto* v : {&pm, &px, &py, &cm, &cx, &cy, &prior}) v->resize(H + 1);
    hap.resize(H + 1);
  }
};

// Scales the row (M, X, Y) so that its largest value is 2^kRescaleTarget; returns the
// power of two, or INT_MIN when the row has already lost precision (double pass).
int rescale_row(float* m, float* x, float* y, int H) {
  float top = 0.f;
  for (int j = 0; j <= H; ++j) top = std::max(top, std::max(m[j], std::max(x[j], y[j])));
  const int shift = detail::rescale_shift(top);
  if (shift == INT_MIN) return INT_MIN;
  const float factor = std::ldexp(1.0f, shift);
  for (int j = 0; j <= H; ++j) m[j] *= factor, x[j] *= factor, y[j] *= factor;
  return shift;
}

struct FloatSum {
  double sum;  // scaled sum of the last row (NaN: the double pass)
  int shift;   // powers of two the rows were scaled by
};

// The float pass. M and X of a row depend only on the row above, so they are one
// vectorisable loop; Y runs along the row afterwards. Every detail::kRescaleRows rows
// the row is rescaled, so that long reads stay within float's range. GCC also builds an
// AVX2 copy (8 floats a step instead of 4), picked at load time where the CPU has it:
// the same operations in the same order (no FMA), so the same results.
GM_AVX2_CLONES
FloatSum forward_float(const PairHmmBatch& b, int32_t read, int32_t hap, bool tristate, FloatRows& w) {
  const int R = b.read_len[read], H = b.hap_len[hap];
  w.resize(H);
  const char* hs = b.hap_bases.data() + b.hap_begin[hap];
  for (int j = 1; j <= H; ++j) w.hap[j] = base_code(hs[j - 1]);
  const float init_y = static_cast<float>(detail::Scale<float>::value) / static_cast<float>(H);
  std::fill(w.pm.begin(), w.pm.end(), 0.f);
  std::fill(w.px.begin(), w.px.end(), 0.f);
  std::fill(w.py.begin(), w.py.end(), init_y);
  float* __restrict pm = w.pm.data();
  float* __restrict px = w.px.data();
  float* __restrict py = w.py.data();
  float* __restrict cm = w.cm.data();
  float* __restrict cx = w.cx.data();
  float* __restrict cy = w.cy.data();
  float* __restrict prior = w.prior.data();
  const uint8_t* __restrict hc = w.hap.data();
  int shift = 0;
  for (int i = 1; i <= R; ++i) {
    const int64_t at = b.read_begin[read] + i - 1;
    const RowParams<float> p = detail::row_params<float>(detail::ph2pr_table(), b.base_q[at], b.ins_q[at],
                                                         b.del_q[at], b.gcp_q[at],
                                                         base_code(b.read_bases[at]) == kCodeN, tristate);
    const uint8_t rb = base_code(b.read_bases[at]);
    cm[0] = cx[0] = cy[0] = 0.f;  // column 0 (the buffers rotate; py held row 0's K/H)
    for (int j = 1; j <= H; ++j) prior[j] = (hc[j] == rb || hc[j] == kCodeN) ? p.p_match : p.p_mismatch;
    for (int j = 1; j <= H; ++j) {
      cm[j] = prior[j] * (p.mm * pm[j - 1] + p.gm * (px[j - 1] + py[j - 1]));
      cx[j] = p.mx * pm[j] + p.g * px[j];
    }
    // Y[j] = my M[j-1] + g Y[j-1], four columns at a time: the chain through Y is one
    // multiply-add per four cells (powers of g), the rest runs ahead of it.
    const float g1 = p.g, g2 = g1 * g1, g3 = g2 * g1, g4 = g2 * g2;
    float y = 0.f;
    int j = 1;
    for (; j + 3 <= H; j += 4) {
      const float s0 = p.my * cm[j - 1];
      const float s1 = g1 * s0 + p.my * cm[j];
      const float s2 = g1 * s1 + p.my * cm[j + 1];
      const float s3 = g1 * s2 + p.my * cm[j + 2];
      cy[j] = g1 * y + s0;
      cy[j + 1] = g2 * y + s1;
      cy[j + 2] = g3 * y + s2;
      y = g4 * y + s3;
      cy[j + 3] = y;
    }
    for (; j <= H; ++j) {
      y = p.my * cm[j - 1] + g1 * y;
      cy[j] = y;
    }
    std::swap(pm, cm);
    std::swap(px, cx);
    std::swap(py, cy);
    if (i % detail::kRescaleRows == 0 && i < R) {
      const int s = rescale_row(pm, px, py, H);
      if (s == INT_MIN) return {std::nan(""), 0};
      shift += s;
    }
  }
  double sum = 0;  // in double: thousands of terms would cost float ~1e-4 of the result
  for (int j = 1; j <= H; ++j) sum += static_cast<double>(pm[j]) + static_cast<double>(px[j]);
  return {sum, shift};
}

// Flush denormals to zero on this thread (as GATK/GKL do): cells far from any good
// alignment decay below float's normal range, and denormal arithmetic is ~100x slower
// on x86. What is flushed is below 1e-38 against sums of at least 1e-28.
class FlushDenormals {
 public:
  FlushDenormals() {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040);  // FTZ | DAZ
#endif
  }
  ~FlushDenormals() { pause(); }
  void pause() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#endif
  }
  void resume() {
#if defined(__SSE__)
    _mm_setcsr(saved_ | 0x8040);
#endif
  }

 private:
  unsigned saved_ = 0;
};

}  // namespace

void pairhmm_cpu(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
                 PairHmmStats* stats) {
  const log::Stopwatch t0;
  const auto pairs = batch.pairs();
  log10_lik.assign(pairs.size(), 0.0);
  int64_t n_double = 0;
  ParallelErrors errors;
#pragma omp parallel reduction(+ : n_double)
  {
    FloatRows rows;
    FlushDenormals ftz;
#pragma omp for schedule(dynamic, 8)
    for (size_t k = 0; k < pairs.size(); ++k) {
      errors.run([&] {
        const FloatSum f = forward_float(batch, pairs[k].first, pairs[k].second, opt.tristate, rows);
        const detail::FloatOutcome o = detail::classify_float_sum(f.sum, f.shift, kPairHmmUnderflow);
        if (o == detail::FloatOutcome::redo) {
          ftz.pause();  // the double pass keeps denormals: it serves pairs near double's range too
          log10_lik[k] = pairhmm_reference_pair(batch, pairs[k].first, pairs[k].second, opt);
          ftz.resume();
          ++n_double;
        } else {
          log10_lik[k] = o == detail::FloatOutcome::value ? detail::float_log10(f.sum, f.shift)
                                                          : -std::numeric_limits<double>::infinity();
        }
      });
    }
  }
  errors.rethrow();
  if (stats) {
    stats->pairs += static_cast<int64_t>(pairs.size());
    stats->cells += batch.cell_count();
    stats->double_pairs += n_double;
    stats->total_ms += t0.ms();
  }
}

}  // namespace gatemap::caller::pairhmm
