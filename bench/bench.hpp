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

// Reads a FASTQ file on one thread and prints records/s and MB/s of uncompressed text.
void run_fastq_bench(const std::string& path);

}  // namespace gatemap::bench
