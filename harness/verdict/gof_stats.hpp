// Goodness-of-fit statistics for the spraying verdicts (anchors G6: statistics, not tolerances).
//
// The distributions are Boost.Math's (Debian libboost-math-dev, header-only, in double
// throughout: reproducible everywhere, tested against published tables): the regularized
// incomplete gamma function, the chi-square and noncentral chi-square distributions. Here: the
// power of a chi-square goodness-of-fit test for Cohen's effect size w, and the smallest sample
// that reaches a declared power.
#pragma once

#include <cstdint>
#include <span>

namespace mrc::harness::stats {

// Regularized lower / upper incomplete gamma P(a, x), Q(a, x) = 1 - P. a > 0, x >= 0.
double gamma_p(double a, double x);
double gamma_q(double a, double x);

// Chi-square distribution with df degrees of freedom.
double chi2_cdf(double x, double df);
double chi2_sf(double x, double df);            // upper tail: the p-value of a statistic x
double chi2_quantile(double p, double df);      // x with chi2_cdf(x) = p, p in (0, 1)

// Noncentral chi-square with noncentrality lambda.
double ncx2_cdf(double x, double df, double lambda);

// Power of the goodness-of-fit test (chi-square or G, same asymptotics) with df degrees of
// freedom at level alpha, for effect size w and n samples: P(ncx2(df, n w^2) > crit).
double gof_power(double w, double df, double alpha, std::uint64_t n);
// The smallest n with gof_power >= power (binary search; power is increasing in n).
std::uint64_t min_sample_size(double w, double df, double alpha, double power);

enum class GofKind : std::uint8_t { kChi2, kG };

struct GofResult {
  double statistic = 0;   // Pearson X^2 or G = 2 sum O ln(O/E)
  double df = 0;          // categories - 1
  double p_value = 1;
  std::uint64_t n = 0;
  double cohen_w = 0;     // observed effect size: sqrt(sum (p_obs - p_exp)^2 / p_exp)
  double cramers_v = 0;   // w / sqrt(categories - 1)
  double max_rel_dev = 0; // max over categories of |O - E| / E
  std::size_t max_dev_category = 0;
};

// `expected` are probabilities (summing to 1) of the same length as `observed`; at least two
// categories. Categories with expected probability 0 must have observed 0 (the caller filters).
GofResult gof_test(std::span<const std::uint64_t> observed, std::span<const double> expected, GofKind kind);

}  // namespace mrc::harness::stats
