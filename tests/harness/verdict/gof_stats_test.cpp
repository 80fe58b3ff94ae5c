// The statistics behind the distribution check, against values computed independently: the
// closed forms of the chi-square CDF (erf and finite sums for integer df), the closed form of the
// noncentral chi-square with one degree of freedom, and the published power-analysis sample size
// (G*Power / Cohen: w = 0.3, df = 1, alpha = 0.05, power = 0.8 -> N = 88).
#include "harness/verdict/gof_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mrc::harness::stats {
namespace {

TEST(GofStats, ChiSquareCdfMatchesClosedForms) {
  struct Row {
    double x, df, cdf;
  };
  // Closed forms: even df 1 - e^{-x/2} sum (x/2)^j / j!; odd df erf(sqrt(x/2)) - sum ...
  const Row rows[] = {
      {3.841458820694124, 1, 0.95},      {5.991464547107979, 2, 0.95},
      {18.307038053275146, 10, 0.95},    {24.32188758, 7, 0.9990000005000834},
      {10.827566170662733, 1, 0.999},    {0.5, 3, 0.08110858834532414},
      {7.0, 5, 0.7793596920632893},      {30.0, 20, 0.9301463393005902},
  };
  for (const auto& r : rows) {
    EXPECT_NEAR(chi2_cdf(r.x, r.df), r.cdf, 1e-12) << "x=" << r.x << " df=" << r.df;
    EXPECT_NEAR(chi2_sf(r.x, r.df), 1 - r.cdf, 1e-12) << "x=" << r.x << " df=" << r.df;
  }
  EXPECT_EQ(chi2_cdf(0, 3), 0);
  EXPECT_EQ(chi2_sf(0, 3), 1);
}

TEST(GofStats, IncompleteGammaUsesBothExpansionsConsistently) {
  // P + Q = 1 on both sides of the series / continued-fraction switch (x = a + 1).
  for (double a : {0.5, 1.0, 3.5, 10.0, 100.0, 1000.0}) {
    for (double x : {a * 0.2, a + 0.999, a + 1.0, a + 1.001, a * 3}) {
      EXPECT_NEAR(gamma_p(a, x) + gamma_q(a, x), 1.0, 1e-12) << a << " " << x;
    }
  }
  // Q(1, x) = e^{-x} exactly.
  EXPECT_NEAR(gamma_q(1, 2.5), std::exp(-2.5), 1e-14);
  EXPECT_TRUE(std::isnan(gamma_p(-1, 1)));
  // Tiny tail p-values stay positive and accurate in relative terms (sf of chi2(1) at 100).
  EXPECT_NEAR(chi2_sf(100, 1) / 1.5239706048320302e-23, 1.0, 1e-6);
}

TEST(GofStats, QuantileInvertsTheCdf) {
  EXPECT_NEAR(chi2_quantile(0.95, 1), 3.841458820694124, 1e-9);
  EXPECT_NEAR(chi2_quantile(0.999, 7), 24.321886347857117, 1e-8);
  for (double df : {1.0, 2.0, 7.0, 30.0}) {
    for (double p : {0.001, 0.3, 0.5, 0.9, 0.999999}) {
      EXPECT_NEAR(chi2_cdf(chi2_quantile(p, df), df), p, 1e-10) << df << " " << p;
    }
  }
  EXPECT_TRUE(std::isnan(chi2_quantile(1.0, 3)));
}

TEST(GofStats, NoncentralChiSquareMatchesTheOneDegreeClosedForm) {
  // df = 1: X = (Z + sqrt(lambda))^2, so F(x) = Phi(sqrt x - sqrt l) - Phi(-sqrt x - sqrt l).
  struct Row {
    double x, lambda, cdf;
  };
  const Row rows[] = {{3.841458820694124, 7.92, 0.1964725155438823},
                      {1.0, 0.5, 0.5712970103867459},
                      {10, 20, 0.09512188899031587}};
  for (const auto& r : rows) EXPECT_NEAR(ncx2_cdf(r.x, 1, r.lambda), r.cdf, 1e-10) << r.x << " " << r.lambda;
  EXPECT_NEAR(ncx2_cdf(5, 3, 0), chi2_cdf(5, 3), 1e-15);  // lambda = 0 is the central case
  EXPECT_LT(ncx2_cdf(2.5, 1, 100), 1e-12);
}

TEST(GofStats, NoncentralChiSquareAgreesWithSimulationAtSevenDegrees) {
  // Sum of 7 squared normals with total squared mean lambda; deterministic seed, 200k draws.
  const double lambda = 30;
  const double x = 24.32188758;
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> z;
  const int n = 200000;
  int below = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < 7; ++j) {
      const double mu = j == 0 ? std::sqrt(lambda) : 0;
      const double v = z(rng) + mu;
      s += v * v;
    }
    below += s <= x ? 1 : 0;
  }
  const double p = ncx2_cdf(x, 7, lambda);
  const double sigma = std::sqrt(p * (1 - p) / n);
  EXPECT_NEAR(static_cast<double>(below) / n, p, 5 * sigma);
}

TEST(GofStats, PowerAnalysisGivesThePublishedSampleSize) {
  // Cohen / G*Power: w = 0.3, df = 1, alpha = 0.05, power = 0.8 -> N = 88.
  EXPECT_EQ(min_sample_size(0.3, 1, 0.05, 0.8), 88u);
  EXPECT_GE(gof_power(0.3, 1, 0.05, 88), 0.8);
  EXPECT_LT(gof_power(0.3, 1, 0.05, 87), 0.8);
}

TEST(GofStats, PowerAnalysisForTheSpraySettings) {
  // df = 7 (8 EVs), w = 0.1, alpha = 0.001, power = 0.9. An independent Python evaluation
  // (exact odd-df CDF inside the Poisson mixture) gives 3183.
  const auto n = min_sample_size(0.1, 7, 0.001, 0.9);
  EXPECT_EQ(n, 3183u);
  EXPECT_GE(gof_power(0.1, 7, 0.001, n), 0.9);
  EXPECT_LT(gof_power(0.1, 7, 0.001, n - 1), 0.9);
  // Sanity: smaller effects and stricter alphas need more samples.
  EXPECT_GT(min_sample_size(0.05, 7, 0.001, 0.9), 3 * n);
  EXPECT_GT(n, min_sample_size(0.1, 7, 0.01, 0.9));
  EXPECT_EQ(min_sample_size(0, 7, 0.001, 0.9), 0u);  // no effect to detect: invalid
}

TEST(GofStats, GoodnessOfFitOnKnownCounts) {
  const std::vector<std::uint64_t> obs{30, 10, 10, 10};
  const std::vector<double> exp(4, 0.25);
  const auto c = gof_test(obs, exp, GofKind::kChi2);
  EXPECT_EQ(c.n, 60u);
  EXPECT_DOUBLE_EQ(c.statistic, 20.0);  // (15^2 + 3 * 5^2) / 15
  EXPECT_EQ(c.df, 3);
  EXPECT_NEAR(c.p_value, chi2_sf(20, 3), 1e-15);
  EXPECT_NEAR(c.cohen_w, std::sqrt(20.0 / 60.0), 1e-12);
  EXPECT_NEAR(c.cramers_v, c.cohen_w / std::sqrt(3.0), 1e-12);
  EXPECT_DOUBLE_EQ(c.max_rel_dev, 1.0);
  EXPECT_EQ(c.max_dev_category, 0u);
  const auto g = gof_test(obs, exp, GofKind::kG);
  EXPECT_NEAR(g.statistic, 2 * (30 * std::log(2.0) + 30 * std::log(10.0 / 15.0)), 1e-12);
  const auto flat = gof_test(std::vector<std::uint64_t>{25, 25, 25, 25}, exp, GofKind::kChi2);
  EXPECT_EQ(flat.statistic, 0);
  EXPECT_EQ(flat.p_value, 1);
}

// 200 seeded uniform multinomial samples at alpha = 0.01: the number of rejections is
// Binomial(200, 0.01) (mean 2); P(X >= 9) < 3e-4, and the seeds are fixed so this cannot flake.
TEST(GofStats, FalseFailRateStaysWithinTheBinomialBound) {
  const std::size_t k = 8;
  const std::uint64_t n = 2000;
  const std::vector<double> exp(k, 1.0 / k);
  int fails_chi2 = 0;
  int fails_g = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> obs(k, 0);
    for (std::uint64_t i = 0; i < n; ++i) ++obs[rng() % k];  // 8 divides 2^64: exactly uniform
    fails_chi2 += gof_test(obs, exp, GofKind::kChi2).p_value < 0.01 ? 1 : 0;
    fails_g += gof_test(obs, exp, GofKind::kG).p_value < 0.01 ? 1 : 0;
  }
  EXPECT_LE(fails_chi2, 8);
  EXPECT_LE(fails_g, 8);
  // And the test does reject: the same samples with one category at 3x its share.
  int detected = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> obs(k, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t u = rng() % 10;  // category 0 gets 3/10, the other 7 get 1/10 each
      ++obs[u < 3 ? 0 : u - 2];
    }
    detected += gof_test(obs, exp, GofKind::kChi2).p_value < 0.01 ? 1 : 0;
  }
  EXPECT_EQ(detected, 20);
}

}  // namespace
}  // namespace mrc::harness::stats
