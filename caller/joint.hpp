#pragma once
// gatemap joint: GATK GenotypeGVCFs for gatemap's gVCFs. Any number of single-sample
// gVCFs are read side by side by position (one record each in memory); wherever one holds
// a variant record, every sample is genotyped there from its PLs (a reference block's
// 0/0, 0/<NON_REF>, <NON_REF>/<NON_REF> standing for every alternate allele, an allele
// hint's PLs for the alleles it names; a deletion
// of the sample over the position as the `*` allele) with the cohort's population prior,
// as `call` genotypes several BAMs. QUAL, AC/AF/AN, ExcessHet, InbreedingCoeff (10 or
// more samples) from the cohort; FS/SOR/MQ from the samples' raw SB and RAW_MQandDP,
// rank sums their median.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "caller/detail.hpp"

namespace gatemap::caller {

struct JointOptions {
  std::vector<std::string> inputs;  // gVCFs (.g.vcf.gz, .g.vcf, .bcf), one sample each
  std::string reference;            // FASTA the gVCFs were called against (its .fai)
  std::string output = "-";
  int threads = 1;
  double min_qual = 10, min_qd = 1;  // as call's
  double het_snp = 1e-3, het_indel = 1.25e-4;
  std::string command_line, version;
};

struct JointStats {
  int64_t records = 0, sites = 0, calls = 0;
  double total_s = 0;
};

JointStats run_joint(const JointOptions& opt);

namespace detail {

// What one sample's gVCF says at a position.
struct GvcfEntry {
  enum class Kind { none, block, variant, spanning } kind = Kind::none;
  std::vector<std::string> alleles;  // variant, spanning: the record's REF, ALTs (<NON_REF> too)
  // A variant record of genotype 0/0: its alleles were seen, none called (a gatemap
  // gVCF's AlleleHint). It makes no site and adds no allele to one; at a site its PLs
  // say how the sample's reads favour each allele it names.
  bool hint = false;
  int64_t pos = 0;                   // variant, spanning: the record's position
  std::vector<int> pl, ad;           // as in the record (a block: 3 PLs, no AD)
  int sb[4] = {0, 0, 0, 0};
  int dp = 0;
  double mq_squares = 0;
  int mq_reads = 0;
  double mq_rank_sum = NAN, read_pos_rank_sum = NAN, base_q_rank_sum = NAN;
};

// The cohort's call at pos from each sample's entry, or false when no sample carries an
// alternate allele other than `*` at QUAL >= min_qual. `ref_at` gives the reference
// base at a position (to extend a shorter REF). Throws FormatError when the samples'
// REF alleles disagree.
bool joint_site(int64_t pos, const std::vector<GvcfEntry>& samples, const JointOptions& opt, SiteCall& call);

// GATK's cohort annotations from genotype counts (hom-ref, het, hom-alt; alternate
// alleles as one): ExcessHet, the phred-scaled mid-p-value of an exact Hardy-Weinberg
// test for excess heterozygosity, and InbreedingCoeff, 1 - observed / expected hets.
double excess_het(int hom_ref, int het, int hom_alt);
double inbreeding_coeff(int hom_ref, int het, int hom_alt);

}  // namespace detail
}  // namespace gatemap::caller
