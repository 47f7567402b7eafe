#pragma once
// sim/: synthetic genomes, diploid donors and Illumina-like reads with known truth,
// reproducible from a seed (same seed, same bytes). Positions are 0-based in memory;
// the truth written into read names is 1-based like SAM.
#include <cstdint>
#include <string>
#include <vector>

#include "io/reads/fasta.hpp"

namespace gatemap::sim {

struct GenomeOptions {
  int64_t length = 10000000;      // --length: total bases (ignored with like_grch37)
  int contigs = 4;                // --contigs
  double gc = 0.41;               // --gc
  bool like_grch37 = false;       // --like grch37: b37 names and lengths times `scale`
  double scale = 0.01;            // --scale
  double alu_fraction = 0.10;     // genome fraction in ~300 bp interspersed repeats
  double line_fraction = 0.12;    // genome fraction in ~6 kbp interspersed repeats
  double tandem_fraction = 0.03;  // microsatellites and tandem repeats
  double segdup_fraction = 0.04;  // segmental duplications (1-50 kbp, 1-5% divergence)
  double n_gap_fraction = 0.002;  // interior N runs (besides telomeres/centromeres)
  uint64_t seed = 1;              // --seed
  int threads = 1;                // -t (output does not depend on it)
};

// Contigs of the synthetic reference: repeats are soft-masked (lowercase), gaps are N.
std::vector<io::FastaRecord> simulate_genome(const GenomeOptions& opt);

// GRCh37 contig names and lengths (1..22, X, Y, MT, 59 GL000xxx.1).
const std::vector<std::pair<std::string, int64_t>>& grch37_contigs();

struct Variant {
  int32_t contig = 0;
  int64_t pos = 0;      // 0-based on the reference, VCF-style: ref/alt share the first base for indels
  std::string ref, alt;
  int genotype = 3;     // bit 0: on haplotype 1, bit 1: on haplotype 2 (3 = homozygous)
};

struct VariantOptions {
  double snp_rate = 1e-3;     // per base
  double indel_rate = 1.5e-4; // per base
  double hom_fraction = 0.33;
  int max_indel = 50;
  uint64_t seed = 2;
  int threads = 1;            // -t: contigs at once (the donor does not depend on it)
};

// A diploid donor: left-aligned, non-overlapping variants (sorted) and the two haplotypes.
struct Donor {
  std::vector<Variant> variants;
  std::vector<io::FastaRecord> hap[2];
};
Donor simulate_donor(const std::vector<io::FastaRecord>& ref, const VariantOptions& opt);
// Builds donor.hap[] from donor.variants (sorted by position within each contig,
// non-overlapping per haplotype), each haplotype of each contig on one of `threads`.
void apply_donor(const std::vector<io::FastaRecord>& ref, Donor& donor, int threads = 1);
// A donor from a VCF's first sample (phased or not: allele 1 of GT on haplotype 1).
// Records on unknown contigs, without genotype, symbolic or overlapping are skipped and counted.
Donor load_donor_vcf(const std::vector<io::FastaRecord>& ref, const std::string& path);
// Writes the truth VCF (one sample "donor", GT 0|1, 1|0 or 1|1).
void write_truth_vcf(const std::string& path, const std::vector<io::FastaRecord>& ref,
                     const std::vector<Variant>& variants, const std::string& command_line);

struct ReadOptions {
  int64_t n_fragments = 100000;  // -n: reads (single) or pairs
  int read_len = 150;            // -l
  bool paired = true;            // --single turns it off
  double insert_mean = 400;      // --insert
  double insert_sd = 50;         // --insert-sd
  double sub_rate = 0.002;       // mean substitution error rate (rises along the read)
  double indel_rate = 0.0002;    // indel error rate per base
  double n_rate = 0.0005;        // bases called N
  uint64_t seed = 3;
  bool keep_true_seq = false;    // fill SimRead::true_seq (for --truth-fastq)
};

// Truth of one read, as written into its name: contig, 1-based leftmost reference
// position of its first aligned base, strand, CIGAR against the reference.
struct ReadTruth {
  std::string contig;
  int64_t pos1 = 0;
  bool reverse = false;
  std::string cigar;
};

struct SimRead {
  std::string name, seq, qual;
  ReadTruth truth;
  int errors = 0;            // sequencing errors placed
  std::string true_seq;      // the read before errors, '-' for inserted bases (keep_true_seq only)
};

// Reads from the donor's haplotypes (or the reference when donor is null): fragments
// [first_fragment, first_fragment + count) of the run (count -1: up to opt.n_fragments).
// Fragment i's reads depend only on the seed and i, so any chunking gives the same reads.
// For pairs, out holds mate 1, mate 2, mate 1, ...; it is resized, and its strings'
// storage reused, so simulate in chunks into one vector. Throws when reads cannot be placed.
void simulate_reads(const std::vector<io::FastaRecord>& ref, const Donor* donor, const ReadOptions& opt,
                    std::vector<SimRead>& out, int64_t first_fragment = 0, int64_t count = -1);

// Read names: "<id>!<contig>!<pos1>!<+|->!<cigar>" per mate, mates joined by '!'.
std::string encode_truth_name(int64_t id, const ReadTruth& t1, const ReadTruth* t2);
// Parses a name written by encode_truth_name; mate is 1 or 2. False if it carries no truth.
bool decode_truth_name(const std::string& name, int mate, ReadTruth& out);

}  // namespace gatemap::sim
