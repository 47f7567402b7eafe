#pragma once
// gatemap call: germline SNPs and indels of one or more diploid samples in the manner of
// GATK HaplotypeCaller: active regions from per-position evidence of every sample's reads,
// candidate haplotypes from a local de Bruijn assembly of them, read x haplotype
// likelihoods from the pair-HMM batch engine (GPU or CPU twin), each sample's diploid
// genotype from its own reads with priors, VCF (a column per sample).
#include <cstdint>
#include <string>
#include <vector>

namespace gatemap::caller {

struct CallOptions {
  std::vector<std::string> inputs;  // coordinate-sorted BAM/SAM/CRAM, of one sample or several (@RG SM)
  std::string reference;            // FASTA (plain or gzip)
  std::string output = "-";         // VCF (.vcf.gz: bgzip)
  std::string backend = "auto";     // pair-HMM on gpu | cpu | auto
  std::string device = "0";         // --device: 0, 0,1,... or all (the genome called in parts, one GPU each)
  size_t gpu_memory = 0;            // --gpu-mem: bytes of each GPU the run may use (0: all)
  std::vector<std::string> intervals;  // -L: call only there (chr, chr:beg-end, BED files)
  bool gvcf = false;                   // --gvcf: reference blocks between the calls (-ERC GVCF)
  int threads = 0;
  int min_mapq = 20;                // reads below are not used
  int min_base_q = 10;              // bases below are not evidence of activity
  // --min-qual: calls below are not written. 10, not 20: at 10-15x, 2-of-8-read hets score
  // QUAL 5-20, and on the benchmark sets 10 matches bcftools' unfiltered precision/recall.
  double min_qual = 10;
  // Calls whose QD (QUAL over the informative reads) is below this are written with
  // FILTER LowQD: at 30x, 2-3 reads with the same error made QUAL 10-16 hets of QD < 1.
  double min_qd = 1;
  double het_snp = 1e-3, het_indel = 1.25e-4;  // priors (heterozygosity)
  int region_padding = 100;         // context added around active positions (>= the largest k)
  int max_region = 600;             // regions longer than this (padding included) are split
  int max_haplotypes = 16;
  int min_prune = 2;                // assembly edges seen fewer times are dropped
  // Reads of one sample starting at one position beyond this are left out (GATK's
  // --max-reads-per-alignment-start, 50): deep data's cost stays bounded; 0 keeps all.
  int max_reads_per_start = 50;
  int64_t window = 1000000;         // reads are processed in windows of this many bases
  std::string command_line, version;
  // Lanes calling parts of the genome at once: 0 gives one per GPU of --device (one on
  // the CPU). Tests set it to run several on the CPU.
  int lanes = 0;
  bool leave_to_exit = false;  // the process ends after the run (the gatemap binary): nothing is freed
};

struct CallStats {
  int64_t reads = 0, reads_filtered = 0, regions = 0, haplotypes = 0, pairs = 0, calls = 0;
  int64_t regions_unassembled = 0;  // no alternative assembled: haplotypes from the reads' alignments instead
  int64_t reads_downsampled = 0;    // left out: more than max_reads_per_start at their start
  int64_t regions_capped = 0;       // regions whose candidate haplotypes reached the cap
  std::string first_capped;         // the first of them, as contig:begin-end (1-based)
  double regions_s = 0, assembly_s = 0, pairhmm_s = 0, genotype_s = 0, total_s = 0;
  double batch_s = 0;       // building the pair-HMM batches (and gVCF confidence)
  double write_s = 0;       // waiting for the records' writer thread
  double reads_s = 0;       // moving reads into and out of the windows (waits included)
  double input_wait_s = 0;  // waiting for the input's reads (decoding behind the windows)
  double setup_s = 0;       // reference, input header and output opened, before the first window
  double engine_wait_s = 0;  // the first batch waiting for the pair-HMM engine (a GPU's start-up)
  double pairhmm_kernel_ms = 0;
  std::string backend;
  // Sums counts and times (several GPUs: their parts' times added up).
  CallStats& operator+=(const CallStats& o);
};

CallStats run_call(const CallOptions& opt);
std::string format_stats(const CallStats& s);

}  // namespace gatemap::caller
