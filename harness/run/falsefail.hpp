// `mrc-conform falsefail`: measures how often the statistical cases FAIL on a conforming DUT (the
// reference endpoint) across many seeds, and compares that with the false-fail rate each
// distribution check declares (its alpha). A case's own bound is the sum of its distribution
// checks' alphas (Bonferroni: P(any of them false-fails) <= the sum).
//
// Verdict per case and per check: `exceeds alpha` when seeing at least that many FAILs would be
// unlikely (one-sided exact binomial p < 0.01) if the true rate were alpha; `consistent`
// otherwise; `no data` when no run was judged. INCONCLUSIVE and ERROR runs are counted apart and
// never as PASS (they are not in `judged`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// p-value below which the observed FAIL count is called too high for the declared alpha.
inline constexpr double kFalsefailSignificance = 0.01;

// P[X >= k] for X ~ Binomial(n, p), summed exactly in log space (no normal approximation).
// 1 for k == 0; 0 for k > n.
double binomial_upper_tail(std::uint64_t n, std::uint64_t k, double p);

struct FalsefailCount {
  double alpha = 0;            // declared false-fail rate (a case: the sum over its checks)
  std::uint64_t runs = 0;      // every seed
  std::uint64_t judged = 0;    // PASS + FAIL
  std::uint64_t fails = 0;
  std::uint64_t inconclusive = 0;
  std::uint64_t errors = 0;    // ERROR, UNSUPPORTED or the check did not run
  double p_value = 1;          // binomial_upper_tail(judged, fails, alpha)
  std::string verdict;         // "consistent", "exceeds alpha", "no data"

  double rate() const { return judged == 0 ? 0.0 : static_cast<double>(fails) / static_cast<double>(judged); }
  void judge();                // sets p_value and verdict from the counts
};

struct FalsefailCheck {
  std::string name;            // the CheckResult name, e.g. "distribution/ev"
  std::vector<std::string> clauses;
  FalsefailCount count;
};

struct FalsefailCase {
  std::string id;
  FalsefailCount count;        // the case verdict over the seeds
  std::vector<FalsefailCheck> checks;  // its distribution checks, in case order
};

struct FalsefailResult {
  std::string dut;
  std::string testbed;
  std::uint64_t first_seed = 1;
  std::uint32_t seeds = 0;
  std::vector<FalsefailCase> cases;
  bool interrupted = false;

  // 0 every case and check consistent and no run errored, 1 otherwise, 3 interrupted.
  int exit_code() const;
};

// Does `c` have a distribution check?
bool is_statistical(const harness::Case& c);

// Counts one case's runs (one CaseResult per seed) per case and per distribution check, judged.
FalsefailCase tally_falsefail(const harness::Case& c, std::span<const harness::CaseResult> runs);

std::string render_falsefail_json(const FalsefailResult& r);
std::string render_falsefail_text(const FalsefailResult& r);

}  // namespace mrc::run
