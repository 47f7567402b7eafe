// GATK's INFO annotations on a small pileup, against values computed by hand (in the
// comments), and FS against an exact-integer Fisher test.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "caller/annotations.hpp"

using namespace gatemap::caller::detail;

namespace {

// Fisher's exact test, two-sided, in exact integer binomials: the oracle of FS.
double fisher_oracle(int a, int b, int c, int d) {
  const auto choose = [](int n, int k) {
    double v = 1;
    for (int i = 1; i <= k; ++i) v = v * (n - k + i) / i;
    return v;
  };
  const int row0 = a + b, col0 = a + c, n = a + b + c + d;
  const auto p = [&](int x) { return choose(row0, x) * choose(n - row0, col0 - x) / choose(n, col0); };
  const double observed = p(a);
  double sum = 0;
  for (int x = std::max(0, row0 + col0 - n); x <= std::min(row0, col0); ++x) {
    if (p(x) <= observed * (1 + 1e-7)) sum += p(x);
  }
  return -10 * std::log10(sum);
}

}  // namespace

// Six informative reads (ref: forward x3; alt: reverse x3) and one that is not.
TEST(Annotations, HandComputedPileup) {
  const std::vector<ReadAtSite> reads = {
      {0, false, 60, 10, 30}, {0, false, 60, 20, 35}, {0, false, 50, 30, 40},  // ref
      {1, true, 60, 5, 20},   {1, true, 40, 2, 25},   {1, true, 30, 40, 40},   // alt
      {-1, true, 0, 7, 10},                                                    // no allele
  };
  const SiteAnnotations a = annotate_site(reads, 120.0);
  EXPECT_DOUBLE_EQ(a.qd, 20.0);  // 120 / 6 informative reads
  // Table [[3, 0], [0, 3]]: P(a = 3) = P(a = 0) = 1/20, the other tables 9/20: p = 0.1.
  EXPECT_NEAR(a.fs, 10.0, 1e-9);
  // (4 1; 1 4) with pseudocounts: R = 16, ln(16 + 1/16) + ln(1/4) - ln(1/4) = 2.776476.
  EXPECT_NEAR(a.sor, std::log(16.0625), 1e-9);
  // sqrt((3 x 3600 + 2500 + 1600 + 900 + 0) / 7) = sqrt(15800 / 7).
  EXPECT_NEAR(a.mq, std::sqrt(15800.0 / 7), 1e-9);
  // MQ ranks: 30, 40 (alt) 1, 2; 50 (ref) 3; 60 x3 (ref, ref, alt) 5 each. U(alt) = 8 - 6 = 2,
  // mean 4.5, variance 9/12 (7 - 24/30) = 4.65: z = -2.5 / sqrt(4.65).
  EXPECT_NEAR(a.mq_rank_sum, -2.5 / std::sqrt(4.65), 1e-9);
  // Positions: 2, 5 (alt) 1, 2; 10, 20, 30 (ref) 3-5; 40 (alt) 6. U = 9 - 6 = 3, variance
  // 9/12 x 7 = 5.25: z = -1.5 / sqrt(5.25).
  EXPECT_NEAR(a.read_pos_rank_sum, -1.5 / std::sqrt(5.25), 1e-9);
  // Base qualities: 20, 25 (alt) 1, 2; 30, 35 (ref) 3, 4; 40 x2 (ref, alt) 5.5 each. U = 8.5 - 6
  // = 2.5, variance 9/12 (7 - 6/30) = 5.1: z = -2 / sqrt(5.1).
  EXPECT_NEAR(a.base_q_rank_sum, -2 / std::sqrt(5.1), 1e-9);
}

TEST(Annotations, RankSumsNeedBothAllelesAndQdANonRefGenotype) {
  std::vector<ReadAtSite> alt_only = {{1, false, 60, 3, 30}, {1, true, 60, 9, 30}};
  const SiteAnnotations a = annotate_site(alt_only, 50.0);
  EXPECT_TRUE(std::isnan(a.mq_rank_sum));
  EXPECT_TRUE(std::isnan(a.read_pos_rank_sum));
  EXPECT_TRUE(std::isnan(a.base_q_rank_sum));
  EXPECT_DOUBLE_EQ(a.qd, 25.0);
  // QD counts the reads of samples called non-reference only (a cohort's other samples do not).
  alt_only[1].in_non_ref_sample = false;
  EXPECT_DOUBLE_EQ(annotate_site(alt_only, 50.0).qd, 50.0);
  alt_only[0].in_non_ref_sample = false;
  EXPECT_TRUE(std::isnan(annotate_site(alt_only, 50.0).qd));
}

TEST(Annotations, FisherStrandEqualsAnExactTestAndScalesDeepTables) {
  for (const auto& t : std::vector<std::array<int, 4>>{{10, 10, 10, 0}, {5, 5, 5, 5}, {2, 9, 7, 1}, {0, 12, 30, 3}}) {
    const int table[4] = {t[0], t[1], t[2], t[3]};
    EXPECT_NEAR(fisher_strand(table), std::max(0.0, fisher_oracle(t[0], t[1], t[2], t[3])), 1e-6)
        << t[0] << " " << t[1] << " " << t[2] << " " << t[3];
  }
  // 2000 reads are scaled to 200 (GATK): the FS of (50, 50, 30, 70).
  const int deep[4] = {500, 500, 300, 700};
  EXPECT_NEAR(fisher_strand(deep), fisher_oracle(50, 50, 30, 70), 1e-6);
}
