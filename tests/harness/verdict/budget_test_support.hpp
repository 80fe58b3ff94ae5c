// The proof every bound the timing budget widens owes (timing_budget.hpp): a run whose measured
// time is past the bound by X gives FAIL with budget 0 and no budget named; FAIL still with a
// budget short of X, naming the budget; PASS with a budget of X or more, naming it. `check` runs
// the check on `ctx`, whose timing_budget each step sets. `short_evidence`, when given, is text the
// first evidence's `expected` shows under the short budget (the widened bound, spelt out).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "harness/verdict/timing_budget.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness::testing {

inline constexpr const char* kBridge = "real-time bridge (testbed netns)";

inline TimingBudget bridge(std::uint64_t ns) { return TimingBudget{ns, kBridge}; }

inline void expect_budget_rules(CheckContext& ctx, const std::function<CheckResult(const CheckContext&)>& check,
                                std::uint64_t short_ns, std::uint64_t enough_ns, const std::string& short_evidence = {}) {
  ctx.timing_budget = {};
  const CheckResult none = check(ctx);
  EXPECT_EQ(none.verdict, Verdict::kFail) << none.message;
  EXPECT_EQ(none.message.find("timing budget"), std::string::npos) << none.message;
  EXPECT_EQ(none.metrics.count("timing_budget_ns"), 0u);

  ctx.timing_budget = bridge(short_ns);
  const CheckResult little = check(ctx);
  EXPECT_EQ(little.verdict, Verdict::kFail) << little.message;
  EXPECT_NE(little.message.find(budget_text(bridge(short_ns))), std::string::npos) << little.message;
  EXPECT_EQ(little.metrics.count("timing_budget_ns") ? little.metrics.at("timing_budget_ns") : -1.0,
            static_cast<double>(short_ns));
  if (!short_evidence.empty()) {
    EXPECT_NE(little.evidence.empty() ? std::string::npos : little.evidence[0].expected.find(short_evidence),
              std::string::npos)
        << (little.evidence.empty() ? "no evidence" : little.evidence[0].expected);
  }

  ctx.timing_budget = bridge(enough_ns);
  const CheckResult enough = check(ctx);
  EXPECT_EQ(enough.verdict, Verdict::kPass) << enough.message;
  EXPECT_NE(enough.message.find(budget_text(bridge(enough_ns))), std::string::npos) << enough.message;
  ctx.timing_budget = {};
}

}  // namespace mrc::harness::testing
