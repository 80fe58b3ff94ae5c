// The timing budget helpers (timing_budget.hpp), and that no statistical, counting, field or
// non-timing invariant check ever reads the budget. Each check that does apply it is proven in
// its own test file (timing_check_test, expect_eval_test, golden_check_test, invariants_*_test).
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::bridge;
using testing::Data;
using testing::Feedback;
using testing::Scenario;
using testing::ev_value;

constexpr std::uint64_t kUs = 1000;

TEST(TimingBudget, WidensUpperBoundsAndShrinksLowerOnesNeverBelowZero) {
  EXPECT_EQ(widen_upper(72'000, bridge(200'000)), 272'000u);
  EXPECT_EQ(widen_upper(UINT64_MAX - 5, bridge(10)), UINT64_MAX);
  EXPECT_EQ(widen_lower(100'000, bridge(40'000)), 60'000u);
  EXPECT_EQ(widen_lower(100'000, bridge(400'000)), 0u);
  EXPECT_EQ(widen_upper(72'000, TimingBudget{}), 72'000u);
  EXPECT_EQ(widen_lower(72'000, TimingBudget{}), 72'000u);
  EXPECT_EQ(plus_budget(bridge(200'000)), " + 200.000 us timing budget (real-time bridge (testbed netns))");
  EXPECT_EQ(minus_budget(bridge(200'000)), " - 200.000 us timing budget (real-time bridge (testbed netns))");
  EXPECT_EQ(budget_text(TimingBudget{5, ""}), "5 ns timing budget");
  EXPECT_EQ(plus_budget(TimingBudget{0, "ignored"}), "");
  EXPECT_EQ(minus_budget(TimingBudget{}), "");
  CheckResult r;
  note_budget(r, TimingBudget{});
  EXPECT_TRUE(r.metrics.empty());
  note_budget(r, bridge(7));
  EXPECT_EQ(r.metrics.at("timing_budget_ns"), 7.0);
}

// ---- never applied to a check that does not time anything -----------------------------------

// The invariants that compare a measured time with a bound (cases/README.md, "Timing budget").
const std::vector<std::string_view> kTimedInvariants{
    "sack_triggers", "ce_skip_once", "transport_ack", "probe_answered", "no_data_on_failed_ev", "no_denied_ev", "no_assumed_bad_ev",
    "req_id_not_reused", "retry_exceeded", "completion_after_all_psns", "cwnd_decreases", "quick_adapt", "sack_exact",
    "skip_after_congestion", "peer_port_status"};

// A run with something for most checks to judge, and some of them to fault: spraying with a
// DENIED EV used, a fault, EV events, feedback both ways with a hole, completions.
Scenario busy_run() {
  Scenario s(4, 8);
  s.spray(0, 0, 256);
  s.ctx.dut.evs[2].denied = true;
  s.ctx.dut.ev_events = {EvEventRecord{20 * kUs, 3, 0, 2, 0}};
  s.ctx.faults = {testing::link_down(10 * kUs, {ev_value(1), ev_value(5)})};
  for (std::uint32_t p : {0u, 1u, 2u, 4u, 5u}) {
    Data d;
    d.psn = p;
    s.dut_receives(p * kUs, d, p % 8);
  }
  Feedback fb = testing::sack(20, 0, 20);
  fb.ce = true;
  s.dut_receives(12 * kUs, fb);
  Feedback ack;
  ack.psn = 6;  // acknowledges PSNs that never arrived
  s.dut_sends(9 * kUs, ack);
  s.ctx.dut.completions.push_back(CompletionRecord{3 * kUs, 1, 12, true, false, 0, 0});
  s.ctx.requester_window_psns = 128;
  s.ctx.responder_window_psns = 128;
  s.ctx.wimm_limit = 4;
  s.ctx.ev_min_active = 2;
  s.finish();
  return s;
}

void expect_same(const CheckResult& a, const CheckResult& b, std::string_view what) {
  SCOPED_TRACE(std::string(what));
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.metrics, b.metrics);
  ASSERT_EQ(a.evidence.size(), b.evidence.size());
  for (std::size_t i = 0; i < a.evidence.size(); ++i) {
    EXPECT_EQ(a.evidence[i].expected, b.evidence[i].expected);
    EXPECT_EQ(a.evidence[i].observed, b.evidence[i].observed);
  }
}

TEST(TimingBudget, IsNeverAppliedToACheckThatTimesNothing) {
  Scenario s = busy_run();
  const TimingBudget huge = bridge(1'000'000'000);
  std::vector<Check> checks;
  for (std::string_view name : implemented_invariants()) {
    if (std::find(kTimedInvariants.begin(), kTimedInvariants.end(), name) != kTimedInvariants.end()) continue;
    checks.push_back(Check{{}, {}, {}, InvariantCheck{std::string(name), {}}, Level::kMust});
  }
  checks.push_back(Check{{}, {}, {}, PositiveControlCheck{100, 0}, Level::kMust});
  checks.push_back(Check{{}, {}, {}, DistributionCheck{}, Level::kMust});
  checks.push_back(Check{{}, {}, {}, FieldCheck{{}, "ip.dscp", FieldCheck::Equals{std::uint64_t{10}}, 0}, Level::kMust});
  checks.push_back(Check{{}, {}, {}, FieldCheck{{}, "ts", FieldCheck::Range{0, 5 * kUs}, 0}, Level::kMust});
  std::size_t failing = 0;
  for (const Check& c : checks) {
    s.ctx.timing_budget = {};
    const CheckResult plain = run_check(c, s.ctx);
    s.ctx.timing_budget = huge;
    const CheckResult budgeted = run_check(c, s.ctx);
    expect_same(plain, budgeted, plain.name);
    failing += plain.verdict == Verdict::kFail ? 1 : 0;
  }
  EXPECT_GE(failing, 4u) << "the run must give the untouched checks something to fail on";
  // The control: on the same run, the budget does change timed invariants.
  std::size_t changed = 0;
  for (std::string_view name : kTimedInvariants) {
    const Check c{{}, {}, {}, InvariantCheck{std::string(name), {}}};
    s.ctx.timing_budget = {};
    const CheckResult plain = run_check(c, s.ctx);
    s.ctx.timing_budget = huge;
    changed += run_check(c, s.ctx).message != plain.message ? 1 : 0;
  }
  EXPECT_GE(changed, 3u);
}

}  // namespace
}  // namespace mrc::harness
