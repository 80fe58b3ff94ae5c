// Responder-side invariants on when feedback must come (W6-W9) and what it reflects (W5, W7):
// each shown failing on the DUT that breaks it and passing every legal choice.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::RelProbe;
using testing::Scenario;
using testing::ev_value;
using testing::nack;
using testing::sack;

constexpr std::uint64_t kUs = 1000;

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{std::move(name), std::move(params)};
}

// PSN `psn` reaches the DUT at `t` on EV (psn % 8), without BTH.A unless `a`.
void arrive(Scenario& s, std::uint64_t t, std::uint32_t psn, bool a = false) {
  Data d;
  d.psn = psn;
  d.ack_req = a;
  s.dut_receives(t, d, psn % 8);
}

// W6: A, RTX, ECN-CE and duplicates each draw a SACK naming them; other arrivals need none.
TEST(FeedbackTriggers, SackTriggers) {
  Scenario s(4, 8);
  for (std::uint32_t p = 0; p < 4; ++p) arrive(s, p * kUs, p);
  EXPECT_EQ(run_invariant(inv("sack_triggers"), s.finish()).verdict, Verdict::kInconclusive);  // none asked

  Scenario asked = s;
  arrive(asked, 4 * kUs, 4, true);
  arrive(asked, 100 * kUs, 5);  // the run goes on past the bound
  auto r = run_invariant(inv("sack_triggers"), asked.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.ack_psn");
  EXPECT_NE(r.evidence[0].expected.find("naming PSN 4"), std::string::npos) << r.evidence[0].expected;
  EXPECT_NE(r.evidence[0].expected.find("BTH.A"), std::string::npos) << r.evidence[0].expected;
  Scenario answered = asked;
  answered.dut_sends(6 * kUs, sack(4, 0, 4));
  EXPECT_EQ(run_invariant(inv("sack_triggers"), answered.finish()).verdict, Verdict::kPass);
  Scenario other = asked;  // a SACK naming another PSN does not answer it
  other.dut_sends(6 * kUs, sack(4, 0, 3));
  EXPECT_EQ(run_invariant(inv("sack_triggers"), other.finish()).verdict, Verdict::kFail);
  Scenario slow = asked;  // 26 us later: past the default, inside a declared 30 us
  slow.dut_sends(30 * kUs, sack(4, 0, 4));
  EXPECT_EQ(run_invariant(inv("sack_triggers"), slow.finish()).verdict, Verdict::kFail);
  EXPECT_EQ(run_invariant(inv("sack_triggers", {{"max_delay_ns", "30000"}}), slow.ctx).verdict, Verdict::kPass);

  for (const char* why : {"BTH.RTX", "ECN-CE", "a duplicate"}) {
    Scenario t = s;
    Data d;
    d.psn = std::string(why) == "a duplicate" ? 2 : 9;
    d.ack_req = false;
    d.rtx = std::string(why) == "BTH.RTX";
    if (std::string(why) == "ECN-CE") d.ecn = wire::kEcnCe;
    t.dut_receives(5 * kUs, d, d.psn % 8);
    arrive(t, 100 * kUs, 10);
    r = run_invariant(inv("sack_triggers"), t.finish());
    ASSERT_EQ(r.verdict, Verdict::kFail) << why;
    EXPECT_NE(r.evidence[0].expected.find(why), std::string::npos) << r.evidence[0].expected;
    t.dut_sends(6 * kUs, sack(3, 0, d.psn));
    EXPECT_EQ(run_invariant(inv("sack_triggers"), t.finish()).verdict, Verdict::kPass) << why;
  }
}

// The bound grows with the timing budget (a bridge that delayed the SACK).
TEST(FeedbackTriggers, SackTriggersBoundGrowsByTheTimingBudget) {
  Scenario s(4, 8);
  arrive(s, 0, 0, true);
  s.dut_sends(27 * kUs, sack(0, 0, 0));  // 7 us past the 20 us default
  s.finish();
  testing::expect_budget_rules(s.ctx, [](const CheckContext& c) { return run_invariant(inv("sack_triggers"), c); },
                               5 * kUs, 7 * kUs, "within 20.000 us + 5.000 us timing budget");
}

// W6, W11: a CE-marked arrival draws its own SACK with m = SKIP_ONCE; SKIP_ONCE only for one.
TEST(FeedbackTriggers, CeSkipOnce) {
  Scenario s(4, 8);
  arrive(s, 0, 0);
  Data marked;
  marked.psn = 1;
  marked.ack_req = false;
  marked.ecn = wire::kEcnCe;
  s.dut_receives(kUs, marked, 1);
  arrive(s, 100 * kUs, 2);
  auto r = run_invariant(inv("ce_skip_once"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.m");
  EXPECT_EQ(r.evidence[0].observed, "none");

  Feedback skip = sack(1, 0, 1);
  skip.ce = true;
  Scenario good = s;
  good.dut_sends(2 * kUs, skip);
  EXPECT_EQ(run_invariant(inv("ce_skip_once"), good.finish()).verdict, Verdict::kPass);
  Scenario unflagged = s;  // the SACK for the marked packet says NONE
  unflagged.dut_sends(2 * kUs, sack(1, 0, 1));
  r = run_invariant(inv("ce_skip_once"), unflagged.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "0");
  Scenario spurious = good;  // SKIP_ONCE naming an unmarked arrival
  Feedback wrong = sack(1, 0, 0);
  wrong.ce = true;
  spurious.dut_sends(3 * kUs, wrong);
  r = run_invariant(inv("ce_skip_once"), spurious.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "1 (SKIP_ONCE)");
}

// W8: a packet with BTH.A, once cumulatively received, draws a Transport ACK covering it; none
// claims more than arrived in order. When a hole holds cack back, waiting is right, and W8 sets no
// time for the ACK: a late one is a legal choice, only none at all fails.
TEST(FeedbackTriggers, TransportAck) {
  Scenario s(4, 8);
  arrive(s, 0, 0);
  arrive(s, kUs, 1, true);
  Scenario silent = s;
  arrive(silent, 100 * kUs, 2);
  auto r = run_invariant(inv("transport_ack"), silent.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "aeth.syndrome");
  EXPECT_NE(r.evidence[0].expected.find("covering PSN 1"), std::string::npos) << r.evidence[0].expected;

  Feedback ack;
  ack.psn = 1;
  Scenario good = silent;
  good.dut_sends(3 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("transport_ack"), good.finish()).verdict, Verdict::kPass);
  Scenario late = silent;  // 80 us after: coalesced long, still covered
  late.dut_sends(81 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("transport_ack"), late.finish()).verdict, Verdict::kPass);
  Scenario short_run = s;  // the run ended 10 us after: not judged
  arrive(short_run, 11 * kUs, 2);
  EXPECT_EQ(run_invariant(inv("transport_ack"), short_run.finish()).verdict, Verdict::kPass);
  Scenario beyond = s;
  ack.psn = 5;  // PSN 5 never arrived
  beyond.dut_sends(3 * kUs, ack);
  r = run_invariant(inv("transport_ack"), beyond.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "bth.psn");

  Scenario hole(4, 8);  // PSN 1 missing: PSN 2's A waits until 1 arrives
  arrive(hole, 0, 0);
  arrive(hole, kUs, 2, true);
  arrive(hole, 60 * kUs, 1);
  ack.psn = 2;
  hole.dut_sends(62 * kUs, ack);
  arrive(hole, 150 * kUs, 3);
  EXPECT_EQ(run_invariant(inv("transport_ack"), hole.finish()).verdict, Verdict::kPass);
}

// W9: every reliability probe draws a SACK with pr = 1 and its probe_id.
TEST(FeedbackTriggers, ProbeAnswered) {
  Scenario s(4, 8);
  EXPECT_EQ(run_invariant(inv("probe_answered"), s.finish()).verdict, Verdict::kInconclusive);
  RelProbe probe;
  probe.probe_id = 7;
  s.dut_receives(kUs, probe, 3);
  arrive(s, 100 * kUs, 0);
  auto r = run_invariant(inv("probe_answered"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.pr");
  Feedback answer = sack(0, 0, 0);
  answer.pr = true;
  answer.probe_id = 7;
  answer.ev_echo = ev_value(3);
  Scenario good = s;
  good.dut_sends(2 * kUs, answer);
  EXPECT_EQ(run_invariant(inv("probe_answered"), good.finish()).verdict, Verdict::kPass);
  Scenario wrong_id = s;
  answer.probe_id = 8;
  wrong_id.dut_sends(2 * kUs, answer);
  r = run_invariant(inv("probe_answered"), wrong_id.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.probe_id");
}

// W5, W7, W9: the reflected timestamp is the trigger's, plus at most the time the DUT held it
// (service time, MODEL: W14); 0 when the trigger had none; unchanged with exact: 1.
TEST(FeedbackTriggers, TsReflected) {
  Scenario s(4, 8);
  Data d;
  d.psn = 0;
  d.tseth = true;
  d.ts = 0x1234;
  s.dut_receives(0, d, 0);
  Feedback f = sack(0, 0, 0);
  f.ts = 0x1234;
  Scenario same = s;
  same.dut_sends(1000, f);
  EXPECT_EQ(run_invariant(inv("ts_reflected"), same.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("ts_reflected", {{"exact", "1"}}), same.ctx).verdict, Verdict::kPass);
  Scenario served = s;  // held 1 us: up to 9 units of 128 ns added
  f.ts = 0x1234 + 8;
  served.dut_sends(1000, f);
  EXPECT_EQ(run_invariant(inv("ts_reflected"), served.finish()).verdict, Verdict::kPass);
  auto r = run_invariant(inv("ts_reflected", {{"exact", "1"}}), served.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "cc.tx_timestamp");
  EXPECT_EQ(r.evidence[0].observed, "0x123c");
  Scenario too_much = s;  // more than it held it
  f.ts = 0x1234 + 40;
  too_much.dut_sends(1000, f);
  EXPECT_EQ(run_invariant(inv("ts_reflected"), too_much.finish()).verdict, Verdict::kFail);

  // Across a real-time bridge the SACK may answer an earlier copy seen within twice the budget:
  // reflecting the original's timestamp after a resend (0x5678) PASSes there, not on the fabric.
  auto resent = [&](std::uint64_t budget_ns) {
    Scenario t = s;
    Data again = d;
    again.ts = 0x5678;
    t.dut_receives(500, again, 3);
    Feedback g = sack(0, 0, 0);
    g.ts = 0x1234;
    t.dut_sends(1000, g);
    t.ctx.timing_budget = TimingBudget{budget_ns, "real-time bridge (testbed netns)"};
    return run_invariant(inv("ts_reflected"), t.finish()).verdict;
  };
  EXPECT_EQ(resent(0), Verdict::kFail);
  EXPECT_EQ(resent(1000), Verdict::kPass);

  Scenario bare(4, 8);  // the trigger carried no TSETH: 0
  bare.dut_receives(0, Data{}, 0);
  f.ts = 0x55;
  bare.dut_sends(1000, f);
  r = run_invariant(inv("ts_reflected"), bare.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("carried no timestamp"), std::string::npos) << r.evidence[0].expected;

  Scenario trimmed(4, 8);  // a NACK reflects the NACKed packet's
  d.trim_to = 120;
  trimmed.dut_receives(0, d, 0);
  Feedback n = nack(0);
  n.ts = 0x1000;
  trimmed.dut_sends(1000, n);
  r = run_invariant(inv("ts_reflected"), trimmed.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "neth.tx_timestamp");
}

}  // namespace
}  // namespace mrc::harness
