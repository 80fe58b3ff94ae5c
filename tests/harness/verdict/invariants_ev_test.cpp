// EV-use invariants: each FAILs on a violating trace with packet-level evidence, PASSes on a
// clean one, and is INCONCLUSIVE or ERROR when the run or context gives it nothing to judge.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Probe;
using testing::Scenario;
using testing::encode;
using testing::ev_value;

constexpr std::uint64_t kUs = 1000;
constexpr std::uint32_t kGood = 1, kBad = 2, kDenied = 4;

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{std::move(name), std::move(params)};
}

void send_on(Scenario& s, std::uint64_t ts, std::uint32_t psn, std::uint32_t ev, int port = 0) {
  Data d;
  d.psn = psn;
  s.dut_sends(ts, d, ev, port);
}

EvEventRecord event(std::uint64_t at, std::uint32_t index, std::uint32_t state) {
  EvEventRecord e;
  e.at_ns = at;
  e.ev_index = index;
  e.state = state;
  return e;
}

TEST(EvInvariants, NoDeniedEv) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  for (std::uint32_t k = 0; k < 16; ++k) send_on(s, k * 100, k, k % 8 == 2 ? 3 : k % 8);
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 5000, 99, 2);
  const auto r = run_invariant(inv("no_denied_ev"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence[0].field, "ev");
  EXPECT_EQ(r.evidence[0].pcap, "dut.p3.tx.pcapng");
  EXPECT_NE(r.evidence[0].observed.find("index 2"), std::string::npos);
  EXPECT_NE(r.evidence[0].display_filter.find("mrc.bth.psn == 99"), std::string::npos);
  // Nothing denied: nothing to judge.
  s.ctx.dut.evs[2].denied = false;
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.ctx).verdict, Verdict::kInconclusive);
}

// A failing EV rule draws which EV carried data when: a row per EV of the profile by plane, a
// cell where the denied EV was used; a passing one draws nothing (reports stay small).
TEST(EvInvariants, AFailingEvRuleCarriesTheEvUseRaster) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  for (std::uint32_t k = 0; k < 16; ++k) send_on(s, k * 100, k, k % 8 == 2 ? 3 : k % 8);
  EXPECT_TRUE(run_invariant(inv("no_denied_ev"), s.finish()).charts.empty());
  send_on(s, 5000, 99, 2);
  const auto r = run_invariant(inv("no_denied_ev"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  ASSERT_EQ(r.charts.size(), 1u);
  const Chart& c = r.charts[0];
  EXPECT_EQ(c.kind, Chart::Kind::kRaster);
  ASSERT_EQ(c.labels.size(), 8u);
  ASSERT_EQ(c.groups.size(), 8u);
  EXPECT_TRUE(std::is_sorted(c.groups.begin(), c.groups.end()));
  std::size_t row = c.labels.size();
  for (std::size_t i = 0; i < c.labels.size(); ++i) {
    if (c.labels[i] == "ev " + hex(s.ctx.dut.evs[2].echo)) row = i;
  }
  ASSERT_LT(row, c.labels.size()) << "the denied EV has a row";
  // Its one use, at 5 us, is the last cell of its row.
  bool used_late = false;
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    if (c.expected[i] == static_cast<double>(row) && c.values[i] > 4000) used_late = true;
  }
  EXPECT_TRUE(used_late);
}

TEST(EvInvariants, NoDeniedEvJudgesReliabilityProbesToo) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  for (std::uint32_t k = 0; k < 16; ++k) send_on(s, k * 100, k, k % 8 == 2 ? 3 : k % 8);
  testing::RelProbe p;
  p.ev = ev_value(5);
  p.dqpn = testing::kPeerQpn;
  s.tx(s.port_of_ev(5)).capture.add(3000, encode(p));  // a probe of an EV in use: legal (W9)
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.finish()).verdict, Verdict::kPass);
  p.ev = ev_value(2);
  s.tx(s.port_of_ev(2)).capture.add(4000, encode(p));  // DENIED covers probes (EV-DENIED-NEVER-USED)
  const auto r = run_invariant(inv("no_denied_ev"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.evidence[0].observed.find("index 2"), std::string::npos);
  // An ASSUMED_BAD EV is probed on purpose: no_assumed_bad_ev judges data only.
  Scenario b(4, 8);
  b.ctx.dut.ev_events = {event(0, 2, kBad)};
  send_on(b, 1000, 1, 3);
  b.tx(b.port_of_ev(2)).capture.add(4000, encode(p));
  EXPECT_EQ(run_invariant(inv("no_assumed_bad_ev"), b.finish()).verdict, Verdict::kPass);
}

// SPRAY-PER-PACKET-EV in PSN order: a port that sends later does not make two choices look alike,
// a retransmission is not judged, two consecutive PSNs on one EV are.
TEST(EvInvariants, ConsecutiveEvsDifferInPsnOrder) {
  Scenario s(4, 8);
  // PSNs 0..7 on EVs 0,1,0,1,...: the odd ones leave 3 us later (their port's queue), so in
  // capture order two PSNs of EV 0 follow each other; in PSN order every neighbour differs.
  for (std::uint32_t k = 0; k < 8; ++k) send_on(s, k * 100 + (k % 2 ? 3000 : 0), k, k % 2);
  send_on(s, 9000, 3, 2);  // a retransmission of PSN 3 on EV 2, next to PSN 2's EV 0... not judged
  EXPECT_EQ(run_invariant(inv("consecutive_evs_differ"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 9100, 8, 1);  // PSN 8 on EV 1, as PSN 7
  const auto r = run_invariant(inv("consecutive_evs_differ"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.metrics.at("violations"), 1);
  EXPECT_EQ(r.evidence[0].field, "ev");
  EXPECT_NE(r.evidence[0].display_filter.find("mrc.bth.psn == 8"), std::string::npos);
  // One eligible EV: neighbours may share it.
  Scenario one(4, 8);
  for (std::size_t i = 1; i < one.ctx.dut.evs.size(); ++i) one.ctx.dut.evs[i].denied = true;
  send_on(one, 0, 0, 0);
  send_on(one, 100, 1, 0);
  EXPECT_EQ(run_invariant(inv("consecutive_evs_differ"), one.finish()).verdict, Verdict::kInconclusive);
}

TEST(EvInvariants, NoDeniedEvHonoursWhenTheControllerDeniedAndAllowed) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  s.ctx.dut.ev_events = {event(50 * kUs, 2, kDenied), event(80 * kUs, 2, kGood)};
  send_on(s, 10 * kUs, 1, 2);  // before the deny
  send_on(s, 90 * kUs, 2, 2);  // after the allow
  send_on(s, 70 * kUs, 4, 1);  // while EV 2 is DENIED, on another EV
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 60 * kUs, 3, 2);
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.finish()).verdict, Verdict::kFail);
}

TEST(EvInvariants, NoDeniedEvGraceForgivesOnlyFramesQueuedAtTheDeny) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  s.ctx.dut.ev_events = {event(50 * kUs, 2, kDenied)};
  send_on(s, 51 * kUs, 1, 2);  // 1 us after the deny: already in the port's queue
  send_on(s, 60 * kUs, 3, 1);  // past the grace, on another EV
  const auto grace = inv("no_denied_ev", {{"grace_ns", "2000"}});
  EXPECT_EQ(run_invariant(grace, s.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("no_denied_ev"), s.ctx).verdict, Verdict::kFail);  // no grace: counted
  send_on(s, 53 * kUs, 2, 2);  // 3 us after: a new choice of a DENIED EV
  const auto r = run_invariant(grace, s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 1);
  EXPECT_NE(r.evidence[0].display_filter.find("mrc.bth.psn == 2"), std::string::npos);
}

TEST(EvInvariants, NoAssumedBadEv) {
  Scenario s(4, 8);
  s.ctx.dut.ev_events = {event(10 * kUs, 3, kBad), event(30 * kUs, 3, kGood)};
  send_on(s, 5 * kUs, 1, 3);
  send_on(s, 35 * kUs, 2, 3);
  send_on(s, 25 * kUs, 4, 1);  // while EV 3 is ASSUMED_BAD, on another EV
  EXPECT_EQ(run_invariant(inv("no_assumed_bad_ev"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 20 * kUs, 3, 3);
  const auto r = run_invariant(inv("no_assumed_bad_ev"), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].note.find("ASSUMED_BAD since 10000"), std::string::npos) << r.evidence[0].note;
}

// The runner records a link_up with the EVs crossing its link, as it does the link_down: the up
// ends the down's failure and is no failure of its own, so data back on those EVs after it is
// legal, and only the second down's trial judges them again.
TEST(EvInvariants, NoDataOnFailedEvTakesARecoveryWithItsEvsAsTheEndOfTheFailure) {
  Scenario s(4, 8);
  const FaultEvent down = testing::link_down(100 * kUs, {ev_value(1), ev_value(5)}, "plane2");
  FaultEvent up = down;
  up.at_ns = 150 * kUs;
  up.kind = "link_up";
  FaultEvent down2 = down;
  down2.at_ns = 300 * kUs;
  s.ctx.faults = {down, up, down2};
  send_on(s, 120 * kUs, 1, 0);
  send_on(s, 160 * kUs, 2, 5);  // the link is back: EV 5 is legal again
  send_on(s, 250 * kUs, 3, 1);
  send_on(s, 320 * kUs, 4, 0);
  const auto grace = inv("no_data_on_failed_ev", {{"grace_ns", "5000"}});
  auto r = run_invariant(grace, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  send_on(s, 330 * kUs, 5, 5);  // after the second down: its first loss on EV 5
  send_on(s, 340 * kUs, 6, 5);  // and EV 5 again, past the grace from that loss: a violation
  r = run_invariant(grace, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.metrics.at("violations"), 1) << r.message;
  EXPECT_NE(r.message.find("since the link_down at 300000 ns"), std::string::npos) << r.message;
  // A run whose only fault is a recovery has nothing failed to judge.
  s.ctx.faults = {up};
  EXPECT_EQ(run_invariant(grace, s.finish()).verdict, Verdict::kError);
}

TEST(EvInvariants, NoDataOnFailedEvAfterGrace) {
  Scenario s(4, 8);
  const FaultEvent down = testing::link_down(100 * kUs, {ev_value(1), ev_value(5)}, "plane2");
  FaultEvent up = down;
  up.at_ns = 150 * kUs;
  up.kind = "link_up";
  up.affected_evs.clear();
  s.ctx.faults = {down, up};
  send_on(s, 103 * kUs, 1, 1);  // inside the 5 us grace
  send_on(s, 120 * kUs, 2, 0);
  send_on(s, 160 * kUs, 3, 5);  // after the link came back
  const auto grace = inv("no_data_on_failed_ev", {{"grace_ns", "5000"}});
  EXPECT_EQ(run_invariant(grace, s.finish()).verdict, Verdict::kPass);
  send_on(s, 110 * kUs, 4, 1);  // EV 1 again, 7 us after its first loss at 103 us
  const auto r = run_invariant(grace, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 1);
  EXPECT_EQ(run_invariant(inv("no_data_on_failed_ev", {{"grace_ns", "x"}}), s.ctx).verdict, Verdict::kError);
  s.ctx.faults.clear();
  EXPECT_EQ(run_invariant(grace, s.ctx).verdict, Verdict::kError);
  // No fault because the rule never acted: the DUT never sent on the EV it drops. That is the
  // DUT's doing and nothing failed: INCONCLUSIVE, the rule named; never the harness's ERROR.
  s.ctx.idle_impairments = {"stimulus[1] drop selecting ev 5, from 50000 ns"};
  const auto idle = run_invariant(grace, s.ctx);
  EXPECT_EQ(idle.verdict, Verdict::kInconclusive);
  EXPECT_NE(idle.message.find("the impairment never acted, the DUT sent nothing it selects (stimulus[1] drop selecting "
                              "ev 5, from 50000 ns): nothing failed, nothing to judge"),
            std::string::npos)
      << idle.message;
}

// A generated profile may draw one value for EVs on different planes: a packet carrying it is
// placed right on the port of any of them, and wrong only on a port none of them has.
TEST(EvInvariants, StevPlacementAcceptsAValueDrawnTwiceOnEitherOfItsPorts) {
  Scenario s;
  s.ctx.dut.evs = {EvRecord{0, 1, ev_value(1), kGood}, EvRecord{1, 2, ev_value(2), kGood}, EvRecord{2, 3, ev_value(1), kGood}};
  send_on(s, 10 * kUs, 1, 1, 1);
  send_on(s, 11 * kUs, 2, 1, 3);
  const auto placement = inv("stev_placement");
  EXPECT_EQ(run_invariant(placement, s.finish()).verdict, Verdict::kPass);
  send_on(s, 12 * kUs, 3, 1, 2);
  const auto r = run_invariant(placement, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].expected.rfind("1 or 3 (the port of", 0), 0u) << r.evidence[0].expected;
}

TEST(EvInvariants, RetransmissionOnADifferentEv) {
  Scenario s(4, 8);
  send_on(s, 100, 5, 0);
  send_on(s, 200, 6, 1);
  EXPECT_EQ(run_invariant(inv("retx_different_ev"), s.finish()).verdict, Verdict::kInconclusive);
  send_on(s, 900, 5, 1);
  EXPECT_EQ(run_invariant(inv("retx_different_ev"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 1900, 5, 1);  // the retransmission of the retransmission reuses EV 1
  const auto r = run_invariant(inv("retx_different_ev"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("dut.p2.tx.pcapng packet 1"), std::string::npos) << r.evidence[0].expected;
}

TEST(EvInvariants, PerPacketEvVariation) {
  Scenario s(4, 8);
  s.spray(0, 0, 64);
  EXPECT_EQ(run_invariant(inv("per_packet_ev_variation"), s.finish()).verdict, Verdict::kPass);
  for (std::uint32_t k = 0; k < 20; ++k) send_on(s, 10'000 + k * 100, 100 + k, 4);  // pinned to one EV
  const auto r = run_invariant(inv("per_packet_ev_variation", {{"min_distinct", "4"}, {"window", "8"}}), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 1);  // one run of bad windows, reported once
  EXPECT_EQ(run_invariant(inv("per_packet_ev_variation", {{"min_distinct", "3"}, {"window", "2"}}), s.ctx).verdict,
            Verdict::kError);
}

TEST(EvInvariants, EvMinActive) {
  Scenario s(4, 8);
  s.ctx.ev_min_active = 6;
  s.spray(0, 0, 32);
  s.ctx.dut.ev_events = {event(1 * kUs, 0, kBad), event(2 * kUs, 1, kBad)};
  EXPECT_EQ(run_invariant(inv("ev_min_active"), s.finish()).verdict, Verdict::kPass);
  s.ctx.dut.ev_events.push_back(event(3 * kUs, 2, kBad));  // only 5 GOOD left
  const auto r = run_invariant(inv("ev_min_active"), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "good_evs");
  EXPECT_EQ(r.evidence[0].observed, "5");
  s.ctx.ev_min_active = 0;
  EXPECT_EQ(run_invariant(inv("ev_min_active"), s.ctx).verdict, Verdict::kError);
}

TEST(EvInvariants, StevPlacement) {
  Scenario s(4, 8);
  s.spray(0, 0, 16);
  EXPECT_EQ(run_invariant(inv("stev_placement"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 5000, 50, 1, 3);  // EV 1 belongs to port 2
  Data top;
  top.psn = 51;
  top.flow_label = 0x91001;  // label bits 19..16 must be 0 (W2)
  top.ev = ev_value(1);
  s.raw(6000, true, 2, encode(top));
  Data stranger;
  stranger.psn = 52;
  stranger.ev = 0x0BAD0BAD;
  s.raw(7000, true, 1, encode(stranger));
  const auto r = run_invariant(inv("stev_placement"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.evidence.size(), 3u);
  EXPECT_EQ(r.evidence[0].field, "port");
  EXPECT_EQ(r.evidence[1].field, "ip.flow_label");
  EXPECT_EQ(r.evidence[2].field, "ev");
  s.ctx.dut.ev_fmt_mode = 4;
  EXPECT_EQ(run_invariant(inv("stev_placement"), s.ctx).verdict, Verdict::kError);
}

TEST(EvInvariants, UdpPlacement) {
  Scenario s(2, 4);
  s.ctx.dut.ev_fmt_mode = 4;  // UDP mode: the EV is the source port only
  for (auto& e : s.ctx.dut.evs) e.echo &= 0xFFFF;
  for (std::uint32_t k = 0; k < 8; ++k) {
    Data d;
    d.psn = k;
    d.ev = ev_value(k % 4) & 0xFFFF;  // flow label 0
    s.raw(k * 100, true, s.port_of_ev(k % 4), encode(d));
  }
  EXPECT_EQ(run_invariant(inv("udp_placement"), s.finish()).verdict, Verdict::kPass);
  send_on(s, 5000, 9, 1);  // STEV-style: flow label carries EV bits
  const auto r = run_invariant(inv("udp_placement"), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "ip.flow_label");
}

TEST(EvInvariants, Srv6Layout) {
  Scenario s(2, 4);
  s.ctx.dut.ev_fmt_mode = 2;
  // The identities the DUT reports: the reference's tags, 0xC000 | index (W2).
  for (auto& e : s.ctx.dut.evs) e.echo = wire::ev_echo_identity(wire::EvFmtMode::kSrv6, {}, e.index);
  for (std::uint32_t k = 0; k < 8; ++k) s.raw(k * 100, true, s.port_of_ev(k % 4), testing::encode_srv6(k % 4, k));
  EXPECT_EQ(run_invariant(inv("srv6_layout"), s.finish()).verdict, Verdict::kPass);

  // Any tag passes when it names one path and the DUT reports it: here 0x7000 + index.
  Scenario other(2, 4);
  other.ctx.dut.ev_fmt_mode = 2;
  for (auto& e : other.ctx.dut.evs) e.echo = 0x7000 + e.index;
  for (std::uint32_t k = 0; k < 8; ++k) {
    other.raw(k * 100, true, other.port_of_ev(k % 4), testing::encode_srv6(k % 4, k, 1, static_cast<int>(0x7000 + k % 4)));
  }
  EXPECT_EQ(run_invariant(inv("srv6_layout"), other.finish()).verdict, Verdict::kPass);

  s.raw(5000, true, 1, testing::encode_srv6(0, 20, /*segments_left=*/0));
  send_on(s, 6000, 21, 0);  // not encapsulated at all
  s.raw(7000, true, s.port_of_ev(2), testing::encode_srv6(2, 22, 1, /*sport=*/0xC000));  // EV 0's tag on EV 2's path
  const auto r = run_invariant(inv("srv6_layout"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.evidence.size(), 3u);
  EXPECT_EQ(r.evidence[0].field, "srh.segments_left");
  EXPECT_EQ(r.evidence[1].field, "inner.dst");
  EXPECT_EQ(r.evidence[2].field, "ev");
  EXPECT_NE(r.evidence[2].expected.find("a tag (inner flow label, sport) that names one path"), std::string::npos);
}

TEST(EvInvariants, ProbeOnTestedEv) {
  Scenario s(4, 8);
  EXPECT_EQ(run_invariant(inv("probe_on_tested_ev"), s.finish()).verdict, Verdict::kInconclusive);
  Probe p;
  p.ev = ev_value(3);
  s.dut_sends(100, p, 4);
  EXPECT_EQ(run_invariant(inv("probe_on_tested_ev"), s.finish()).verdict, Verdict::kPass);
  s.dut_sends(200, p, 1);  // EV 3 probed out of port 1
  EXPECT_EQ(run_invariant(inv("probe_on_tested_ev"), s.finish()).verdict, Verdict::kFail);
}

TEST(EvInvariants, IncompleteCaptureAndUnknownNames) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  s.spray(0, 0, 16);
  s.finish();
  s.tx(1).capture.integrity().tap_dropped = 1;
  const auto r = run_invariant(inv("no_denied_ev"), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p1.tx"), std::string::npos);
  EXPECT_EQ(run_invariant(inv("no_such_invariant"), s.ctx).verdict, Verdict::kError);
}


// ---- the timing budget (timing_budget.hpp) grows grace_ns ------------------------------------

// Each failed EV's grace runs from the DUT's first data on it after the fault (its first loss
// there): a DUT that first uses a dead EV late learnt nothing of it sooner.
TEST(EvInvariants, NoDataOnFailedEvCountsEachEvFromItsFirstLoss) {
  Scenario s(4, 8);
  s.ctx.faults = {testing::link_down(100 * kUs, {ev_value(1), ev_value(5)}, "plane2")};
  send_on(s, 101 * kUs, 1, 1);  // EV 1's first loss
  send_on(s, 130 * kUs, 2, 5);  // EV 5's first loss, 30 us after the fault: no violation
  send_on(s, 134 * kUs, 3, 5);  // within the grace from it
  const auto grace = inv("no_data_on_failed_ev", {{"grace_ns", "5000"}});
  EXPECT_EQ(run_invariant(grace, s.finish()).verdict, Verdict::kPass);
  send_on(s, 140 * kUs, 4, 5);  // 10 us after EV 5's first loss
  const auto r = run_invariant(grace, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.metrics.at("violations"), 1) << r.message;
  EXPECT_NE(r.message.find("its first loss there, at 130000 ns"), std::string::npos) << r.message;
}

TEST(EvInvariants, NoDataOnFailedEvGraceGrowsByTheTimingBudget) {
  Scenario s(4, 8);
  s.ctx.faults = {testing::link_down(100 * kUs, {ev_value(1), ev_value(5)}, "plane2")};
  send_on(s, 101 * kUs, 1, 5);  // the first loss on failed EV 5
  send_on(s, 105 * kUs, 2, 0);
  send_on(s, 111 * kUs, 3, 5);  // EV 5 again 10 us after that loss: 5 us past grace_ns
  s.finish();
  const auto grace = inv("no_data_on_failed_ev", {{"grace_ns", "5000"}});
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(grace, c); }, 3 * kUs, 5 * kUs,
                               "later than 5000 ns + 3.000 us timing budget");
}

// What the DUT sent before an EV entered the state, or within the grace after, tells nothing of
// whether it avoids the EV: a DUT whose traffic ended before the deny (a case written for a faster
// testbed) is not judged, rather than PASSed.
TEST(EvInvariants, NothingSentWhileAnEvIsDeniedOrBadIsNothingToJudge) {
  for (const auto& [name, state] : {std::pair{"no_denied_ev", kDenied}, std::pair{"no_assumed_bad_ev", kBad}}) {
    SCOPED_TRACE(name);
    Scenario s(4, 8);
    s.ctx.dut.ev_events = {event(50 * kUs, 2, state)};
    send_on(s, 10 * kUs, 1, 2);
    send_on(s, 40 * kUs, 2, 1);
    send_on(s, 51 * kUs, 3, 1);  // inside the grace
    const auto r = run_invariant(inv(name, {{"grace_ns", "2000"}}), s.finish());
    EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
    EXPECT_NE(r.message.find("nothing to judge"), std::string::npos) << r.message;
    send_on(s, 52 * kUs + 1, 4, 1);  // past it
    EXPECT_EQ(run_invariant(inv(name, {{"grace_ns", "2000"}}), s.finish()).verdict, Verdict::kPass);
  }
}

TEST(EvInvariants, DeniedAndAssumedBadGraceGrowsByTheTimingBudget) {
  for (const auto& [name, state] : {std::pair{"no_denied_ev", kDenied}, std::pair{"no_assumed_bad_ev", kBad}}) {
    SCOPED_TRACE(name);
    Scenario s(4, 8);
    s.ctx.dut.ev_events = {event(50 * kUs, 2, state)};
    send_on(s, 40 * kUs, 1, 2);
    send_on(s, 53 * kUs, 2, 2);  // 3 us after the change: with grace_ns 2 us, 1 us + 1 ns short of allowed
    send_on(s, 60 * kUs, 3, 1);  // in the state's span, on another EV: something to judge
    s.finish();
    const auto grace = inv(name, {{"grace_ns", "2000"}});
    testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(grace, c); }, 1 * kUs,
                                 1 * kUs + 1);
  }
}

}  // namespace
}  // namespace mrc::harness
