// The timing check: every metric measured on a built trace, judged against bound_ns at a
// percentile (and min_ns), with censored trials, the ERROR / INCONCLUSIVE preconditions (no fault
// recorded, no data after the fault, too few trials, an incomplete capture) and the evidence.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::Probe;
using testing::Scenario;
using testing::ev_value;

constexpr std::uint64_t kUs = 1000;

// DUT data every `gap` ns in [from, to) round-robin over `evs`; PSNs continue from `psn`.
void traffic(Scenario& s, std::uint64_t from, std::uint64_t to, std::uint32_t& psn, const std::vector<std::uint32_t>& evs,
             std::uint64_t gap = 100) {
  std::size_t k = 0;
  for (std::uint64_t t = from; t < to; t += gap, ++k) {
    Data d;
    d.psn = psn++;
    s.dut_sends(t, d, evs[k % evs.size()]);
  }
}

const std::vector<std::uint32_t> kAll{0, 1, 2, 3, 4, 5, 6, 7};
const std::vector<std::uint32_t> kHealthy{0, 2, 3, 4, 6, 7};  // without EVs 1 and 5 (port 2)

FaultEvent port2_down(std::uint64_t at) {
  FaultEvent f;
  f.at_ns = at;
  f.kind = "link_down";
  f.target = "plane2/leaf0-spine0";
  f.plane = 2;
  f.affected_evs = {ev_value(1), ev_value(5)};
  return f;
}

TimingCheck spec(TimingMetric m, std::uint64_t bound, std::uint32_t trials = 1, double pct = 100) {
  TimingCheck t;
  t.metric = m;
  t.bound_ns = bound;
  t.trials = trials;
  t.percentile = pct;
  return t;
}

// One failover: full spraying until the fault + `stop_after`, then only healthy EVs.
Scenario failover(std::uint64_t stop_after) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 100 * kUs + stop_after, psn, kAll);
  traffic(s, 100 * kUs + stop_after, 200 * kUs, psn, kHealthy);
  s.ctx.faults.push_back(port2_down(100 * kUs));
  s.finish();
  return s;
}

TEST(TimingCheck, StopUsingFailedPassesAndFailsAgainstTheBound) {
  Scenario s = failover(3 * kUs);
  auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.message;
  // From the DUT's first data on the last failed EV it used (EV 5, up to 800 ns after the fault).
  EXPECT_GE(r.metrics.at("max_ns"), 2.0 * kUs);
  EXPECT_LT(r.metrics.at("max_ns"), 3.0 * kUs);
  EXPECT_EQ(r.metrics.at("timestamp_error_ns"), 0);
  EXPECT_NE(r.message.find("error budget 0 ns"), std::string::npos) << r.message;
  // The duration per trial against the bound, and the trial's failover steps from its fault.
  ASSERT_EQ(r.charts.size(), 2u);
  EXPECT_EQ(r.charts[0].kind, Chart::Kind::kLatency);
  EXPECT_EQ(r.charts[0].limits, std::vector<double>{10.0 * kUs});
  ASSERT_EQ(r.charts[0].expected.size(), 1u);
  EXPECT_EQ(r.charts[0].expected[0], r.metrics.at("max_ns"));
  const Chart& steps = r.charts[1];
  EXPECT_EQ(steps.kind, Chart::Kind::kEvents);
  auto at = [&](const std::string& what) {
    for (std::size_t i = 0; i < steps.labels.size(); ++i) {
      if (steps.labels[i] == what) return steps.values[i];
    }
    return -1.0;
  };
  EXPECT_EQ(at("fault"), 0);
  // The steps count from the fault; the span from when the DUT met the last failed EV, after it.
  EXPECT_GE(at("last data on a failed EV"), r.metrics.at("max_ns"));
  EXPECT_LT(at("last data on a failed EV"), r.metrics.at("max_ns") + 1 * kUs);
  // The span, and the bound with it, starts when the DUT first used the last failed EV (EV 5).
  EXPECT_GT(at("last failed EV first used"), 0);
  EXPECT_LT(at("last failed EV first used"), 1.0 * kUs);
  EXPECT_EQ(at("bound (from the span's start)"), at("last failed EV first used") + 10.0 * kUs);
  for (double row : steps.expected) EXPECT_EQ(row, 0) << "one fault, one trial's row";

  r = run_timing(spec(TimingMetric::kStopUsingFailed, 2 * kUs), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].pcap, "dut.p2.tx.pcapng");  // the last packet on a failed EV
  EXPECT_GE(r.evidence[0].packet_index, 0);
  EXPECT_NE(r.evidence[0].note.find("last data packet on a failed EV"), std::string::npos);
}

// A DUT whose traffic met a failed EV only 20 us after the fault (its spraying choice, or its
// congestion control's pace) is timed from then: it could not have learnt the path failed sooner.
TEST(TimingCheck, StopUsingFailedCountsFromTheLastFailedEvMet) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 100 * kUs, psn, kAll);
  traffic(s, 100 * kUs, 120 * kUs, psn, {0, 2, 3, 4, 5, 6, 7});  // EV 1 not used for 20 us
  traffic(s, 120 * kUs, 123 * kUs, psn, kAll);                   // then met, and left 3 us later
  traffic(s, 123 * kUs, 200 * kUs, psn, kHealthy);
  s.ctx.faults.push_back(port2_down(100 * kUs));
  s.finish();
  const auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 5 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_NEAR(r.metrics.at("max_ns"), 3 * kUs, 500);
}

TEST(TimingCheck, ADutThatNeverStopsFailsOrIsInconclusiveWhenTheTrialIsTooShort) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 200 * kUs, psn, kAll);
  s.ctx.faults.push_back(port2_down(100 * kUs));
  s.finish();
  auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;  // still sending 100 us later: >= 100 us
  EXPECT_EQ(r.metrics.at("censored"), 1);
  s.ctx.faults[0].at_ns = 199 * kUs;  // the run ends 1 us after the fault
  r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
}

TEST(TimingCheck, MissingFaultIsAnErrorAndNoDataAfterItIsInconclusive) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 50 * kUs, psn, kAll);
  s.finish();
  auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.message.find("no fault event"), std::string::npos) << r.message;
  s.ctx.faults.push_back(port2_down(100 * kUs));  // after the last data packet
  r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("no data from the DUT after the fault"), std::string::npos) << r.message;
  s.ctx.faults[0].affected_evs.clear();
  EXPECT_EQ(run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), s.ctx).verdict, Verdict::kError);
}

TEST(TimingCheck, PercentileOverRepeatedTrials) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  const std::uint64_t stops[] = {2 * kUs, 3 * kUs, 8 * kUs};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t t0 = static_cast<std::uint64_t>(i) * 300 * kUs;
    traffic(s, t0, t0 + 100 * kUs + stops[i], psn, kAll);
    traffic(s, t0 + 100 * kUs + stops[i], t0 + 300 * kUs, psn, kHealthy);
    s.ctx.faults.push_back(port2_down(t0 + 100 * kUs));
    FaultEvent up = port2_down(t0 + 250 * kUs);
    up.kind = "link_up";
    up.affected_evs.clear();
    s.ctx.faults.push_back(up);  // not a failure: does not start a trial
  }
  s.finish();
  EXPECT_EQ(run_timing(spec(TimingMetric::kStopUsingFailed, 5 * kUs, 3, 50), s.ctx).verdict, Verdict::kPass);
  const auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 5 * kUs, 3, 100), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("trials"), 3);
  // EVs 1 and 5 recur every 400 ns; each span starts at the DUT's first data on the later of them.
  EXPECT_NEAR(r.metrics.at("p50_ns"), 3 * kUs, 1000);
  EXPECT_NEAR(r.metrics.at("max_ns"), 8 * kUs, 1000);
  EXPECT_EQ(r.evidence.size(), 1u);  // only the trial over the bound
  // Asking for more trials than the case produced is INCONCLUSIVE.
  EXPECT_EQ(run_timing(spec(TimingMetric::kStopUsingFailed, 50 * kUs, 30), s.ctx).verdict, Verdict::kInconclusive);
}

// A flapping link as the runner records it: each link_up carries the EVs of its link, like the
// downs. The up ends the trial of the down before it and starts none, so a DUT that returns to the
// EVs once the link is back is timed on both downs only (before, the up was a third trial in which
// the recovered EVs counted as failed, a censored FAIL of a conformant DUT).
TEST(TimingCheck, ARecoveryWithItsEvsEndsATrialAndStartsNone) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  const std::uint64_t stops[] = {3 * kUs, 6 * kUs};
  for (int i = 0; i < 2; ++i) {
    const std::uint64_t t0 = static_cast<std::uint64_t>(i) * 300 * kUs;  // down at t0 + 100 us
    traffic(s, t0, t0 + 100 * kUs + stops[i], psn, kAll);
    traffic(s, t0 + 100 * kUs + stops[i], t0 + 200 * kUs, psn, kHealthy);
    traffic(s, t0 + 200 * kUs, t0 + 300 * kUs, psn, kAll);  // back on every EV once it is up
    s.ctx.faults.push_back(port2_down(t0 + 100 * kUs));
    FaultEvent up = port2_down(t0 + 200 * kUs);
    up.kind = "link_up";  // keeps affected_evs, as collect_faults records it
    s.ctx.faults.push_back(up);
  }
  s.finish();
  auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs, 2), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("trials"), 2);
  EXPECT_EQ(r.metrics.at("censored"), 0);
  EXPECT_NEAR(r.metrics.at("max_ns"), 6 * kUs, 1000);  // from the DUT's first data on EV 5
  // Both downs are judged: a bound between the two stops fails on the second one.
  r = run_timing(spec(TimingMetric::kStopUsingFailed, 4 * kUs, 2), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence.size(), 1u);
}

TEST(TimingCheck, FirstRetransmissionOnAnotherPath) {
  for (bool healthy : {true, false}) {
    Scenario s(4, 8);
    std::uint32_t psn = 0;
    traffic(s, 0, 100 * kUs, psn, kAll);
    traffic(s, 100 * kUs, 105 * kUs, psn, kHealthy);
    Data retx;
    retx.psn = psn - 70;  // sent before: a retransmission
    s.dut_sends(105 * kUs + 50, retx, healthy ? 3 : 5);
    traffic(s, 106 * kUs, 150 * kUs, psn, kHealthy);
    s.ctx.faults.push_back(port2_down(100 * kUs));
    const auto r = run_timing(spec(TimingMetric::kFirstRetxOtherPath, 10 * kUs), s.finish());
    if (healthy) {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
      EXPECT_NEAR(r.metrics.at("max_ns"), 5 * kUs + 50, 1);
    } else {
      EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;  // only on a failed EV: censored at 50 us
      EXPECT_EQ(r.metrics.at("censored"), 1);
    }
  }
}

// The span starts at the first packet the fault swallowed, not at the fault: when the DUT next
// sends on a dead EV is its own spraying choice.
TEST(TimingCheck, FirstRetransmissionOnAnotherPathCountsFromTheFirstLoss) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 100 * kUs, psn, kAll);
  traffic(s, 100 * kUs, 120 * kUs, psn, kHealthy);  // 20 us without touching a dead EV
  Data lost;
  lost.psn = psn++;
  s.dut_sends(120 * kUs, lost, 5);  // EV 5 is on the dead port: the first loss
  Data retx;
  retx.psn = lost.psn;
  s.dut_sends(125 * kUs, retx, 3);
  traffic(s, 126 * kUs, 150 * kUs, psn, kHealthy);
  s.ctx.faults.push_back(port2_down(100 * kUs));
  const auto r = run_timing(spec(TimingMetric::kFirstRetxOtherPath, 10 * kUs), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_NEAR(r.metrics.at("max_ns"), 5 * kUs, 1);
}

// Full spraying until a fault at 100 us, silent for 30 us, then back at full rate on healthy EVs.
Scenario silent_after_fault() {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 100 * kUs, psn, kAll);
  traffic(s, 130 * kUs, 250 * kUs, psn, kHealthy);
  s.ctx.faults.push_back(port2_down(100 * kUs));
  s.finish();
  return s;
}

TEST(TimingCheck, ThroughputRecovered) {
  Scenario s = silent_after_fault();
  auto r = run_timing(spec(TimingMetric::kThroughputRecovered, 60 * kUs), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.message;
  // Back at >= 90% of the pre-fault rate once a 20 us window after t = 130 us is 90% full.
  EXPECT_NEAR(r.metrics.at("max_ns"), 48 * kUs, 1 * kUs);
  EXPECT_EQ(run_timing(spec(TimingMetric::kThroughputRecovered, 40 * kUs), s.ctx).verdict, Verdict::kFail);
}

// The span starts when the DUT's traffic met the last failed EV it used (its first data there):
// when it first sends on a dead EV is its own spraying choice. Here its congestion control slowed
// after the first loss, and it met the second dead EV 20 us after the fault.
TEST(TimingCheck, ThroughputRecoveredCountsFromTheLastFailedEvMet) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 100 * kUs, psn, kAll);
  Data d;
  d.psn = psn++;
  s.dut_sends(100 * kUs + 100, d, 1);                    // the first dead EV: lost
  traffic(s, 101 * kUs, 120 * kUs, psn, kHealthy, 400);  // a quarter of the rate
  d.psn = psn++;
  s.dut_sends(120 * kUs, d, 5);                          // the last dead EV it meets
  traffic(s, 130 * kUs, 250 * kUs, psn, kHealthy);       // full rate again 10 us later
  s.ctx.faults.push_back(port2_down(100 * kUs));
  s.finish();
  auto r = run_timing(spec(TimingMetric::kThroughputRecovered, 40 * kUs), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.message;
  // From t = 120 us (not the fault's 100 us): back once a 20 us window after 130 us is 90 % full.
  EXPECT_NEAR(r.metrics.at("max_ns"), 28 * kUs, 1 * kUs);
  EXPECT_EQ(run_timing(spec(TimingMetric::kThroughputRecovered, 20 * kUs), s.ctx).verdict, Verdict::kFail);
}

// Across a real-time bridge, a DUT that sent below 90 % of the bridge's rate before the fault was
// paced by its congestion control: a late recovery is then INCONCLUSIVE, naming both rates; at
// the bridge's rate it FAILs as before. A recovery within the bound PASSes either way.
TEST(TimingCheck, ThroughputRecoveredWithholdsAFailOfACongestionPacedDutAcrossABridge) {
  Scenario s = silent_after_fault();
  s.ctx.timing_budget.ns = 1;
  s.ctx.timing_budget.source = "real-time bridge";
  s.ctx.timing_budget.rate_bps = 1'000'000'000'000'000;  // far above what the DUT sent
  auto r = run_timing(spec(TimingMetric::kThroughputRecovered, 40 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_NE(r.message.find("exceeds the bound"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("congestion control"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("Mb/s"), std::string::npos) << r.message;
  EXPECT_EQ(run_timing(spec(TimingMetric::kThroughputRecovered, 60 * kUs), s.ctx).verdict, Verdict::kPass);
  s.ctx.timing_budget.rate_bps = 1'000'000;  // the DUT sent at the bridge's rate and more
  EXPECT_EQ(run_timing(spec(TimingMetric::kThroughputRecovered, 40 * kUs), s.ctx).verdict, Verdict::kFail);
}

TEST(TimingCheck, AckTimeoutExcludesNackDrivenRetransmissions) {
  Scenario s(4, 8);
  Data d;
  d.psn = 5;
  s.dut_sends(1000, d, 0);
  d.psn = 6;
  s.dut_sends(1100, d, 1);
  s.dut_receives(1500, testing::nack(6), 1);  // a NACK TRIMMED to the DUT naming PSN 6
  d.psn = 6;
  s.dut_sends(2000, d, 2);  // NACK-driven: not a timeout
  d.psn = 5;
  s.dut_sends(1000 + 262 * kUs, d, 3);  // timeout-driven, T = 1.024 us x 2^8
  s.finish();
  auto t = spec(TimingMetric::kAckTimeout, 300 * kUs);
  t.min_ns = 250 * kUs;
  auto r = run_timing(t, s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("trials"), 1);
  t.min_ns = 280 * kUs;
  r = run_timing(t, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.message.find("below min"), std::string::npos);
}

TEST(TimingCheck, RetryIntervalTrimNackAndFeedbackLatency) {
  Scenario s(4, 8);
  Data d;
  d.psn = 9;
  for (std::uint64_t t : {0 * kUs, 10 * kUs, 30 * kUs, 70 * kUs}) s.dut_sends(t, d, static_cast<std::uint32_t>(t / kUs) % 8);
  // The DUT as responder: PSNs 100..103 arrive, one of them trimmed.
  for (std::uint32_t k = 0; k < 4; ++k) {
    Data in;
    in.psn = 100 + k;
    in.trim_to = k == 2 ? 120 : 0;
    s.dut_receives(100 * kUs + k * kUs, in, k);
  }
  s.dut_sends(102 * kUs + 700, testing::nack(102), 1);  // NACK TRIMMED
  Feedback ack;
  ack.psn = 101;
  ack.trig_psn = 101;
  s.dut_sends(103 * kUs + 500, ack, 1);
  s.finish();

  auto r = run_timing(spec(TimingMetric::kRetryInterval, 50 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("trials"), 2);  // 10->30 and 30->70
  EXPECT_EQ(r.metrics.at("max_ns"), 40 * kUs);
  EXPECT_EQ(run_timing(spec(TimingMetric::kRetryInterval, 30 * kUs), s.ctx).verdict, Verdict::kFail);

  r = run_timing(spec(TimingMetric::kTrimNackLatency, 1 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("max_ns"), 700);
  r = run_timing(spec(TimingMetric::kTrimNackLatency, 500), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence[0].pcap, "dut.p1.tx.pcapng");  // the TRIM NACK ends the span
  {
    // A trimmed duplicate of PSN 101, which arrived whole, draws a SACK, not a NACK (W7): it is
    // no trial, not a censored one.
    Scenario dup = s;
    Data again;
    again.psn = 101;
    again.trim_to = 120;
    dup.dut_receives(110 * kUs, again, 1);
    const auto d = run_timing(spec(TimingMetric::kTrimNackLatency, 1 * kUs), dup.finish());
    EXPECT_EQ(d.verdict, Verdict::kPass) << d.message;
    EXPECT_EQ(d.metrics.at("trials"), 1);
  }

  // PSNs 100, 101 are covered by the ACK; 103 (and stub 102) never: censored at the run's end.
  r = run_timing(spec(TimingMetric::kFeedbackLatency, 10 * kUs), s.ctx);
  EXPECT_EQ(r.metrics.at("trials"), 3);
  EXPECT_EQ(r.metrics.at("censored"), 1);
  EXPECT_EQ(r.metrics.at("max_ns"), 3.5 * kUs);
  // The censored PSN may yet exceed the bound: INCONCLUSIVE, not PASS.
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  r = run_timing(spec(TimingMetric::kFeedbackLatency, 3 * kUs), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
}

TEST(TimingCheck, ProbeIntervalAndEvReuseDelay) {
  Scenario s(4, 8);
  for (std::uint64_t t : {0 * kUs, 50 * kUs, 100 * kUs, 150 * kUs}) {
    Probe p;
    p.ev = ev_value(3);
    s.dut_sends(t, p, 4);
    // Data on EV 5 while EV 3 is probed: the QP is busy, EV 3 out of service.
    Data other;
    other.psn = static_cast<std::uint32_t>(10 + t / kUs);
    s.dut_sends(t + 25 * kUs, other, 5);
  }
  // A probe of EV 1, in use (data between its probes), 200 us apart: W9 lets a DUT probe any EV
  // at any time, so this is no health-probe schedule and is not timed.
  for (std::uint64_t t : {5 * kUs, 205 * kUs, 405 * kUs}) {
    Probe p;
    p.ev = ev_value(1);
    s.dut_sends(t, p, 2);
    Data d1;
    d1.psn = static_cast<std::uint32_t>(1000 + t / kUs);
    s.dut_sends(t + 10 * kUs, d1, 1);
  }
  EvEventRecord bad;
  bad.at_ns = 10 * kUs;
  bad.ev_index = 2;
  bad.port = 3;
  bad.state = 1u << 1;
  s.ctx.dut.ev_events.push_back(bad);
  Data d;
  d.psn = 1;
  s.dut_sends(150 * kUs, d, 2);
  s.finish();
  auto r = run_timing(spec(TimingMetric::kProbeInterval, 60 * kUs, 2), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("max_ns"), 50 * kUs);
  EXPECT_EQ(run_timing(spec(TimingMetric::kProbeInterval, 40 * kUs, 2), s.ctx).verdict, Verdict::kFail);
  auto reuse = spec(TimingMetric::kEvReuseDelay, 200 * kUs);
  reuse.min_ns = 100 * kUs;  // the hold-down
  r = run_timing(reuse, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("max_ns"), 140 * kUs);
  reuse.min_ns = 150 * kUs;
  EXPECT_EQ(run_timing(reuse, s.ctx).verdict, Verdict::kFail);
}

TEST(TimingCheck, NothingToTimeAndIncompleteCaptures) {
  Scenario s(4, 8);
  std::uint32_t psn = 0;
  traffic(s, 0, 10 * kUs, psn, kAll);
  s.finish();
  for (auto m : {TimingMetric::kAckTimeout, TimingMetric::kRetryInterval, TimingMetric::kTrimNackLatency,
                 TimingMetric::kFeedbackLatency, TimingMetric::kProbeInterval, TimingMetric::kEvReuseDelay}) {
    EXPECT_EQ(run_timing(spec(m, kUs), s.ctx).verdict, Verdict::kInconclusive) << static_cast<int>(m);
  }
  Scenario f = failover(3 * kUs);
  f.rx(1).capture.integrity().offered += 1;  // a feedback tap lost a packet
  EXPECT_EQ(run_timing(spec(TimingMetric::kStopUsingFailed, 10 * kUs), f.ctx).verdict, Verdict::kPass);  // DUT taps only
  const auto r = run_timing(spec(TimingMetric::kAckTimeout, 10 * kUs), f.ctx);  // needs the feedback taps
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p1.rx"), std::string::npos) << r.message;
}


// ---- the timing budget (timing_budget.hpp): bound_ns grows by it, min_ns shrinks by it -----------

TEST(TimingCheck, TheTimingBudgetWidensTheBound) {
  Scenario s = failover(3 * kUs);  // measured 2.5 .. 3 us against a 1 us bound: X < 2 us
  const auto check = spec(TimingMetric::kStopUsingFailed, 1 * kUs);
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_timing(check, c); }, 1 * kUs, 2 * kUs);
  s.ctx.timing_budget = testing::bridge(200 * kUs);
  const auto r = run_timing(spec(TimingMetric::kStopUsingFailed, 72 * kUs), s.ctx);
  EXPECT_NE(r.message.find("within the bound 72.000 us + 200.000 us timing budget (real-time bridge (testbed netns))"),
            std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("error budget 0 ns"), std::string::npos) << r.message;
  EXPECT_EQ(r.metrics.at("timestamp_error_ns"), 200.0 * kUs);
  EXPECT_EQ(r.metrics.at("bound_ns"), 72.0 * kUs);  // the declared bound; the budget is its own metric
}

TEST(TimingCheck, TheTimingBudgetShrinksTheMinimum) {
  Scenario s = failover(3 * kUs);  // measured at most 3 us against min 5 us: X > 2 us
  auto check = spec(TimingMetric::kStopUsingFailed, 10 * kUs);
  check.min_ns = 5 * kUs;
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_timing(check, c); }, 1 * kUs, 3 * kUs,
                               ">= 5.000 us - 1.000 us timing budget (real-time bridge (testbed netns))");
  s.ctx.timing_budget = testing::bridge(1 * kUs);
  EXPECT_NE(run_timing(check, s.ctx).message.find("below min 5.000 us - 1.000 us timing budget"), std::string::npos);
}

TEST(TimingCheck, TheTimingBudgetWidensAPerPacketMetric) {
  Scenario s(4, 8);
  Data d;
  d.psn = 0;
  s.dut_receives(1 * kUs, d, 0);
  Feedback ack;  // covers PSN 0, 5 us after it arrived: 3 us past a 2 us bound
  ack.psn = 0;
  s.dut_sends(6 * kUs, ack);
  s.finish();
  const auto check = spec(TimingMetric::kFeedbackLatency, 2 * kUs);
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_timing(check, c); }, 2 * kUs, 3 * kUs);
}

}  // namespace
}  // namespace mrc::harness
