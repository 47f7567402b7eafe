#pragma once
// bench/: measurements behind docs/BENCHMARKS.md (never run as tests).
#include <cstdint>
#include <string>
#include <vector>

namespace gatemap::bench {

struct FilterBenchOptions {
  std::vector<int> lengths = {100, 150, 250};  // --lengths
  std::vector<int> edits = {2, 5, 10};         // --edits (throughput)
  int64_t pairs = 30000000;                    // --pairs per throughput setting
  int64_t accuracy_pairs = 1000000;            // --accuracy-pairs per set and setting (0: skip)
  int max_accuracy_edits = 10;                 // accuracy for e = 0..this
  int reps = 20;                               // --reps: timed repetitions (median reported)
  int64_t genome_bp = 20000000;                // --genome
  std::string backend = "both";                // --backend cpu|gpu|both
  std::string out;                             // -o: TSV (stdout when empty)
  int threads = 0;                             // -t (0: all cores)
  uint64_t seed = 1;
};

// GateKeeper accuracy against the banded edit distance the mapper verifies with, and
// throughput of the CPU twin and the GPU kernel (kernel time and whole filter time).
void run_filter_bench(const FilterBenchOptions& opt);

struct PairHmmBenchOptions {
  std::vector<int> sizes = {16, 32, 64, 128, 256, 512, 1024};  // equal read and haplotype lengths
  std::vector<int> long_read_haps = {16, 32, 64, 128};         // haplotype lengths with reads 10x longer
  int64_t gpu_cells = 4000000000;   // cells per GPU set
  int64_t cpu_cells = 200000000;    // cells per CPU set
  int reps = 10;                    // timed GPU repetitions (median)
  bool gpu = true, cpu = true;
  std::string file;                 // a PairHMM benchmark file to time (e.g. 10s.in)
  bool sweep = false;               // also time every kernel shape forced on every set
  int64_t check_pairs = 0;          // random pairs for the accuracy check (0: skip)
  std::string out;
  int threads = 0;
  uint64_t seed = 1;
};

// Pair-HMM GCUPS (GPU kernel and total, float CPU twin), a benchmark file's time, and
// the accuracy of both engines against the double oracle.
void run_pairhmm_bench(const PairHmmBenchOptions& opt);

// Reads FASTQ record by record on one thread, then in batches on all threads (two files:
// as pairs), and prints records/s and MB/s of uncompressed text for each.
void run_fastq_bench(const std::string& path1, const std::string& path2);

// BAM compression: libdeflate levels 1 and 6, gatemap's DEFLATE on the CPU and the GPU
// (best of `reps`), over the uncompressed bytes of `bam`.
void run_bgzf_bench(const std::string& bam, int threads, int reps);

}  // namespace gatemap::bench
