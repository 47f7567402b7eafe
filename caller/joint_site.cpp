// One site of `joint`: the samples' alleles merged onto the longest REF, each sample's
// PLs carried over to the merged genotypes, genotyped as `call` genotypes a cohort.
#include <algorithm>
#include <cmath>

#include "caller/gvcf.hpp"
#include "caller/joint.hpp"
#include "common/error.hpp"

namespace gatemap::caller::detail {

namespace {

constexpr const char* kNonRef = "<NON_REF>";

// VCF's index of genotype {a, b}.
int genotype_index(int a, int b) {
  if (a > b) std::swap(a, b);
  return b * (b + 1) / 2 + a;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// For each merged allele, the sample's allele standing for it.
std::vector<int> allele_map(const GvcfEntry& e, const std::vector<std::string>& merged, int64_t pos) {
  std::vector<int> map(merged.size(), 0);
  if (e.kind == GvcfEntry::Kind::block) {
    std::fill(map.begin() + 1, map.end(), 1);  // every alternate: <NON_REF>
    return map;
  }
  const int non_ref = static_cast<int>(std::find(e.alleles.begin(), e.alleles.end(), kNonRef) - e.alleles.begin());
  const std::string& ref = e.alleles[0];
  for (size_t k = 1; k < merged.size(); ++k) {
    map[k] = non_ref;
    if (e.kind == GvcfEntry::Kind::spanning) {
      if (merged[k] != "*") continue;
      // `*`: the sample's first allele that deletes pos.
      for (size_t a = 1; a < e.alleles.size(); ++a) {
        const std::string& alt = e.alleles[a];
        if (alt != kNonRef && alt.size() < ref.size() && e.pos + static_cast<int64_t>(alt.size()) <= pos) {
          map[k] = static_cast<int>(a);
          break;
        }
      }
      continue;
    }
    for (size_t a = 1; a < e.alleles.size(); ++a) {
      // The sample's alleles extended to the merged REF's length.
      if (e.alleles[a] != kNonRef && e.alleles[a] + merged[0].substr(ref.size()) == merged[k]) map[k] = static_cast<int>(a);
      // A hint's <DEL>: its reads' deletions after this base, whatever their length.
      if (e.hint && e.alleles[a] == kDeletionAllele && merged[k].size() < merged[0].size()) map[k] = static_cast<int>(a);
    }
  }
  return map;
}

// The merged alleles of a site: the longest REF of the records starting here, every ALT
// extended to it, `*` where a sample's deletion spans the position.
std::vector<std::string> merged_alleles(int64_t pos, const std::vector<GvcfEntry>& samples) {
  using Kind = GvcfEntry::Kind;
  std::string ref;
  for (const GvcfEntry& e : samples) {
    if (e.kind == Kind::variant && e.alleles[0].size() > ref.size()) ref = e.alleles[0];
  }
  std::vector<std::string> alleles{ref};
  bool spanning = false;
  for (const GvcfEntry& e : samples) {
    spanning |= e.kind == Kind::spanning;
    if (e.kind != Kind::variant) continue;
    const std::string& r = e.alleles[0];
    if (ref.compare(0, r.size(), r) != 0) {
      throw FormatError("the gVCFs disagree on the reference at position " + std::to_string(pos + 1) + " ('" + r +
                        "' and '" + ref + "'): were they called against the same reference?");
    }
    if (e.hint) continue;  // alleles seen, not called: they make no allele of the site
    for (size_t a = 1; a < e.alleles.size(); ++a) {
      if (e.alleles[a] == kNonRef || e.alleles[a] == "*") continue;
      const std::string alt = e.alleles[a] + ref.substr(r.size());
      if (std::find(alleles.begin(), alleles.end(), alt) == alleles.end()) alleles.push_back(alt);
    }
  }
  if (spanning) alleles.push_back("*");
  return alleles;
}

// A called site's DP and per-sample AD (over the `called` alleles, maps[s] taking them to
// sample s's own), and its annotations from the samples' raw values.
void annotate_site(const std::vector<GvcfEntry>& samples, const std::vector<std::vector<int>>& maps,
                   const std::vector<int>& called, SiteCall& call) {
  using Kind = GvcfEntry::Kind;
  const size_t S = samples.size();
  call.dp = 0;
  SiteAnnotations& an = call.annotations;
  an = SiteAnnotations{};
  std::vector<double> mq_rank, pos_rank, bq_rank;
  int informative = 0, genotypes[3] = {0, 0, 0};
  double mq_squares = 0;
  int mq_reads = 0;
  for (size_t s = 0; s < S; ++s) {
    const GvcfEntry& e = samples[s];
    SampleCall& sc = call.samples[s];
    call.dp += e.dp;
    sc.ad.clear();
    if (e.kind == Kind::variant && !e.ad.empty()) {
      for (const int k : called) {
        const int a = maps[s][k];
        sc.ad.push_back(e.alleles[a] == kNonRef || a >= static_cast<int>(e.ad.size()) ? 0 : e.ad[a]);
      }
    }
    if (sc.gt_a < 0) continue;
    const bool non_ref = sc.gt_a > 0 || sc.gt_b > 0;
    ++genotypes[sc.gt_a != sc.gt_b ? 1 : sc.gt_a == 0 ? 0 : 2];  // alternates as one
    if (non_ref) {
      int n = 0;
      for (int v : e.ad) n += v;
      informative += e.ad.empty() ? e.dp : n;
    }
    if (e.kind != Kind::variant) continue;
    for (int k = 0; k < 4; ++k) an.strand_table[k] += e.sb[k];
    mq_squares += e.mq_squares, mq_reads += e.mq_reads;
    if (!std::isnan(e.mq_rank_sum)) mq_rank.push_back(e.mq_rank_sum);
    if (!std::isnan(e.read_pos_rank_sum)) pos_rank.push_back(e.read_pos_rank_sum);
    if (!std::isnan(e.base_q_rank_sum)) bq_rank.push_back(e.base_q_rank_sum);
  }
  if (informative > 0) an.qd = call.qual / informative;
  an.fs = fisher_strand(an.strand_table);
  an.sor = strand_odds_ratio(an.strand_table);
  an.mq = mq_reads > 0 ? std::sqrt(mq_squares / mq_reads) : NAN;
  an.mq_rank_sum = median(mq_rank);
  an.read_pos_rank_sum = median(pos_rank);
  an.base_q_rank_sum = median(bq_rank);
  an.excess_het = excess_het(genotypes[0], genotypes[1], genotypes[2]);
  if (genotypes[0] + genotypes[1] + genotypes[2] >= 10) {
    an.inbreeding_coeff = inbreeding_coeff(genotypes[0], genotypes[1], genotypes[2]);
  }
}

}  // namespace

bool joint_site(int64_t pos, const std::vector<GvcfEntry>& samples, const JointOptions& opt, SiteCall& call) {
  using Kind = GvcfEntry::Kind;
  const std::vector<std::string> alleles = merged_alleles(pos, samples);
  // Each sample's likelihoods over the merged genotypes.
  const size_t S = samples.size();
  std::vector<std::vector<int>> maps(S);
  std::vector<SampleCall> calls(S);
  for (size_t s = 0; s < S; ++s) {
    const GvcfEntry& e = samples[s];
    if (e.kind == Kind::none || e.pl.empty()) continue;
    maps[s] = allele_map(e, alleles, pos);
    calls[s].dp = e.dp;
  }
  // Genotyped with the alleles in `keep` (indices into `alleles`).
  const auto genotype = [&](const std::vector<int>& keep) {
    const int A = static_cast<int>(keep.size());
    const size_t G = static_cast<size_t>(A * (A + 1) / 2);
    std::vector<double> gl(S * G, 0.0);
    for (size_t s = 0; s < S; ++s) {
      if (maps[s].empty()) continue;
      for (int b = 0; b < A; ++b) {
        for (int a = 0; a <= b; ++a) {
          const int g = genotype_index(maps[s][keep[a]], maps[s][keep[b]]);
          const int pl = g < static_cast<int>(samples[s].pl.size()) ? samples[s].pl[g] : 0;
          gl[s * G + genotype_index(a, b)] = -pl / 10.0;
        }
      }
    }
    const bool snp = std::all_of(keep.begin(), keep.end(), [&](int k) { return alleles[k].size() == 1; });
    call.alleles.clear();
    for (int k : keep) call.alleles.push_back(alleles[k]);
    call.samples = calls;
    genotype_samples(gl, A, snp ? opt.het_snp : opt.het_indel, call.samples, call.qual);
  };
  std::vector<int> keep(alleles.size());
  for (size_t k = 0; k < keep.size(); ++k) keep[k] = static_cast<int>(k);
  genotype(keep);
  // The alleles some sample is called with; none but `*`: no site.
  std::vector<int> called{0};
  for (const SampleCall& sc : call.samples) {
    for (const int a : {sc.gt_a, sc.gt_b}) {
      if (a > 0 && std::find(called.begin(), called.end(), a) == called.end()) called.push_back(a);
    }
  }
  std::sort(called.begin(), called.end());
  if (std::none_of(called.begin() + 1, called.end(), [&](int k) { return alleles[k] != "*"; })) return false;
  if (called.size() < alleles.size()) {
    genotype(called);
    if (!call.any_non_ref()) return false;
  }
  if (call.qual < opt.min_qual) return false;
  call.site.pos = pos;
  call.site.ref = call.alleles[0];
  annotate_site(samples, maps, called, call);
  return true;
}

double excess_het(int hom_ref, int het, int hom_alt) {
  // Levene's distribution of the het count given the allele counts (Wigginton et al. 2005).
  const int n = hom_ref + het + hom_alt;
  const int rare = 2 * std::min(hom_ref, hom_alt) + het, common = 2 * n - rare;
  if (n == 0) return NAN;
  std::vector<double> p(static_cast<size_t>(rare) + 1, 0.0);
  int mid = static_cast<int>(static_cast<double>(rare) * common / (2.0 * n));
  if ((mid % 2) != (rare % 2)) ++mid;
  mid = std::min(mid, rare);
  p[mid] = 1;
  for (int h = mid; h > 1; h -= 2) {
    const double hom_r = (rare - h) / 2, hom_c = (common - h) / 2;
    p[h - 2] = p[h] * h * (h - 1) / (4.0 * (hom_r + 1) * (hom_c + 1));
  }
  for (int h = mid; h + 2 <= rare; h += 2) {
    const double hom_r = (rare - h) / 2, hom_c = (common - h) / 2;
    p[h + 2] = p[h] * 4.0 * hom_r * hom_c / ((h + 2.0) * (h + 1.0));
  }
  double total = 0, above = 0;
  for (int h = 0; h <= rare; ++h) {
    total += p[h];
    if (h > het) above += p[h];
  }
  const double mid_p = std::clamp((above + 0.5 * p[std::min(het, rare)]) / total, 1e-300, 1.0);
  return -10 * std::log10(mid_p);
}

double inbreeding_coeff(int hom_ref, int het, int hom_alt) {
  const double n = hom_ref + het + hom_alt;
  const double p = (2.0 * hom_ref + het) / (2 * n), q = 1 - p;
  const double expected = 2 * p * q * n;
  return expected > 0 ? 1 - het / expected : NAN;
}

}  // namespace gatemap::caller::detail
