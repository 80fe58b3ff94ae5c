// The false-fail tally and its binomial test (falsefail.hpp).
#include "harness/studies/falsefail.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <variant>

#include "harness/studies/campaign.hpp"

namespace mrc::run {
namespace {

using harness::FalsefailCount;
using harness::Verdict;

void count(FalsefailCount& c, std::optional<Verdict> v) {
  ++c.runs;
  if (!v) {
    ++c.errors;
    return;
  }
  switch (*v) {
    case Verdict::kPass: ++c.judged; break;
    case Verdict::kFail:
      ++c.judged;
      ++c.fails;
      break;
    case Verdict::kInconclusive: ++c.inconclusive; break;
    case Verdict::kError:
    case Verdict::kUnsupported: ++c.errors; break;
  }
}

}  // namespace

double binomial_upper_tail(std::uint64_t n, std::uint64_t k, double p) {
  if (k == 0) return 1.0;
  if (k > n) return 0.0;
  if (!(p > 0.0)) return 0.0;
  if (p >= 1.0) return 1.0;
  // Sum of C(n,i) p^i (1-p)^(n-i) for i = k..n, each term in log space, scaled by the largest
  // so a tail of 1e-300 neither underflows early nor loses the terms next to it.
  const long double lp = std::log(static_cast<long double>(p));
  const long double lq = std::log1p(-static_cast<long double>(p));
  const long double ln = std::lgamma(static_cast<long double>(n) + 1);
  auto log_term = [&](std::uint64_t i) {
    const long double li = static_cast<long double>(i);
    return ln - std::lgamma(li + 1) - std::lgamma(static_cast<long double>(n - i) + 1) + li * lp +
           static_cast<long double>(n - i) * lq;
  };
  long double top = log_term(k);
  for (std::uint64_t i = k + 1; i <= n; ++i) top = std::max(top, log_term(i));
  long double sum = 0;
  for (std::uint64_t i = k; i <= n; ++i) sum += std::exp(log_term(i) - top);
  const long double v = std::exp(top + std::log(sum));
  return static_cast<double>(std::min<long double>(1.0L, v));
}

void judge(FalsefailCount& c) {
  c.p_value = binomial_upper_tail(c.judged, c.fails, c.alpha);
  if (c.judged == 0) {
    c.verdict = "no data";
  } else {
    c.verdict = c.p_value < harness::kFalsefailSignificance ? "exceeds alpha" : "consistent";
  }
}

bool is_statistical(const harness::Case& c) {
  return std::any_of(c.checks.begin(), c.checks.end(), [](const harness::Check& k) {
    return std::holds_alternative<harness::DistributionCheck>(k.params);
  });
}

harness::FalsefailCase tally_falsefail(const harness::Case& c, std::span<const harness::CaseResult> runs) {
  harness::FalsefailCase out;
  out.id = c.id;
  std::vector<std::size_t> indices;  // of the distribution checks in c.checks (= in each result)
  for (std::size_t i = 0; i < c.checks.size(); ++i) {
    const auto* d = std::get_if<harness::DistributionCheck>(&c.checks[i].params);
    if (!d) continue;
    indices.push_back(i);
    harness::FalsefailCheck fc;
    fc.name = c.checks[i].name.empty() ? std::string(c.checks[i].type()) : c.checks[i].name;
    fc.clauses = check_clauses(c, i);
    fc.count.alpha = d->alpha;
    out.count.alpha += d->alpha;  // Bonferroni bound of the case
    out.checks.push_back(std::move(fc));
  }
  for (const harness::CaseResult& r : runs) {
    count(out.count, r.verdict);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const std::size_t i = indices[k];
      if (i < r.checks.size()) {
        out.checks[k].name = r.checks[i].name;  // the report's name of the check
        count(out.checks[k].count, r.checks[i].verdict);
      } else {
        count(out.checks[k].count, std::nullopt);
      }
    }
  }
  judge(out.count);
  for (auto& k : out.checks) judge(k.count);
  return out;
}

}  // namespace mrc::run
