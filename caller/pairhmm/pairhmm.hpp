#pragma once
// Pair-HMM forward algorithm: log10 P(read | haplotype) for every (read, haplotype) pair
// of a batch, with the semantics of GATK's LoglessPairHMM (as in Intel GKL).
//
// Read positions i = 1..R, haplotype positions j = 1..H. Per read position, from Phred
// qualities (probability p(q) = 10^(-q/10)): e = p(base), a = p(insertion gap open),
// b = p(deletion gap open), g = p(gap continuation); transitions, computed in double as
// GATK does and then rounded to the working precision:
//   mm = 1 - (a + b)   gm = 1 - g   mx = a   xx = g   my = b   yy = g
// Emission prior: 1 - e when read[i] == hap[j] or either base is N; otherwise e / 3
// (GATK's tristate correction) or e with `tristate = false`.
//   M[i][j] = prior(i,j) * (mm_i * M[i-1][j-1] + gm_i * (X[i-1][j-1] + Y[i-1][j-1]))
//   X[i][j] = mx_i * M[i-1][j] + xx_i * X[i-1][j]        (insertion: a read base)
//   Y[i][j] = my_i * M[i][j-1] + yy_i * Y[i][j-1]        (deletion: a haplotype base)
// Row 0: M = X = 0, Y[0][j] = K / H for every j (the read may start anywhere on the
// haplotype); column 0: M = X = Y = 0 for i >= 1. Result: log10(sum_j M[R][j] + X[R][j])
// - log10(K). K = 2^120 in float and 2^1020 in double, the scale that keeps the values
// representable (GKL's constants).
// Float first (denormals flushed on the CPU, as GKL does; the last row summed in
// double); any pair whose scaled sum is below 1e-28 (GATK/GKL's threshold) is
// recomputed in double, since a float run underflows there. The float pass (GPU and CPU
// twin) also rescales its rows by powers of two, band by band (kept in the result), and
// on the GPU's 16/32-row shapes each lane within a band of a long read, so long reads
// whose likelihood lies below float's range finish in float; where it lies
// below double's range too, the result is -inf, as the double computation gives
// (detail::classify_float_sum in pairhmm_core.hpp).
// Qualities are used as given (callers apply GATK's capping, e.g. base quality < 18 -> 6,
// before building the batch).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu/device.hpp"

namespace gatemap::caller::pairhmm {

constexpr double kPairHmmUnderflow = 1e-28;  // scaled float sum below this -> double pass

// Reads, haplotypes and the groups that pair them. A group (one active region) pairs
// each of its reads with each of its haplotypes; results come back group by group,
// read-major (for each read, for each haplotype), which is the .out order of the
// PairHMM benchmark files.
struct PairHmmBatch {
  struct Group {
    int32_t first_read = 0, n_reads = 0;
    int32_t first_hap = 0, n_haps = 0;
  };
  std::vector<char> read_bases;                      // all reads, concatenated (A/C/G/T/N)
  std::vector<uint8_t> base_q, ins_q, del_q, gcp_q;  // Phred values, parallel to read_bases
  std::vector<int64_t> read_begin;
  std::vector<int32_t> read_len;
  std::vector<char> hap_bases;
  std::vector<int64_t> hap_begin;
  std::vector<int32_t> hap_len;
  std::vector<Group> groups;

  // Each returns the new item's index. Qualities are Phred values (not ASCII); a read
  // and its four quality strings must have equal lengths (checked).
  int32_t add_read(std::string_view bases, const std::vector<uint8_t>& base, const std::vector<uint8_t>& ins,
                   const std::vector<uint8_t>& del, const std::vector<uint8_t>& gcp);
  int32_t add_haplotype(std::string_view bases);
  void add_group(int32_t first_read, int32_t n_reads, int32_t first_hap, int32_t n_haps);

  size_t pair_count() const;
  // (read, haplotype) of every pair, in result order.
  std::vector<std::pair<int32_t, int32_t>> pairs() const;
  int64_t cell_count() const;  // sum of read length x haplotype length
  void clear() { *this = PairHmmBatch(); }
};

struct PairHmmOptions {
  bool tristate = true;  // mismatch prior e/3 (GATK); false gives e (the benchmark files)
};

// What a run did, for reports and benchmarks.
struct PairHmmStats {
  int64_t pairs = 0;
  int64_t cells = 0;
  int64_t double_pairs = 0;  // recomputed in double after a float underflow
  double kernel_ms = 0;         // GPU: kernel time from CUDA events (float and double passes)
  double double_kernel_ms = 0;  // GPU: of which the double pass
  double pack_ms = 0;           // GPU: host time building the chunks' input images
  double total_ms = 0;       // everything from the batch to results on the host
};

// The oracle: textbook full recurrence in double precision, one pair at a time.
double pairhmm_reference_pair(const PairHmmBatch& batch, int32_t read, int32_t hap, const PairHmmOptions& opt);
void pairhmm_reference(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik);

// The float CPU twin (OpenMP across pairs; double recomputation below the threshold).
void pairhmm_cpu(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
                 PairHmmStats* stats = nullptr);

// The GPU engine (throws Error in builds without CUDA). Keeps device buffers between
// calls; splits a large batch into chunks that fit and overlaps each chunk's copies
// with the previous chunk's kernels.
class PairHmmGpu {
 public:
  explicit PairHmmGpu(int device = 0);
  ~PairHmmGpu();
  PairHmmGpu(const PairHmmGpu&) = delete;
  PairHmmGpu& operator=(const PairHmmGpu&) = delete;
  void compute(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
               PairHmmStats* stats = nullptr);
  // Benchmarks only: run every pair with kernel shape k (0..kernel_shapes()-1), or -1
  // for the dispatcher's choice. Results are the same either way. The shapes of 16 and
  // 32 rows per lane take only reads with one gap continuation at every base; other
  // reads forced there take the 8-row shape with the same lanes.
  static int kernel_shapes();
  static std::string kernel_shape_name(int k);
  void force_kernel_shape(int k);

 private:
  struct Impl;
  Impl* impl_;
};

// One entry point for callers: the backend picked in one place.
class PairHmmEngine {
 public:
  // A GPU engine that cannot be made (no memory, no usable device) leaves the CPU twin,
  // said on stderr; so does a batch the GPU fails (gpu/fallback.hpp). One device: a
  // batch's numbers depend on its kernel shapes, chosen for the whole batch, so batches
  // are not split between GPUs (the caller gives each GPU parts of the genome instead).
  explicit PairHmmEngine(gpu::Backend backend, int device = 0);
  ~PairHmmEngine();
  gpu::Backend backend() const { return backend_; }
  void compute(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
               PairHmmStats* stats = nullptr);

 private:
  gpu::Backend backend_;
  std::unique_ptr<PairHmmGpu> gpu_;
};

// Groups [g0, g1) of a batch as a batch of their own (reads and haplotypes re-indexed).
PairHmmBatch sub_batch(const PairHmmBatch& batch, size_t g0, size_t g1);

// The PairHMM benchmark format (MauricioCarneiro/PairHMM test_data/*.in): test cases of
// "<R> <H>", R lines "bases quals ins dels gcp" (ASCII Phred+33), H haplotype lines.
// Each test case becomes one group. Throws FormatError naming the file and line.
void read_pairhmm_file(const std::string& path, PairHmmBatch& batch);

}  // namespace gatemap::caller::pairhmm
