#pragma once
// eval/: scoring against simulated truth. Mapping (mapeval-style): a primary alignment
// is correct when on the true contig and strand with its leftmost aligned base within
// `tolerance` bp of where the truth places that read base (so soft clips are accounted
// for, even across an indel); reported per MAPQ threshold.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gatemap::eval {

struct MapqRow {
  int min_mapq = 0;
  int64_t mapped = 0;  // primary records mapped with MAPQ >= min_mapq
  int64_t wrong = 0;   // of those, not at the truth
};

struct MapEval {
  int64_t total = 0;     // primary records (one per read)
  int64_t unmapped = 0;
  int64_t no_truth = 0;  // names that carry no truth (not counted in rows)
  std::vector<MapqRow> rows;  // thresholds 60, 30, 20, 10, 1, 0
};

// Scores a SAM/BAM/CRAM whose read names carry sim truth. Throws IoError/FormatError.
// wrong_out: when given, one line per misplaced primary record (name, mate, MAPQ,
// where it was placed, where the truth puts it), for looking into them.
MapEval eval_map(const std::string& sam_path, int tolerance = 10, std::FILE* wrong_out = nullptr);
void print_map_eval(const MapEval& e, std::FILE* out);

// Variant calls against a truth VCF. Both sides are normalized against the reference
// (multi-allelics split, alleles trimmed and left-aligned, MNPs split into SNPs) and
// matched on CHROM/POS/REF/ALT; the genotype matches when the allele's copy number in
// the first sample's GT agrees.
struct VariantCounts {
  int64_t tp = 0, fp = 0, fn = 0, genotype_match = 0;
};
struct VcfEval {
  VariantCounts classes[2];  // SNP, INDEL
  int64_t skipped = 0;       // unknown contigs, symbolic alleles
};
// `bed` (optional): confident regions, as hap.py's -f: only variants whose reference
// allele lies inside one of them are scored, on both sides.
VcfEval eval_vcf(const std::string& truth_path, const std::string& calls_path, const std::string& ref_path,
                 bool pass_only = true, const std::string& bed = "");
void print_vcf_eval(const VcfEval& e, std::FILE* out);

// Error correction: reads before and after correction against their true sequences
// (same order, names and lengths; an inserted error base counts as true in the truth).
struct CorrectEval {
  int64_t reads = 0, bases = 0, errors_before = 0, errors_after = 0;
  int64_t fixed = 0, introduced = 0, changed = 0;
  int64_t reads_with_errors = 0, reads_fully_corrected = 0, reads_made_wrong = 0;
};
CorrectEval eval_correct(const std::string& original_path, const std::string& corrected_path,
                         const std::string& truth_path);
void print_correct_eval(const CorrectEval& e, std::FILE* out);

}  // namespace gatemap::eval
