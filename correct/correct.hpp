#pragma once
// gatemap correct: count k-mers over the reads, pick the solidity threshold, build the
// solid spectrum (Bloom filter or exact set), then correct every read on the GPU or
// the CPU twin and write FASTQ in input order (names, qualities and pairing kept;
// corrected bases keep their quality).
#include <cstdint>
#include <string>

#include "correct/kmer_correct.hpp"

namespace gatemap::correct {

struct CorrectRunOptions {
  std::string in1, in2;    // FASTQ (second file for pairs)
  std::string out1, out2;  // outputs ("-" = stdout for single files)
  int k = 21;
  uint32_t threshold = 0;        // solid when seen >= threshold times; 0: first valley of the histogram
  std::string spectrum = "bloom";  // bloom | exact
  double bloom_fpr = 1e-4;
  int max_corrections = 6;
  std::string backend = "auto";  // gpu | cpu | auto
  std::string device = "0";      // --device: 0, 0,1,... or all (each batch split between them)
  int threads = 0;
  size_t batch_reads = 500000;
  double keep_reads_gb = 4;      // reads kept in memory between the passes up to this size
};

struct CorrectSummary {
  int64_t reads = 0, reads_changed = 0, bases_changed = 0, uncorrectable = 0, too_long = 0;
  uint64_t kmers = 0, distinct_kmers = 0, solid_kmers = 0;
  uint32_t threshold = 0;
  size_t spectrum_bytes = 0;
  std::string backend;
  double count_s = 0, spectrum_s = 0, correct_s = 0, correct_kernel_ms = 0;
};

CorrectSummary run_correct(const CorrectRunOptions& opt);
std::string format_summary(const CorrectSummary& s);

// Builds the solid spectrum of a counted read set (shared by run_correct and tests).
class KmerCounter;
KmerSpectrum build_spectrum(const KmerCounter& counter, uint32_t threshold, const std::string& kind,
                                     double fpr);

}  // namespace gatemap::correct
