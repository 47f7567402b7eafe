// GPU pair-HMM engine: the host side of the kernels in pairhmm_kernels.cuh. The
// dispatcher picks a kernel shape per pair from a cost model (G lanes x RPL rows per
// lane, or a block of warps for long reads); tasks are sorted by shape and haplotype
// length; each shape runs on its own stream, so a small batch's shapes overlap; a
// shape's underflowed pairs are recomputed in double after its float pass.
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "caller/pairhmm/pairhmm.hpp"
#include "caller/pairhmm/pairhmm_core.hpp"
#include "caller/pairhmm/pairhmm_kernels.cuh"
#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/buffers.cuh"
#include "gpu/cuda_check.cuh"

namespace gatemap::caller::pairhmm {
namespace detail {
const double* ph2pr_table();  // pairhmm_cpu.cpp
}

namespace {

constexpr size_t kSharedWanted = 184 * 1024;  // prior tables and band boundaries in shared memory, up to the card's opt-in limit
constexpr size_t kScratchBytes = size_t(256) << 20;  // global band boundaries, per engine slot (split among shapes)

// ---- dispatch ---------------------------------------------------------------------

struct Config {
  int G, RPL;
  bool block = false;  // pairhmm_block_kernel: the warps of a block share one long pair
};
// Shapes of 16 and 32 rows per lane take only reads with one gap continuation at every
// base (pairhmm_kernels.cuh, run_band).
bool needs_uniform_gap(Config cfg) { return tall_lanes(cfg.RPL); }
int block_threads(Config cfg) { return cfg.block ? kThreads : warp_kernel_threads(cfg.RPL); }
constexpr std::array<Config, 16> kConfigs{{{4, 4},
                                           {8, 4},
                                           {16, 4},
                                           {32, 4},
                                           {4, 8},
                                           {8, 8},
                                           {16, 8},
                                           {32, 8},
                                           {32, 8, true},
                                           {4, 16},
                                           {8, 16},
                                           {16, 16},
                                           {32, 16},
                                           {8, 32},
                                           {16, 32},
                                           {32, 32}}};

// A chunk of a batch holds at most this many cells (and 2^22 pairs).
constexpr int64_t kMaxChunkCells = int64_t(1) << 32;
// A slot's buffers as the engine makes them (PairHmmGpu::PairHmmGpu).
constexpr size_t kStartInputBytes = size_t(32) << 20;    // host image of a chunk's input (pinned)
constexpr size_t kStartDeviceBytes = size_t(192) << 20;  // the same on the device, plus row parameters
constexpr size_t kStartPairs = size_t(1) << 20;          // results

struct LaunchEnv {
  int sm_count = 1;
  int forced_config = -1;  // benchmarks: every pair takes this shape
  size_t shared_limit = 48 * 1024;  // dynamic shared memory one block may use (prior tables + boundaries)
};

// Bytes of band boundary (two values per column, BoundaryCell) for one block: a row
// per group (one buffer is enough: lane 0 reads column j before the last lane, whose
// value depends on it, writes it), or the block kernel's rings and row.
size_t boundary_bytes(Config cfg, int H, size_t elem) {
  if (cfg.block) return elem == sizeof(float) ? block_ring_bytes<float>(H) : block_ring_bytes<double>(H);
  return static_cast<size_t>(block_threads(cfg) / cfg.G) * 2 * static_cast<size_t>(H + 1) * elem;
}

size_t prior_bytes(Config cfg, size_t elem) { return block_threads(cfg) / 32 * prior_table_bytes(cfg.RPL, elem); }

// Whether a block's boundaries fit in shared memory next to its prior tables.
bool boundary_in_shared(Config cfg, int H, size_t elem, size_t shared_limit) {
  return prior_bytes(cfg, elem) + boundary_bytes(cfg, H, elem) <= shared_limit;
}

// Steps one pair takes from start to end in a shape: its latency.
int64_t config_steps(Config cfg, int R, int H) {
  const int bands = (R + cfg.G * cfg.RPL - 1) / (cfg.G * cfg.RPL);
  if (cfg.block) {
    const int rounds = (bands + kBlockWarps - 1) / kBlockWarps;
    return static_cast<int64_t>(rounds) * (H + cfg.G - 1 + 48 * (std::min(bands, kBlockWarps) - 1));
  }
  return static_cast<int64_t>(bands) * (H + cfg.G - 1);
}

// Relative cost of a pair in a kernel shape: issue slots per lane, steps x (cells of a
// step + per-step overhead), with penalties for several bands calibrated on an H100
// (bench pairhmm --sweep, docs/BENCHMARKS.md; the 16- and 32-row shapes on an H200):
// boundary traffic, the occupancy the boundary's shared memory leaves, and a per-band
// setup.
double config_cost(Config cfg, int R, int H, size_t shared_limit) {
  const int band = cfg.G * cfg.RPL;
  const int bands = (R + band - 1) / band;
  // Issue slots of a step at the shape's occupancy (16 rows: 12 warps per SM, 32 rows:
  // 8, not 16). H200, full-size sets: 16 rows win at 64..256, 32 rows at 512 and 1024
  // (2 pairs per warp at 512: fewer waves left half empty at the end).
  double per_step = cfg.RPL >= 32 ? 320.0 : cfg.RPL >= 16 ? 165.0 : 8.5 * cfg.RPL + 16.0;
  if (cfg.block) {
    // All warps of the block for the pair's time: about one band's steps plus a lag of
    // 48 steps per band below the first, per round of kBlockWarps bands; rings, progress
    // flags and the double pass of pairs it cannot rescale cost ~45% per step (H200
    // sweep at 4e9 cells: 1.30-1.58 from 512 to 2048). Its strength is latency, which
    // pick_config no longer weighs: the float pass takes it when forced (benchmarks).
    if (bands < 2 || !boundary_in_shared(cfg, H, sizeof(float), shared_limit)) return HUGE_VAL;
    return static_cast<double>(config_steps(cfg, R, H)) * kBlockWarps * cfg.G * per_step * 1.45;
  }
  double factor = 1.0;
  if (bands > 1) {
    const bool shared = boundary_in_shared(cfg, H, sizeof(float), shared_limit);
    per_step += shared ? 12.0 : 40.0;
    if (tall_lanes(cfg.RPL)) {
      // These hardly lose to the occupancy their boundaries leave (a warp has 16-32
      // independent rows to issue): H200 full-size sweep, 1024 x 1024 on G32xR16 and
      // 2048 x 2048 on G32xR32, ~5% per pair over one band.
      factor = 1.0 + 0.03 * bands;
    } else {
      const size_t block_bytes = prior_bytes(cfg, sizeof(float)) + boundary_bytes(cfg, H, sizeof(float));
      const double blocks_per_sm = shared ? std::clamp(std::floor(228.0 * 1024 / block_bytes), 1.0, 4.0) : 4.0;
      factor = (1.0 + 0.1 * bands) * 4.0 / blocks_per_sm;
    }
  }
  return static_cast<double>(config_steps(cfg, R, H)) * cfg.G * per_step * factor;
}

// Long reads: a read longer than its haplotype by more than kDirectDoubleExcess bases
// aligns with at least that many insertions, each at most the larger of the insertion
// gap-open and gap-continuation probabilities (0.1 at the usual Q10 continuation), so
// its likelihood lies far below float's range. Bands of at most kRescaleRows rows keep
// each band within range (the float pass rescales boundary rows, pairhmm_kernels.cuh),
// so the dispatcher gives such pairs those shapes while their boundary rows fit shared
// memory (haplotypes up to ~1,300 bases; beyond, many short bands through global memory
// would cost more than double). In any other shape they skip the float pass, which would
// only queue them for double. Either way the result is the exact one; only the time
// differs.
constexpr int kDirectDoubleExcess = 80;
using detail::kRescaleRows;
bool long_read(int R, int H) { return R - H > kDirectDoubleExcess; }
bool rescales(Config cfg) { return !cfg.block && cfg.G * cfg.RPL <= kRescaleRows; }
bool direct_double(int R, int H, int cfg) { return long_read(R, H) && !rescales(kConfigs[cfg]); }

// The cheapest shape for a pair. It depends on the pair (its lengths, whether its gaps
// are uniform) and the device alone, never on its batch: shapes round float's last bits
// differently, so a choice by the batch's size (latency-bound small batches took other
// shapes) made a pair's likelihood depend on the window it came in with (`call --device
// all` wrote a QUAL 0.001 apart at a part's start). Small batches are rare in calling
// (a window is ~10^10 cells); they lose ~0.02 ms. `uniform_gap`: the read has one gap
// continuation (> Q0) at every base. A forced shape that needs it falls back to the same
// lanes with 8 rows.
int pick_config(int R, int H, bool uniform_gap, const LaunchEnv& env) {
  if (env.forced_config >= 0) {
    const Config f = kConfigs[env.forced_config];
    if (uniform_gap || !needs_uniform_gap(f)) return env.forced_config;
    for (int k = 0; k < static_cast<int>(kConfigs.size()); ++k) {
      if (kConfigs[k].G == f.G && kConfigs[k].RPL == 8 && !kConfigs[k].block) return k;
    }
  }
  bool only_rescaling = false;
  if (long_read(R, H)) {
    for (const Config& cfg : kConfigs) {
      only_rescaling |= rescales(cfg) && boundary_in_shared(cfg, H, sizeof(float), env.shared_limit);
    }
  }
  // A pair that scales its lanes would do so or not by its warp-mates' bands (pairhmm_kernel).
  const bool alone_in_warp = uniform_gap && scales_lanes(R, H);
  int best = 0;
  double best_cost = HUGE_VAL;
  for (size_t k = 0; k < kConfigs.size(); ++k) {
    const Config cfg = kConfigs[k];
    if (only_rescaling && !rescales(cfg)) continue;
    if (!uniform_gap && needs_uniform_gap(cfg)) continue;
    if (alone_in_warp && needs_uniform_gap(cfg) && cfg.G < 32) continue;
    const double cost = config_cost(cfg, R, H, env.shared_limit);
    if (cost < best_cost) best = static_cast<int>(k), best_cost = cost;
  }
  return best;
}

// Lets a kernel use more than 48 KB of dynamic shared memory: once per kernel and device
// (the attribute is the current device's; the call costs host time on every launch).
template <auto Kernel>
void allow_shared(size_t limit) {
  static std::mutex m;
  static std::vector<int> done;  // devices
  int device = 0;
  GATEMAP_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(m);
  if (std::find(done.begin(), done.end(), device) != done.end()) return;
  GATEMAP_CUDA_CHECK(
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)));
  done.push_back(device);
}

template <int G, int RPL, typename T>
void launch(const DeviceChunk& c, TaskList tl, int max_hap, int max_read, bool tristate, KernelOut out,
            gpu::DeviceBuffer<unsigned char>& scratch, const LaunchEnv& env, cudaStream_t stream) {
  if (tl.count == 0) return;
  constexpr int kGroups = warp_kernel_threads(RPL) / G;
  constexpr Config cfg{G, RPL};
  const bool multi_band = max_read > G * RPL;
  const int64_t slot = multi_band ? static_cast<int64_t>(max_hap + 1) : 0;
  const size_t boundary = boundary_bytes(cfg, max_hap, sizeof(T));
  int blocks = (tl.count + kGroups - 1) / kGroups;
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
  if (dyn_shared > 48 * 1024) allow_shared<pairhmm_kernel<G, RPL, T>>(env.shared_limit);
  if (tl.count_d) blocks = std::max(1, std::min(blocks, 2 * env.sm_count));  // the count is on the device; usually 0
  pairhmm_kernel<G, RPL, T><<<blocks, warp_kernel_threads(RPL), dyn_shared, stream>>>(c, tl, tristate, bnd, out);
  GATEMAP_CUDA_CHECK(cudaGetLastError());
}

// One pair per block of warps, its bands side by side; pairs whose haplotype does not
// fit the block's shared memory take the warp kernel (global boundaries).
template <int RPL, typename T>
void launch_block(const DeviceChunk& c, TaskList tl, int max_hap, int max_read, bool tristate, KernelOut out,
                  gpu::DeviceBuffer<unsigned char>& scratch, const LaunchEnv& env, cudaStream_t stream) {
  if (tl.count == 0) return;
  constexpr Config cfg{32, RPL, true};
  const size_t dyn_shared = prior_bytes(cfg, sizeof(T)) + boundary_bytes(cfg, max_hap, sizeof(T));
  if (dyn_shared > env.shared_limit) {
    launch<32, RPL, T>(c, tl, max_hap, max_read, tristate, out, scratch, env, stream);
    return;
  }
  if (dyn_shared > 48 * 1024) allow_shared<pairhmm_block_kernel<RPL, T>>(env.shared_limit);
  int blocks = tl.count;
  if (tl.count_d) blocks = std::max(1, std::min(blocks, 4 * env.sm_count));  // the count is on the device
  pairhmm_block_kernel<RPL, T><<<blocks, kThreads, dyn_shared, stream>>>(c, tl, tristate, max_hap, out);
  GATEMAP_CUDA_CHECK(cudaGetLastError());
}

using Launcher = void (*)(const DeviceChunk&, TaskList, int, int, bool, KernelOut, gpu::DeviceBuffer<unsigned char>&,
                          const LaunchEnv&, cudaStream_t);

// The block kernel in double for a few long pairs: 4 rows per lane while the read fits
// its 4 warps in one round (a step of 4 double rows is shorter), 8 beyond.
void launch_block_double(const DeviceChunk& c, TaskList tl, int max_hap, int max_read, bool tristate, KernelOut out,
                         gpu::DeviceBuffer<unsigned char>& scratch, const LaunchEnv& env, cudaStream_t stream) {
  if (max_read <= kBlockWarps * 32 * 4) {
    launch_block<4, double>(c, tl, max_hap, max_read, tristate, out, scratch, env, stream);
  } else {
    launch_block<8, double>(c, tl, max_hap, max_read, tristate, out, scratch, env, stream);
  }
}

// The double pass of the tall shapes: a few underflowed pairs (all resident at once)
// take the block kernel, whose time is about one band's steps; many take the warp
// kernel, which keeps every warp busy. The count is on the device: both are launched,
// one returns at once.
template <int G, int RPL>
void launch_double_tall(const DeviceChunk& c, TaskList tl, int max_hap, int max_read, bool tristate, KernelOut out,
                        gpu::DeviceBuffer<unsigned char>& scratch, const LaunchEnv& env, cudaStream_t stream) {
  const int few = 2 * env.sm_count;  // double block kernels resident at once (2 per SM)
  if (!tl.count_d) {  // a range: the host knows its size
    if (tl.count <= few) {
      launch_block_double(c, tl, max_hap, max_read, tristate, out, scratch, env, stream);
    } else {
      launch<G, RPL, double>(c, tl, max_hap, max_read, tristate, out, scratch, env, stream);
    }
    return;
  }
  TaskList block = tl, warp = tl;
  block.run_max = few;
  warp.run_min = few + 1;
  launch_block_double(c, block, max_hap, max_read, tristate, out, scratch, env, stream);
  launch<G, RPL, double>(c, warp, max_hap, max_read, tristate, out, scratch, env, stream);
}

constexpr std::array<Launcher, kConfigs.size()> kFloatLaunchers{
    launch<4, 4, float>,  launch<8, 4, float>,  launch<16, 4, float>, launch<32, 4, float>,   launch<4, 8, float>,
    launch<8, 8, float>, launch<16, 8, float>, launch<32, 8, float>, launch_block<8, float>, launch<4, 16, float>,
    launch<8, 16, float>, launch<16, 16, float>, launch<32, 16, float>, launch<8, 32, float>,
    launch<16, 32, float>, launch<32, 32, float>};
// The double pass of a shape's underflowed pairs: the same lanes, 4 rows per lane
// (doubles take twice the registers), and for the tall shapes 8, where the pairs that
// underflow are long and, when few, their time is the serial steps of their bands. The
// 16- and 32-row shapes take the choice of the 8-row shape with their lanes.
constexpr std::array<Launcher, kConfigs.size()> kDoubleLaunchers{
    launch<4, 4, double>,  launch<8, 4, double>,  launch<16, 4, double>,
    launch<32, 4, double>, launch<4, 4, double>,  launch<8, 4, double>,
    launch_double_tall<16, 8>, launch_double_tall<32, 8>, launch_double_tall<32, 8>, launch<4, 4, double>,
    launch<8, 4, double>,  launch_double_tall<16, 8>, launch_double_tall<32, 8>, launch<8, 4, double>,
    launch_double_tall<16, 8>, launch_double_tall<32, 8>};

size_t align16(size_t n) { return (n + 15) & ~size_t(15); }

}  // namespace

// ---- the engine -------------------------------------------------------------------

namespace {
// One of the two chunks in flight: its streams, events and buffers.
struct ChunkSlot {
  gpu::Stream stream;
  gpu::Event start, stop, done, inputs_ready;
  // One stream per kernel shape, so that the shapes of a chunk run side by side
  // (small batches would otherwise wait for each shape's slowest warp in turn), each
  // with its own scratch for global band boundaries.
  std::array<gpu::Stream, kConfigs.size()> shape_stream;
  std::array<gpu::Event, kConfigs.size()> shape_mid, shape_done;
  std::array<gpu::DeviceBuffer<unsigned char>, kConfigs.size()> shape_scratch;
  std::array<bool, kConfigs.size()> shape_used{};
  gpu::PinnedBuffer<unsigned char> in_h;
  gpu::DeviceBuffer<unsigned char> in_d;
  gpu::PinnedBuffer<double> out_h;
  gpu::DeviceBuffer<double> out_d;
  gpu::DeviceBuffer<int> redo_d;  // one count per shape, then task ids (each shape's at its task range)
  bool busy = false;
  size_t first_pair = 0, n_pairs = 0;  // where this chunk's results go
};
}  // namespace

struct PairHmmGpu::Impl {
  std::array<ChunkSlot, 2> slots;
  LaunchEnv env;
  int device = 0;
};

PairHmmGpu::PairHmmGpu(int device) : impl_(nullptr) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));  // the streams and buffers live there
  impl_ = new Impl;
  impl_->device = device;
  const int dev = device;
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&impl_->env.sm_count, cudaDevAttrMultiProcessorCount, dev));
  int optin = 0;
  GATEMAP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  impl_->env.shared_limit = std::min<size_t>(kSharedWanted, static_cast<size_t>(optin));
  GATEMAP_CUDA_CHECK(cudaMemcpyToSymbol(c_ph2pr, detail::ph2pr_table(), 256 * sizeof(double)));
  // Both slots' buffers are made here, sized for chunks of a few million read bases
  // (larger ones grow them): pinning host memory takes tens of milliseconds, which a
  // caller can hide by making the engine while it reads its input.
  const size_t device_bytes = std::min(kStartDeviceBytes, gpu::mem_info().first / 16);
  for (ChunkSlot& s : impl_->slots) {
    for (auto& scratch : s.shape_scratch) scratch.resize(kScratchBytes / kConfigs.size());
    s.in_h.resize(kStartInputBytes);
    s.in_d.resize(device_bytes);
    s.out_h.resize(kStartPairs + kConfigs.size());
    s.out_d.resize(kStartPairs + 1);
    s.redo_d.resize(kStartPairs + kConfigs.size());
  }
}

PairHmmGpu::~PairHmmGpu() { delete impl_; }

int PairHmmGpu::kernel_shapes() { return static_cast<int>(kConfigs.size()); }
std::string PairHmmGpu::kernel_shape_name(int k) {
  return (kConfigs[k].block ? "B" : "G") + std::to_string(kConfigs[k].G) + "xR" + std::to_string(kConfigs[k].RPL);
}
void PairHmmGpu::force_kernel_shape(int k) { impl_->env.forced_config = k < kernel_shapes() ? k : -1; }

namespace {

// Groups [g0, g1) of the batch as one chunk: the host image of its input buffer.
struct ChunkPlan {
  size_t first_pair = 0, n_pairs = 0;
  int32_t read0 = 0, read1 = 0, hap0 = 0, hap1 = 0;
  std::array<int, kConfigs.size() + 1> config_begin{};  // task ranges per config
  std::array<int, kConfigs.size()> float_end{};         // ... of which those from here on skip the float pass
  std::array<int, kConfigs.size()> max_read{};
  std::vector<int32_t> task_hap_len;  // haplotype length of each task (sorted order)
  size_t off_tasks = 0, off_rbegin = 0, off_rlen = 0, off_hbegin = 0, off_hlen = 0, off_rq = 0, off_rowf = 0, off_rcode = 0,
         off_hcode = 0, bytes = 0;
  size_t read_bases = 0;
  int64_t cells = 0;                                 // sum of read x haplotype lengths over the chunk's pairs
  double bases_ms = 0, shapes_ms = 0, tasks_ms = 0;  // fill_chunk's parts (-v 4)
};

// Each read base's float row parameters from its qualities and code (the same numbers
// the host's row_params gives: double arithmetic without fused operations, then
// rounded), the code's bits in the last float, as the kernels read them.
__global__ void expand_rows_kernel(const uchar4* rq, const uint8_t* rcode, size_t n, bool tristate, float4* rowf) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uchar4 q = rq[i];
    const uint8_t code = rcode[i];
    const RowParams<float> p = detail::row_params<float>(c_ph2pr, q.x, q.y, q.z, q.w, code == kCodeN, tristate);
    rowf[2 * i] = make_float4(p.mm, p.gm, p.mx, p.my);
    rowf[2 * i + 1] = make_float4(p.g, p.p_match, p.p_mismatch, __int_as_float(static_cast<int>(code)));
  }
}

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
  plan.off_rcode = o, o = align16(o + read_bases);
  plan.off_hcode = o, o = align16(o + hap_bases + (n_haps + 1) * kHapPad + 16);
  // The per-base row parameters come last: the device computes them from the qualities
  // (expand_rows_kernel), so only the bytes before them are filled and copied.
  plan.off_rowf = o, o = align16(o + read_bases * 2 * sizeof(float4));
  plan.read_bases = read_bases;
  plan.bytes = o;
}

constexpr uint8_t kNoShape = 0xff;  // a shape table's empty slot
static_assert(kConfigs.size() < kNoShape, "a shape index must not look like an empty slot");

// The chunk's per-base qualities and codes (spread over the cores), and its haplotypes'
// codes, each after kHapPad padding codes, padding after the last. Returns per read
// whether its gap penalties are all one value (pick_config).
std::vector<uint8_t> fill_bases(const PairHmmBatch& b, const ChunkPlan& plan, unsigned char* h) {
  const int64_t rbase = plan.n_pairs ? b.read_begin[plan.read0] : 0;
  const int64_t hbase = plan.n_pairs ? b.hap_begin[plan.hap0] : 0;
  auto* rbegin = reinterpret_cast<uint32_t*>(h + plan.off_rbegin);
  auto* rlen = reinterpret_cast<int32_t*>(h + plan.off_rlen);
  auto* hbegin = reinterpret_cast<uint32_t*>(h + plan.off_hbegin);
  auto* hlen = reinterpret_cast<int32_t*>(h + plan.off_hlen);
  auto* rq = reinterpret_cast<uchar4*>(h + plan.off_rq);
  auto* rcode = h + plan.off_rcode;
  auto* hcode = h + plan.off_hcode;
  std::vector<uint8_t> uniform_gap(static_cast<size_t>(plan.read1 - plan.read0));
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t r = plan.read0; r < plan.read1; ++r) {
    const int64_t at = b.read_begin[r];
    const int64_t local = at - rbase;
    const uint8_t* gcp = b.gcp_q.data() + at;
    uniform_gap[r - plan.read0] =
        b.read_len[r] > 0 && gcp[0] > 0 && std::all_of(gcp, gcp + b.read_len[r], [&](uint8_t q) { return q == gcp[0]; });
    rbegin[r - plan.read0] = static_cast<uint32_t>(local);
    rlen[r - plan.read0] = b.read_len[r];
    for (int32_t i = 0; i < b.read_len[r]; ++i) {
      rq[local + i] = make_uchar4(b.base_q[at + i], b.ins_q[at + i], b.del_q[at + i], b.gcp_q[at + i]);
      rcode[local + i] = detail::base_code(b.read_bases[at + i]);
    }
  }
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
  return uniform_gap;
}

// The order of a chunk's tasks: by kernel shape, then longest haplotype first, so that
// the groups of a warp take equal steps and long ones can take their own launch. A
// counting sort in two passes over the pairs, each thread over a slice of the groups
// (contiguous, about equal pairs): each slice keeps its pairs' order, so the sort is the
// sequential (stable) one.
struct TaskOrder {
  const PairHmmBatch& b;
  size_t g0 = 0;
  int max_hap = 0;
  std::vector<int32_t> hap_rank{-1};  // per length: its rank among the chunk's haplotype lengths, longest first
  size_t n_keys = 1, n_all = 0;
  std::vector<size_t> pair_at;  // index of each group's first pair
  std::vector<size_t> slice;    // thread t's groups: [slice[t], slice[t + 1])
  int T = 1;

  TaskOrder(const PairHmmBatch& batch, size_t first, size_t last, size_t n_pairs) : b(batch), g0(first) {
    // Lengths no haplotype has take no key (the prefix pass walks every key for every thread).
    for (size_t g = first; g < last; ++g) {
      const auto& gr = b.groups[g];
      for (int32_t k = gr.first_hap; k < gr.first_hap + gr.n_haps && gr.n_reads; ++k) {
        const auto H = static_cast<size_t>(b.hap_len[k]);
        if (H >= hap_rank.size()) hap_rank.resize(H + 1, -1);
        hap_rank[H] = 0;
      }
    }
    max_hap = static_cast<int>(hap_rank.size()) - 1;
    int32_t n_lengths = 0;
    for (int H = max_hap; H >= 0; --H) {
      if (hap_rank[H] >= 0) hap_rank[H] = n_lengths++;
    }
    n_keys = static_cast<size_t>(std::max(n_lengths, 1));
    n_all = 2 * kConfigs.size() * n_keys;
    const size_t n_groups = last - first;
    pair_at.assign(n_groups + 1, 0);
    for (size_t g = 0; g < n_groups; ++g) {
      pair_at[g + 1] = pair_at[g] + static_cast<size_t>(b.groups[first + g].n_reads) * b.groups[first + g].n_haps;
    }
    T = static_cast<int>(std::max<size_t>(1, std::min<size_t>(omp_get_max_threads(), n_groups)));
    slice.assign(T + 1, n_groups);
    for (int t = 0; t < T; ++t) {
      slice[t] =
          static_cast<size_t>(std::lower_bound(pair_at.begin(), pair_at.end() - 1, n_pairs * t / T) - pair_at.begin());
    }
  }
  // key = (shape * 2 + direct_double) * n_keys + the rank of H
  size_t key(int R, int H, int cfg) const {
    return (2 * cfg + (direct_double(R, H, cfg) ? 1 : 0)) * n_keys + static_cast<size_t>(hap_rank[H]);
  }
  template <class Fn>
  void for_slice_pairs(int t, Fn&& fn) const {
    for (size_t g = slice[t]; g < slice[t + 1]; ++g) {
      const auto& gr = b.groups[g0 + g];
      size_t pi = pair_at[g];
      for (int32_t r = gr.first_read; r < gr.first_read + gr.n_reads; ++r) {
        for (int32_t k = gr.first_hap; k < gr.first_hap + gr.n_haps; ++k) fn(r, k, pi++);
      }
    }
  }
};

// Each pair's kernel shape (pair_shape) and each thread's count of pairs per key
// (at_key); plan.max_read per shape. A pair's shape depends only on (R, H, uniform gap):
// picked once per distinct triple and thread.
void pick_shapes(const PairHmmBatch& b, const TaskOrder& order, const std::vector<uint8_t>& uniform_gap,
                 const LaunchEnv& env, ChunkPlan& plan, std::vector<uint8_t>& pair_shape,
                 std::vector<std::vector<int64_t>>& at_key) {
  const int T = order.T;
  pair_shape.assign(plan.n_pairs, 0);
  at_key.assign(T, std::vector<int64_t>(order.n_all, 0));
  std::vector<std::array<int, kConfigs.size()>> max_read(T);
  // Reads shorter than kTableReads look their shape up in a table per thread indexed by
  // (R, H, u) (one load a pair), while it stays under 4 MiB; other pairs in the memo.
  constexpr int kTableReads = 512;
  const size_t h_dim = static_cast<size_t>(order.max_hap) + 1;
  const size_t table_size = static_cast<size_t>(kTableReads) * h_dim * 2;
  const bool use_table = table_size <= (size_t{4} << 20);
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num();
    std::unordered_map<uint64_t, uint8_t> memo;
    std::vector<uint8_t> table(use_table ? table_size : 0, kNoShape);
    max_read[t].fill(0);
    order.for_slice_pairs(t, [&](int32_t r, int32_t k, size_t pi) {
      const int R = b.read_len[r], H = b.hap_len[k], u = uniform_gap[r - plan.read0];
      int cfg;
      if (use_table && R < kTableReads) {
        uint8_t& slot = table[(static_cast<size_t>(R) * h_dim + static_cast<size_t>(H)) * 2 + static_cast<size_t>(u)];
        if (slot == kNoShape) slot = static_cast<uint8_t>(pick_config(R, H, u != 0, env));
        cfg = slot;
      } else {
        const uint64_t m =
            (static_cast<uint64_t>(R) << 33) | (static_cast<uint64_t>(H) << 1) | static_cast<uint64_t>(u);
        auto it = memo.find(m);
        if (it == memo.end())
          it = memo.emplace(m, static_cast<uint8_t>(pick_config(R, H, u != 0, env))).first;
        cfg = it->second;
      }
      pair_shape[pi] = static_cast<uint8_t>(cfg);
      ++at_key[t][order.key(R, H, cfg)];
      max_read[t][cfg] = std::max(max_read[t][cfg], R);
    });
  }
  plan.max_read.fill(0);
  for (int t = 0; t < T; ++t) {
    for (size_t c = 0; c < kConfigs.size(); ++c) plan.max_read[c] = std::max(plan.max_read[c], max_read[t][c]);
  }
}

// The tasks written in key order (keys in order, threads in order within a key), and
// where each shape's segment (float, then direct double) begins and ends.
void place_tasks(const PairHmmBatch& b, const TaskOrder& order, const std::vector<uint8_t>& pair_shape,
                 std::vector<std::vector<int64_t>>& at_key, ChunkPlan& plan, unsigned char* h) {
  const int T = order.T;
  std::vector<int64_t> key_end(order.n_all);
  int64_t running = 0;
  for (size_t kk = 0; kk < order.n_all; ++kk) {
    for (int t = 0; t < T; ++t) {
      const int64_t n = at_key[t][kk];
      at_key[t][kk] = running;
      running += n;
    }
    key_end[kk] = running;
  }
  auto* tasks = reinterpret_cast<int4*>(h + plan.off_tasks);
  plan.task_hap_len.resize(plan.n_pairs);
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num();
    order.for_slice_pairs(t, [&](int32_t r, int32_t k, size_t pi) {
      const int R = b.read_len[r], H = b.hap_len[k], cfg = pair_shape[pi];
      const int64_t pos = at_key[t][order.key(R, H, cfg)]++;
      tasks[pos] = make_int4(r - plan.read0, k - plan.hap0, static_cast<int>(pi), 0);
      plan.task_hap_len[pos] = H;
    });
  }
  // A segment (shape, direct double) ends where its last key (the shortest H) does.
  const size_t n_keys = order.n_keys;
  size_t at = 0;
  for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
    plan.config_begin[cfg] = static_cast<int>(at);
    plan.float_end[cfg] = static_cast<int>(key_end[2 * cfg * n_keys + n_keys - 1]);
    at = static_cast<size_t>(key_end[(2 * cfg + 1) * n_keys + n_keys - 1]);
  }
  plan.config_begin[kConfigs.size()] = static_cast<int>(at);
}

// Writes the chunk's input image: bases, then the tasks sorted (TaskOrder).
void fill_chunk(const PairHmmBatch& b, size_t g0, size_t g1, const LaunchEnv& env, ChunkPlan& plan, unsigned char* h) {
  log::Stopwatch clock;
  const auto lap = [&clock] { return 1e3 * clock.lap(); };  // milliseconds
  const std::vector<uint8_t> uniform_gap = fill_bases(b, plan, h);
  plan.bases_ms = lap();
  const TaskOrder order(b, g0, g1, plan.n_pairs);
  std::vector<uint8_t> pair_shape;
  std::vector<std::vector<int64_t>> at_key;
  pick_shapes(b, order, uniform_gap, env, plan, pair_shape, at_key);
  plan.shapes_ms = lap();
  place_tasks(b, order, pair_shape, at_key, plan, h);
  plan.tasks_ms = lap();
}

// The batch in chunks, bounded in pairs and cells so that two fit on the card and
// copies overlap kernels: groups taken until a chunk is full, at least one each. Every
// chunk is planned first, so that both slots' buffers are sized once for the largest:
// growing pinned memory chunk after chunk pinned pages again each time, and freeing
// device memory waits for the other slot's kernels.
struct ChunkPlans {
  std::vector<std::pair<size_t, size_t>> spans;  // [g, g1) of each chunk
  std::vector<ChunkPlan> plans;
  size_t in_h_bytes = 0, in_d_bytes = 0, most_pairs = 0;
};

ChunkPlans plan_chunks(const PairHmmBatch& batch, size_t max_pairs, int64_t max_cells) {
  ChunkPlans out;
  for (size_t g = 0, first_pair = 0; g < batch.groups.size();) {
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
    out.plans.emplace_back();
    ChunkPlan& plan = out.plans.back();
    plan_chunk(batch, g, g1, first_pair, plan);
    plan.cells = cells;  // a group's cells: its reads' bases x its haplotypes' bases
    out.in_h_bytes = std::max(out.in_h_bytes, plan.off_rowf);  // the row parameters after it are made on the device
    out.in_d_bytes = std::max(out.in_d_bytes, plan.bytes);
    out.most_pairs = std::max(out.most_pairs, plan.n_pairs);
    out.spans.emplace_back(g, g1);
    first_pair += plan.n_pairs;
    g = g1;
  }
  return out;
}

// A filled chunk onto the device and through the kernels on its slot's streams, its
// results copied back behind them (s.done). Returns the pairs sent to double directly.
int64_t launch_chunk(ChunkSlot& s, const ChunkPlan& plan, const PairHmmOptions& opt, const LaunchEnv& env) {
  int64_t direct = 0;
  const cudaStream_t st = s.stream.get();
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.in_d.data(), s.in_h.data(), plan.off_rowf, cudaMemcpyHostToDevice, st));
  if (plan.read_bases) {
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<size_t>((plan.read_bases + threads - 1) / threads, 65535));
    expand_rows_kernel<<<blocks, threads, 0, st>>>(reinterpret_cast<const uchar4*>(s.in_d.data() + plan.off_rq),
                                                   s.in_d.data() + plan.off_rcode, plan.read_bases, opt.tristate,
                                                   reinterpret_cast<float4*>(s.in_d.data() + plan.off_rowf));
    GATEMAP_CUDA_CHECK(cudaGetLastError());
  }
  GATEMAP_CUDA_CHECK(cudaMemsetAsync(s.redo_d.data(), 0, kConfigs.size() * sizeof(int), st));
  unsigned char* d = s.in_d.data();
  DeviceChunk c{reinterpret_cast<const int4*>(d + plan.off_tasks), reinterpret_cast<const uint32_t*>(d + plan.off_rbegin),
                reinterpret_cast<const int32_t*>(d + plan.off_rlen), reinterpret_cast<const uint32_t*>(d + plan.off_hbegin),
                reinterpret_cast<const int32_t*>(d + plan.off_hlen), reinterpret_cast<const uchar4*>(d + plan.off_rq),
                d + plan.off_rcode, reinterpret_cast<const float4*>(d + plan.off_rowf), d + plan.off_hcode};
  s.start.record(st);
  s.inputs_ready.record(st);
  constexpr int kCounts = static_cast<int>(kConfigs.size());
  // Every shape's float pass is submitted before any double pass: a small batch's time
  // is the slowest shape's pair latency, and its kernel should not wait for the host
  // to enqueue the other shapes' double passes first.
  for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
    const int begin = plan.config_begin[cfg], end = plan.config_begin[cfg + 1];
    s.shape_used[cfg] = begin != end;
    if (begin == end) continue;
    const cudaStream_t ss = s.shape_stream[cfg].get();
    GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(ss, s.inputs_ready.get(), 0));
    const KernelOut ko{s.out_d.data(), s.redo_d.data() + kCounts + begin, s.redo_d.data() + cfg};
    // Tasks whose boundary rows do not fit shared memory (the longest haplotypes,
    // first in the order) take a launch of their own with global boundaries. Tasks
    // from float_end on go to double directly (direct_double).
    const int float_end = plan.float_end[cfg];
    int split = begin;
    while (split < float_end &&
           !boundary_in_shared(kConfigs[cfg], plan.task_hap_len[split], sizeof(float), env.shared_limit)) {
      ++split;
    }
    if (split > begin) {
      kFloatLaunchers[cfg](c, TaskList{begin, split - begin}, plan.task_hap_len[begin], plan.max_read[cfg],
                           opt.tristate, ko, s.shape_scratch[cfg], env, ss);
    }
    if (float_end > split) {
      kFloatLaunchers[cfg](c, TaskList{split, float_end - split}, plan.task_hap_len[split], plan.max_read[cfg],
                           opt.tristate, ko, s.shape_scratch[cfg], env, ss);
    }
    s.shape_mid[cfg].record(ss);
  }
  for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
    const int begin = plan.config_begin[cfg], end = plan.config_begin[cfg + 1];
    if (begin == end) continue;
    const cudaStream_t ss = s.shape_stream[cfg].get();
    // In double: the tasks sent there directly, then those the float pass queued (their
    // count is on the device; no more than the float pass had).
    const int float_end = plan.float_end[cfg];
    const KernelOut kd{s.out_d.data(), nullptr, nullptr};
    const int max_hap = std::max(plan.task_hap_len[begin], end > float_end ? plan.task_hap_len[float_end] : 0);
    kDoubleLaunchers[cfg](c, TaskList{float_end, end - float_end}, max_hap, plan.max_read[cfg], opt.tristate, kd,
                          s.shape_scratch[cfg], env, ss);
    kDoubleLaunchers[cfg](c, TaskList{0, float_end - begin, s.redo_d.data() + kCounts + begin, s.redo_d.data() + cfg},
                          max_hap, plan.max_read[cfg], opt.tristate, kd, s.shape_scratch[cfg], env, ss);
    direct += end - float_end;
    s.shape_done[cfg].record(ss);
    GATEMAP_CUDA_CHECK(cudaStreamWaitEvent(st, s.shape_done[cfg].get(), 0));
  }
  s.stop.record(st);
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.out_h.data(), s.out_d.data(), plan.n_pairs * sizeof(double),
                                     cudaMemcpyDeviceToHost, st));
  GATEMAP_CUDA_CHECK(cudaMemcpyAsync(s.out_h.data() + plan.n_pairs, s.redo_d.data(), kConfigs.size() * sizeof(int),
                                     cudaMemcpyDeviceToHost, st));
  s.done.record(st);
  return direct;
}

}  // namespace

void PairHmmGpu::compute(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
                         PairHmmStats* stats) {
  const log::Stopwatch t0;
  log10_lik.assign(batch.pair_count(), 0.0);
  Impl& im = *impl_;
  GATEMAP_CUDA_CHECK(cudaSetDevice(im.device));  // the calling thread's device
  // Chunks bounded in pairs and cells, so two fit on the card and copies overlap kernels.
  const auto [free_b, total_b] = gpu::mem_info();
  (void)total_b;
  const size_t max_pairs = std::min<size_t>(size_t(1) << 22, free_b / 8 / 64);
  double kernel_ms = 0, double_ms = 0, pack_ms = 0, wait_ms = 0, bases_ms = 0, shapes_ms = 0, tasks_ms = 0;
  int64_t n_double = 0, direct_double = 0;
  int next_slot = 0;

  auto finish = [&](ChunkSlot& s) {
    if (!s.busy) return;
    const log::Stopwatch t_wait;
    s.done.sync();
    wait_ms += t_wait.ms();
    kernel_ms += gpu::Event::elapsed_ms(s.start, s.stop);
    for (size_t cfg = 0; cfg < kConfigs.size(); ++cfg) {
      if (s.shape_used[cfg]) double_ms += gpu::Event::elapsed_ms(s.shape_mid[cfg], s.shape_done[cfg]);
    }
    std::copy(s.out_h.data(), s.out_h.data() + s.n_pairs, log10_lik.begin() + s.first_pair);
    int redo[kConfigs.size()];
    std::memcpy(redo, s.out_h.data() + s.n_pairs, sizeof(redo));
    for (int r : redo) n_double += r;
    s.busy = false;
  };

  ChunkPlans chunks = plan_chunks(batch, max_pairs, kMaxChunkCells);
  std::vector<ChunkPlan>& plans = chunks.plans;
  const double plan_ms = t0.ms();
  const log::Stopwatch t_size;
  for (ChunkSlot& s : im.slots) {
    if (s.busy) s.done.sync(), s.busy = false;  // a chunk of a call that failed: its results are dropped
    for (auto& scratch : s.shape_scratch) scratch.resize(kScratchBytes / kConfigs.size());
    s.in_h.resize(chunks.in_h_bytes);
    s.in_d.resize(chunks.in_d_bytes);
    s.out_h.resize(chunks.most_pairs + kConfigs.size());  // results, then the shapes' double counts (as ints)
    s.out_d.resize(chunks.most_pairs + 1);
    s.redo_d.resize(chunks.most_pairs + kConfigs.size());
  }
  const double size_ms = t_size.ms();
  for (size_t chunk = 0; chunk < plans.size(); ++chunk) {
    const auto [g, g1] = chunks.spans[chunk];
    ChunkPlan& plan = plans[chunk];
    const size_t first_pair = plan.first_pair;
    ChunkSlot& s = im.slots[next_slot];
    next_slot ^= 1;
    finish(s);  // its pinned buffers are about to be reused
    const log::Stopwatch t_pack;
    fill_chunk(batch, g, g1, im.env, plan, s.in_h.data());
    pack_ms += t_pack.ms();
    bases_ms += plan.bases_ms, shapes_ms += plan.shapes_ms, tasks_ms += plan.tasks_ms;
    direct_double += launch_chunk(s, plan, opt, im.env);
    s.busy = true;
    s.first_pair = first_pair;
    s.n_pairs = plan.n_pairs;
  }
  finish(im.slots[0]);
  finish(im.slots[1]);
  log::debug("pairhmm", std::to_string(plans.size()) + " chunks: results zeroed and chunks planned in " +
                            std::to_string(plan_ms) + " ms, buffers sized in " + std::to_string(size_ms) +
                            " ms, packed in " + std::to_string(pack_ms) + " ms (bases " + std::to_string(bases_ms) +
                            ", shapes " + std::to_string(shapes_ms) + ", tasks " + std::to_string(tasks_ms) +
                            "), waited " + std::to_string(wait_ms) + " ms for the GPU");
  if (stats) {
    stats->pairs += static_cast<int64_t>(log10_lik.size());
    stats->cells += batch.cell_count();
    stats->double_pairs += n_double + direct_double;
    stats->kernel_ms += kernel_ms;
    stats->double_kernel_ms += double_ms;
    stats->pack_ms += pack_ms;
    stats->total_ms += t0.ms();
  }
}

}  // namespace gatemap::caller::pairhmm
