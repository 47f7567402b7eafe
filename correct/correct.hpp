#pragma once
// gatemap correct: count k-mers over the reads (in a table bounded by --count-mem, on
// the GPU or the CPU), pick the solidity threshold, build the solid spectrum (Bloom
// filter or exact set), then correct every read on the GPU or
// the CPU twin and write FASTQ in input order (names, qualities and pairing kept;
// corrected bases keep their quality).
#include <cstdint>
#include <string>

#include "correct/kmer_correct.hpp"

namespace gatemap::correct {

struct CorrectRunOptions {
  std::string in1, in2;    // FASTQ (second file for pairs)
  std::string out1, out2;  // outputs ("-" = stdout for single files)
  std::string reference;   // -T: the FASTA a CRAM input is decoded against
  int k = 21;
  uint32_t threshold = 0;        // solid when seen >= threshold times; 0: first valley of the histogram
  std::string spectrum = "auto";  // auto | bloom | exact (count_pass.cpp: auto is exact up to 1 GiB)
  double bloom_fpr = 1e-4;
  int max_corrections = 6;
  std::string backend = "auto";  // gpu | cpu | auto
  std::string device = "0";      // --device: 0, 0,1,... or all (each batch split between them)
  size_t gpu_memory = 0;         // --gpu-mem: bytes of each GPU the run may use (0: all)
  int threads = 0;
  // A few batches are in flight (parsed, corrected, written); 0: 4096 reads per thread, at
  // least 8192 and at most 131072 (memory in step with the cores that use it).
  size_t batch_reads = 0;
  // Reads kept in memory between the passes up to this size; < 0: files are read again
  // (parsing reuses its memory: faster than keeping), other input kept up to 4 GB.
  double keep_reads_gb = -1;
  size_t count_mem = 0;  // bytes for the k-mer counts (0: half the GPU's free memory or half the RAM)
  // The first reading keeps the reads as the text the correction pass writes, up to this
  // size (correct/kept_text.hpp); < 0: a quarter of the RAM with the GPU, none on the CPU
  // (whose correction pass is bound by correcting, not by reading again).
  double keep_text_gb = -1;
  int gz_level = -1;  // -l: .gz output's compression level (-1: htslib's default, 6)
};

struct CorrectSummary {
  int64_t reads = 0, reads_changed = 0, bases_changed = 0, uncorrectable = 0, too_long = 0;
  uint64_t kmers = 0, distinct_kmers = 0, solid_kmers = 0;
  uint32_t threshold = 0;
  size_t spectrum_bytes = 0;
  size_t count_table_bytes = 0;  // the k-mer count table at its largest (GPU: device memory)
  int count_parts = 1;  // parts of the k-mer space counted one after another (memory budget)
  int read_passes = 0;  // readings of the input (kept reads replayed count too)
  std::string backend, count_backend;
  double count_s = 0, correct_s = 0, count_kernel_ms = 0, correct_kernel_ms = 0;
  // Where the time goes: waiting for the FASTQ parser (count pass; correction pass: the
  // correcting thread's wait for batches), the solid spectrum after counting, writing
  // the corrected reads (on a thread of its own, beside the correcting).
  double count_read_wait_s = 0, correct_read_wait_s = 0, spectrum_s = 0, write_s = 0;
};

CorrectSummary run_correct(const CorrectRunOptions& opt);
std::string format_summary(const CorrectSummary& s);

}  // namespace gatemap::correct
