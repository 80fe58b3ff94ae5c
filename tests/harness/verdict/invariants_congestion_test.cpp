// A requester taking congestion feedback (W7, W11): a NACK TRIMMED is answered by a prompt
// retransmission (trim_retx_prompt), no SKIP_ONCE or NACK TRIMMED is followed by an ASSUMED_BAD
// event for the EV it named (congestion_not_bad), and the EV it named misses the next packet
// the DUT picks (skip_after_congestion).
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Scenario;
using testing::ev_value;
using testing::nack;
using testing::sack;

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{std::move(name), std::move(params)};
}

Data retx(std::uint32_t psn) {
  Data d;
  d.psn = psn;
  d.rtx = true;
  return d;
}

// The DUT sends PSNs 0..7, PSN 5 is trimmed and NACKed at 2000 ns; `resend_at` 0: never resent.
Scenario trimmed(std::uint64_t resend_at) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  s.dut_receives(2000, nack(5));
  if (resend_at != 0) s.dut_sends(resend_at, retx(5), 6);
  s.spray(50'000, 8, 4);  // the run goes on well past the bound
  return s;
}

TEST(CongestionInvariants, TrimRetxPromptJudgesTheTimeFromTheNack) {
  const auto within = inv("trim_retx_prompt", {{"within_ns", "10000"}});
  Scenario prompt = trimmed(2500);
  EXPECT_EQ(run_invariant(within, prompt.finish()).verdict, Verdict::kPass);

  Scenario late = trimmed(30'000);  // a DUT waiting for its ACK timeout
  const auto r = run_invariant(within, late.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "ts");
  EXPECT_NE(r.evidence[0].observed.find("28000 ns after it"), std::string::npos) << r.evidence[0].observed;

  Scenario never = trimmed(0);
  const auto n = run_invariant(within, never.finish());
  ASSERT_EQ(n.verdict, Verdict::kFail);
  EXPECT_EQ(n.evidence[0].observed, "none before the end of the run");
}

TEST(CongestionInvariants, TrimRetxPromptNeedsANackAndItsBound) {
  Scenario quiet(4, 8);
  quiet.spray(0, 0, 8);
  EXPECT_EQ(run_invariant(inv("trim_retx_prompt", {{"within_ns", "10000"}}), quiet.finish()).verdict,
            Verdict::kInconclusive);
  Scenario lastop = trimmed(0);
  lastop.dut_receives(3000, nack(6, wire::nack::kTrimmedLastHop));  // judged only for TRIMMED
  EXPECT_EQ(run_invariant(inv("trim_retx_prompt"), lastop.finish()).verdict, Verdict::kError);
}

TEST(CongestionInvariants, CongestionNeverMakesTheNamedEvAssumedBad) {
  auto run_with_event = [](std::uint32_t ev_index, std::uint64_t at) {
    Scenario s(4, 8);
    s.spray(0, 0, 8);
    s.dut_receives(2000, nack(5));  // names EV 5
    auto ce = sack(3, 0, 4);         // a SKIP_ONCE naming EV 4
    ce.ce = true;
    s.dut_receives(2100, ce);
    EvEventRecord e;
    e.at_ns = at;
    e.ev_index = ev_index;
    e.state = 1u << 1;  // ASSUMED_BAD
    s.ctx.dut.ev_events.push_back(e);
    return run_invariant(inv("congestion_not_bad"), s.finish());
  };
  EXPECT_EQ(run_with_event(2, 3000).verdict, Verdict::kPass);   // an EV no congestion feedback named
  EXPECT_EQ(run_with_event(5, 1000).verdict, Verdict::kPass);   // before the NACK
  const auto r = run_with_event(5, 3000);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "ev_event.state");
  EXPECT_EQ(run_with_event(4, 3000).verdict, Verdict::kFail);  // SKIP_ONCE: the same rule

  Scenario unmonitored(4, 8);
  unmonitored.dut_receives(2000, nack(5));
  unmonitored.ctx.ev_event_mask = 1;  // GOOD only: ASSUMED_BAD would raise no event to judge
  EXPECT_EQ(run_invariant(inv("congestion_not_bad"), unmonitored.finish()).verdict, Verdict::kError);
  Scenario none(4, 8);
  none.spray(0, 0, 8);
  EXPECT_EQ(run_invariant(inv("congestion_not_bad"), none.finish()).verdict, Verdict::kInconclusive);
}

// One port, four EVs: the DUT sends PSN k on EV k % 4 every 300 ns, each send clocked out by the
// SACK of PSN k - 4 arriving at the same instant. The SACK at 3000 ns (answering PSN 6, sent on
// EV 2) is CE-marked; the send it clocks out is on `next_ev`.
Scenario skip_run(std::uint32_t next_ev, std::uint64_t allowance_gap = 0) {
  Scenario s(1, 4);
  for (std::uint32_t k = 0; k < 16; ++k) {
    const std::uint64_t t = 300 * k;
    if (k >= 4) {
      auto fb = sack(k - 4, 0, k - 4);
      fb.ev_echo = ev_value((k - 4) % 4);
      fb.ce = t == 3000;
      s.dut_receives(t, fb);
    }
    Data d;
    d.psn = k;
    s.dut_sends(t + (t == 3000 ? allowance_gap : 0), d, t == 3000 ? next_ev : k % 4);
  }
  return s;
}

TEST(CongestionInvariants, SkipAfterCongestionJudgesTheSendTheFeedbackClockedOut) {
  const auto check = inv("skip_after_congestion");
  // The CE SACK names EV 2 (PSN 6); the rotation would put PSN 10 on EV 2.
  Scenario skipped = skip_run(3);
  EXPECT_EQ(run_invariant(check, skipped.finish()).verdict, Verdict::kPass);
  Scenario kept = skip_run(2);  // a DUT that ignores SKIP_ONCE
  const auto r = run_invariant(check, kept.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "ev");
  EXPECT_NE(r.evidence[0].expected.find("SKIP_ONCE"), std::string::npos) << r.evidence[0].expected;
  // Sent 150 ns after the feedback, not clocked out by it: queued before, any EV may leave.
  Scenario queued = skip_run(2, 150);
  EXPECT_NE(run_invariant(check, queued.finish()).verdict, Verdict::kFail);
  // ...unless the case allows the DUT that much time to take the feedback.
  Scenario slow = skip_run(2, 150);
  EXPECT_EQ(run_invariant(inv("skip_after_congestion", {{"reaction_ns", "200"}}), slow.finish()).verdict,
            Verdict::kFail);
}

// A send that leaves between feedback instants after the CE SACK may have been the DUT's first
// pick after it; the EV may then be restored by the next pick (W11), so the clocked send that
// follows on the named EV is not judged.
TEST(CongestionInvariants, SkipAfterCongestionDoesNotJudgePastAnUnclockedSend) {
  Scenario s(1, 4);
  for (std::uint32_t k = 0; k < 4; ++k) {
    Data d;
    d.psn = k;
    s.dut_sends(300 * k, d, k);
  }
  auto ce = sack(2, 0, 2);
  ce.ev_echo = ev_value(2);
  ce.ce = true;
  s.dut_receives(3000, ce);
  Data d;
  d.psn = 4;
  s.dut_sends(3150, d, 3);  // unclocked: left 150 ns after the feedback
  s.dut_receives(3300, sack(3, 0, 3));
  d.psn = 5;
  s.dut_sends(3300, d, 2);  // clocked, on the EV the CE SACK named
  const auto r = run_invariant(inv("skip_after_congestion"), s.finish());
  EXPECT_NE(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.metrics.at("not_judged_unclocked"), 1.0);
}

// Across a real-time bridge of 500 ns, a packet on the EV a CE SACK named within two crossings
// (1000 ns) of it may have been picked before the DUT had the SACK; the next one is judged. No
// send there is known to be the first pick after the SACK, so a run without a violation is
// INCONCLUSIVE, never PASS (a DUT that ignores SKIP but rotates would pass otherwise).
TEST(CongestionInvariants, SkipAfterCongestionAcrossABridgeJudgesThePacketAfterTwoCrossings) {
  auto run = [](std::uint32_t (*ev_of)(std::uint32_t), std::uint64_t budget_ns) {
    Scenario s(1, 4);
    Data d;
    for (std::uint32_t k = 0; k < 4; ++k) {
      d.psn = k;
      s.dut_sends(300 * k, d, k);
    }
    auto ce = sack(2, 0, 2);
    ce.ev_echo = ev_value(2);
    ce.ce = true;
    s.dut_receives(3000, ce);
    for (std::uint32_t j = 0; j < 6; ++j) {  // each send clocked out by a SACK at the same instant
      if (j > 0) s.dut_receives(3000 + 300 * j, sack(3, 0, 3));
      d.psn = 4 + j;
      s.dut_sends(3000 + 300 * j, d, ev_of(j));
    }
    s.ctx.timing_budget = TimingBudget{budget_ns, "real-time bridge (testbed netns)"};
    return run_invariant(inv("skip_after_congestion"), s.finish()).verdict;
  };
  auto first_on_2 = [](std::uint32_t j) -> std::uint32_t { return j == 0 ? 2 : 3; };
  auto always_2 = [](std::uint32_t) -> std::uint32_t { return 2; };
  auto never_2 = [](std::uint32_t) -> std::uint32_t { return 3; };
  EXPECT_EQ(run(first_on_2, 0), Verdict::kFail);            // the fabric: the first pick after it is judged
  EXPECT_EQ(run(never_2, 0), Verdict::kPass);
  EXPECT_EQ(run(first_on_2, 500), Verdict::kInconclusive);  // across the bridge: perhaps picked before
  EXPECT_EQ(run(never_2, 500), Verdict::kInconclusive);     // nothing known to be a first pick
  EXPECT_EQ(run(always_2, 500), Verdict::kFail);            // still on EV 2 past the two crossings
}

TEST(CongestionInvariants, SkipAfterCongestionLetsTheOnlyGoodEvCarryData) {
  // Two EVs: the CE SACK names EV 0 while EV 1 may still be in SKIP from an earlier NACK it has
  // carried nothing since, so no other EV is known GOOD and EV 0 may carry the packet.
  Scenario s(1, 2);
  Data d;
  d.psn = 0;
  s.dut_sends(0, d, 0);
  d.psn = 1;
  s.dut_sends(100, d, 1);
  auto trimmed = nack(1);
  trimmed.ev_echo = ev_value(1);
  s.dut_receives(1000, trimmed);
  auto ce = sack(0, 0, 0);
  ce.ev_echo = ev_value(0);
  ce.ce = true;
  s.dut_receives(1100, ce);
  d.psn = 2;
  s.dut_sends(1100, d, 0);
  const auto r = run_invariant(inv("skip_after_congestion"), s.finish());
  EXPECT_NE(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("not_judged_no_other_ev"), 1.0);
}

}  // namespace
}  // namespace mrc::harness
