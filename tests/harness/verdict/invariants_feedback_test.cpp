// Responder-side invariants: the DUT's feedback (MODEL: M5) against what reached it.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
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

Feedback sack(std::uint32_t cum, std::uint64_t bitmap, std::uint32_t trig) {
  Feedback f;
  f.psn = cum;
  f.type = wire::FeedbackType::kSack;
  f.sack_valid = true;
  f.sack_base_off = 0;  // base = cum + 1
  f.sack_bitmap = bitmap;
  f.trig_psn = trig;
  f.ev_echo = ev_value(trig % 8);
  return f;
}

constexpr std::uint64_t bit(unsigned i) { return std::uint64_t{1} << (63 - i); }

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
  EXPECT_EQ(r.evidence[0].field, "mfeh.sack_bitmap");
  EXPECT_NE(r.evidence[0].observed.find("PSN 3 had not arrived"), std::string::npos) << r.evidence[0].observed;

  Scenario bad_ack = s;
  bad_ack.dut_sends(11 * kUs, sack(5, 0, 7));  // cumulative ACK past the hole
  r = run_invariant(inv("sack_consistent"), bad_ack.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "bth.psn");
  EXPECT_EQ(r.evidence[0].expected, "<= 2 (highest PSN received in order)");

  Scenario stub = s;  // a trimmed stub of PSN 3 is not an arrival (MODEL: M11)
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
  EXPECT_EQ(r.evidence[0].field, "mfeh.sack_bitmap");
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

// The grace a bitmap is forgiven grows with the timing budget (a frame the bridge delayed).
TEST(FeedbackInvariants, SackExactGraceGrowsWithTheBudget) {
  Scenario s(4, 8);
  s.ctx.responder_window_psns = 1024;
  arrive(s, 0, {0, 1, 2, 4, 5, 6, 7});
  s.dut_sends(10 * kUs, sack(2, bit(1) | bit(2) | bit(3), 6));  // PSN 7 arrived 4 us before, bit clear
  EXPECT_EQ(run_invariant(inv("sack_exact"), s.finish()).verdict, Verdict::kFail);
  s.ctx.timing_budget = TimingBudget{5000, "test bridge"};
  const auto r = run_invariant(inv("sack_exact"), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_NE(r.message.find("test bridge"), std::string::npos) << r.message;
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

TEST(FeedbackInvariants, EvEchoMatches) {
  Scenario s(4, 8);
  arrive(s, 0, {10});  // EV 2, port 3
  Feedback ack;
  ack.psn = 10;
  ack.trig_psn = 10;
  ack.ev_echo = ev_value(2);
  ack.ev_port = 3;
  Scenario good = s;
  good.dut_sends(2 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), good.finish()).verdict, Verdict::kPass);
  Scenario wrong_ev = s;
  ack.ev_echo = ev_value(3);
  wrong_ev.dut_sends(2 * kUs, ack);
  auto r = run_invariant(inv("ev_echo_matches"), wrong_ev.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "mfeh.ev_echo");
  EXPECT_EQ(r.evidence[0].observed, "0x1003c103");
  Scenario wrong_port = s;
  ack.ev_echo = ev_value(2);
  ack.ev_port = 1;
  wrong_port.dut_sends(2 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), wrong_port.finish()).evidence[0].field, "mfeh.ev_port");
  Scenario phantom = s;
  ack.ev_port = 3;
  ack.trig_psn = 11;  // never reached the DUT
  phantom.dut_sends(2 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("ev_echo_matches"), phantom.finish()).evidence[0].field, "mfeh.trig_psn");
}

TEST(FeedbackInvariants, TrimNackPerStub) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1});
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), s.finish()).verdict, Verdict::kInconclusive);
  Data stub;
  stub.psn = 2;
  stub.trim_to = 120;
  s.dut_receives(5 * kUs, stub, 2);
  Feedback nack;
  nack.psn = 1;
  nack.type = wire::FeedbackType::kTrimNack;
  nack.syndrome = wire::syndrome::kNakTrim;
  nack.trig_psn = 2;
  nack.ce = true;
  Scenario answered = s;
  answered.dut_sends(6 * kUs, nack);
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), answered.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("trim_nack_for_stub"), answered.ctx).verdict, Verdict::kPass);
  const auto r = run_invariant(inv("trim_nack_per_stub"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].pcap, "dut.p3.rx.pcapng");  // the stub itself is the evidence
  Scenario no_ce = s;
  nack.ce = false;
  no_ce.dut_sends(6 * kUs, nack);
  EXPECT_EQ(run_invariant(inv("trim_nack_per_stub"), no_ce.finish()).evidence[0].field, "mfeh.ce");
}

TEST(FeedbackInvariants, NackForHole) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2, 4});  // PSN 3 missing from t = 3 us
  Data late;
  late.psn = 5;
  s.dut_receives(30 * kUs, late, 5);
  const auto limit = inv("nack_for_hole", {{"max_delay_ns", "10000"}});
  const auto r = run_invariant(limit, s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.evidence[0].note.find("PSN 3 missing since 3000"), std::string::npos) << r.evidence[0].note;
  Scenario nacked = s;
  Feedback nack;
  nack.psn = 2;
  nack.type = wire::FeedbackType::kNackLoss;
  nack.syndrome = wire::syndrome::kNakPsnSeqError;
  nacked.dut_sends(8 * kUs, nack);
  EXPECT_EQ(run_invariant(limit, nacked.finish()).verdict, Verdict::kPass);
  Scenario filled = s;
  Data three;
  three.psn = 3;
  filled.dut_receives(5 * kUs, three, 3);
  EXPECT_EQ(run_invariant(limit, filled.finish()).verdict, Verdict::kPass);
  Scenario in_order(4, 8);
  arrive(in_order, 0, {0, 1, 2});
  EXPECT_EQ(run_invariant(limit, in_order.finish()).verdict, Verdict::kInconclusive);
}

// A stub of a PSN that already arrived whole is a duplicate: an ACK answers it as well as a
// TRIM NACK (a responder NACKing a merely delayed PSN sees its retransmission trimmed).
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

Feedback loss_nack(std::uint32_t cum) {
  Feedback nack;
  nack.psn = cum;
  nack.type = wire::FeedbackType::kNackLoss;
  nack.syndrome = wire::syndrome::kNakPsnSeqError;
  return nack;
}

// When a loss NACK leaves is the responder's choice (its out-of-order tolerance); what it names
// is not: a PSN still missing below one that arrived.
TEST(FeedbackInvariants, NackNamesHole) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2, 4});  // PSN 3 missing from t = 3 us
  EXPECT_EQ(run_invariant(inv("nack_names_hole"), s.finish()).verdict, Verdict::kInconclusive);
  Scenario at_once = s;  // the earliest moment is as legal as any
  at_once.dut_sends(3 * kUs + 1, loss_nack(2));
  EXPECT_EQ(run_invariant(inv("nack_names_hole"), at_once.finish()).verdict, Verdict::kPass);

  Scenario filled = s;  // PSN 3 arrives at 5 us; a NACK for it at 6 us names an arrived PSN
  Data three;
  three.psn = 3;
  filled.dut_receives(5 * kUs, three, 3);
  Scenario same_time = filled;
  same_time.dut_sends(5 * kUs, loss_nack(2));  // decided in the same instant: not held against it
  EXPECT_EQ(run_invariant(inv("nack_names_hole"), same_time.finish()).verdict, Verdict::kPass);
  filled.dut_sends(6 * kUs, loss_nack(2));
  const auto r = run_invariant(inv("nack_names_hole"), filled.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence[0].field, "bth.psn");
  EXPECT_NE(r.evidence[0].observed.find("names PSN 3, which reached the DUT at 5000 ns"), std::string::npos)
      << r.evidence[0].observed;
  EXPECT_EQ(run_invariant(inv("nack_names_hole", {{"grace_ns", "2000"}}), filled.ctx).verdict, Verdict::kPass);

  Scenario no_hole(4, 8);  // nothing beyond PSN 2 came: PSN 3 is not a hole yet
  arrive(no_hole, 0, {0, 1, 2});
  no_hole.dut_sends(10 * kUs, loss_nack(2));
  const auto idle = run_invariant(inv("nack_names_hole"), no_hole.finish());
  ASSERT_EQ(idle.verdict, Verdict::kFail);
  EXPECT_NE(idle.evidence[0].observed.find("no higher PSN had reached the DUT"), std::string::npos)
      << idle.evidence[0].observed;
}

TEST(FeedbackInvariants, SvcTimeReportedAndNoRnr) {
  Scenario s(4, 8);
  arrive(s, 0, {0});
  Feedback ack;
  ack.psn = 0;
  s.dut_sends(kUs, ack);
  EXPECT_EQ(run_invariant(inv("svc_time_reported"), s.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("no_rnr"), s.ctx).verdict, Verdict::kPass);
  ack.svc_valid = false;
  ack.syndrome = 0x21;  // an RNR NAK
  s.dut_sends(2 * kUs, ack);
  EXPECT_EQ(run_invariant(inv("svc_time_reported"), s.finish()).verdict, Verdict::kFail);
  const auto r = run_invariant(inv("no_rnr"), s.ctx);
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
  Feedback answer;
  answer.psn = 2;
  answer.trig_psn = 3;
  answer.type = wire::FeedbackType::kNackLoss;
  s.dut_sends(6 * kUs, answer);
  const auto r = run_invariant(inv("silently_dropped"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.evidence[0].expected.find("dut.p4.rx.pcapng packet"), std::string::npos) << r.evidence[0].expected;
}

TEST(FeedbackInvariants, ResponderWindow) {
  Scenario s(4, 8);
  EXPECT_EQ(run_invariant(inv("responder_window"), s.finish()).verdict, Verdict::kError);
  s.ctx.responder_window_psns = 8;
  arrive(s, 0, {0, 1, 2, 3});
  Feedback ack;
  ack.psn = 3;
  s.dut_sends(4 * kUs, ack);
  arrive(s, 5 * kUs, {20});  // at least 16 PSNs past ePSN: surely out of the window
  Feedback oor;
  oor.psn = 3;
  oor.type = wire::FeedbackType::kPsnOutOfRange;
  oor.trig_psn = 20;
  Scenario good = s;
  good.dut_sends(6 * kUs, oor);
  EXPECT_EQ(run_invariant(inv("responder_window"), good.finish()).verdict, Verdict::kPass);
  auto r = run_invariant(inv("responder_window"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "mfeh.type");
  EXPECT_EQ(r.evidence[0].observed, "none");
  Scenario spurious = good;
  arrive(spurious, 7 * kUs, {5});  // inside the window (ACK 3 + 8)
  oor.trig_psn = 5;
  spurious.dut_sends(9 * kUs, oor);
  r = run_invariant(inv("responder_window"), spurious.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "4 (PSN out of range)");
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


TEST(FeedbackInvariants, NackForHoleMaxDelayGrowsByTheTimingBudget) {
  Scenario s(4, 8);
  arrive(s, 0, {0, 1, 2, 4});  // PSN 3 missing from t = 3 us
  Feedback nack;  // its loss NACK 17 us later: 7 us past max_delay_ns
  nack.psn = 2;
  nack.type = wire::FeedbackType::kNackLoss;
  nack.syndrome = wire::syndrome::kNakPsnSeqError;
  s.dut_sends(20 * kUs, nack);
  s.finish();
  const auto limit = inv("nack_for_hole", {{"max_delay_ns", "10000"}});
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(limit, c); }, 5 * kUs, 7 * kUs,
                               "a loss NACK for PSN 3 within 10.000 us + 5.000 us timing budget (real-time bridge (testbed netns))");
  s.ctx.timing_budget = testing::bridge(5 * kUs);
  const auto r = run_invariant(limit, s.ctx);
  EXPECT_NE(r.message.find("; bound max_delay_ns 10.000 us + 5.000 us timing budget"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace mrc::harness
