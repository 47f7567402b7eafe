#pragma once
// The `gatemap map` job: index + FASTQ(s) -> SAM/BAM, batch by batch, with progress
// on stderr and a final report (also as JSON with --stats).
#include <string>

#include "mapper/mapper.hpp"

namespace gatemap::mapper {

struct RunOptions {
  std::string index_path, reads1, reads2;
  std::string reference;          // -T: the FASTA of CRAM input and output
  bool cram_nm_md = true;         // CRAM output stores NM and MD (--cram-no-nm-md: left to readers to rebuild)
  bool interleaved = false;       // -p: reads1 holds pairs (mate 1, mate 2) among single reads, as bwa mem -p
  std::string output = "-";       // -o: SAM, or BAM by ".bam" suffix
  std::string read_group;         // -R
  std::string stats_path;         // --stats
  std::string command_line, version;
  size_t batch_reads = 100000;    // --batch: reads per batch (pairs count twice)
  size_t batch_bases = 0;         // -K: at most this many bases per batch, as bwa mem's -K (0: 1000 per read)
  bool sort = false;              // --sort: coordinate-sorted, indexed BAM
  size_t sort_memory = size_t{768} << 20;  // -m: sort buffer per thread, as samtools sort -m
  std::string tmp_dir;            // --tmp-dir: sorted runs (default: next to the output)
  bool markdup = false;           // --markdup: flag duplicates (0x400) as Picard MarkDuplicates
  int bam_level = -1;             // -l: BAM (and .sam.gz) compression level 0-9; -1: htslib's default (6)
  bool bgzf_gpu = false;          // --bgzf-gpu: BAM compressed on the GPU, without one by its CPU twin (io/deflate/bgzf_deflate.hpp)
  std::string filter = "auto";    // --filter auto|off (or gpu|cpu: on, and where it runs)
  std::string backend = "auto";   // --backend gpu|cpu|auto: where the filter runs
  std::string device = "0";       // --device: 0, 0,1,... or all
  size_t gpu_memory = 0;          // --gpu-mem: bytes of each GPU the run may use (0: all)
  // Lanes (mappers working at once, each with its share of -t): 0 gives one per GPU of
  // --device (one without a GPU). Tests set it to run several on the CPU.
  int lanes = 0;
  MapOptions map;
  Hardware hw;
  // The process ends after the run (the gatemap binary): the index, the mapper (its GPU
  // memory too) and the pooled records are left to the exit (common/leave_to_exit.hpp).
  bool leave_to_exit = false;
};

// Runs the whole job; returns the statistics. Throws on bad input or failed output.
MapStats run_mapping(RunOptions opt);

}  // namespace gatemap::mapper
