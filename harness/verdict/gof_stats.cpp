#include "harness/verdict/gof_stats.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

namespace mrc::harness::stats {
namespace {

namespace bm = boost::math;
// Out-of-domain arguments give NaN (the checks test for it) instead of an exception; the
// arithmetic stays in double, so every platform computes the same numbers.
using Policy = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                    bm::policies::overflow_error<bm::policies::ignore_error>,
                                    bm::policies::evaluation_error<bm::policies::ignore_error>,
                                    bm::policies::promote_double<false>>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double gamma_p(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return kNaN;
  if (x <= 0) return 0;
  if (std::isinf(x)) return 1;
  return bm::gamma_p(a, x, Policy());
}

double gamma_q(double a, double x) {
  if (!(a > 0) || std::isnan(x)) return kNaN;
  if (x <= 0) return 1;
  if (std::isinf(x)) return 0;
  return bm::gamma_q(a, x, Policy());
}

double chi2_cdf(double x, double df) { return gamma_p(df / 2, x / 2); }
double chi2_sf(double x, double df) { return gamma_q(df / 2, x / 2); }

double chi2_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  const bm::chi_squared_distribution<double, Policy> d(df);
  // The upper tail keeps precision for p close to 1 (the critical value of 1 - alpha).
  return p > 0.5 ? bm::quantile(bm::complement(d, 1 - p)) : bm::quantile(d, p);
}

double ncx2_cdf(double x, double df, double lambda) {
  if (lambda <= 0) return chi2_cdf(x, df);
  if (x <= 0) return 0;
  const bm::non_central_chi_squared_distribution<double, Policy> d(df, lambda);
  return std::clamp(bm::cdf(d, x), 0.0, 1.0);
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
