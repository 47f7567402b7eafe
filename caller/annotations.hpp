#pragma once
// GATK's INFO annotations of a called site, for hard filtering as GATK's best practice
// does (QD < 2, FS > 60, SOR > 3, MQ < 40, MQRankSum < -12.5, ReadPosRankSum < -8 for
// SNPs). From the reads over the site: each read's allele (the informative-read rule of
// AD), strand, mapping quality and position in the read; the alternate alleles count as
// one, as GATK counts them.
//   QD   QUAL / the informative reads (AD's sum) of the samples with a non-reference genotype.
//   FS   Fisher's exact test (two-sided) of ref/alt reads by strand, -10 log10 p; the
//        table scaled down to 200 reads first (GATK's normalisation).
//   SOR  the symmetric odds ratio of that table with a pseudocount of 1 per cell:
//        ln(R + 1/R) + ln(min/max of the ref strands) - ln(min/max of the alt strands).
//   MQ   root mean square of the reads' mapping qualities.
//   MQRankSum, ReadPosRankSum, BaseQRankSum: the Mann-Whitney U test of alt against ref
//        reads (MQ; the site's distance from the read's nearer end, soft clips counted;
//        the base quality at the site) as a z-score (normal approximation, ties
//        corrected); only where both alleles have reads.
// Not done as GATK: QD above 35 is not jittered down to ~30.
#include <cmath>
#include <vector>

namespace gatemap::caller::detail {

struct ReadAtSite {
  int allele = -1;  // 0 ref, > 0 an alternate; -1 not informative
  bool reverse = false;
  int mapq = 0;
  int read_pos = 0;  // from the read's nearer end
  int base_q = -1;   // at the site; -1: none (the read is deleted there)
  bool in_non_ref_sample = true;  // its sample's genotype is not hom-ref (QD's reads)
};

struct SiteAnnotations {
  double qd = NAN, fs = 0, sor = 0, mq = 0;
  double mq_rank_sum = NAN, read_pos_rank_sum = NAN, base_q_rank_sum = NAN;  // NAN: not both alleles seen
  // The raw values a gVCF carries for joint genotyping (GATK's SB and RAW_MQandDP): the
  // strand table {ref forward, ref reverse, alt forward, alt reverse} and the sum of
  // squared mapping qualities over the reads.
  int strand_table[4] = {0, 0, 0, 0};
  double mq_squares = 0;
  int reads = 0;
  double excess_het = NAN, inbreeding_coeff = NAN;  // a cohort's (joint)
};

SiteAnnotations annotate_site(const std::vector<ReadAtSite>& reads, double qual);

// The pieces, for tests: table = {ref forward, ref reverse, alt forward, alt reverse}.
double fisher_strand(const int table[4]);
double strand_odds_ratio(const int table[4]);
double rank_sum_z(const std::vector<double>& alt, const std::vector<double>& ref);

}  // namespace gatemap::caller::detail
