// joint's pieces against hand-made sites and closed forms: the samples' alleles merged
// (longer REFs, a deletion over a site as `*`, reference blocks), and the cohort
// annotations against Levene's distribution written out directly.
#include <gtest/gtest.h>

#include <cmath>

#include "caller/joint.hpp"
#include "common/error.hpp"

namespace gatemap::caller::detail {
namespace {

using Kind = GvcfEntry::Kind;

GvcfEntry variant(int64_t pos, std::vector<std::string> alleles, std::vector<int> pl, std::vector<int> ad) {
  GvcfEntry e;
  e.kind = Kind::variant;
  e.pos = pos;
  e.alleles = std::move(alleles);
  e.pl = std::move(pl);
  e.ad = std::move(ad);
  for (int v : e.ad) e.dp += v;
  return e;
}

GvcfEntry block(int64_t pos, std::vector<int> pl, int dp) {
  GvcfEntry e;
  e.kind = Kind::block;
  e.pos = pos;
  e.alleles = {"N", "<NON_REF>"};
  e.pl = std::move(pl);
  e.dp = dp;
  return e;
}

std::string gt(const SampleCall& s) {
  return s.gt_a < 0 ? "./." : std::to_string(s.gt_a) + "/" + std::to_string(s.gt_b);
}

TEST(Joint, ABlockSampleIsGenotypedAgainstTheOthersAlternate) {
  // Sample 0: G>T het (PL over G, T, <NON_REF>); sample 1: a confident reference block.
  const std::vector<GvcfEntry> samples = {variant(100, {"G", "T", "<NON_REF>"}, {200, 0, 250, 230, 260, 500}, {10, 9, 0}),
                                          block(90, {0, 45, 468}, 15)};
  SiteCall call;
  ASSERT_TRUE(joint_site(100, samples, JointOptions{}, call));
  EXPECT_EQ(call.alleles, (std::vector<std::string>{"G", "T"}));
  EXPECT_EQ(gt(call.samples[0]), "0/1");
  EXPECT_EQ(gt(call.samples[1]), "0/0");
  EXPECT_EQ(call.samples[1].pl, (std::vector<int>{0, 45, 468}));  // the block's, T standing for <NON_REF>
  EXPECT_TRUE(call.samples[1].ad.empty());
  EXPECT_EQ(call.samples[0].ad, (std::vector<int>{10, 9}));
  EXPECT_EQ(call.dp, 34);
  EXPECT_NEAR(call.annotations.qd, call.qual / 19, 1e-9);  // the het sample's reads only
}

// A sample whose gVCF has an allele hint at the site (G, then A, C, T, <NON_REF>): its
// reads' evidence for the site's own alternate counts, that for another base or an
// indel does not, and the hint's alleles join no site.
TEST(Joint, AHintCountsOnlyTheEvidenceForTheSitesAllele) {
  const GvcfEntry het = variant(100, {"G", "T", "<NON_REF>"}, {200, 0, 250, 230, 260, 500}, {10, 9, 0});
  // Genotype order over G, A, C, T, <NON_REF>: 0/0 0/A A/A 0/C A/C C/C 0/T A/T C/T T/T 0/N ...
  std::vector<int> favours_c(15, 300), favours_t(15, 300);
  favours_c[0] = 20, favours_c[3] = 0, favours_c[6] = 40;  // 0/0 20, 0/C 0, 0/T 40: an error to C
  favours_t[0] = 20, favours_t[6] = 0, favours_t[3] = 40;  // the same read showing T
  GvcfEntry hint = variant(100, {"G", "A", "C", "T", "<NON_REF>"}, favours_c, {6, 0, 1, 0, 0});
  hint.hint = true;
  SiteCall call;
  ASSERT_TRUE(joint_site(100, {het, hint}, JointOptions{}, call));
  EXPECT_EQ(call.alleles, (std::vector<std::string>{"G", "T"}));  // C is no allele of the site
  EXPECT_EQ(gt(call.samples[1]), "0/0");
  EXPECT_EQ(call.samples[1].pl, (std::vector<int>{0, 20, 280}));  // G/G, G/T, T/T of the hint, as PLs
  EXPECT_EQ(call.samples[1].ad, (std::vector<int>{6, 0}));
  hint.pl = favours_t, hint.ad = {6, 0, 0, 1, 0};
  ASSERT_TRUE(joint_site(100, {het, hint}, JointOptions{}, call));
  EXPECT_EQ(gt(call.samples[1]), "0/1");
  EXPECT_EQ(call.samples[1].ad, (std::vector<int>{6, 1}));
  // A deletion after the base (GA>G) takes the hint's <DEL>, an insertion its own allele.
  const GvcfEntry del = variant(100, {"GA", "G", "<NON_REF>"}, {200, 0, 250, 230, 260, 500}, {10, 9, 0});
  GvcfEntry indels = variant(100, {"G", "A", "C", "T", "GT", "<DEL>", "<NON_REF>"}, std::vector<int>(28, 300), {6, 0, 0, 0, 0, 1, 0});
  indels.hint = true;
  indels.pl[0] = 20, indels.pl[15] = 0;  // 0/0, and 0/<DEL> (genotype index 5 x 6 / 2 + 0) the best
  ASSERT_TRUE(joint_site(100, {del, indels}, JointOptions{}, call));
  EXPECT_EQ(call.alleles, (std::vector<std::string>{"GA", "G"}));
  EXPECT_EQ(call.samples[1].ad, (std::vector<int>{6, 1}));
  const GvcfEntry ins = variant(100, {"G", "GT", "<NON_REF>"}, {200, 0, 250, 230, 260, 500}, {10, 9, 0});
  ASSERT_TRUE(joint_site(100, {ins, indels}, JointOptions{}, call));
  EXPECT_EQ(call.samples[1].ad, (std::vector<int>{6, 0}));  // the hint's GT: no read
}

TEST(Joint, AllelesMergeOntoTheLongestReference) {
  // Sample 0: CAG>C (a deletion); sample 1: C>T. Merged: CAG, C, TAG.
  const std::vector<GvcfEntry> samples = {
      variant(200, {"CAG", "C", "<NON_REF>"}, {300, 0, 300, 320, 330, 650}, {8, 8, 0}),
      variant(200, {"C", "T", "<NON_REF>"}, {300, 30, 0, 330, 60, 650}, {0, 10, 0})};
  SiteCall call;
  ASSERT_TRUE(joint_site(200, samples, JointOptions{}, call));
  EXPECT_EQ(call.alleles, (std::vector<std::string>{"CAG", "C", "TAG"}));
  EXPECT_EQ(gt(call.samples[0]), "0/1");
  EXPECT_EQ(gt(call.samples[1]), "2/2");
  // Sample 1's C>T stands for CAG>TAG; its <NON_REF> for the deletion it does not have.
  EXPECT_EQ(call.samples[1].pl, (std::vector<int>{300, 330, 650, 30, 60, 0}));
  EXPECT_EQ(call.samples[1].ad, (std::vector<int>{0, 0, 10}));
}

TEST(Joint, ADeletionOverASiteIsTheStarAllele) {
  // Sample 0 is hom for ACGT>A at 300, which deletes 301-303; sample 1 has G>T at 302.
  GvcfEntry del = variant(300, {"ACGT", "A", "<NON_REF>"}, {500, 60, 0, 510, 70, 520}, {0, 20, 0});
  del.kind = Kind::spanning;
  const std::vector<GvcfEntry> samples = {del, variant(302, {"G", "T", "<NON_REF>"}, {200, 0, 250, 230, 260, 500}, {9, 9, 0})};
  SiteCall call;
  ASSERT_TRUE(joint_site(302, samples, JointOptions{}, call));
  EXPECT_EQ(call.alleles, (std::vector<std::string>{"G", "T", "*"}));
  EXPECT_EQ(gt(call.samples[0]), "2/2");
  EXPECT_EQ(gt(call.samples[1]), "0/1");
  // Only `*` called: no site.
  const std::vector<GvcfEntry> alone = {del, block(290, {0, 40, 400}, 14)};
  EXPECT_FALSE(joint_site(302, alone, JointOptions{}, call));
}

TEST(Joint, SamplesWithoutDataAreNoCallsAndReferencesMustAgree) {
  const std::vector<GvcfEntry> samples = {variant(10, {"A", "C", "<NON_REF>"}, {400, 40, 0, 420, 50, 460}, {0, 14, 0}),
                                          GvcfEntry{}};
  SiteCall call;
  ASSERT_TRUE(joint_site(10, samples, JointOptions{}, call));
  EXPECT_EQ(gt(call.samples[0]), "1/1");
  EXPECT_EQ(gt(call.samples[1]), "./.");
  const std::vector<GvcfEntry> clash = {variant(10, {"A", "C", "<NON_REF>"}, {400, 40, 0, 420, 50, 460}, {0, 14, 0}),
                                        variant(10, {"G", "C", "<NON_REF>"}, {400, 40, 0, 420, 50, 460}, {0, 14, 0})};
  EXPECT_THROW(joint_site(10, clash, JointOptions{}, call), FormatError);
}

// Levene's P(h hets | n samples, allele counts) written out, and its mid-p-value.
double levene_mid_p(int hom_ref, int het, int hom_alt) {
  const int n = hom_ref + het + hom_alt, a = 2 * hom_ref + het, b = 2 * hom_alt + het;
  const auto lf = [](double x) { return std::lgamma(x + 1); };
  double total = 0, above = 0, at = 0;
  for (int h = a % 2; h <= std::min(a, b); h += 2) {
    const int ra = (a - h) / 2, rb = (b - h) / 2;
    const double p =
        std::exp(lf(n) - lf(ra) - lf(h) - lf(rb) + h * std::log(2.0) + lf(a) + lf(b) - lf(2.0 * n));
    total += p;
    if (h > het) above += p;
    if (h == het) at = p;
  }
  return (above + at / 2) / total;
}

TEST(Joint, ExcessHetIsTheMidPOfLevenesDistribution) {
  EXPECT_NEAR(excess_het(0, 1, 0), 10 * std::log10(2.0), 1e-9);  // one het sample: 3.0103, as GATK writes
  for (const auto& [r, h, a] : std::vector<std::tuple<int, int, int>>{{5, 5, 0}, {0, 10, 0}, {8, 1, 1}, {3, 4, 3}, {20, 13, 2}}) {
    EXPECT_NEAR(excess_het(r, h, a), -10 * std::log10(levene_mid_p(r, h, a)), 1e-6) << r << " " << h << " " << a;
  }
  EXPECT_GT(excess_het(0, 10, 0), 20);  // ten hets: far more than Hardy-Weinberg allows (p 0.003)
  EXPECT_NEAR(inbreeding_coeff(5, 0, 5), 1.0, 1e-12);  // no het where 5 are expected
  EXPECT_NEAR(inbreeding_coeff(25, 50, 25), 0.0, 1e-12);
}

}  // namespace
}  // namespace gatemap::caller::detail
