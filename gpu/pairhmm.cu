// GPU pair-HMM engine: a wavefront kernel in which a group of G lanes (4..32, part of a
// warp) computes one pair, each lane owning RPL consecutive read rows in registers.
// At step s lane l computes haplotype column j = s - l + 1 for its rows and hands its
// bottom row's (M, X, Y) to lane l + 1 with one warp shuffle each, so a step costs three
// shuffles for RPL cells. Reads longer than a band of G x RPL rows are computed band by
// band; the bottom row of a band (M, X, Y per column) is kept for the next band in
// shared memory when it fits the launch's allowance and in global memory otherwise
// (Branchini et al.'s "dynamic memory swap"). Rows are padded at the top with copies of
// row 0, so row R is always the last lane's last row. Small groups make many short
// pairs share a warp (inter-task); G = 32 is one warp per pair (intra-task). The
// dispatcher picks (G, RPL) per pair from a cost model; each shape runs on its own
// stream, so a small batch's shapes overlap. Pairs whose float sum underflows are queued
// on the device and recomputed in double by the same kernel (4 rows per lane).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/pairhmm.hpp"
#include "gpu/pairhmm_core.hpp"

namespace gatemap::gpu {
namespace detail {
const double* ph2pr_table();  // pairhmm_cpu.cpp
}

namespace {

using detail::kCodeN;
using detail::RowParams;

__constant__ double c_ph2pr[256];

constexpr int kThreads = 128;  // threads per block
constexpr size_t kSharedWanted = 184 * 1024;  // prior tables and band boundaries in shared memory, up to the card's opt-in limit
constexpr size_t kScratchBytes = size_t(256) << 20;  // global band boundaries, per engine slot (split among shapes)

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
  static __device__ __forceinline__ float at(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
  static __device__ __forceinline__ float4 make(const float* a) { return make_float4(a[0], a[1], a[2], a[3]); }
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int n = 2;
  static __device__ __forceinline__ double at(const double2& v, int i) { return i == 0 ? v.x : v.y; }
  static __device__ __forceinline__ double2 make(const double* a) { return make_double2(a[0], a[1]); }
};

// One column of a band's bottom row, (M, X, Y, unused), moved with 16-byte accesses.
template <typename T>
struct BoundaryCell {
  typename Vec<T>::type v[4 / Vec<T>::n];
  __device__ __forceinline__ void store(T m, T x, T y) {
    const T a[4] = {m, x, y, T(0)};
#pragma unroll
    for (int k = 0; k < 4 / Vec<T>::n; ++k) v[k] = Vec<T>::make(a + k * Vec<T>::n);
  }
  __device__ __forceinline__ void load(T& m, T& x, T& y) const {
    T a[4];
#pragma unroll
    for (int k = 0; k < 4 / Vec<T>::n; ++k) {
      const typename Vec<T>::type w = v[k];
#pragma unroll
      for (int i = 0; i < Vec<T>::n; ++i) a[k * Vec<T>::n + i] = Vec<T>::at(w, i);
    }
    m = a[0], x = a[1], y = a[2];
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
constexpr int kHapPad = 32;  // padding codes before each haplotype (>= a group's lanes)

// Blocks per SM the register budget aims at: 4 x 128 threads for 8 float rows per lane
// (faster than 3 blocks; H100 sweep, docs/BENCHMARKS.md), 2 for 8 double rows (the
// double pass of long pairs, where few warps run).
template <int RPL, typename T>
constexpr int kMinBlocks = sizeof(T) == sizeof(float) ? (RPL <= 4 ? 5 : 4) : (RPL <= 4 ? 4 : 2);

template <int G, int RPL, typename T>
__global__ void __launch_bounds__(kThreads, kMinBlocks<RPL, T>)
    pairhmm_kernel(DeviceChunk c, int task_begin, const int* task_ids, const int* n_tasks_d, int n_tasks, bool tristate,
                   Boundary<T> bnd, KernelOut out) {
  using V = typename Vec<T>::type;
  using Cell = BoundaryCell<T>;
  constexpr int kVecs = RPL / Vec<T>::n;  // vector loads of priors per step
  constexpr int kBand = G * RPL;
  constexpr int kChunk = 16;  // steps whose last-row terms are summed in T before the double sum
  constexpr size_t kTableBytes = size_t(kThreads / 32) * kCodes * RPL * 32 * sizeof(T);  // = prior_bytes()
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = threadIdx.x % G;
  const int groups_per_block = kThreads / G;
  const int64_t group_id = static_cast<int64_t>(blockIdx.x) * groups_per_block + threadIdx.x / G;
  const int64_t n_groups = static_cast<int64_t>(gridDim.x) * groups_per_block;
  // This lane's prior table: entry (code, k) at [(code * kVecs + k) * 32], so that the
  // lanes of a warp load consecutive vectors whatever their codes (no bank conflicts).
  V* const priors = reinterpret_cast<V*>(smem_raw) + (threadIdx.x / 32) * (kCodes * kVecs * 32) + threadIdx.x % 32;
  Cell* const slot = bnd.global ? bnd.global + group_id * bnd.slot
                                : reinterpret_cast<Cell*>(smem_raw + kTableBytes) +
                                      static_cast<int64_t>(threadIdx.x / G) * bnd.slot;
  const int n = n_tasks_d ? *n_tasks_d : n_tasks;
  // The loop over tasks is uniform across the warp (warp_base), so shuffles converge.
  const int64_t warp_base0 = group_id - (threadIdx.x % 32) / G;
  for (int64_t warp_base = warp_base0; warp_base < n; warp_base += n_groups) {
    const int64_t t = warp_base + (threadIdx.x % 32) / G;
    const bool valid = t < n;
    const int task_index = valid ? (task_ids ? task_ids[t] : task_begin + static_cast<int>(t)) : 0;
    int4 task = make_int4(0, 0, -1, 0);
    int R = 0, H = 0;
    if (valid) {
      task = c.tasks[task_index];
      R = c.read_len[task.x];
      H = c.hap_len[task.y];
    }
    const int n_bands = (R + kBand - 1) / kBand;
    const int H_warp = __reduce_max_sync(0xffffffffu, H);
    const int bands_warp = __reduce_max_sync(0xffffffffu, n_bands);
    const int pad = n_bands * kBand - R;
    const T init_y = valid ? static_cast<T>(detail::Scale<T>::value) / static_cast<T>(H) : T(0);
    // Column j's code is hap_padded[j - 1 + kHapPad] (an unsigned index, kept at most
    // H + kHapPad so that a shorter haplotype in the warp reads padding).
    const uint8_t* hap_padded = c.hap_code + (valid ? c.hap_begin[task.y] : kHapPad) - kHapPad;
    const unsigned code_last = static_cast<unsigned>(H + kHapPad);
    const uint32_t read0 = valid ? c.read_begin[task.x] : 0;
    double sum = 0;  // last row: sums of kChunk columns in T, added in double
    for (int b = 0; b < bands_warp; ++b) {
      const bool band_on = b < n_bands;
      const bool store_band = band_on && b < n_bands - 1;
      T mm[RPL], gm[RPL], mx[RPL], my[RPL], g[RPL];
      // Per row across steps: t, the diagonal term of M at the current column
      // (mm * M + gm * (X + Y) of the row above, one column back), and Y at the current
      // column. M and X of a column live only within its step.
      T Tt[RPL], Yp[RPL];
      T prior[kCodes][RPL];
#pragma unroll
      for (int r = 0; r < RPL; ++r) {
        const int row = b * kBand + lane * RPL + r - pad;  // 0-based read position
        Yp[r] = T(0);
        if (!band_on || row < 0) {
          // A virtual row: band 0's padding reproduces row 0 (M = X = 0, Y = K/H);
          // bands past the group's last compute zeros.
          mm[r] = gm[r] = mx[r] = my[r] = T(0);
          g[r] = T(1);
          if (band_on) Yp[r] = init_y;
#pragma unroll
          for (int k = 0; k < kCodes; ++k) prior[k][r] = T(0);
          continue;
        }
        RowParams<T> p;
        uint8_t rb;
        if constexpr (sizeof(T) == sizeof(float)) {
          // Precomputed on the host once per read (the same rounding as the CPU twin).
          const float4 a = c.row_f[2 * (read0 + row)], e = c.row_f[2 * (read0 + row) + 1];
          p = RowParams<T>{a.x, a.y, a.z, a.w, e.x, e.y, e.z};
          rb = static_cast<uint8_t>(__float_as_int(e.w));
        } else {
          const uchar4 q = c.read_q[read0 + row];
          rb = c.read_code[read0 + row];
          p = detail::row_params<T>(c_ph2pr, q.x, q.y, q.z, q.w, rb == kCodeN, tristate);
        }
        mm[r] = p.mm, gm[r] = p.gm, mx[r] = p.mx, my[r] = p.my, g[r] = p.g;
#pragma unroll
        for (int k = 0; k < 4; ++k) prior[k][r] = (rb == k || rb == kCodeN) ? p.p_match : p.p_mismatch;
        prior[kCodeN][r] = p.p_match;
        prior[kCodeOutside][r] = T(0);
      }
#pragma unroll
      for (int k = 0; k < kCodes; ++k) {
#pragma unroll
        for (int v = 0; v < kVecs; ++v) priors[(k * kVecs + v) * 32] = Vec<T>::make(&prior[k][v * Vec<T>::n]);
      }
      if (band_on) sum = 0;  // only the group's last band leaves its sum
      // Above lane 0's first row: row 0 in band 0 (M = X = 0, Y = K/H at every column),
      // the previous band's bottom row after it (slot[0], column 0, is zero, and so is
      // everything past column H).
      if (b > 0 && lane == 0) slot[0].store(T(0), T(0), T(0));
      const T top_y = b == 0 && band_on ? init_y : T(0);
      // A: the row above this lane's first row at its current column (the lane above's
      // bottom row one step ago). Before the first step every row holds M = X = 0.
      T aM = T(0), aX = T(0);
      T aY = __shfl_up_sync(0xffffffffu, Yp[RPL - 1], 1, G);
      if (lane == 0) aY = top_y;  // column 0
      Tt[0] = gm[0] * aY;
#pragma unroll
      for (int r = 1; r < RPL; ++r) Tt[r] = gm[r] * Yp[r - 1];
      if (lane == 0 && b > 0 && band_on) slot[1].load(aM, aX, aY);  // column 1
      const int steps = H_warp + G - 1;
      // Column j's code at hap_padded[s + 1 - lane + kHapPad - 1] for step s (clamped).
      const unsigned code_off = static_cast<unsigned>(kHapPad - lane);
      auto code_at_step = [&](int s) -> int { return hap_padded[min(static_cast<unsigned>(s) + code_off, code_last)]; };
      // The priors of code k start k * kCodeStride bytes into this lane's table.
      constexpr int kCodeStride = kVecs * 32 * static_cast<int>(sizeof(V));
      const unsigned char* const prior_base = reinterpret_cast<const unsigned char*>(priors);
      // One step: this lane's RPL rows at column j. Every carried value is updated in
      // place, so a rolled loop needs no register copies; the arithmetic is the CPU
      // twin's, each term computed as soon as its inputs exist. Variants: whether lane 0
      // reads a boundary (b > 0) and whether any group of the warp writes one (not its
      // last band), so that single-band pairs skip both.
      auto run_steps = [&](auto from_boundary, auto to_boundary) {
        int code = code_at_step(0);
        for (int s0 = 0; s0 < steps; s0 += kChunk) {
          const int s1 = min(s0 + kChunk, steps);
          T part = 0;
#pragma unroll 1
          for (int s = s0; s < s1; ++s) {
            const int j = s - lane + 1;  // this lane's column
            const int code_next = code_at_step(s + 1);
            const V* const pc = reinterpret_cast<const V*>(prior_base + code * kCodeStride);
            V pv[kVecs];
#pragma unroll
            for (int v = 0; v < kVecs; ++v) pv[v] = pc[v * 32];
            T m[RPL];
#pragma unroll
            for (int r = 0; r < RPL; ++r) m[r] = Vec<T>::at(pv[r / Vec<T>::n], r % Vec<T>::n) * Tt[r];
            T x = mx[0] * aM + g[0] * aX;
            Tt[0] = mm[0] * aM + gm[0] * (aX + aY);  // the next column's diagonal is this one's A
            T y_bottom = T(0);
#pragma unroll
            for (int r = 0; r < RPL; ++r) {
              if (r > 0) x = mx[r] * m[r - 1] + g[r] * x;
              if (r + 1 < RPL) Tt[r + 1] = mm[r + 1] * m[r] + gm[r + 1] * (x + Yp[r]);
              if (r + 1 == RPL) y_bottom = Yp[r];
              Yp[r] = my[r] * m[r] + g[r] * Yp[r];  // Y at the next column
            }
            part += m[RPL - 1] + x;  // zero outside columns 1..H
            if constexpr (decltype(to_boundary)::value) {
              if (store_band && lane == G - 1 && static_cast<unsigned>(j - 1) < static_cast<unsigned>(H)) {
                slot[j].store(m[RPL - 1], x, y_bottom);
              }
            }
            aM = __shfl_up_sync(0xffffffffu, m[RPL - 1], 1, G);
            aX = __shfl_up_sync(0xffffffffu, x, 1, G);
            aY = __shfl_up_sync(0xffffffffu, y_bottom, 1, G);
            if constexpr (decltype(from_boundary)::value) {
              // Every lane loads (lane 0 its next column, the others slot[0]): no divergence.
              const int jn = j + 1;
              const int at = lane == 0 && band_on && static_cast<unsigned>(jn - 1) < static_cast<unsigned>(H) ? jn : 0;
              T bM, bX, bY;
              slot[at].load(bM, bX, bY);
              if (lane == 0) aM = bM, aX = bX, aY = bY;
            } else {
              if (lane == 0) aM = T(0), aX = T(0), aY = top_y;
            }
            code = code_next;
          }
          sum += static_cast<double>(part);
        }
      };
      const bool any_store = __any_sync(0xffffffffu, store_band);
      if (b == 0) {
        if (any_store) {
          run_steps(std::false_type{}, std::true_type{});
        } else {
          run_steps(std::false_type{}, std::false_type{});
        }
      } else if (any_store) {
        run_steps(std::true_type{}, std::true_type{});
      } else {
        run_steps(std::true_type{}, std::false_type{});
      }
      __syncwarp();  // the boundary written by the last lane is read by lane 0 next band
    }
    if (valid && lane == G - 1) {
      const int o = task.z;
      if (sizeof(T) == sizeof(float) && !(sum >= kPairHmmUnderflow)) {
        out.redo[atomicAdd(out.n_redo, 1)] = task_index;
      } else {
        out.log10_lik[o] = log10(sum) - detail::Scale<T>::log10;
      }
    }
  }
}

// ---- dispatch ---------------------------------------------------------------------

struct Config {
  int G, RPL;
};
constexpr std::array<Config, 8> kConfigs{{{4, 4}, {8, 4}, {16, 4}, {32, 4}, {4, 8}, {8, 8}, {16, 8}, {32, 8}}};

struct LaunchEnv {
  int sm_count = 1;
  int forced_config = -1;  // benchmarks: every pair takes this shape
  size_t shared_limit = 48 * 1024;  // dynamic shared memory one block may use (prior tables + boundaries)
};

// Bytes of band boundary (M, X, Y and a spare value per column) for one block of groups.
// One buffer is enough: lane 0 reads column j before the last lane, whose value depends
// on it, writes it.
size_t boundary_bytes(Config cfg, int H, size_t elem) {
  return static_cast<size_t>(kThreads / cfg.G) * 4 * static_cast<size_t>(H + 1) * elem;
}

size_t prior_bytes(Config cfg, size_t elem) {
  return static_cast<size_t>(kThreads / 32) * kCodes * cfg.RPL * 32 * elem;
}

// Whether a block's boundaries fit in shared memory next to its prior tables.
bool boundary_in_shared(Config cfg, int H, size_t elem, size_t shared_limit) {
  return prior_bytes(cfg, elem) + boundary_bytes(cfg, H, elem) <= shared_limit;
}

// Relative cost of a pair in a kernel shape: issue slots per lane, steps x (cells of a
// step + per-step overhead), with penalties for several bands calibrated on an H100
// (bench pairhmm --sweep, docs/BENCHMARKS.md): boundary traffic, the occupancy the
// boundary's shared memory leaves, and a per-band setup.
double config_cost(Config cfg, int R, int H, size_t shared_limit) {
  const int band = cfg.G * cfg.RPL;
  const int bands = (R + band - 1) / band;
  double per_step = 8.5 * cfg.RPL + 16.0;
  double factor = 1.0;
  if (bands > 1) {
    const bool shared = boundary_in_shared(cfg, H, sizeof(float), shared_limit);
    per_step += shared ? 12.0 : 40.0;
    const size_t block_bytes = prior_bytes(cfg, sizeof(float)) + boundary_bytes(cfg, H, sizeof(float));
    const double blocks_per_sm = shared ? std::clamp(std::floor(228.0 * 1024 / block_bytes), 1.0, 4.0) : 4.0;
    factor = (1.0 + 0.1 * bands) * 4.0 / blocks_per_sm;
  }
  return static_cast<double>(bands) * (H + cfg.G - 1) * cfg.G * per_step * factor;
}

int pick_config(int R, int H, const LaunchEnv& env) {
  if (env.forced_config >= 0) return env.forced_config;
  const size_t shared_limit = env.shared_limit;
  int best = 0;
  double best_cost = config_cost(kConfigs[0], R, H, shared_limit);
  for (int k = 1; k < static_cast<int>(kConfigs.size()); ++k) {
    const double cost = config_cost(kConfigs[k], R, H, shared_limit);
    if (cost < best_cost) best = k, best_cost = cost;
  }
  return best;
}

template <int G, int RPL, typename T>
void launch(const DeviceChunk& c, int task_begin, const int* task_ids, const int* n_tasks_d, int n_tasks, int max_hap,
            int max_read, bool tristate, KernelOut out, DeviceBuffer<unsigned char>& scratch, const LaunchEnv& env,
            cudaStream_t stream) {
  if (n_tasks == 0) return;
  constexpr int kGroups = kThreads / G;
  constexpr Config cfg{G, RPL};
  const bool multi_band = max_read > G * RPL;
  const int64_t slot = multi_band ? static_cast<int64_t>(max_hap + 1) : 0;
  const size_t boundary = boundary_bytes(cfg, max_hap, sizeof(T));
  int blocks = (n_tasks + kGroups - 1) / kGroups;
  Boundary<T> bnd{nullptr, slot};
  size_t dyn_shared = prior_bytes(cfg, sizeof(T));
  if (multi_band && boundary_in_shared(cfg, max_hap, sizeof(T), env.shared_limit)) {
    dyn_shared += boundary;
  } else if (multi_band) {
    // Global boundaries: a persistent grid, its size bounded by the scratch buffer
    // (allocated once per engine slot: resizing here could free memory in use).
    const size_t fit = scratch.size() / boundary;
    if (fit == 0) {
      throw Error("pair-HMM haplotype of " + std::to_string(max_hap) + " bases needs more boundary memory than reserved");
    }
    blocks = static_cast<int>(std::min<int64_t>(blocks, static_cast<int64_t>(std::min<size_t>(fit, 64 * env.sm_count))));
    bnd.global = reinterpret_cast<BoundaryCell<T>*>(scratch.data());
  }
  if (dyn_shared > 48 * 1024) {
    GATEMAP_CUDA_CHECK(cudaFuncSetAttribute(pairhmm_kernel<G, RPL, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(env.shared_limit)));
  }
  if (n_tasks_d) blocks = std::max(1, std::min(blocks, 2 * env.sm_count));  // the count is on the device; usually 0
  pairhmm_kernel<G, RPL, T>
      <<<blocks, kThreads, dyn_shared, stream>>>(c, task_begin, task_ids, n_tasks_d, n_tasks, tristate, bnd, out);
  GATEMAP_CUDA_CHECK(cudaGetLastError());
}

using Launcher = void (*)(const DeviceChunk&, int, const int*, const int*, int, int, int, bool, KernelOut,
                          DeviceBuffer<unsigned char>&, const LaunchEnv&, cudaStream_t);
constexpr std::array<Launcher, 8> kFloatLaunchers{
    launch<4, 4, float>, launch<8, 4, float>, launch<16, 4, float>, launch<32, 4, float>,
    launch<4, 8, float>, launch<8, 8, float>, launch<16, 8, float>, launch<32, 8, float>};
// The double pass of a shape's underflowed pairs: the same lanes, 4 rows per lane
// (doubles take twice the registers), and 8 for the tall shapes: there the few pairs
// that underflow are long, and their time is the serial steps of their bands.
constexpr std::array<Launcher, 8> kDoubleLaunchers{
    launch<4, 4, double>, launch<8, 4, double>, launch<16, 4, double>, launch<32, 4, double>,
    launch<4, 4, double>, launch<8, 4, double>, launch<16, 8, double>, launch<32, 8, double>};

size_t align16(size_t n) { return (n + 15) & ~size_t(15); }

}  // namespace

// ---- the engine -------------------------------------------------------------------

struct PairHmmGpu::Impl {
  struct Slot {
    Stream stream;
    Event start, stop, done, inputs_ready;
    // One stream per kernel shape, so that the shapes of a chunk run side by side
    // (small batches would otherwise wait for each shape's slowest warp in turn), each
    // with its own scratch for global band boundaries.
    std::array<Stream, kConfigs.size()> shape_stream;
    std::array<Event, kConfigs.size()> shape_mid, shape_done;
    std::array<DeviceBuffer<unsigned char>, kConfigs.size()> shape_scratch;
    std::array<bool, kConfigs.size()> shape_used{};
    PinnedBuffer<unsigned char> in_h;
    DeviceBuffer<unsigned char> in_d;
    PinnedBuffer<double> out_h;
    DeviceBuffer<double> out_d;
    DeviceBuffer<int> redo_d;  // one count per shape, then task ids (each shape's at its task range)
    bool busy = false;
    size_t first_pair = 0, n_pairs = 0;  // where this chunk's results go
  };
  std::array<Slot, 2> slots;
  LaunchEnv env;
};

PairHmmGpu::PairHmmGpu() : impl_(new Impl) {
  int dev = 0;
  GATEMAP_CUDA_CHECK(cudaGetDevice(&dev));
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&impl_->env.sm_count, cudaDevAttrMultiProcessorCount, dev));
  int optin = 0;
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  impl_->env.shared_limit = std::min<size_t>(kSharedWanted, static_cast<size_t>(optin));
  GATEMAP_CUDA_CHECK(cudaMemcpyToSymbol(c_ph2pr, detail::ph2pr_table(), 256 * sizeof(double)));
}

PairHmmGpu::~PairHmmGpu() { delete impl_; }

int PairHmmGpu::kernel_shapes() { return static_cast<int>(kConfigs.size()); }
std::string PairHmmGpu::kernel_shape_name(int k) {
  return "G" + std::to_string(kConfigs[k].G) + "xR" + std::to_string(kConfigs[k].RPL);
}
void PairHmmGpu::force_kernel_shape(int k) { impl_->env.forced_config = k < kernel_shapes() ? k : -1; }

namespace {

// Groups [g0, g1) of the batch as one chunk: the host image of its input buffer.
struct ChunkPlan {
  size_t first_pair = 0, n_pairs = 0;
  int32_t read0 = 0, read1 = 0, hap0 = 0, hap1 = 0;
  std::array<int, kConfigs.size() + 1> config_begin{};  // task ranges per config
  std::array<int, kConfigs.size()> max_read{};
  std::vector<int32_t> task_hap_len;  // haplotype length of each task (sorted order)
  size_t off_tasks = 0, off_rbegin = 0, off_rlen = 0, off_hbegin = 0, off_hlen = 0, off_rq = 0, off_rowf = 0, off_rcode = 0,
         off_hcode = 0, bytes = 0;
};

void plan_chunk(const PairHmmBatch& b, size_t g0, size_t g1, size_t first_pair, ChunkPlan& plan) {
  plan.first_pair = first_pair;
  plan.read0 = plan.hap0 = INT32_MAX;
  plan.read1 = plan.hap1 = 0;
  plan.n_pairs = 0;
  for (size_t g = g0; g < g1; ++g) {
    const auto& gr = b.groups[g];
    if (gr.n_reads == 0 || gr.n_haps == 0) continue;
    plan.read0 = std::min(plan.read0, gr.first_read);
    plan.read1 = std::max(plan.read1, gr.first_read + gr.n_reads);
    plan.hap0 = std::min(plan.hap0, gr.first_hap);
    plan.hap1 = std::max(plan.hap1, gr.first_hap + gr.n_haps);
    plan.n_pairs += static_cast<size_t>(gr.n_reads) * gr.n_haps;
  }
  if (plan.n_pairs == 0) plan.read0 = plan.read1 = plan.hap0 = plan.hap1 = 0;
  const size_t n_reads = plan.read1 - plan.read0, n_haps = plan.hap1 - plan.hap0;
  const size_t read_bases = n_reads ? b.read_begin[plan.read1 - 1] + b.read_len[plan.read1 - 1] - b.read_begin[plan.read0] : 0;
  const size_t hap_bases = n_haps ? b.hap_begin[plan.hap1 - 1] + b.hap_len[plan.hap1 - 1] - b.hap_begin[plan.hap0] : 0;
  size_t o = 0;
  plan.off_tasks = o, o = align16(o + plan.n_pairs * sizeof(int4));
  plan.off_rbegin = o, o = align16(o + n_reads * 4);
  plan.off_rlen = o, o = align16(o + n_reads * 4);
  plan.off_hbegin = o, o = align16(o + n_haps * 4);
  plan.off_hlen = o, o = align16(o + n_haps * 4);
  plan.off_rq = o, o = align16(o + read_bases * 4);
  plan.off_rowf = o, o = align16(o + read_bases * 2 * sizeof(float4));
  plan.off_rcode = o, o = align16(o + read_bases);
  plan.off_hcode = o, o = align16(o + hap_bases + (n_haps + 1) * kHapPad + 16);
  plan.bytes = o;
}

// Writes the chunk's input image (tasks sorted by kernel configuration, then by
// haplotype and read length so that the groups of a warp take equal steps).
void fill_chunk(const PairHmmBatch& b, size_t g0, size_t g1, bool tristate, const LaunchEnv& env, ChunkPlan& plan,
                unsigned char* h) {
  const int64_t rbase = plan.n_pairs ? b.read_begin[plan.read0] : 0;
  const int64_t hbase = plan.n_pairs ? b.hap_begin[plan.hap0] : 0;
  auto* rbegin = reinterpret_cast<uint32_t*>(h + plan.off_rbegin);
  auto* rlen = reinterpret_cast<int32_t*>(h + plan.off_rlen);
  auto* hbegin = reinterpret_cast<uint32_t*>(h + plan.off_hbegin);
  auto* hlen = reinterpret_cast<int32_t*>(h + plan.off_hlen);
  auto* rq = reinterpret_cast<uchar4*>(h + plan.off_rq);
  auto* rowf = reinterpret_cast<float4*>(h + plan.off_rowf);
  auto* rcode = h + plan.off_rcode;
  auto* hcode = h + plan.off_hcode;
  // Per-base row parameters are most of the host's work: spread over the cores.
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t r = plan.read0; r < plan.read1; ++r) {
    const int64_t at = b.read_begin[r];
    const int64_t local = at - rbase;
    rbegin[r - plan.read0] = static_cast<uint32_t>(local);
    rlen[r - plan.read0] = b.read_len[r];
    for (int32_t i = 0; i < b.read_len[r]; ++i) {
      rq[local + i] = make_uchar4(b.base_q[at + i], b.ins_q[at + i], b.del_q[at + i], b.gcp_q[at + i]);
      const uint8_t code = detail::base_code(b.read_bases[at + i]);
      rcode[local + i] = code;
      const RowParams<float> p = detail::row_params<float>(detail::ph2pr_table(), b.base_q[at + i], b.ins_q[at + i],
                                                           b.del_q[at + i], b.gcp_q[at + i], code == kCodeN, tristate);
      int code_bits = code;
      float code_f;
      std::memcpy(&code_f, &code_bits, sizeof(float));
      rowf[2 * (local + i)] = make_float4(p.mm, p.gm, p.mx, p.my);
      rowf[2 * (local + i) + 1] = make_float4(p.g, p.p_match, p.p_mismatch, code_f);
    }
  }
  // Each haplotype's codes follow kHapPad padding codes, and padding follows the last.
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t k = plan.hap0; k < plan.hap1; ++k) {
    const int64_t local = b.hap_begin[k] - hbase + static_cast<int64_t>(k - plan.hap0 + 1) * kHapPad;
    hbegin[k - plan.hap0] = static_cast<uint32_t>(local);
    hlen[k - plan.hap0] = b.hap_len[k];
    std::memset(hcode + local - kHapPad, kCodeOutside, kHapPad);
    for (int32_t i = 0; i < b.hap_len[k]; ++i) hcode[local + i] = detail::base_code(b.hap_bases[b.hap_begin[k] + i]);
  }
  const size_t hap_end = plan.hap1 > plan.hap0 ? hbegin[plan.hap1 - 1 - plan.hap0] + b.hap_len[plan.hap1 - 1] : 0;
  std::memset(hcode + hap_end, kCodeOutside, kHapPad);
  // Tasks ordered by kernel shape, then longest haplotype first, so that the groups of
  // a warp take equal steps and long ones can take their own launch: a counting sort
  // in two passes over the pairs (shape choices cached, since lengths repeat).
  int max_hap = 0;
  plan.max_read.fill(0);
  for (size_t g = g0; g < g1; ++g) {
    const auto& gr = b.groups[g];
    for (int32_t k = gr.first_hap; k < gr.first_hap + gr.n_haps && gr.n_reads; ++k) {
      max_hap = std::max(max_hap, b.hap_len[k]);
    }
  }
  const size_t n_keys = static_cast<size_t>(max_hap) + 1;  // key = shape * n_keys + (max_hap - H)
  std::vector<int64_t> start(kConfigs.size() * n_keys + 1, 0);
  int last_r = -1, last_h = -1, last_cfg = 0;
  auto shape_of = [&](int R, int H) {
    if (R != last_r || H != last_h) last_cfg = pick_config(R, H, env), last_r = R, last_h = H;
    return last_cfg;
  };
  auto for_each_pair = [&](auto&& fn) {
    for (size_t g = g0; g < g1; ++g) {
      const auto& gr = b.groups[g];
      for (int32_t r = gr.first_read; r < gr.first_read + gr.n_reads; ++r) {
        for (int32_t k = gr.first_hap; k < gr.first_hap + gr.n_haps; ++k) fn(r, k);
      }
    }
  };
  for_each_pair([&](int32_t r, int32_t k) {
    const int H = b.hap_len[k], cfg = shape_of(b.read_len[r], H);
    ++start[cfg * n_keys + (max_hap - H) + 1];
    plan.max_read[cfg] = std::max(plan.max_read[cfg], b.read_len[r]);
  });
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  auto* tasks = reinterpret_cast<int4*>(h + plan.off_tasks);
  plan.task_hap_len.resize(plan.n_pairs);
  int out = 0;
  for_each_pair([&](int32_t r, int32_t k) {
    const int H = b.hap_len[k], cfg = shape_of(b.read_len[r], H);
    const int64_t pos = start[cfg * n_keys + (max_hap - H)]++;
    tasks[pos] = make_int4(r - plan.read0, k - plan.hap0, out++, 0);
    plan.task_hap_len[pos] = H;
  });
  // After the second pass start[shape * n_keys + max_hap] is where the shape ends.
  size_t at = 0;
  for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
    plan.config_begin[cfg] = static_cast<int>(at);
    at = static_cast<size_t>(start[cfg * n_keys + max_hap]);
  }
  plan.config_begin[kConfigs.size()] = static_cast<int>(at);
}

}  // namespace

void PairHmmGpu::compute(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
                         PairHmmStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  log10_lik.assign(batch.pair_count(), 0.0);
  Impl& im = *impl_;
  // Chunks bounded in pairs and cells, so two fit on the card and copies overlap kernels.
  const auto [free_b, total_b] = mem_info();
  (void)total_b;
  const size_t max_pairs = std::min<size_t>(size_t(1) << 22, free_b / 8 / 64);
  const int64_t max_cells = int64_t(1) << 32;
  double kernel_ms = 0, double_ms = 0;
  int64_t n_double = 0;
  int next_slot = 0;

  auto finish = [&](Impl::Slot& s) {
    if (!s.busy) return;
    s.done.sync();
    kernel_ms += Event::elapsed_ms(s.start, s.stop);
    for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
      if (s.shape_used[cfg]) double_ms += Event::elapsed_ms(s.shape_mid[cfg], s.shape_done[cfg]);
    }
    std::copy(s.out_h.data(), s.out_h.data() + s.n_pairs, log10_lik.begin() + s.first_pair);
    int redo[kConfigs.size()];
    std::memcpy(redo, s.out_h.data() + s.n_pairs, sizeof(redo));
    for (int r : redo) n_double += r;
    s.busy = false;
  };

  size_t g = 0, first_pair = 0;
  while (g < batch.groups.size()) {
    // Take groups until the chunk is full (at least one group per chunk).
    size_t g1 = g, pairs = 0;
    int64_t cells = 0;
    while (g1 < batch.groups.size()) {
      const auto& gr = batch.groups[g1];
      const size_t p = static_cast<size_t>(gr.n_reads) * gr.n_haps;
      int64_t rl = 0, hl = 0;
      for (int32_t r = 0; r < gr.n_reads; ++r) rl += batch.read_len[gr.first_read + r];
      for (int32_t k = 0; k < gr.n_haps; ++k) hl += batch.hap_len[gr.first_hap + k];
      if (g1 > g && (pairs + p > max_pairs || cells + rl * hl > max_cells)) break;
      pairs += p, cells += rl * hl, ++g1;
    }
    Impl::Slot& s = im.slots[next_slot];
    next_slot ^= 1;
    finish(s);  // its pinned buffers are about to be reused
    ChunkPlan plan;
    plan_chunk(batch, g, g1, first_pair, plan);
    for (auto& scratch : s.shape_scratch) scratch.resize(kScratchBytes / kConfigs.size());
    s.in_h.resize(plan.bytes);
    fill_chunk(batch, g, g1, opt.tristate, im.env, plan, s.in_h.data());
    s.in_d.resize(plan.bytes);
    s.out_h.resize(plan.n_pairs + kConfigs.size());  // results, then the shapes' double counts (as ints)
    s.out_d.resize(plan.n_pairs + 1);
    s.redo_d.resize(plan.n_pairs + kConfigs.size());
    const cudaStream_t st = s.stream.get();
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.in_d.data(), s.in_h.data(), plan.bytes, cudaMemcpyHostToDevice, st));
    GATEMAP_CUDA_CHECK(cudaMemsetAsync(s.redo_d.data(), 0, kConfigs.size() * sizeof(int), st));
    unsigned char* d = s.in_d.data();
    DeviceChunk c{reinterpret_cast<const int4*>(d + plan.off_tasks), reinterpret_cast<const uint32_t*>(d + plan.off_rbegin),
                  reinterpret_cast<const int32_t*>(d + plan.off_rlen), reinterpret_cast<const uint32_t*>(d + plan.off_hbegin),
                  reinterpret_cast<const int32_t*>(d + plan.off_hlen), reinterpret_cast<const uchar4*>(d + plan.off_rq),
                  d + plan.off_rcode, reinterpret_cast<const float4*>(d + plan.off_rowf), d + plan.off_hcode};
    s.start.record(st);
    s.inputs_ready.record(st);
    constexpr int kCounts = static_cast<int>(kConfigs.size());
    for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
      const int begin = plan.config_begin[cfg], end = plan.config_begin[cfg + 1];
      s.shape_used[cfg] = begin != end;
      if (begin == end) continue;
      const cudaStream_t ss = s.shape_stream[cfg].get();
      GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(ss, s.inputs_ready.get(), 0));
      const KernelOut ko{s.out_d.data(), s.redo_d.data() + kCounts + begin, s.redo_d.data() + cfg};
      // Tasks whose boundary rows do not fit shared memory (the longest haplotypes,
      // first in the order) take a launch of their own with global boundaries.
      int split = begin;
      while (split < end && !boundary_in_shared(kConfigs[cfg], plan.task_hap_len[split], sizeof(float), im.env.shared_limit)) {
        ++split;
      }
      if (split > begin) {
        kFloatLaunchers[cfg](c, begin, nullptr, nullptr, split - begin, plan.task_hap_len[begin], plan.max_read[cfg],
                             opt.tristate, ko, s.shape_scratch[cfg], im.env, ss);
      }
      if (end > split) {
        kFloatLaunchers[cfg](c, split, nullptr, nullptr, end - split, plan.task_hap_len[split], plan.max_read[cfg],
                             opt.tristate, ko, s.shape_scratch[cfg], im.env, ss);
      }
      s.shape_mid[cfg].record(ss);
      // The pairs this shape's float pass queued (count on the device): again in double.
      const KernelOut kd{s.out_d.data(), nullptr, nullptr};
      kDoubleLaunchers[cfg](c, 0, s.redo_d.data() + kCounts + begin, s.redo_d.data() + cfg, end - begin,
                            plan.task_hap_len[begin], plan.max_read[cfg], opt.tristate, kd, s.shape_scratch[cfg],
                            im.env, ss);
      s.shape_done[cfg].record(ss);
      GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(st, s.shape_done[cfg].get(), 0));
    }
    s.stop.record(st);
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.out_h.data(), s.out_d.data(), plan.n_pairs * sizeof(double),
                                       cudaMemcpyDeviceToHost, st));
    GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.out_h.data() + plan.n_pairs, s.redo_d.data(), kConfigs.size() * sizeof(int),
                                       cudaMemcpyDeviceToHost, st));
    s.done.record(st);
    s.busy = true;
    s.first_pair = first_pair;
    s.n_pairs = plan.n_pairs;
    first_pair += plan.n_pairs;
    g = g1;
  }
  finish(im.slots[0]);
  finish(im.slots[1]);
  if (stats) {
    stats->pairs += static_cast<int64_t>(log10_lik.size());
    stats->cells += batch.cell_count();
    stats->double_pairs += n_double;
    stats->kernel_ms += kernel_ms;
    stats->double_kernel_ms += double_ms;
    stats->total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
}

}  // namespace gatemap::gpu
