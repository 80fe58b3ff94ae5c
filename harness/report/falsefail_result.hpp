// What a false-fail measurement (`mrc-conform falsefail`) produced: filled by the falsefail
// engine (harness/run/falsefail*), read by the renderers (falsefail_report.hpp).
//
// Verdict per case and per check: `exceeds alpha` when seeing at least that many FAILs would be
// unlikely (one-sided exact binomial p < kFalsefailSignificance) if the true rate were alpha;
// `consistent` otherwise; `no data` when no run was judged. INCONCLUSIVE and ERROR runs are
// counted apart and never as PASS (they are not in `judged`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mrc::harness {

// p-value below which the observed FAIL count is called too high for the declared alpha.
inline constexpr double kFalsefailSignificance = 0.01;

struct FalsefailCount {
  double alpha = 0;            // declared false-fail rate (a case: the sum over its checks)
  std::uint64_t runs = 0;      // every seed
  std::uint64_t judged = 0;    // PASS + FAIL
  std::uint64_t fails = 0;
  std::uint64_t inconclusive = 0;
  std::uint64_t errors = 0;    // ERROR, UNSUPPORTED or the check did not run
  double p_value = 1;          // P[at least `fails` FAILs in `judged` runs at rate alpha]
  std::string verdict;         // "consistent", "exceeds alpha", "no data"

  double rate() const { return judged == 0 ? 0.0 : static_cast<double>(fails) / static_cast<double>(judged); }
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

}  // namespace mrc::harness
