#include "caller/annotations.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace gatemap::caller::detail {

namespace {

// log of the hypergeometric probability of a 2x2 table with these margins.
double log_table_p(int a, int b, int c, int d) {
  const auto lf = [](int n) { return std::lgamma(n + 1.0); };
  return lf(a + b) + lf(c + d) + lf(a + c) + lf(b + d) - lf(a) - lf(b) - lf(c) - lf(d) - lf(a + b + c + d);
}

}  // namespace

double fisher_strand(const int table[4]) {
  // GATK's normalisation: a table of more than 200 reads is scaled down to 200, so
  // that deep sites do not give enormous FS for a small bias.
  int t[4] = {table[0], table[1], table[2], table[3]};
  const double sum = t[0] + t[1] + t[2] + t[3];
  if (sum > 2 * 200) {
    for (int& v : t) v = static_cast<int>(v / (sum / 200.0));
  }
  const int row0 = t[0] + t[1], col0 = t[0] + t[2], n = t[0] + t[1] + t[2] + t[3];
  if (n == 0) return 0;
  const double observed = log_table_p(t[0], t[1], t[2], t[3]);
  // Two-sided: every table with these margins as probable as the observed one or less.
  double p = 0;
  for (int a = std::max(0, row0 + col0 - n); a <= std::min(row0, col0); ++a) {
    const double lp = log_table_p(a, row0 - a, col0 - a, n - row0 - col0 + a);
    if (lp <= observed + 1e-7) p += std::exp(lp);
  }
  p = std::clamp(p, 1e-320, 1.0);
  return std::max(0.0, -10 * std::log10(p));
}

double strand_odds_ratio(const int table[4]) {
  const double ref_fw = table[0] + 1.0, ref_rv = table[1] + 1.0, alt_fw = table[2] + 1.0, alt_rv = table[3] + 1.0;
  const double ratio = (ref_fw * alt_rv) / (ref_rv * alt_fw);
  const double ref_ratio = std::min(ref_fw, ref_rv) / std::max(ref_fw, ref_rv);
  const double alt_ratio = std::min(alt_fw, alt_rv) / std::max(alt_fw, alt_rv);
  return std::log(ratio + 1 / ratio) + std::log(ref_ratio) - std::log(alt_ratio);
}

double rank_sum_z(const std::vector<double>& alt, const std::vector<double>& ref) {
  const size_t n1 = alt.size(), n2 = ref.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return NAN;
  std::vector<std::pair<double, int>> all;  // value, 1 for alt
  for (double v : alt) all.emplace_back(v, 1);
  for (double v : ref) all.emplace_back(v, 0);
  std::sort(all.begin(), all.end());
  double alt_ranks = 0, ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double rank = (i + 1 + j) / 2.0, t = static_cast<double>(j - i);  // mid-rank of the tied run
    for (size_t k = i; k < j; ++k) alt_ranks += all[k].second ? rank : 0;
    ties += t * t * t - t;
    i = j;
  }
  const double u = alt_ranks - n1 * (n1 + 1) / 2.0, mean = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1) - ties / (static_cast<double>(n) * (n - 1)));
  if (var <= 0) return 0;
  return (u - mean) / std::sqrt(var);
}

SiteAnnotations annotate_site(const std::vector<ReadAtSite>& reads, double qual) {
  SiteAnnotations a;
  int table[4] = {0, 0, 0, 0};
  int informative = 0;
  double mq_squares = 0;
  std::vector<double> alt_mq, ref_mq, alt_pos, ref_pos, alt_bq, ref_bq;
  for (const ReadAtSite& r : reads) {
    mq_squares += static_cast<double>(r.mapq) * r.mapq;
    if (r.allele < 0) continue;
    if (r.in_non_ref_sample) ++informative;
    const bool alt = r.allele > 0;
    ++table[(alt ? 2 : 0) + (r.reverse ? 1 : 0)];
    (alt ? alt_mq : ref_mq).push_back(r.mapq);
    (alt ? alt_pos : ref_pos).push_back(r.read_pos);
    if (r.base_q >= 0) (alt ? alt_bq : ref_bq).push_back(r.base_q);
  }
  if (!reads.empty()) a.mq = std::sqrt(mq_squares / static_cast<double>(reads.size()));
  std::copy(table, table + 4, a.strand_table);
  a.mq_squares = mq_squares;
  a.reads = static_cast<int>(reads.size());
  if (informative > 0) a.qd = qual / informative;
  a.fs = fisher_strand(table);
  a.sor = strand_odds_ratio(table);
  a.mq_rank_sum = rank_sum_z(alt_mq, ref_mq);
  a.read_pos_rank_sum = rank_sum_z(alt_pos, ref_pos);
  a.base_q_rank_sum = rank_sum_z(alt_bq, ref_bq);
  return a;
}

}  // namespace gatemap::caller::detail
