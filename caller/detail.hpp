#pragma once
// Internal types and steps of the caller (one file per step), exposed for the tests.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "caller/annotations.hpp"

namespace gatemap::caller::detail {

struct AlignedRead {
  int64_t pos = 0, end = 0;       // reference span [pos, end) of the aligned bases
  std::string seq;
  std::vector<uint8_t> qual;      // Phred
  std::vector<uint32_t> cigar;    // htslib encoding
  int mapq = 0;
  bool reverse = false;
  int sample = 0;                 // index into the run's samples (@RG SM)
};

// The longest reference span of the reads: reads (sorted by start) that reach a position
// p start at or after p - longest_span.
int64_t longest_span(const std::vector<AlignedRead>& reads);

// Active positions -> regions: a core [core_begin, core_end) of active stretches
// (disjoint, sorted; sites are called there) inside [begin, end), the core padded for
// context (paddings of neighbours may overlap).
struct Region {
  int64_t begin = 0, end = 0;
  int64_t core_begin = 0, core_end = 0;
  // core_begin of the first region of its cluster: neighbours whose padded spans overlap
  // (a site there can come from either) are called together, in one window.
  int64_t cluster = 0;
};
std::vector<Region> find_regions(const std::string& ref, int64_t win_begin, int64_t win_end,
                                 const std::vector<AlignedRead>& reads, int min_base_q, int padding, int max_len,
                                 int n_samples = 1);

// The part of a read over [begin, end) of the reference (soft clips next to it included):
// bases and qualities, and where in the read it starts; empty when the read barely touches it.
void read_slice(const AlignedRead& r, int64_t begin, int64_t end, std::string& bases, std::vector<uint8_t>& quals,
                int* first_base = nullptr);
// The reference a read covers, its soft clips extending the alignment: [first, second).
std::pair<int64_t, int64_t> unclipped_span(const AlignedRead& r);

// Leaves at most `keep` reads of each sample among reads[first, end) (reads of one start
// position), chosen by a hash of their bases and qualities: the same reads in every run,
// whatever order the input gave them in. The others move to `removed`; the kept stay in
// order. Returns how many moved.
int64_t downsample_start(std::vector<AlignedRead>& reads, size_t first, int keep, std::vector<AlignedRead>& removed);

// Candidate haplotypes of a region (the reference first), from a de Bruijn graph of
// the reference and the read slices; k grows while the graph has a cycle. Empty when
// no k works. read_samples[r]: read r's sample (empty: one sample), for a cohort's pruning.
std::vector<std::string> assemble(const std::string& ref_region, const std::vector<std::string>& read_slices,
                                  const std::vector<std::vector<uint8_t>>& read_quals, int min_base_q,
                                  int min_prune, int max_haplotypes, const std::vector<int>& read_samples = {});

// Fallback when assembly finds no alternative: the reference plus the combinations of
// well-supported events that reads' own alignments carry together; empty when none.
std::vector<std::string> pileup_haplotypes(const std::string& ref_region, int64_t begin,
                                           const std::vector<const AlignedRead*>& reads, int min_base_q,
                                           int max_haplotypes);

// A difference between a haplotype and the reference, VCF-style (indels share their
// first base), left-aligned; pos is 0-based on the contig.
struct Event {
  int64_t pos = 0;
  std::string ref, alt;
  bool operator<(const Event& o) const {
    return pos != o.pos ? pos < o.pos : ref != o.ref ? ref < o.ref : alt < o.alt;
  }
  bool operator==(const Event& o) const { return pos == o.pos && ref == o.ref && alt == o.alt; }
};
std::vector<Event> haplotype_events(const std::string& ref_region, int64_t region_begin, const std::string& hap,
                                    const std::string& contig_seq);

// One sample's diploid genotype at a site. gt_a < 0: no read of the sample covers it (./.).
struct SampleCall {
  int gt_a = 0, gt_b = 0;
  int gq = 0, dp = 0;
  std::vector<int> pl, ad;
  // gVCF: PL over the alleles and <NON_REF> last, whose per-read likelihood is the second
  // best of the alleles' (GATK's rule); GT, GQ and QUAL do not change.
  std::vector<int> pl_non_ref;
};

// The genotypes of every sample at one site.
struct SiteCall {
  Event site;                        // pos and ref of the site; alleles below
  std::vector<std::string> alleles;  // [0] = ref
  double qual = 0;                   // -10 log10 P(every sample hom-ref | reads)
  int dp = 0;                        // reads over the site, all samples
  std::vector<SampleCall> samples;
  SiteAnnotations annotations;  // INFO's QD, FS, SOR, MQ, MQRankSum, ReadPosRankSum, BaseQRankSum
  bool any_non_ref() const {
    return std::any_of(samples.begin(), samples.end(), [](const SampleCall& s) { return s.gt_a > 0 || s.gt_b > 0; });
  }
};
// The genotypes of samples from their log10 likelihoods gl[s * G + g] (G genotypes of A
// alleles in VCF order), as genotype_site makes them: sets each sample's GT, GQ and PL
// (its dp, already set, 0 meaning no call) and qual; returns qual.
double genotype_samples(const std::vector<double>& gl, int A, double het, std::vector<SampleCall>& samples,
                        double& qual);
// lik[r * n_haps + h]; hap_allele[h] = allele index of haplotype h at this site;
// read_sample[r] the sample of read r (of n_samples; empty: all sample 0). Each sample's
// genotype from its own reads; with several samples the genotypes' prior is the
// population's (allele frequencies estimated from every sample, EM), QUAL the
// probability that no sample carries an alternate allele. read_alleles, if given, gets
// each read's allele by the informative-read rule of AD (-1: none).
SiteCall genotype_site(const std::vector<double>& lik, size_t n_reads, size_t n_haps,
                       const std::vector<int>& hap_allele, const std::vector<std::string>& alleles, double het,
                       bool with_non_ref = false, std::vector<int>* read_alleles = nullptr,
                       const std::vector<int>& read_sample = {}, int n_samples = 1);

// A region with its reads' slices and candidate haplotypes, ready for the pair-HMM.
struct RegionWork {
  Region region;
  std::vector<std::string> slices;
  std::vector<std::vector<uint8_t>> quals;
  // Per slice: the reference its read covers in the region, [first, second), soft clips
  // included (a site is genotyped from the reads that cover it).
  std::vector<std::pair<int64_t, int64_t>> spans;
  // Per slice: what the INFO annotations need of its read.
  struct SliceRead {
    int64_t pos = 0;                // the read's first aligned base
    std::vector<uint32_t> cigar;
    int length = 0;
    int mapq = 0;
    bool reverse = false;
    int sample = 0;
    int first = 0;                  // the read's base at the slice's first
  };
  std::vector<SliceRead> slice_reads;
  std::vector<std::string> haps;
  std::vector<std::vector<Event>> events;  // per haplotype
  int32_t group = -1;                      // in the pair-HMM batch
  bool assembled = true;                   // false: haplotypes from the reads' alignments
  bool capped = false;                     // the haplotypes reached the cap (more were possible)
};

// A region's sites: its haplotypes' events grouped by position.
std::map<int64_t, std::vector<Event>> region_sites(const std::vector<std::vector<Event>>& events);
// Where a site's reads must reach: its longest reference allele (an insertion's: its
// anchor and the base after); a read over [pos, site_end) is genotyped at the site.
int64_t site_end(int64_t pos, const std::vector<Event>& site_events);
// Leaves out of w the reads over none of its sites: no site would use their likelihoods
// (a region's padding holds about half its reads).
void keep_reads_over_sites(RegionWork& w);

// A called site and how far it lies outside its region's core (0: inside): where
// regions overlap, the call of the region nearest the site is kept.
struct SiteRecord {
  int64_t pos = 0;
  int64_t away = 0;
  SiteCall call;
};
// The non-reference sites of a region at or above min_qual; lik holds its read x
// haplotype likelihoods from index `at` on; het_snp/het_indel are the priors.
// n_samples: of the run (reads carry theirs).
std::vector<SiteRecord> call_sites(const RegionWork& w, const std::vector<double>& lik, size_t at,
                                   const std::string& contig_seq, double het_snp, double het_indel, double min_qual,
                                   bool with_non_ref = false, int n_samples = 1);

}  // namespace gatemap::caller::detail
