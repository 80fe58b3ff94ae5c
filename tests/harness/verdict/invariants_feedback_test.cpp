// Responder-side invariants: what the DUT's feedback (SACK, NACK, Transport ACK; W5-W8) claims
// against what reached it.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::Scenario;
using testing::ev_value;

constexpr std::uint64_t kUs = 1000;

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{std::move(name), std::move(params)};
}

// PSNs arrive at the DUT one per microsecond from t0, on EV (psn % 8), skipping `missing`.
void arrive(Scenario& s, std::uint64_t t0, std::vector<std::uint32_t> psns) {
  std::uint64_t t = t0;
  for (auto p : psns) {
    Data d;
    d.psn = p;
    s.dut_receives(t, d, p % 8);
    t += kUs;
  }
}

using testing::Fb;
using testing::RelProbe;
using testing::nack;
using testing::sack;

constexpr std::uint64_t bit(unsigned i) { return wire::Seth::sack_mask(i); }  // PSN base + i

TEST(FeedbackInvariants, SackConsistent) {
  Scenario s(4, 8);
  EXPECT_EQ(run_invariant(inv("sack_consistent"), s.finish()).verdict, Verdict::kInconclusive);
  arrive(s, 0, {0, 1, 2, 4, 5, 6, 7});  // PSN 3 lost
  s.dut_sends(10 * kUs, sack(2, bit(1) | bit(2) | bit(3) | bit(4), 7));
  EXPECT_EQ(run_invariant(inv("sack_consistent"), s.finish()).verdict, Verdict::kPass);

  Scenario bad_bit = s;
  bad_bit.dut_sends(11 * kUs, sack(2, bit(0) | bit(1), 7));  // claims PSN 3
  auto r = run_invariant(inv("sack_consistent"), bad_bit.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.sack_bitmap");
  EXPECT_NE(r.evidence[0].observed.find("PSN 3 had not arrived"), std::string::npos) << r.evidence[0].observed;

  Scenario bad_ack = s;
  bad_ack.dut_sends(11 * kUs, sack(5, 0, 7));  // cumulative ACK past the hole
  r = run_invariant(inv("sack_consistent"), bad_ack.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "bth.psn");
  EXPECT_EQ(r.evidence[0].expected, "<= 2 (highest PSN received in order)");

  Scenario stub = s;  // a trimmed packet of PSN 3 is not an arrival (W13)
  Data d;
  d.psn = 3;
  d.trim_to = 120;
  stub.dut_receives(12 * kUs, d, 3);
  stub.dut_sends(13 * kUs, sack(2, bit(0), 3));
  EXPECT_EQ(run_invariant(inv("sack_consistent"), stub.finish()).verdict, Verdict::kFail);
}

// FB-SACK-BITMAP both ways: a set bit without its PSN, and an arrived PSN in range without its bit
// (once it arrived grace_ns before the feedback, or when it is the PSN the SACK answers).
TEST(FeedbackInvariants, SackExactBothWays) {
  Scenario s(4, 8);
  s.ctx.responder_window_psns = 1024;
  EXPECT_EQ(run_invariant(inv("sack_exact"), s.finish()).verdict, Verdict::kInconclusive);
  arrive(s, 0, {0, 1, 2, 4, 5, 6, 7});  // PSN 3 lost; PSN 7 arrives at 6 us
  s.dut_sends(10 * kUs, sack(2, bit(1) | bit(2) | bit(3) | bit(4), 7));
  auto r = run_invariant(inv("sack_exact"), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;

  Scenario extra = s;  // claims PSN 3: the one-way rule
  extra.dut_sends(11 * kUs, sack(2, bit(0) | bit(1) | bit(2) | bit(3) | bit(4), 7));
  r = run_invariant(inv("sack_exact"), extra.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].observed.find("PSN 3 had not arrived"), std::string::npos) << r.evidence[0].observed;

  Scenario missing = s;  // PSN 5 arrived 7 us before, its bit (i = 2) is clear
  missing.dut_sends(11 * kUs, sack(2, bit(1) | bit(3) | bit(4), 7));
  r = run_invariant(inv("sack_exact"), missing.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.sack_bitmap");
  EXPECT_EQ(r.evidence[0].observed, "bit 2 clear");
  EXPECT_NE(r.evidence[0].expected.find("PSN 5 arrived"), std::string::npos) << r.evidence[0].expected;
  EXPECT_EQ(run_invariant(inv("sack_consistent"), missing.finish()).verdict, Verdict::kPass);  // one way only

  Scenario late = s;  // PSN 8 arrived 200 ns before the SACK: inside the grace, not demanded
  arrive(late, 10 * kUs + 800, {8});
  late.dut_sends(11 * kUs, sack(2, bit(1) | bit(2) | bit(3) | bit(4), 7));
  EXPECT_EQ(run_invariant(inv("sack_exact"), late.finish()).verdict, Verdict::kPass);
  // ... unless the SACK answers PSN 8 itself.
  Scenario answered = late;
  answered.dut_sends(11 * kUs + 10, sack(2, bit(1) | bit(2) | bit(3) | bit(4), 8));
  r = run_invariant(inv("sack_exact"), answered.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("the PSN this SACK answers"), std::string::npos) << r.evidence[0].expected;
  // A smaller grace demands it too.
  r = run_invariant(inv("sack_exact", {{"grace_ns", "100"}}), late.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);

  Scenario beyond = s;  // PSN 7 sits past a 4-PSN window (ePSN 3 .. 6): not received, not demanded
  beyond.ctx.responder_window_psns = 4;
  beyond.dut_sends(11 * kUs, sack(2, bit(1) | bit(2) | bit(3), 6));
  EXPECT_EQ(run_invariant(inv("sack_exact"), beyond.finish()).verdict, Verdict::kPass);
}

// Across a real-time bridge (a timing budget) no time says what the DUT had read when it built the
// SACK, however long ago a PSN reached its port: the order does. A PSN that reached the port before
// the PSN the SACK answers must be in it; one after it need not, even milliseconds earlier.
TEST(FeedbackInvariants, SackExactOnARealTimeTestbedJudgesByOrder) {
  Scenario s(4, 8);
  s.ctx.responder_window_psns = 1024;
  const auto on_port_1 = [&s](std::uint64_t t, std::vector<std::uint32_t> psns) {
    for (auto p : psns) {
      Data d;
      d.psn = p;
      s.dut_receives(t, d, p % 8, 1);
    }
  };
  on_port_1(0, {0, 1, 2, 4, 5});
  on_port_1(1 * kUs, {6});
  on_port_1(2 * kUs, {7});
  Scenario after = s;  // answers PSN 6; PSN 7 (bit 4) came 8 us before the SACK, but after PSN 6
  after.dut_sends(10 * kUs, sack(2, bit(1) | bit(2) | bit(3), 6));
  EXPECT_EQ(run_invariant(inv("sack_exact"), after.finish()).verdict, Verdict::kFail);  // by time, on virtual time
  after.ctx.timing_budget = TimingBudget{5000, "test bridge"};
  auto r = run_invariant(inv("sack_exact"), after.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_NE(r.message.find("a PSN that reached the answered PSN's port before it"), std::string::npos) << r.message;
  Scenario before = s;  // answers PSN 6; PSN 5 (bit 2) reached the port before it: demanded
  before.dut_sends(10 * kUs, sack(2, bit(1) | bit(3), 6));
  before.ctx.timing_budget = TimingBudget{5000, "test bridge"};
  r = run_invariant(inv("sack_exact"), before.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence[0].observed, "bit 2 clear");
  EXPECT_NE(r.evidence[0].expected.find("PSN 5 reached the port before the PSN this SACK answers (6)"), std::string::npos)
      << r.evidence[0].expected;
  // Through another port the DUT may read it later (its ports are queues of their own).
  Scenario other(4, 8);
  other.ctx.responder_window_psns = 1024;
  for (std::uint32_t p : {0u, 1u, 2u, 4u, 5u, 6u}) {
    Data d;
    d.psn = p;
    other.dut_receives(p == 6 ? 1 * kUs : 0, d, p % 8, p == 5 ? 2 : 1);
  }
  other.dut_sends(10 * kUs, sack(2, bit(1) | bit(3), 6));
  other.ctx.timing_budget = TimingBudget{5000, "test bridge"};
  EXPECT_EQ(run_invariant(inv("sack_exact"), other.finish()).verdict, Verdict::kPass);
}

// TRIM-STUB-NOT-PLACED in memory: an injected stub whose PSN never arrived whole leaves its bytes
// in the DUT's buffer.
TEST(FeedbackInvariants, StubNotPlacedReadsTheBufferBack) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1});
  Data d;
  d.psn = 3;
  d.trim_to = 200;
  s.dut_receives(5 * kUs, d, 3);
  InjectedWriteRecord w;
  w.psn = 3;
  w.trimmed = true;
  w.offset = 3 * 4096;
  w.payload.assign(64, 0x5A);
  w.after.assign(64, 0);
  s.ctx.dut.injected_writes.push_back(w);
  auto r = run_invariant(inv("stub_not_placed"), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;

  Scenario placed = s;
  placed.ctx.dut.injected_writes.back().after = placed.ctx.dut.injected_writes.back().payload;
  r = run_invariant(inv("stub_not_placed"), placed.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "memory");

  Scenario whole = placed;  // the whole PSN 3 arrived later: its bytes there are legitimate
  arrive(whole, 9 * kUs, {3});
  EXPECT_EQ(run_invariant(inv("stub_not_placed"), whole.finish()).verdict, Verdict::kPass);

  Scenario unread = placed;  // the binding could not read the buffer back: nothing to judge there
  unread.ctx.dut.injected_writes.back().after.clear();
  EXPECT_EQ(run_invariant(inv("stub_not_placed"), unread.finish()).verdict, Verdict::kPass);
}

// The valid side of an invalid-input edge: an injected WRITE the DUT must take is in its buffer,
// byte for byte, and acknowledged.
TEST(FeedbackInvariants, InjectedPlacedReadsTheBufferBackAndWantsAnAcknowledgement) {
  Scenario s(4, 8);
  arrive(s, 0, {0});
  InjectedWriteRecord w;
  w.psn = 0;
  w.payload.assign(64, 0x5A);
  w.after = w.payload;
  s.ctx.dut.injected_writes.push_back(w);
  Scenario acked = s;
  acked.dut_sends(2 * kUs, sack(0, 0, 0));
  auto r = run_invariant(inv("injected_placed"), acked.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;

  Scenario unplaced = acked;
  unplaced.ctx.dut.injected_writes.back().after.assign(64, 0);
  r = run_invariant(inv("injected_placed"), unplaced.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "memory");

  r = run_invariant(inv("injected_placed"), s.finish());  // placed, but no feedback names PSN 0
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "feedback");

  Scenario unread = acked;
  unread.ctx.dut.injected_writes.back().after.clear();
  EXPECT_EQ(run_invariant(inv("injected_placed"), unread.finish()).verdict, Verdict::kInconclusive);

  Scenario lost(4, 8);  // the WRITE never reached the DUT: nothing to judge
  lost.ctx.dut.injected_writes.push_back(w);
  EXPECT_EQ(run_invariant(inv("injected_placed"), lost.finish()).verdict, Verdict::kInconclusive);
}

// W2: a SACK's and a NACK's entropy is the EV its trigger arrived on (a probe's for pr = 1).
TEST(FeedbackInvariants, EvEchoMatches) {
  Scenario s(4, 8);
  arrive(s, 0, {10});  // EV 2, port 3
  Scenario good = s;
  good.dut_sends(2 * kUs, sack(10, 0, 10));
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), good.finish()).verdict, Verdict::kPass);
  Scenario wrong_ev = s;
  Feedback f = sack(10, 0, 10);
  f.ev_echo = ev_value(3);
  wrong_ev.dut_sends(2 * kUs, f);
  auto r = run_invariant(inv("ev_echo_matches"), wrong_ev.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.entropy");
  EXPECT_EQ(r.evidence[0].observed, "0x1003c103");
  Scenario wrong_nack = s;
  Feedback n = nack(10);
  n.ev_echo = ev_value(4);
  wrong_nack.dut_sends(2 * kUs, n);
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), wrong_nack.finish()).evidence[0].field, "neth.entropy");
  Scenario phantom = s;
  phantom.dut_sends(2 * kUs, sack(10, 0, 11));  // PSN 11 never reached the DUT
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), phantom.finish()).evidence[0].field, "seth.ack_psn");

  Scenario probed = s;  // a pr = 1 SACK echoes the probe's EV
  RelProbe probe;
  probe.probe_id = 9;
  probed.dut_receives(3 * kUs, probe, 5);
  Feedback answer = sack(10, 0, 10);
  answer.pr = true;
  answer.probe_id = 9;
  answer.ev_echo = ev_value(5);
  Scenario probe_good = probed;
  probe_good.dut_sends(4 * kUs, answer);
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), probe_good.finish()).verdict, Verdict::kPass);
  answer.ev_echo = ev_value(2);  // the EV of the last data packet, not the probe's
  probed.dut_sends(4 * kUs, answer);
  r = run_invariant(inv("ev_echo_matches"), probed.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("probe 9"), std::string::npos) << r.evidence[0].expected;
}

// Across a real-time bridge which copy of a PSN the DUT answered is not observable: the echo of
// any copy the taps saw within twice the budget before the latest is accepted there; on the
// simulated fabric only the latest copy's.
TEST(FeedbackInvariants, EvEchoOfAnEarlierCopyCountsOnlyAcrossABridge) {
  auto run = [](std::uint64_t resend_at, std::uint32_t echo_ev, std::uint64_t budget_ns) {
    Scenario s(4, 8);
    arrive(s, 0, {10});  // EV 2
    Data again;
    again.psn = 10;
    s.dut_receives(resend_at, again, 5);  // its resend, on EV 5
    Feedback f = sack(10, 0, 10);
    f.ev_echo = ev_value(echo_ev);
    s.dut_sends(resend_at + kUs, f);
    s.ctx.timing_budget = TimingBudget{budget_ns, "real-time bridge (testbed netns)"};
    return run_invariant(inv("ev_echo_matches"), s.finish()).verdict;
  };
  EXPECT_EQ(run(kUs, 5, 0), Verdict::kPass);       // the latest copy's EV
  EXPECT_EQ(run(kUs, 2, 0), Verdict::kFail);       // the first copy's: not on the fabric
  EXPECT_EQ(run(kUs, 2, kUs), Verdict::kPass);     // across a bridge of 1 us: either copy
  EXPECT_EQ(run(kUs, 3, kUs), Verdict::kFail);     // no copy's EV
  EXPECT_EQ(run(10 * kUs, 2, kUs), Verdict::kFail);  // the first copy 10 us before: surely overtaken
}

TEST(FeedbackInvariants, TrimNackPerStub) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1});
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), s.finish()).verdict, Verdict::kInconclusive);
  Data stub;
  stub.psn = 2;
  stub.trim_to = 120;
  s.dut_receives(5 * kUs, stub, 2);
  Scenario answered = s;
  answered.dut_sends(6 * kUs, nack(2));
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), answered.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("trim_nack_for_stub"), answered.ctx).verdict, Verdict::kPass);
  auto r = run_invariant(inv("trim_nack_per_stub"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].pcap, "dut.p3.rx.pcapng");  // the trimmed packet itself is the evidence
  EXPECT_EQ(r.evidence[0].field, "neth.nack_psn");
  Scenario wrong_reason = s;  // trimmed at a middle hop (DSCP 11): TRIMMED, not TRIMMED_LASTHOP
  wrong_reason.dut_sends(6 * kUs, nack(2, wire::nack::kTrimmedLastHop));
  r = run_invariant(inv("trim_nack_per_stub"), wrong_reason.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "neth.reason");
  EXPECT_EQ(r.evidence[0].observed, "0x2");

  Scenario lasthop(4, 8);  // trimmed on the last hop (DSCP 13): TRIMMED_LASTHOP
  arrive(lasthop, 0, {0, 1});
  stub.dscp = wire::DscpConfig{}.trimmed_lasthop;
  lasthop.dut_receives(5 * kUs, stub, 2);
  Scenario lasthop_good = lasthop;
  lasthop_good.dut_sends(6 * kUs, nack(2, wire::nack::kTrimmedLastHop));
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), lasthop_good.finish()).verdict, Verdict::kPass);
  lasthop.dut_sends(6 * kUs, nack(2));
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), lasthop.finish()).evidence[0].observed, "0x1");
}

// A trimmed copy of a PSN that already arrived whole is a duplicate: a SACK answers it (W6), not
// judged here.
TEST(FeedbackInvariants, TrimNackPerStubLeavesStubsOfArrivedPsnsAlone) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2});
  Data stub;
  stub.psn = 2;
  stub.trim_to = 120;
  s.dut_receives(5 * kUs, stub, 2);
  Feedback ack;
  ack.psn = 2;
  s.dut_sends(6 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), s.finish()).verdict, Verdict::kInconclusive);
  Data fresh;  // a stub of a PSN not yet received still needs its TRIM NACK
  fresh.psn = 3;
  fresh.trim_to = 120;
  s.dut_receives(7 * kUs, fresh, 3);
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), s.finish()).verdict, Verdict::kFail);
}

TEST(FeedbackInvariants, NoRnr) {
  Scenario s(4, 8);
  arrive(s, 0, {0});
  Feedback ack;
  ack.psn = 0;
  s.dut_sends(kUs, ack);
  EXPECT_EQ(run_invariant(inv("no_rnr"), s.finish()).verdict, Verdict::kPass);
  ack.syndrome = 0x21;  // an RNR NAK
  s.dut_sends(2 * kUs, ack);
  const auto r = run_invariant(inv("no_rnr"), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "0x21");
}

TEST(FeedbackInvariants, StubAndInvalidFramesAreNeverAcknowledged) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2, 4, 5});
  Data stub;
  stub.psn = 3;
  stub.trim_to = 120;
  s.dut_receives(10 * kUs, stub, 3);
  Feedback ack;
  ack.psn = 5;  // acknowledges PSN 3, which only came as a stub
  Scenario acked = s;
  acked.dut_sends(11 * kUs, ack);
  auto r = run_invariant(inv("stub_not_placed"), acked.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("PSN 3"), std::string::npos);
  EXPECT_EQ(run_invariant(inv("not_placed"), acked.ctx).verdict, Verdict::kFail);
  Scenario repaired = s;
  Data three;
  three.psn = 3;
  repaired.dut_receives(10 * kUs + 500, three, 3);  // the retransmission arrives intact first
  repaired.dut_sends(11 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("stub_not_placed"), repaired.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("not_placed"), repaired.ctx).verdict, Verdict::kPass);
  Scenario sacked = s;  // a SACK bit claims it just as well
  sacked.dut_sends(11 * kUs, sack(2, bit(0) | bit(1) | bit(2), 5));
  r = run_invariant(inv("stub_not_placed"), sacked.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.sack_bitmap");

  Scenario wrong_qp(4, 8);  // a frame for another QP must not be placed either
  arrive(wrong_qp, 0, {0, 1, 2});
  Data other;
  other.psn = 3;
  other.dqpn = 0x999;
  wrong_qp.dut_receives(5 * kUs, other, 3);
  ack.psn = 3;
  wrong_qp.dut_sends(6 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("not_placed"), wrong_qp.finish()).verdict, Verdict::kFail);
  EXPECT_EQ(run_invariant(inv("stub_not_placed"), wrong_qp.ctx).verdict, Verdict::kInconclusive);
}

TEST(FeedbackInvariants, SilentlyDropped) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2});
  EXPECT_EQ(run_invariant(inv("silently_dropped"), s.finish()).verdict, Verdict::kInconclusive);
  Data read;  // an RDMA READ request: not an MRC operation
  read.opcode = wire::opcode::kRcReadRequest;
  read.psn = 3;
  read.len = 0;
  s.dut_receives(5 * kUs, read, 3);
  EXPECT_EQ(run_invariant(inv("silently_dropped"), s.finish()).verdict, Verdict::kPass);
  Scenario sacked = s;
  sacked.dut_sends(6 * kUs, sack(2, 0, 3));
  auto r = run_invariant(inv("silently_dropped"), sacked.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.ack_psn");
  EXPECT_NE(r.evidence[0].expected.find("dut.p4.rx.pcapng packet"), std::string::npos) << r.evidence[0].expected;
  s.dut_sends(6 * kUs, nack(3, wire::nack::kUnexpEvent));
  r = run_invariant(inv("silently_dropped"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "neth.nack_psn");
}

// W12: a PSN beyond the window is dropped silently or NACKed PSN_OOR_WINDOW, never acknowledged;
// and PSN_OOR_WINDOW never names a PSN that was inside.
TEST(FeedbackInvariants, ResponderWindow) {
  Scenario s(4, 8);
  EXPECT_EQ(run_invariant(inv("responder_window"), s.finish()).verdict, Verdict::kError);
  s.ctx.responder_window_psns = 8;
  arrive(s, 0, {0, 1, 2, 3});
  Feedback ack;
  ack.psn = 3;
  s.dut_sends(4 * kUs, ack);
  arrive(s, 5 * kUs, {20});  // at least 16 PSNs past ePSN: surely out of the window
  auto r = run_invariant(inv("responder_window"), s.finish());  // dropped silently: the default
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  Scenario good = s;
  good.dut_sends(6 * kUs, nack(20, wire::nack::kPsnOorWindow));
  EXPECT_EQ(run_invariant(inv("responder_window"), good.finish()).verdict, Verdict::kPass);
  Scenario acked = s;
  acked.dut_sends(6 * kUs, sack(3, bit(16), 20));  // base 4: bit 16 is PSN 20
  r = run_invariant(inv("responder_window"), acked.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "seth.sack_bitmap");
  Scenario spurious = good;
  arrive(spurious, 7 * kUs, {5});  // inside the window (ACK 3 + 8)
  spurious.dut_sends(9 * kUs, nack(5, wire::nack::kPsnOorWindow));
  r = run_invariant(inv("responder_window"), spurious.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "neth.reason");
  EXPECT_EQ(r.evidence[0].observed, "0x0b (PSN_OOR_WINDOW)");
}

TEST(FeedbackInvariants, IncompleteFeedbackTapIsInconclusive) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1});
  Feedback ack;
  ack.psn = 1;
  s.dut_sends(3 * kUs, ack);
  s.finish();
  s.rx(2).capture.integrity().offered += 3;
  const auto r = run_invariant(inv("sack_consistent"), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p2.rx"), std::string::npos);
}

TEST(FeedbackInvariants, PdcIdsTakeTheTwoQpnsInEitherOrder) {
  auto run_with = [](std::uint16_t spdcid, std::uint16_t dpdcid) {
    Scenario s(4, 8);
    arrive(s, 0, {0, 1});
    auto fb = sack(1, 0, 1);
    fb.spdcid = spdcid;
    fb.dpdcid = dpdcid;
    s.dut_sends(kUs, fb);
    auto trim = nack(2);
    trim.spdcid = spdcid;
    trim.dpdcid = dpdcid;
    s.dut_sends(2 * kUs, trim);
    return run_invariant(inv("pdc_ids"), s.finish());
  };
  constexpr std::uint16_t kDut = testing::kDutQpn & 0xFFFF;
  constexpr std::uint16_t kPeer = testing::kPeerQpn & 0xFFFF;
  EXPECT_EQ(run_with(kDut, kPeer).verdict, Verdict::kPass);  // the sender's orientation (F1, UET)
  EXPECT_EQ(run_with(kPeer, kDut).verdict, Verdict::kPass);  // the data direction (F2)
  const auto zero = run_with(0, 0);
  ASSERT_EQ(zero.verdict, Verdict::kFail);
  EXPECT_EQ(zero.evidence.size(), 2u);  // the SACK and the NACK
  EXPECT_EQ(zero.evidence[0].field, "seth.spdcid/dpdcid");
  EXPECT_EQ(zero.evidence[1].field, "neth.spdcid/dpdcid");
  EXPECT_EQ(run_with(kDut, kDut).verdict, Verdict::kFail);  // one QPN twice names no pair
}

TEST(FeedbackInvariants, PdcIdsNeedFeedbackFromTheDut) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1});
  EXPECT_EQ(run_invariant(inv("pdc_ids"), s.finish()).verdict, Verdict::kInconclusive);
}

}  // namespace
}  // namespace mrc::harness
