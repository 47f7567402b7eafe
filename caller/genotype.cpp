// Diploid genotyping of one site: per read, an allele's log10 likelihood is the best of
// the haplotypes that carry it; a sample's genotype {a, b} has sum over its reads of
// log10(10^l(a) / 2 + 10^l(b) / 2). Priors from the heterozygosity theta (per alt
// allele): hom-ref 1 - 1.5 theta, het ref/alt theta / n, hom-alt theta / (2 n), two
// alts theta^2; a cohort's genotypes take Hardy-Weinberg priors of its estimated allele
// frequencies instead. QUAL = -10 log10 P(every sample hom-ref | reads) under the
// heterozygosity prior, uncapped; GQ from the best genotype's posterior; PL normalised
// to the best; AD counts reads whose allele is better than every other by 0.2 log10
// units (GATK's informative-read rule).
#include <algorithm>
#include <cmath>
#include <functional>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {
double log10_sum(double a, double b) {
  const double m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log10(1.0 + std::pow(10.0, std::min(a, b) - m));  // (10^0 is 1: one pow, the same sum)
}
// Genotype PLs over A alleles plus <NON_REF>, from per-read allele likelihoods al[r * A + a].
std::vector<int> non_ref_pl(const std::vector<double>& al, size_t n_reads, int A) {
  const int B = A + 1;
  std::vector<double> ext(n_reads * B);
  for (size_t r = 0; r < n_reads; ++r) {
    std::vector<double> v(al.begin() + static_cast<int64_t>(r * A), al.begin() + static_cast<int64_t>((r + 1) * A));
    std::copy(v.begin(), v.end(), ext.begin() + static_cast<int64_t>(r * B));
    std::sort(v.begin(), v.end(), std::greater<double>());
    ext[r * B + A] = v.size() > 1 ? v[1] : v[0];  // the second best
  }
  std::vector<double> gl;
  for (int b = 0; b < B; ++b) {
    for (int a = 0; a <= b; ++a) {
      double l = 0;
      for (size_t r = 0; r < n_reads; ++r) l += log10_sum(ext[r * B + a], ext[r * B + b]) - std::log10(2.0);
      gl.push_back(l);
    }
  }
  const double max_gl = *std::max_element(gl.begin(), gl.end());
  std::vector<int> pl;
  for (double l : gl) pl.push_back(static_cast<int>(std::lround(std::min(1e6, -10.0 * (l - max_gl)))));
  return pl;
}

// log10 priors of the genotypes from the heterozygosity theta (per alt allele).
std::vector<double> heterozygosity_prior(const std::vector<std::pair<int, int>>& gts, int A, double het) {
  const double alts = std::max(1, A - 1);
  std::vector<double> prior;
  for (const auto& [a, b] : gts) {
    prior.push_back(std::log10((a == 0 && b == 0) ? 1 - 1.5 * het
                               : a == 0           ? het / alts
                               : a == b           ? het / (2 * alts)
                                                  : het * het));
  }
  return prior;
}

// log10 posteriors of the genotypes, normalised, from log10 likelihoods and log10 priors.
std::vector<double> posterior(const double* gl, const std::vector<double>& prior) {
  std::vector<double> post(prior.size());
  double total = -INFINITY;
  for (size_t k = 0; k < prior.size(); ++k) total = log10_sum(total, post[k] = gl[k] + prior[k]);
  for (double& p : post) p -= total;
  return post;
}

// A cohort's genotype prior: Hardy-Weinberg proportions of allele frequencies estimated
// by EM from the samples' likelihoods (started from the heterozygosity prior); an
// allele's frequency is kept at least theta / 2 so that one sample's evidence can still
// call it. Samples without reads add nothing.
std::vector<double> population_prior(const std::vector<double>& gl, const std::vector<std::pair<int, int>>& gts, int A,
                                     double het, const std::vector<SampleCall>& samples) {
  const size_t G = gts.size();
  std::vector<double> prior = heterozygosity_prior(gts, A, het);
  std::vector<double> freq(A), last;
  for (int iter = 0; iter < 10; ++iter) {
    std::fill(freq.begin(), freq.end(), 0.0);
    double chromosomes = 0;
    for (size_t s = 0; s < samples.size(); ++s) {
      if (samples[s].dp == 0) continue;
      const std::vector<double> post = posterior(&gl[s * G], prior);
      for (size_t k = 0; k < G; ++k) {
        const double p = std::pow(10.0, post[k]);
        freq[gts[k].first] += p, freq[gts[k].second] += p;
      }
      chromosomes += 2;
    }
    if (chromosomes == 0) return prior;
    double sum = 0;
    for (int a = 0; a < A; ++a) sum += freq[a] = std::max(freq[a] / chromosomes, het / 2);
    if (freq == last) break;  // a fixed point: the prior already made from it, and every later one, is the same
    last = freq;
    for (size_t k = 0; k < G; ++k) {
      const double fa = freq[gts[k].first] / sum, fb = freq[gts[k].second] / sum;
      prior[k] = std::log10(gts[k].first == gts[k].second ? fa * fb : 2 * fa * fb);
    }
  }
  return prior;
}
}  // namespace

double genotype_samples(const std::vector<double>& gl, int A, double het, std::vector<SampleCall>& samples,
                        double& qual) {
  std::vector<std::pair<int, int>> gts;
  for (int b = 0; b < A; ++b) {
    for (int a = 0; a <= b; ++a) gts.emplace_back(a, b);
  }
  const size_t G = gts.size(), S = samples.size();
  const std::vector<double> het_prior = heterozygosity_prior(gts, A, het);
  // QUAL: every sample hom-ref, each under the heterozygosity prior. Where the posterior
  // of 0/0 underflows (deep data) QUAL comes from its log: no cap, which made QD (QUAL
  // over the informative reads) fall with depth (6,000x: QD 0.5).
  qual = 0;
  for (size_t s = 0; s < S; ++s) {
    if (samples[s].dp == 0) continue;
    const std::vector<double> post = posterior(&gl[s * G], het_prior);
    const double p_ref = std::pow(10.0, post[0]);
    qual += p_ref > 0 ? -10.0 * std::log10(p_ref) : -10.0 * post[0];
  }
  // Each sample's genotype: one sample under the heterozygosity prior, a cohort under its
  // allele frequencies (Hardy-Weinberg).
  const std::vector<double> prior = S == 1 ? het_prior : population_prior(gl, gts, A, het, samples);
  for (size_t s = 0; s < S; ++s) {
    SampleCall& sc = samples[s];
    const double* g = &gl[s * G];
    const std::vector<double> post = posterior(g, prior);
    const size_t best = static_cast<size_t>(std::max_element(post.begin(), post.end()) - post.begin());
    const double max_gl = *std::max_element(g, g + G);
    sc.pl.clear();
    for (size_t k = 0; k < G; ++k) sc.pl.push_back(static_cast<int>(std::lround(std::min(1e6, -10.0 * (g[k] - max_gl)))));
    if (sc.dp == 0) {  // no read: no call
      sc.gt_a = sc.gt_b = -1;
      sc.gq = 0;
      continue;
    }
    sc.gt_a = gts[best].first, sc.gt_b = gts[best].second;
    const double p_best = std::pow(10.0, post[best]);
    sc.gq = p_best >= 1.0 ? 99 : static_cast<int>(std::min(99.0, -10.0 * std::log10(1.0 - p_best)));
  }
  return qual;
}

SiteCall genotype_site(const std::vector<double>& lik, size_t n_reads, size_t n_haps,
                       const std::vector<int>& hap_allele, const std::vector<std::string>& alleles, double het,
                       bool with_non_ref, std::vector<int>* read_alleles, const std::vector<int>& read_sample,
                       int n_samples) {
  const int A = static_cast<int>(alleles.size());
  const size_t S = static_cast<size_t>(std::max(1, n_samples));
  const auto sample_of = [&](size_t r) { return read_sample.empty() ? size_t{0} : static_cast<size_t>(read_sample[r]); };
  SiteCall call;
  call.alleles = alleles;
  call.dp = static_cast<int>(n_reads);
  call.samples.assign(S, SampleCall{});
  // Per read and allele: the best haplotype carrying it.
  std::vector<double> al(n_reads * A, -INFINITY);
  for (size_t r = 0; r < n_reads; ++r) {
    for (size_t h = 0; h < n_haps; ++h) {
      double& v = al[r * A + hap_allele[h]];
      v = std::max(v, lik[r * n_haps + h]);
    }
  }
  for (SampleCall& sc : call.samples) sc.ad.assign(A, 0);
  if (read_alleles) read_alleles->assign(n_reads, -1);
  for (size_t r = 0; r < n_reads; ++r) {
    SampleCall& sc = call.samples[sample_of(r)];
    ++sc.dp;
    int best = 0;
    for (int a = 1; a < A; ++a) {
      if (al[r * A + a] > al[r * A + best]) best = a;
    }
    bool informative = true;
    for (int a = 0; a < A; ++a) {
      if (a != best && al[r * A + best] - al[r * A + a] < 0.2) informative = false;
    }
    if (!informative) continue;
    ++sc.ad[best];
    if (read_alleles) (*read_alleles)[r] = best;
  }
  // Genotype log10 likelihoods in VCF order (b <= a: 0/0, 0/1, 1/1, 0/2, 1/2, 2/2, ...), per sample.
  std::vector<std::pair<int, int>> gts;
  for (int b = 0; b < A; ++b) {
    for (int a = 0; a <= b; ++a) gts.emplace_back(a, b);
  }
  const size_t G = gts.size();
  std::vector<double> gl(S * G, 0.0);
  for (size_t r = 0; r < n_reads; ++r) {
    double* g = &gl[sample_of(r) * G];
    for (size_t k = 0; k < G; ++k) {
      g[k] += log10_sum(al[r * A + gts[k].first], al[r * A + gts[k].second]) - std::log10(2.0);
    }
  }
  genotype_samples(gl, A, het, call.samples, call.qual);
  if (with_non_ref) {
    for (size_t s = 0; s < S; ++s) {
      std::vector<double> mine;
      for (size_t r = 0; r < n_reads; ++r) {
        if (sample_of(r) == s) mine.insert(mine.end(), al.begin() + static_cast<int64_t>(r * A), al.begin() + static_cast<int64_t>((r + 1) * A));
      }
      call.samples[s].pl_non_ref = non_ref_pl(mine, mine.size() / A, A);
    }
  }
  return call;
}

}  // namespace gatemap::caller::detail
