// Diploid genotyping of one site: per read, an allele's log10 likelihood is the best of
// the haplotypes that carry it; a genotype {a, b} has sum over reads of
// log10(10^l(a) / 2 + 10^l(b) / 2). Priors from the heterozygosity theta (per alt
// allele): hom-ref 1 - 1.5 theta, het ref/alt theta / n, hom-alt theta / (2 n), two
// alts theta^2. QUAL = -10 log10 P(hom-ref | reads), uncapped; GQ from the best genotype's
// posterior; PL normalised to the best; AD counts reads whose allele is better than
// every other by 0.2 log10 units (GATK's informative-read rule).
#include <algorithm>
#include <cmath>
#include <functional>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {
double log10_sum(double a, double b) {
  const double m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log10(std::pow(10.0, a - m) + std::pow(10.0, b - m));
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
}  // namespace

SiteCall genotype_site(const std::vector<double>& lik, size_t n_reads, size_t n_haps,
                       const std::vector<int>& hap_allele, const std::vector<std::string>& alleles, double het,
                       bool with_non_ref, std::vector<int>* read_alleles) {
  const int A = static_cast<int>(alleles.size());
  SiteCall call;
  call.alleles = alleles;
  // Per read and allele: the best haplotype carrying it.
  std::vector<double> al(n_reads * A, -INFINITY);
  for (size_t r = 0; r < n_reads; ++r) {
    for (size_t h = 0; h < n_haps; ++h) {
      double& v = al[r * A + hap_allele[h]];
      v = std::max(v, lik[r * n_haps + h]);
    }
  }
  call.ad.assign(A, 0);
  if (read_alleles) read_alleles->assign(n_reads, -1);
  for (size_t r = 0; r < n_reads; ++r) {
    int best = 0;
    for (int a = 1; a < A; ++a) {
      if (al[r * A + a] > al[r * A + best]) best = a;
    }
    bool informative = true;
    for (int a = 0; a < A; ++a) {
      if (a != best && al[r * A + best] - al[r * A + a] < 0.2) informative = false;
    }
    if (!informative) continue;
    ++call.ad[best];
    if (read_alleles) (*read_alleles)[r] = best;
  }
  call.dp = static_cast<int>(n_reads);
  // Genotype log10 likelihoods in VCF order (b <= a: 0/0, 0/1, 1/1, 0/2, 1/2, 2/2, ...).
  const double alts = std::max(1, A - 1);
  std::vector<double> gl, post;
  std::vector<std::pair<int, int>> gts;
  for (int b = 0; b < A; ++b) {
    for (int a = 0; a <= b; ++a) {
      double l = 0;
      for (size_t r = 0; r < n_reads; ++r) {
        l += log10_sum(al[r * A + a], al[r * A + b]) - std::log10(2.0);
      }
      const double prior = (a == 0 && b == 0) ? 1 - 1.5 * het
                           : a == 0           ? het / alts
                           : a == b           ? het / (2 * alts)
                                              : het * het;
      gl.push_back(l);
      post.push_back(l + std::log10(prior));
      gts.emplace_back(a, b);
    }
  }
  // Normalise the posterior.
  double total = -INFINITY;
  for (double p : post) total = log10_sum(total, p);
  const size_t best = static_cast<size_t>(std::max_element(post.begin(), post.end()) - post.begin());
  call.gt_a = gts[best].first, call.gt_b = gts[best].second;
  // Where the posterior of 0/0 underflows (deep data) QUAL comes from its log: no cap,
  // which made QD (QUAL over the informative reads) fall with depth (6,000x: QD 0.5).
  const double p_ref = std::pow(10.0, post[0] - total);
  call.qual = p_ref > 0 ? -10.0 * std::log10(p_ref) : -10.0 * (post[0] - total);
  const double p_best = std::pow(10.0, post[best] - total);
  call.gq = p_best >= 1.0 ? 99 : static_cast<int>(std::min(99.0, -10.0 * std::log10(1.0 - p_best)));
  const double max_gl = *std::max_element(gl.begin(), gl.end());
  for (double l : gl) call.pl.push_back(static_cast<int>(std::lround(std::min(1e6, -10.0 * (l - max_gl)))));
  if (with_non_ref) call.pl_non_ref = non_ref_pl(al, n_reads, A);
  return call;
}

}  // namespace gatemap::caller::detail
