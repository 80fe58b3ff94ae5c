#include "harness/verdict/gof_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mrc::harness::stats {
namespace {

constexpr double kEps = 1e-15;
constexpr double kTiny = 1e-300;
constexpr int kMaxIter = 100000;  // bounded: the series/fraction converge in O(sqrt(a)) steps

double log_gamma(double a) {
  int sign = 0;
  return ::lgamma_r(a, &sign);  // lgamma_r: no shared signgam, safe in parallel checks
}

// exp(-x + a ln x - ln Gamma(a)): the common prefactor of both expansions.
double prefactor(double a, double x) { return std::exp(-x + a * std::log(x) - log_gamma(a)); }

// P(a, x) by its power series; converges fast for x < a + 1.
double p_series(double a, double x) {
  double ap = a;
  double del = 1.0 / a;
  double sum = del;
  for (int n = 0; n < kMaxIter; ++n) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (std::fabs(del) < std::fabs(sum) * kEps) break;
  }
  return sum * prefactor(a, x);
}

// Q(a, x) by its continued fraction (modified Lentz); converges fast for x >= a + 1.
double q_fraction(double a, double x) {
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return prefactor(a, x) * h;
}

double log_poisson(double mu, double j) { return -mu + j * std::log(mu) - log_gamma(j + 1); }

}  // namespace

double gamma_p(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 0;
  if (std::isinf(x)) return 1;
  return x < a + 1 ? p_series(a, x) : 1 - q_fraction(a, x);
}

double gamma_q(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 1;
  if (std::isinf(x)) return 0;
  return x < a + 1 ? 1 - p_series(a, x) : q_fraction(a, x);
}

double chi2_cdf(double x, double df) { return gamma_p(df / 2, x / 2); }
double chi2_sf(double x, double df) { return gamma_q(df / 2, x / 2); }

double chi2_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  // Solve in the tail that keeps precision: the upper tail for p > 0.5.
  const bool upper = p > 0.5;
  const double target = upper ? 1 - p : p;
  auto tail = [&](double x) { return upper ? chi2_sf(x, df) : chi2_cdf(x, df); };
  // tail(x) is decreasing (upper) or increasing (lower) in x; bracket, then bisect.
  double lo = 0;
  double hi = std::max(df, 1.0);
  for (int i = 0; i < 2000 && (upper ? tail(hi) > target : tail(hi) < target); ++i) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool below = upper ? tail(mid) > target : tail(mid) < target;
    (below ? lo : hi) = mid;
    if (hi - lo <= 1e-13 * hi) break;
  }
  return 0.5 * (lo + hi);
}

double ncx2_cdf(double x, double df, double lambda) {
  if (lambda <= 0) return chi2_cdf(x, df);
  if (x <= 0) return 0;
  const double mu = lambda / 2;
  const double j0 = std::floor(mu);
  double sum = 0;
  // From the mode upward: weights fall and chi2_cdf(x, df + 2j) falls, so stop on a tiny weight.
  for (double j = j0; j < j0 + 1e7; j += 1) {
    const double w = std::exp(log_poisson(mu, j));
    sum += w * chi2_cdf(x, df + 2 * j);
    if (w < 1e-17 && j > mu) break;
  }
  for (double j = j0 - 1; j >= 0; j -= 1) {
    const double w = std::exp(log_poisson(mu, j));
    sum += w * chi2_cdf(x, df + 2 * j);
    if (w < 1e-17) break;
  }
  return std::clamp(sum, 0.0, 1.0);
}

double gof_power(double w, double df, double alpha, std::uint64_t n) {
  const double crit = chi2_quantile(1 - alpha, df);
  return 1 - ncx2_cdf(crit, df, static_cast<double>(n) * w * w);
}

std::uint64_t min_sample_size(double w, double df, double alpha, double power) {
  if (!(w > 0) || !(df > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) return 0;
  if (power <= alpha) return 1;
  const double crit = chi2_quantile(1 - alpha, df);
  auto reaches = [&](std::uint64_t n) {
    return 1 - ncx2_cdf(crit, df, static_cast<double>(n) * w * w) >= power;
  };
  std::uint64_t hi = 1;
  while (!reaches(hi)) {
    if (hi > (std::uint64_t{1} << 40)) return 0;  // unreachable in practice: w > 0 means power -> 1
    hi *= 2;
  }
  std::uint64_t lo = hi / 2;  // !reaches(lo) unless hi == 1
  if (hi == 1) return 1;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (reaches(mid) ? hi : lo) = mid;
  }
  return hi;
}

GofResult gof_test(std::span<const std::uint64_t> observed, std::span<const double> expected, GofKind kind) {
  GofResult r;
  const std::size_t k = std::min(observed.size(), expected.size());
  for (std::size_t i = 0; i < k; ++i) r.n += observed[i];
  r.df = k >= 2 ? static_cast<double>(k - 1) : 0;
  if (r.n == 0 || k < 2) return r;
  const double n = static_cast<double>(r.n);
  double x2 = 0;
  double g = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double e = n * expected[i];
    const double o = static_cast<double>(observed[i]);
    if (e <= 0) continue;
    x2 += (o - e) * (o - e) / e;
    if (o > 0) g += o * std::log(o / e);
    const double rel = std::fabs(o - e) / e;
    if (rel > r.max_rel_dev) {
      r.max_rel_dev = rel;
      r.max_dev_category = i;
    }
  }
  g *= 2;
  r.statistic = kind == GofKind::kChi2 ? x2 : g;
  r.p_value = chi2_sf(r.statistic, r.df);
  r.cohen_w = std::sqrt(x2 / n);
  r.cramers_v = r.cohen_w / std::sqrt(r.df);
  return r;
}

}  // namespace mrc::harness::stats
