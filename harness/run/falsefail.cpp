// The false-fail tally, its binomial test and its renderers (falsefail.hpp).
#include "harness/run/falsefail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "harness/run/campaign.hpp"

namespace mrc::run {
namespace {

using harness::Verdict;
using Json = nlohmann::ordered_json;

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

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// p-values span many decades: 3 significant digits in scientific notation below 0.001.
std::string p_text(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, p < 0.001 ? "%.3g" : "%.4f", p);
  return buf;
}

Json count_json(const FalsefailCount& c) {
  Json j;
  j["alpha"] = c.alpha;
  j["runs"] = c.runs;
  j["judged"] = c.judged;
  j["fails"] = c.fails;
  j["inconclusive"] = c.inconclusive;
  j["errors"] = c.errors;
  j["rate"] = c.rate();
  j["p_value"] = c.p_value;
  j["verdict"] = c.verdict;
  return j;
}

std::string row(const std::string& what, const FalsefailCount& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-40s %5llu %5llu %5llu %5llu %8s %9s %10s  %s\n", what.c_str(),
                static_cast<unsigned long long>(c.runs), static_cast<unsigned long long>(c.fails),
                static_cast<unsigned long long>(c.inconclusive), static_cast<unsigned long long>(c.errors),
                fixed(c.rate(), 4).c_str(), p_text(c.alpha).c_str(), p_text(c.p_value).c_str(), c.verdict.c_str());
  return buf;
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

void FalsefailCount::judge() {
  p_value = binomial_upper_tail(judged, fails, alpha);
  if (judged == 0) {
    verdict = "no data";
  } else {
    verdict = p_value < kFalsefailSignificance ? "exceeds alpha" : "consistent";
  }
}

int FalsefailResult::exit_code() const {
  if (interrupted) return 3;
  for (const auto& c : cases) {
    if (c.count.verdict != "consistent" || c.count.errors > 0) return 1;
    for (const auto& k : c.checks) {
      if (k.count.verdict != "consistent") return 1;
    }
  }
  return 0;
}

bool is_statistical(const harness::Case& c) {
  return std::any_of(c.checks.begin(), c.checks.end(), [](const harness::Check& k) {
    return std::holds_alternative<harness::DistributionCheck>(k.params);
  });
}

FalsefailCase tally_falsefail(const harness::Case& c, std::span<const harness::CaseResult> runs) {
  FalsefailCase out;
  out.id = c.id;
  std::vector<std::size_t> indices;  // of the distribution checks in c.checks (= in each result)
  for (std::size_t i = 0; i < c.checks.size(); ++i) {
    const auto* d = std::get_if<harness::DistributionCheck>(&c.checks[i].params);
    if (!d) continue;
    indices.push_back(i);
    FalsefailCheck fc;
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
  out.count.judge();
  for (auto& k : out.checks) k.count.judge();
  return out;
}

std::string render_falsefail_json(const FalsefailResult& r) {
  Json j;
  j["schema"] = "mrc-conform/falsefail/1";
  j["dut"] = r.dut;
  j["testbed"] = r.testbed;
  j["first_seed"] = r.first_seed;
  j["seeds"] = r.seeds;
  j["significance"] = kFalsefailSignificance;
  j["interrupted"] = r.interrupted;
  j["exit_code"] = r.exit_code();
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json cj;
    cj["case"] = c.id;
    cj["case_result"] = count_json(c.count);
    Json checks = Json::array();
    for (const auto& k : c.checks) {
      Json kj;
      kj["name"] = k.name;
      Json cl = Json::array();
      for (const auto& x : k.clauses) cl.push_back(x);
      kj["clauses"] = std::move(cl);
      kj["result"] = count_json(k.count);
      checks.push_back(std::move(kj));
    }
    cj["checks"] = std::move(checks);
    cases.push_back(std::move(cj));
  }
  j["cases"] = std::move(cases);
  return j.dump(2) + "\n";
}

std::string render_falsefail_text(const FalsefailResult& r) {
  std::string out;
  char head[512];
  std::snprintf(head, sizeof head, "%-40s %5s %5s %5s %5s %8s %9s %10s  %s\n", "case / check", "runs", "FAIL", "inc",
                "err", "rate", "alpha", "p", "verdict");
  out += head;
  for (const auto& c : r.cases) {
    out += row(c.id, c.count);
    for (const auto& k : c.checks) out += row("  " + k.name, k.count);
  }
  out += std::to_string(r.cases.size()) + " statistical case(s), " + std::to_string(r.seeds) + " seed(s) from " +
         std::to_string(r.first_seed) + " on " + r.dut + "; `exceeds alpha` = p < " + fixed(kFalsefailSignificance, 2) +
         (r.interrupted ? "; interrupted" : "") + "\n";
  return out;
}

}  // namespace mrc::run
