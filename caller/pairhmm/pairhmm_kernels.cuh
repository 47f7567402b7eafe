#pragma once
// The pair-HMM kernels (device code of pairhmm.cu; include only there).
//
// A band of G lanes x RPL rows computes G * RPL consecutive read rows of a pair as a
// wavefront: at step s lane l computes haplotype column j = s - l + 1 for its rows and
// hands lane l + 1 what its first row needs from the row above (two warp shuffles).
// Reads longer than a band take several bands, each reading the bottom row of the band
// above (in the float pass of the warp kernel, rescaled by a power of two in between).
// - pairhmm_kernel: a group of G lanes (4..32, part of a warp) computes its pair band
//   after band; many short pairs share a warp (inter-task), G = 32 is one warp per pair.
//   A band's bottom row waits for the next band in shared memory when it fits the
//   launch's allowance and in global memory otherwise (Branchini et al.'s "dynamic
//   memory swap").
// - pairhmm_block_kernel: the warps of a block compute one long pair together, band b
//   on warp b % kBlockWarps, all at once: each band reads the band above through a
//   ring buffer in shared memory a few columns behind it (progress flags per 16 steps),
//   so a long pair takes about one band's steps instead of one per band.
// Rows are padded at the top with copies of row 0, so row R is always the last lane's
// last row. Pairs whose float sum underflows are queued on the device and recomputed
// in double by the same kernels.
#include <cuda/atomic>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "caller/pairhmm/pairhmm.hpp"
#include "caller/pairhmm/pairhmm_core.hpp"
#include "gpu/warp_reduce.cuh"

namespace gatemap::caller::pairhmm {
namespace {

using detail::kCodeN;
using detail::RowParams;

__constant__ double c_ph2pr[256];

constexpr int kThreads = 128;  // threads per block
constexpr int kBlockWarps = kThreads / 32;
// The tall-lane shapes: 16 and 32 rows per lane, for reads with one gap continuation
// at every base (run_band, kUniformGap; the dispatcher checks the reads).
__host__ __device__ constexpr bool tall_lanes(int rpl) { return rpl >= 16; }
// Threads per block of the warp kernel: 64 for the tall-lane shapes, so that blocks
// whose band boundaries fill shared memory still fit several to an SM (16 rows: 5 of
// the 6 the registers allow, where blocks of 4 warps would fit 2).
__host__ __device__ constexpr int warp_kernel_threads(int rpl) { return tall_lanes(rpl) ? 64 : kThreads; }
// The float pass of a tall-lane shape (its double pass takes other shapes).
template <int RPL, typename T>
constexpr bool kTallFloat = sizeof(T) == sizeof(float) && tall_lanes(RPL);
constexpr int kRingCells = 128;  // columns a ring between two bands holds (a power of two)

// One chunk on the device: pointers into its input buffer.
struct DeviceChunk {
  const int4* tasks;  // (read, hap, out, unused), indices local to the chunk
  const uint32_t* read_begin;
  const int32_t* read_len;
  const uint32_t* hap_begin;
  const int32_t* hap_len;
  const uchar4* read_q;  // (base, ins, del, gcp) qualities per read base (double pass)
  const uint8_t* read_code;
  const float4* row_f;   // float pass: per read base (mm, gm, mx, my), (g, p_match, p_mismatch, code bits)
  const uint8_t* hap_code;
};

// The tasks of a launch: entries begin .. begin + count - 1 of the chunk's sorted tasks,
// or ids[0 .. *count_d) (the double pass's list, whose length only the device knows).
// A kernel does nothing unless their number lies in [run_min, run_max], so that the
// host can launch two kernels and let the number pick one.
struct TaskList {
  int begin = 0, count = 0;  // count: the tasks, or at most this many on the device list
  const int* ids = nullptr;
  const int* count_d = nullptr;
  int run_min = 0, run_max = INT_MAX;
  __device__ __forceinline__ int size() const { return count_d ? *count_d : count; }
  __device__ __forceinline__ int task(int64_t t) const { return ids ? ids[t] : begin + static_cast<int>(t); }
};

struct KernelOut {
  double* log10_lik;  // per chunk pair
  int* redo;          // float pass: tasks to recompute in double (this launch's part of the list)
  int* n_redo;        // this launch's count
};

// 16-byte vectors: how a lane loads the priors of its rows in one instruction.
template <typename T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int n = 4;
  static __device__ __forceinline__ float at(const float4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
  }
  static __device__ __forceinline__ float4 make(const float* a) { return make_float4(a[0], a[1], a[2], a[3]); }
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int n = 2;
  static __device__ __forceinline__ double at(const double2& v, int i) { return i == 0 ? v.x : v.y; }
  static __device__ __forceinline__ double2 make(const double* a) { return make_double2(a[0], a[1]); }
};

// One column of a band's boundary: what the next band's first row needs there, its X
// at the column and its diagonal term at the next column, moved in one access.
template <typename T>
struct BoundaryCell {
  std::conditional_t<sizeof(T) == sizeof(float), float2, double2> v;
  __device__ __forceinline__ void store(T x, T d) { v = {x, d}; }
  __device__ __forceinline__ void load(T& x, T& d) const {
    const auto w = v;
    x = w.x, d = w.y;
  }
};

template <typename T>
struct Boundary {  // where the bottom row of a band waits for the next band
  BoundaryCell<T>* global;  // nullptr: shared memory, after the prior tables
  int64_t slot;             // cells per group: max H + 1
};

// Haplotype codes A C G T N, and the code of the padding around each haplotype: its
// prior is 0, so cells left of column 1 and right of column H stay M = X = 0 without a
// bounds check per cell.
constexpr uint8_t kCodeOutside = 5;
constexpr int kCodes = 6;
constexpr uint8_t kCodePad = 6;  // a read row: a virtual row of the 16/32-row shapes (prior 1 at every column)
constexpr int kHapPad = 32;  // padding codes before each haplotype (>= a group's lanes)
// Reads from which the 16/32-row shapes scale their lanes (run_band). H200, benchmark
// sets: at 1024 x 1024 the float pass then finishes every pair (56 of 3,072 took the
// double pass before: +8%); at 512 x 512 it cost 4% per step and left 1 of 25 pairs to
// the double pass, whose latency is the same for 1 pair as for 25.
constexpr int kLaneScaleRows = 600;
// A pair whose last band scales its lanes (on haplotypes at most twice its length: see
// pairhmm_kernel). The dispatcher gives it shapes of one group per warp.
__host__ __device__ constexpr bool scales_lanes(int R, int H) { return R >= kLaneScaleRows && H <= 2 * R; }

// Blocks per SM the register budget aims at: 4 x 128 threads for 8 float rows per lane
// (faster than 3 blocks; H100 sweep, docs/BENCHMARKS.md), 6 for 4 float rows (80
// registers, no spills; 5 blocks cost 10% at 16 x 16 on an H200), 6 x 64 threads for
// 16 float rows (168 registers: 3 warps per scheduler), 4 x 64 for 32 (255), 2 x 128
// for 8 double rows (the double pass of long pairs, where few warps run).
template <int RPL, typename T>
constexpr int kMinBlocks = sizeof(T) == sizeof(float) ? (RPL <= 4 ? 6 : RPL <= 8 ? 4 : RPL <= 16 ? 6 : 4)
                                                    : (RPL <= 4 ? 4 : 2);

// Bytes of a warp's emission-prior tables: kCodes x rpl values per lane.
__host__ __device__ constexpr size_t prior_table_bytes(int rpl, size_t elem) {
  return size_t(kCodes) * rpl * 32 * elem;
}

// One lane's view of the pair its group computes.
template <typename T>
struct PairLane {
  int lane;          // within the group
  int R, H;
  int n_bands, pad;  // bands of the read; virtual rows above row 1
  T init_y;          // K / H
  const uint8_t* hap_padded;  // column j's code at [j - 1 + kHapPad], the index at most code_last
  unsigned code_last;
  uint32_t read0;  // the read's first base in the chunk
  bool scale_lanes = false;  // this band scales its lanes (run_band)
};

// Band b of a pair on this lane's group: rows b * G * RPL - pad + lane * RPL + (0..RPL-1).
// `steps` covers the widest haplotype of the warp; `from_boundary` / `to_boundary` say
// (uniformly across the warp) whether any group reads / writes a boundary row. Io moves
// boundary rows: begin_band, load(column), store(column), before_chunk / after_chunk
// (steps [s0, s1)). Leaves the band's last-row sum in `sum` (only the last band's
// counts).
//
// Per cell the recurrences take 6 operations on the 16- and 32-lane float shapes and 7
// elsewhere (GATK's form takes 8): a row keeps Yh = Y / my, so Yh = g * Yh(left) +
// M(left) is one FMA; in the float pass of the tall shapes a row keeps
// X' = gm(row below) * X, so the next row's diagonal term is
// mm * M + (X' + (gm my) * Yh), two FMAs, and X' of the row below is
// (gm' mx) * M + (gm' g / gm) * X' with gm' of the row two below (1 past the read).
// Without that fold (double, and 4- and 8-lane float shapes) the term is
// mm * M + gm * (X + my * Yh). A gap continuation of Q0 (gm = 0) cannot be folded: its
// NaN coefficient sends the pair to the double pass. A lane hands the next lane only
// what that lane's first row needs: its X at this column and its diagonal term at the
// next one (two shuffles), and band boundaries hold the same two values per column.
//
// Lane scaling (`scale_lanes`, the 16/32-row shapes in a group's last band): a single
// band of 512 or 1024 rows cannot be rescaled between bands, and long reads there fall
// below float's range. So each lane keeps its own power-of-two scale (lane_exp: values
// held = true values x 2^lane_exp), brings its largest value back to 2^56 whenever it
// leaves [2^32, 2^72] (checked every kChunk steps; values grow at most ~3x per column, so
// they stay far below float's limit in between), and hands its scale down with its
// values, which the lane below converts to its own. The last lane's sum is kept in its
// scale, returned in `lane_shift` like a band rescale's shift. Every scale is a power of
// two: no rounding, and any overflow (inf) still sends the pair to the double pass.
template <int G, int RPL, typename T, typename Io>
__device__ __forceinline__ void run_band(const DeviceChunk& c, bool tristate, typename Vec<T>::type* priors,
                                         const PairLane<T>& p, int b, int steps, bool from_boundary,
                                         bool to_boundary, bool scale_lanes, Io& io, double& sum,
                                         int& lane_shift) {
  using V = typename Vec<T>::type;
  constexpr int kVecs = RPL / Vec<T>::n;  // vector loads of priors per step
  constexpr int kBand = G * RPL;
  constexpr int kChunk = 16;  // steps whose last-row terms are summed in T before the double sum
  // Two steps per loop iteration for 8 float rows of a warp: the values handed from one
  // step to the next then need no copies (H200: +1-4% for 32 lanes, -2-4% for 4..16).
  constexpr int kUnroll = sizeof(T) == sizeof(float) && RPL == 8 && G == 32 ? 2 : 1;
  const int lane = p.lane, H = p.H;
  const bool band_on = b < p.n_bands;
  const bool store_band = band_on && b < p.n_bands - 1;
  // Shapes of 16 and 32 float rows per lane take only reads whose gap continuation is
  // the same at every base (GATK's fixed GCP; the dispatcher checks): g and X's
  // coefficient in the fold are then one value for all rows (gu), which keeps 16 rows
  // within 168 registers (12 warps per SM) and 32 within 255 (8 warps). Their virtual
  // rows above the read cannot be copies of row 0 (its constant Yh needs g = 1): each
  // holds prior 1, X = 0 and Yh = T0 / (1 - g), a fixed point where M = T0 and the
  // diagonal term handed down is T0 = gm K / H, what row 1 needs from row 0. Rows past
  // the read take the read's gm, so the last row's X' is gm X.
  constexpr bool kUniformGap = kTallFloat<RPL, T>;
  // The fold measured +5% on 16 and 32 lanes and -5% on 4 (H100), so only there.
  constexpr bool kFold = sizeof(T) == sizeof(float) && (G >= 16 || kUniformGap);
  constexpr int kParamRows = kFold && !kUniformGap ? RPL + 2 : RPL + 1;  // this lane's rows and the ones below
  const int first = b * kBand + lane * RPL - p.pad;      // read position of this lane's row 0
  T gu = T(0), gmu = T(1);  // the read's g and gm (uniform shapes)
  if constexpr (kUniformGap) {
    gmu = c.row_f[2 * p.read0].y;
    gu = c.row_f[2 * p.read0 + 1].x;
  }
  const T top = gmu * p.init_y;  // T0 (uniform shapes)
  // This lane's prior table: entry (code, k) at [(code * kVecs + k) * 32], so that the
  // lanes of a warp load consecutive vectors whatever their codes (no bank conflicts).
  // The 16/32-row shapes write it before loading the transitions, four rows at a time, so
  // that the two are never live at once (they would spill); the others after, from the
  // rows already loaded (the faster code there).
  if constexpr (kUniformGap) {
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      T match[Vec<T>::n], mismatch[Vec<T>::n];
      uint8_t rb[Vec<T>::n];
#pragma unroll
      for (int i = 0; i < Vec<T>::n; ++i) {
        const int row = first + v * Vec<T>::n + i;
        const float4 e = c.row_f[2 * (p.read0 + min(max(row, 0), max(p.R - 1, 0))) + 1];
        match[i] = e.y, mismatch[i] = e.z;
        rb[i] = !band_on || row < 0 || row >= p.R ? (band_on && row < 0 ? kCodePad : kCodeOutside)
                                                   : static_cast<uint8_t>(__float_as_int(e.w));
      }
#pragma unroll
      for (int k = 0; k < kCodes; ++k) {
        T a[Vec<T>::n];
#pragma unroll
        for (int i = 0; i < Vec<T>::n; ++i) {
          a[i] = rb[i] == kCodePad                                   ? T(1)
                 : rb[i] == kCodeOutside || k == kCodeOutside         ? T(0)
                 : (rb[i] == k || rb[i] == kCodeN || k == kCodeN) ? match[i]
                                                                      : mismatch[i];
        }
        priors[(k * kVecs + v) * 32] = Vec<T>::make(a);
      }
    }
  }
  // The transitions of this lane's rows and of the rows below. A virtual row (above the
  // read in band 0) reproduces row 0: prior 0 (M = 0), X = 0, and Yh = K / H with g = 1
  // and my = 1 (16/32-row shapes: see kUniformGap). Past the read (and in bands past
  // the group's last) gm = 1 (16/32 rows: the read's gm), the rest 0.
  RowParams<T> rp[kParamRows];
  uint8_t code[RPL];
#pragma unroll
  for (int q = 0; q < kParamRows; ++q) {
    const int row = first + q;
    // Loaded whatever the row (clamped into the read), so that every row's loads issue
    // at once; rows outside the read then take their fixed values.
    const int at = p.read0 + min(max(row, 0), max(p.R - 1, 0));
    RowParams<T> r;
    uint8_t rb;
    if constexpr (sizeof(T) == sizeof(float)) {
      // Precomputed on the host once per read (the same rounding as the CPU twin).
      const float4 a = c.row_f[2 * at], e = c.row_f[2 * at + 1];
      r = RowParams<T>{a.x, a.y, a.z, a.w, e.x, e.y, e.z};
      rb = static_cast<uint8_t>(__float_as_int(e.w));
    } else {
      const uchar4 qv = c.read_q[at];
      rb = c.read_code[at];
      r = detail::row_params<T>(c_ph2pr, qv.x, qv.y, qv.z, qv.w, rb == kCodeN, tristate);
    }
    if (!band_on || row < 0 || row >= p.R) {
      const T v = band_on && row < 0 ? T(1) : T(0);
      r = kUniformGap ? RowParams<T>{T(0), gmu, T(0), T(0), gu, v, v} : RowParams<T>{T(0), T(1), T(0), v, v, T(0), T(0)};
      rb = kCodeOutside;
    }
    rp[q] = r;
    if (q < RPL) code[q] = rb;
  }
  // Per row r: g and c (Yh's coefficient in the diagonal term of the row below); and the
  // row below's coefficients: nm (mm), na and nb (X's of M and X above), ngm (unfolded gm).
  T g[RPL], cy[RPL], nm[RPL], na[RPL], nb[RPL], ngm[RPL];
  // Per row across steps: Tt, the diagonal term of M at the current column, and Yh at
  // the current column. M and X of a column live only within its step.
  T Tt[RPL], Yh[RPL];
#pragma unroll
  for (int r = 0; r < RPL; ++r) {
    const RowParams<T>& own = rp[r];
    const RowParams<T>& below = rp[r + 1];
    g[r] = own.g;
    nm[r] = below.mm;
    const bool pad = band_on && first + r < 0;
    if constexpr (kUniformGap) {
      g[r] = gu, nb[r] = gu, ngm[r] = T(1);
      nm[r] = pad ? T(0) : below.mm;
      na[r] = pad ? T(0) : gmu * below.mx;
      cy[r] = pad ? T(1) - gu : gmu * own.my;
    } else if constexpr (kFold) {
      const T gm2 = rp[r + 2].gm;  // gm of the row two below
      cy[r] = below.gm * own.my;
      na[r] = gm2 * below.mx;
      nb[r] = below.gm > T(0) ? __fdividef(gm2 * below.g, below.gm) : __int_as_float(0x7fffffff);  // NaN
      ngm[r] = T(1);
    } else {
      cy[r] = own.my;
      na[r] = below.mx;
      nb[r] = below.g;
      ngm[r] = below.gm;
    }
    Yh[r] = pad ? (kUniformGap ? top / (T(1) - gu) : p.init_y) : T(0);
  }
  if constexpr (!kUniformGap) {  // the prior table (above)
#pragma unroll
    for (int k = 0; k < kCodes; ++k) {
#pragma unroll
      for (int v = 0; v < kVecs; ++v) {
        T a[Vec<T>::n];
#pragma unroll
        for (int i = 0; i < Vec<T>::n; ++i) {
          const int r = v * Vec<T>::n + i;
          const uint8_t rb = code[r];
          a[i] = rb == kCodeOutside || k == kCodeOutside ? T(0)
                 : (rb == k || rb == kCodeN || k == kCodeN) ? rp[r].p_match
                                                            : rp[r].p_mismatch;
        }
        priors[(k * kVecs + v) * 32] = Vec<T>::make(a);
      }
    }
  }
  // The row below's diagonal term from a row's M, X and Yh at one column.
  auto diagonal = [&](int r, T m_, T x_, T yh_) {
    if constexpr (kFold) {
      return nm[r] * m_ + (cy[r] * yh_ + x_);
    } else {
      return nm[r] * m_ + ngm[r] * (cy[r] * yh_ + x_);
    }
  };
  if (band_on) sum = 0;  // only the group's last band leaves its sum
  // Above lane 0's first row: row 0 in band 0 (M = X = 0, Y = K/H at every column),
  // the previous band's bottom row after it (column 0 is zero, and so is everything
  // past column H).
  io.begin_band(lane, b);
  const T top_d = !(b == 0 && band_on) ? T(0)
                  : kUniformGap      ? top
                  : first == 0       ? rp[0].gm * p.init_y
                                     : T(0);
  const T last_x_scale = kUniformGap ? T(1) / gmu : T(1);  // X' = gm X in the last row there
  // Before the first step every row holds M = X = 0 and its initial Yh.
#pragma unroll
  for (int r = 0; r + 1 < RPL; ++r) Tt[r + 1] = diagonal(r, T(0), T(0), Yh[r]);
  // Received from the lane above: X of row 0 at the current column, and row 0's
  // diagonal term at the next column.
  T x_in = T(0);
  T d_next = __shfl_up_sync(0xffffffffu, diagonal(RPL - 1, T(0), T(0), Yh[RPL - 1]), 1, G);
  if (lane == 0) d_next = top_d;
  Tt[0] = d_next;  // column 1 of lane 0 sees column 0 above
  io.before_chunk(0, min(kChunk, steps));
  if (lane == 0 && b > 0 && band_on) io.load(1, x_in, d_next);  // column 1
  // Column j's code at hap_padded[s + 1 - lane + kHapPad - 1] for step s (clamped).
  const unsigned code_off = static_cast<unsigned>(kHapPad - lane);
  auto code_at_step = [&](int s) -> int { return p.hap_padded[min(static_cast<unsigned>(s) + code_off, p.code_last)]; };
  // The priors of code k start k * kCodeStride bytes into this lane's table.
  constexpr int kCodeStride = kVecs * 32 * static_cast<int>(sizeof(V));
  const unsigned char* const prior_base = reinterpret_cast<const unsigned char*>(priors);
  // One step: this lane's RPL rows at column j. Every carried value is updated in
  // place, so a rolled loop needs no register copies. Variants: whether lane 0 reads a
  // boundary and whether any group of the warp writes one, so that single-band pairs
  // skip both.
  // Loads run ahead of their use, as the step's chain starts with the priors: the
  // haplotype code two steps ahead, and on 4 and 8 lanes the first prior vector one step
  // ahead (H200: +3% at 32, 64 and 256; on 16 lanes either costs 2-3%, so there the code
  // is loaded one step ahead and the priors in their step).
  constexpr bool kPrefetch = G <= 8;
  constexpr int kCodeAhead = G == 16 ? 1 : 2;
  auto priors_of = [&](int code) { return reinterpret_cast<const V*>(prior_base + code * kCodeStride); };
  // 2^e for e in [-252, 252] as two float factors (exact powers of two).
  auto pow2_pair = [](int e, T& f1, T& f2) {
    e = max(-252, min(252, e));
    const int h = e / 2;
    f1 = __int_as_float((127 + h) << 23), f2 = __int_as_float((127 + e - h) << 23);
  };
  int lane_exp = 0, exp_in = 0;  // this lane's scale, and that of x_in / d_next (lane scaling)
  // What the lane receives (x_in, and Tt[0], the diagonal term handed down) counts in its
  // largest value, and every value grows at most a few-fold per column, so nothing
  // reaches float's limit between two checks. A lane without values yet takes the scale
  // of the lane above plus 2^16, so that values arriving there are not born below
  // float's range. A lane's scale stays at most 2^24 above that of the lane above: what
  // lost precision there (below 2^-126 in its scale) cannot grow into a value that counts
  // here (without that bound, 5 of 10,000 random pairs of up to 4,096 bases came out
  // wrong by up to 12%).
  auto rescale_lane = [&] {
    if (!band_on || !p.scale_lanes) return;  // a group past its last band keeps its result
    T f1, f2;
    pow2_pair(lane_exp - exp_in, f1, f2);
    T top = x_in * f1 * f2;
#pragma unroll
    for (int r = 0; r < RPL; ++r) top = fmaxf(top, fmaxf(Tt[r], Yh[r]));
    int e = 0;
    if (top == T(0)) {
      e = exp_in + 16 - lane_exp;
    } else if (top > 0x1p72f || top < 0x1p32f) {
      e = 56 - ilogbf(top);
    }
    e = min(e, exp_in + 24 - lane_exp);
    if (e != 0) {
      pow2_pair(e, f1, f2);
#pragma unroll
      for (int r = 0; r < RPL; ++r) Tt[r] = Tt[r] * f1 * f2, Yh[r] = Yh[r] * f1 * f2;
      sum = ldexp(sum, e);
      lane_exp += e;
    }
  };
  auto run_steps = [&](auto reads, auto writes, auto scales) {
    int hap_code = code_at_step(0), code_next = code_at_step(1);
    V first_next = priors_of(hap_code)[0];
    for (int s0 = 0; s0 < steps; s0 += kChunk) {
      const int s1 = min(s0 + kChunk, steps);
      io.before_chunk(s0, s1);
      if constexpr (decltype(scales)::value) rescale_lane();
      T part = 0;
#pragma unroll kUnroll
      for (int s = s0; s < s1; ++s) {
        const int j = s - lane + 1;  // this lane's column
        const int code_far = code_at_step(s + kCodeAhead);
        const V* const pc = priors_of(hap_code);
        V pv[kVecs];
#pragma unroll
        for (int v = 0; v < kVecs; ++v) pv[v] = pc[v * 32];
        if constexpr (kPrefetch) pv[0] = first_next, first_next = priors_of(code_next)[0];
        T m[RPL];
#pragma unroll
        for (int r = 0; r < RPL; ++r) m[r] = Vec<T>::at(pv[r / Vec<T>::n], r % Vec<T>::n) * Tt[r];
        T x = x_in, x_out = T(0), d_out = T(0);
        T in_f1 = T(1), in_f2 = T(1);  // converts x_in and d_next to this lane's scale
        if constexpr (decltype(scales)::value) {
          pow2_pair(lane_exp - exp_in, in_f1, in_f2);
          x = x * in_f1 * in_f2;
        }
#pragma unroll
        for (int r = 0; r < RPL; ++r) {
          const T d = diagonal(r, m[r], x, Yh[r]);  // the row below, next column
          const T xb = na[r] * m[r] + nb[r] * x;    // X of the row below, this column
          Yh[r] = g[r] * Yh[r] + m[r];              // the next column
          if (r + 1 < RPL) {
            Tt[r + 1] = d;
            x = xb;
          } else {
            part += m[r] + (kUniformGap ? x * last_x_scale : x);  // zero outside columns 1..H
            x_out = xb, d_out = d;
          }
        }
        Tt[0] = decltype(scales)::value ? d_next * in_f1 * in_f2 : d_next;
        if constexpr (decltype(writes)::value) {
          if (store_band && lane == G - 1 && static_cast<unsigned>(j - 1) < static_cast<unsigned>(H)) {
            io.store(j, x_out, d_out);
          }
        }
        x_in = __shfl_up_sync(0xffffffffu, x_out, 1, G);
        d_next = __shfl_up_sync(0xffffffffu, d_out, 1, G);
        if constexpr (decltype(scales)::value) {
          exp_in = __shfl_up_sync(0xffffffffu, lane_exp, 1, G);
          if (lane == 0) exp_in = 0;  // the top row or the band above: unscaled
        }
        if constexpr (decltype(reads)::value) {
          // Every lane loads (lane 0 its next column, the others column 0): no divergence.
          const int jn = j + 1;
          const int at = lane == 0 && band_on && static_cast<unsigned>(jn - 1) < static_cast<unsigned>(H) ? jn : 0;
          T bx, bd;
          io.load(at, bx, bd);
          if (lane == 0) x_in = bx, d_next = bd;
        } else {
          if (lane == 0) x_in = T(0), d_next = top_d;
        }
        if constexpr (kCodeAhead == 2) {
          hap_code = code_next, code_next = code_far;
        } else {
          hap_code = code_far;
        }
      }
      sum += static_cast<double>(part);
      io.after_chunk(s0, s1);
    }
  };
  constexpr std::false_type no;
  constexpr std::true_type yes;
  if constexpr (kUniformGap) {
    if (scale_lanes) {  // the group's last band: it writes no boundary
      if (from_boundary) {
        run_steps(yes, no, yes);
      } else {
        run_steps(no, no, yes);
      }
      lane_shift = lane_exp;
      __syncwarp();
      return;
    }
  }
  if (!from_boundary) {
    if (to_boundary) {
      run_steps(no, yes, no);
    } else {
      run_steps(no, no, no);
    }
  } else if (to_boundary) {
    run_steps(yes, yes, no);
  } else {
    run_steps(yes, no, no);
  }
  __syncwarp();  // the boundary written by the last lane is read by lane 0 next band
}

// The warp kernel's boundary: one row per group, read and written in place (lane 0
// reads column j before the last lane, whose value depends on it, writes it).
template <typename T>
struct SlotIo {
  BoundaryCell<T>* slot;
  __device__ __forceinline__ void begin_band(int lane, int b) {
    if (b > 0 && lane == 0) slot[0].store(T(0), T(0));  // column 0
  }
  __device__ __forceinline__ void load(int at, T& x, T& d) const { slot[at].load(x, d); }
  __device__ __forceinline__ void store(int j, T x, T d) { slot[j].store(x, d); }
  __device__ __forceinline__ void before_chunk(int, int) {}
  __device__ __forceinline__ void after_chunk(int, int) {}
};

// Writes a pair's result, or queues it for the double pass (detail::classify_float_sum
// for the float pass: `shift`, the powers of two its boundary rows were scaled by).
template <typename T>
__device__ __forceinline__ void finish_pair(double sum, int shift, int task_index, int out_index,
                                            const KernelOut& out) {
  if constexpr (sizeof(T) == sizeof(float)) {
    const detail::FloatOutcome o = detail::classify_float_sum(sum, shift, kPairHmmUnderflow);
    if (o == detail::FloatOutcome::redo) {
      out.redo[atomicAdd(out.n_redo, 1)] = task_index;
    } else {
      out.log10_lik[out_index] = o == detail::FloatOutcome::value ? detail::float_log10(sum, shift) : -INFINITY;
    }
  } else {
    out.log10_lik[out_index] = log10(sum) - detail::Scale<T>::log10;
  }
}

// The float pass keeps each band's boundary row in range: after the band, the row is
// scaled by a power of two that brings its largest value to 2^kRescaleTarget, so a long
// read underflows only if one band's values fall by more than float's range (bands of
// at most kRescaleRows rows: the dispatcher sends long reads there). A row whose largest
// value is already below 2^-kRescaleTarget has lost precision: NaN sends the pair to the
// double pass. Returns the shift; every lane of the group takes part.
template <int G>
__device__ __forceinline__ int rescale_boundary(BoundaryCell<float>* slot, int H, bool on, int lane) {
  float top = 0;
  if (on) {
    for (int j = 1 + lane; j <= H; j += G) {
      float x, d;
      slot[j].load(x, d);
      top = fmaxf(top, fmaxf(x, d));
    }
  }
#pragma unroll
  for (int o = G / 2; o > 0; o /= 2) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o, G));
  const int s = detail::rescale_shift(top);
  const int shift = on && s != INT_MIN ? s : 0;
  const float factor = s != INT_MIN ? ldexpf(1.0f, shift) : __int_as_float(0x7fffffff);
  if (on && factor != 1.0f) {
    for (int j = 1 + lane; j <= H; j += G) {
      float x, d;
      slot[j].load(x, d);
      slot[j].store(x * factor, d * factor);
    }
  }
  __syncwarp();  // every lane of the warp, whatever its group
  return shift;
}

template <int G, int RPL, typename T>
__global__ void __launch_bounds__(warp_kernel_threads(RPL), kMinBlocks<RPL, T>)
    pairhmm_kernel(DeviceChunk c, TaskList tl, bool tristate, Boundary<T> bnd, KernelOut out) {
  using V = typename Vec<T>::type;
  using Cell = BoundaryCell<T>;
  constexpr int kBand = G * RPL;
  constexpr int kBlockThreads = warp_kernel_threads(RPL);
  constexpr size_t kTableBytes = kBlockThreads / 32 * prior_table_bytes(RPL, sizeof(T));
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int groups_per_block = kBlockThreads / G;
  const int64_t group_id = static_cast<int64_t>(blockIdx.x) * groups_per_block + threadIdx.x / G;
  const int64_t n_groups = static_cast<int64_t>(gridDim.x) * groups_per_block;
  V* const priors = reinterpret_cast<V*>(smem_raw + (threadIdx.x / 32) * prior_table_bytes(RPL, sizeof(T))) + threadIdx.x % 32;
  SlotIo<T> io{bnd.global ? bnd.global + group_id * bnd.slot
                          : reinterpret_cast<Cell*>(smem_raw + kTableBytes) +
                                static_cast<int64_t>(threadIdx.x / G) * bnd.slot};
  const int n = tl.size();
  if (n < tl.run_min || n > tl.run_max) return;
  // The loop over tasks is uniform across the warp (warp_base), so shuffles converge.
  const int64_t warp_base0 = group_id - (threadIdx.x % 32) / G;
  for (int64_t warp_base = warp_base0; warp_base < n; warp_base += n_groups) {
    const int64_t t = warp_base + (threadIdx.x % 32) / G;
    const bool valid = t < n;
    const int task_index = valid ? tl.task(t) : 0;
    int4 task = make_int4(0, 0, -1, 0);
    int R = 0, H = 0;
    if (valid) {
      task = c.tasks[task_index];
      R = c.read_len[task.x];
      H = c.hap_len[task.y];
    }
    PairLane<T> p;
    p.lane = threadIdx.x % G;
    p.R = R, p.H = H;
    p.n_bands = (R + kBand - 1) / kBand;
    p.pad = p.n_bands * kBand - R;
    p.init_y = valid ? static_cast<T>(detail::Scale<T>::value) / static_cast<T>(H) : T(0);
    p.hap_padded = c.hap_code + (valid ? c.hap_begin[task.y] : kHapPad) - kHapPad;
    p.code_last = static_cast<unsigned>(H + kHapPad);
    p.read0 = valid ? c.read_begin[task.x] : 0;
    const int H_warp = gpu::warp_max(H);
    const int bands_warp = gpu::warp_max(p.n_bands);
    double sum = 0;
    int shift = 0;
    for (int b = 0; b < bands_warp; ++b) {
      const bool any_store = __any_sync(0xffffffffu, b < p.n_bands - 1);
      // Lane scaling in a group's last band for reads long enough to leave float's range
      // within one band, on haplotypes at most twice as long: on longer ones the read has
      // many places to align, a lane's values at one column mix paths whose later fates
      // differ by more than float's range, and a per-column scale can lose the one that
      // counts (H200 accuracy check: a 942-base read on a 6,359-base haplotype came out
      // 2% off, 9.2e-5 relative in log10). The warp takes the scaling variant when every
      // group is in its last band; groups that do not scale keep their lanes at scale 0.
      // (So a group's scaling would depend on its warp-mates: such pairs take 32 lanes,
      // one group per warp; pick_config.)
      bool scale_lanes = false;
      if constexpr (kTallFloat<RPL, T>) {
        p.scale_lanes = b == p.n_bands - 1 && scales_lanes(R, H);
        scale_lanes = !any_store && __any_sync(0xffffffffu, p.scale_lanes);
      }
      int lane_shift = 0;
      run_band<G, RPL, T>(c, tristate, priors, p, b, H_warp + G - 1, b > 0, any_store, scale_lanes, io, sum,
                          lane_shift);
      if constexpr (kTallFloat<RPL, T>) {
        if (b == p.n_bands - 1) shift += lane_shift;
      }
      if constexpr (sizeof(T) == sizeof(float)) {
        if (any_store) shift += rescale_boundary<G>(io.slot, H, b < p.n_bands - 1, p.lane);
      }
    }
    if (valid && p.lane == G - 1) finish_pair<T>(sum, shift, task_index, task.z, out);
  }
}

// The block kernel's boundaries: band b writes ring b % kBlockWarps, which band b + 1
// reads. Rings between warps of one round hold kRingCells columns (the writer waits for
// the reader); the ring from the last warp to the first holds a whole row, since the
// first warp reads it only after finishing its band (and so never stalls the writer).
// Progress is counted in positions: use u of a ring (band b = u * kBlockWarps + k)
// covers positions u * stride + column, stride a multiple of kRingCells.
template <typename T>
struct RingIo {
  using Cell = BoundaryCell<T>;
  const Cell* in = nullptr;
  Cell* out = nullptr;
  const Cell* zero = nullptr;  // column 0
  unsigned in_mask = 0, out_mask = 0;
  int* produced_in = nullptr;  // positions written into the ring this band reads
  int* consumed_in = nullptr;  // ... and read from it
  int* produced_out = nullptr;
  int* consumed_out = nullptr;
  int base_in = 0, base_out = 0, stride = 0, H = 0, lane = 0;
  bool reads = false, writes = false, out_bounded = false;

  static __device__ __forceinline__ void wait_for(int* flag, int value) {
    cuda::atomic_ref<int, cuda::thread_scope_block> ref(*flag);
    while (ref.load(cuda::memory_order_acquire) < value) __nanosleep(32);
  }
  static __device__ __forceinline__ void publish(int* flag, int value) {
    cuda::atomic_ref<int, cuda::thread_scope_block>(*flag).store(value, cuda::memory_order_release);
  }
  __device__ __forceinline__ void begin_band(int, int) {}
  __device__ __forceinline__ void load(int at, T& x, T& d) const {
    (at ? in + (static_cast<unsigned>(at) & in_mask) : zero)->load(x, d);
  }
  __device__ __forceinline__ void store(int j, T x, T d) { out[static_cast<unsigned>(j) & out_mask].store(x, d); }
  // Steps [s0, s1): lane 0 reads columns up to s1 + 1, the last lane (32 lanes) writes
  // columns up to s1 - 31.
  __device__ __forceinline__ void before_chunk(int, int s1) {
    if (reads) wait_for(produced_in, base_in + min(s1 + 1, H));
    if (writes && out_bounded) wait_for(consumed_out, base_out + min(s1 - 31, H) - kRingCells);
  }
  __device__ __forceinline__ void after_chunk(int, int s1) {
    __syncwarp();
    if (writes && lane == 31) publish(produced_out, base_out + max(0, min(s1 - 31, H)));
    // Once the band has read its last column, the whole use counts as read (positions
    // past H are never written), so the next use's writer does not wait on them.
    if (reads && lane == 0) publish(consumed_in, base_in + (s1 >= H ? stride : s1));
  }
};

// Bytes of the block kernel's shared memory after the prior tables: rings, a whole row,
// column 0, and the progress flags.
template <typename T>
__host__ __device__ constexpr size_t block_ring_bytes(int max_hap) {
  return (size_t(kBlockWarps - 1) * kRingCells + size_t(max_hap + 1) + 1) * sizeof(BoundaryCell<T>) +
         2 * kBlockWarps * sizeof(int);
}

template <int RPL, typename T>
__global__ void __launch_bounds__(kThreads, kMinBlocks<RPL, T>)
    pairhmm_block_kernel(DeviceChunk c, TaskList tl, bool tristate, int max_hap, KernelOut out) {
  using V = typename Vec<T>::type;
  using Cell = BoundaryCell<T>;
  constexpr int G = 32;
  constexpr int kBand = G * RPL;
  constexpr size_t kTableBytes = kBlockWarps * prior_table_bytes(RPL, sizeof(T));
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  V* const priors = reinterpret_cast<V*>(smem_raw + warp * prior_table_bytes(RPL, sizeof(T))) + lane;
  Cell* const rings = reinterpret_cast<Cell*>(smem_raw + kTableBytes);
  Cell* const row = rings + (kBlockWarps - 1) * kRingCells;  // from the last warp to the first
  Cell* const zero = row + (max_hap + 1);
  int* const produced = reinterpret_cast<int*>(zero + 1);
  int* const consumed = produced + kBlockWarps;
  const int n = tl.size();
  if (n < tl.run_min || n > tl.run_max) return;
  for (int64_t t = blockIdx.x; t < n; t += gridDim.x) {
    __syncthreads();  // the previous pair's warps are done with the flags
    if (threadIdx.x < 2 * kBlockWarps) produced[threadIdx.x] = 0;  // produced and consumed
    if (threadIdx.x == 0) zero->store(T(0), T(0));
    __syncthreads();
    const int task_index = tl.task(t);
    const int4 task = c.tasks[task_index];
    const int R = c.read_len[task.x], H = c.hap_len[task.y];
    PairLane<T> p;
    p.lane = lane;
    p.R = R, p.H = H;
    p.n_bands = (R + kBand - 1) / kBand;
    p.pad = p.n_bands * kBand - R;
    p.init_y = static_cast<T>(detail::Scale<T>::value) / static_cast<T>(H);
    p.hap_padded = c.hap_code + c.hap_begin[task.y] - kHapPad;
    p.code_last = static_cast<unsigned>(H + kHapPad);
    p.read0 = c.read_begin[task.x];
    const int stride = (H + 1 + kRingCells - 1) / kRingCells * kRingCells;
    double sum = 0;
    for (int b = warp; b < p.n_bands; b += kBlockWarps) {
      RingIo<T> io;
      io.H = H, io.lane = lane, io.zero = zero, io.stride = stride;
      io.reads = b > 0, io.writes = b < p.n_bands - 1;
      const int k_in = (b + kBlockWarps - 1) % kBlockWarps, k_out = b % kBlockWarps;
      const bool in_row = k_in == kBlockWarps - 1, out_row = k_out == kBlockWarps - 1;
      io.in = in_row ? row : rings + k_in * kRingCells;
      io.in_mask = in_row ? ~0u : kRingCells - 1;
      io.out = out_row ? row : rings + k_out * kRingCells;
      io.out_mask = out_row ? ~0u : kRingCells - 1;
      io.out_bounded = !out_row;
      io.produced_in = produced + k_in, io.consumed_in = consumed + k_in;
      io.produced_out = produced + k_out, io.consumed_out = consumed + k_out;
      io.base_in = ((b - 1) / kBlockWarps) * stride;
      io.base_out = (b / kBlockWarps) * stride;
      int unused_shift = 0;
      run_band<G, RPL, T>(c, tristate, priors, p, b, H + G - 1, io.reads, io.writes, false, io, sum, unused_shift);
    }
    if (lane == G - 1 && warp == (p.n_bands - 1) % kBlockWarps) finish_pair<T>(sum, 0, task_index, task.z, out);
  }
}

}  // namespace
}  // namespace gatemap::caller::pairhmm
