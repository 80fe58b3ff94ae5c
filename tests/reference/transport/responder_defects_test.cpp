// Every responder-side defect (reference/defects.hpp) visibly changes the emitted feedback or the
// memory. Each test runs the same scenario with and without the quirk and requires the difference.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;

TEST_F(ResponderTest, DefectSackOffByOneShiftsTheBitmap) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.sack_off_by_one = quirk;
    sink_.clear();
    make({}, q);
    deliver(data(op::kMrcWriteOnly, 0), 10);
    DataPacket p = data(op::kMrcWriteOnly, 2, 64);
    p.ack_req = true;
    deliver(p, 20);  // base = cack + 1 = PSN 1: PSN 2 is bit k = 1
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_bitmap,
              quirk ? wire::Seth::sack_mask(2) : wire::Seth::sack_mask(1));
  }
}

TEST_F(ResponderTest, DefectWrongEvEchoEchoesThePreviousPacket) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.wrong_ev_echo = quirk;
    sink_.clear();
    make({}, q);
    DataPacket a = data(op::kMrcWriteFirst, 0);
    a.flow_label = 0xA;
    a.sport = 0xC00A;
    DataPacket b = data(op::kMrcWriteLast, 1, 64);
    b.flow_label = 0xB;
    b.sport = 0xC00B;
    b.ack_req = true;
    deliver(a, 10);
    deliver(b, 20);
    const SentFeedback& fb = sink_.last_of(&SentFeedback::is_sack);
    EXPECT_EQ(fb.seth().ack_psn(), 1u);
    EXPECT_EQ(fb.seth().entropy, quirk ? stev_ev(a) : stev_ev(b));
    EXPECT_EQ(fb.egress.arrival_ev_echo, stev_ev(b));  // the truth for the endpoint
  }
}

DataPacket stub(DataPacket p) {
  p.dscp = wire::kDscpTrimmed;
  p.truncate_to = wire::kTrimLength;
  return p;
}

TEST_F(ResponderTest, DefectNoTrimNackDropsStubsSilently) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.no_trim_nack = quirk;
    sink_.clear();
    make({}, q);
    deliver(stub(data(op::kMrcWriteOnly, 0, 0, 1024)), 10);
    EXPECT_EQ(sink_.size(), quirk ? 0u : 1u);
  }
}

TEST_F(ResponderTest, DefectPlaceTrimmedStubWritesStubBytes) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.place_trimmed_stub = quirk;
    make({}, q);
    deliver(stub(data(op::kMrcWriteOnly, 0, 0, 1024, 0x6B)), 10);
    // The stub kept 256 - headers bytes of payload; the first 64 are surely among them.
    EXPECT_EQ(memory(0, 64), filled(64, quirk ? 0x6B : 0x00));
    EXPECT_EQ(memory(512, 64), filled(64, 0x00));  // bytes the trim cut never arrive
  }
}

TEST_F(ResponderTest, DefectEarlyCompletionCompletesBeforeAllPsns) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.early_completion = quirk;
    make({}, q);
    ASSERT_EQ(rsp_->post_recv(1), 0);
    deliver(data(op::kMrcWriteLastImm, 1, 64), 10);  // PSN 0 (FIRST) missing
    EXPECT_EQ(completions().size(), quirk ? 1u : 0u);
    deliver(data(op::kMrcWriteFirst, 0, 0), 20);
    EXPECT_EQ(completions().size(), quirk ? 0u : 1u);  // never twice
  }
}

TEST_F(ResponderTest, DefectDoubleCompletionCompletesADuplicateAgain) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.double_completion = quirk;
    make({}, q);
    ASSERT_EQ(rsp_->post_recv(1), 0);
    ASSERT_EQ(rsp_->post_recv(2), 0);
    DataPacket p = data(op::kMrcWriteOnlyImm, 0);
    deliver(p, 10);
    deliver(p, 20);
    EXPECT_EQ(completions().size(), quirk ? 2u : 1u);
  }
}

TEST_F(ResponderTest, DefectNoCeSackLetsAMarkWaitAndDropsSkipOnce) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.no_ce_sack = quirk;
    sink_.clear();
    make({}, q);
    DataPacket p = data(op::kMrcWriteFirst, 0);
    p.ecn = wire::kEcnCe;
    deliver(p, 10);
    EXPECT_EQ(sink_.size(), quirk ? 0u : 1u);
    rsp_->advance(1'000'000, sink_);
    ASSERT_EQ(sink_.size(), 1u);
    EXPECT_EQ(sink_.last().seth().m, quirk ? wire::MpVerdict::kNone : wire::MpVerdict::kSkipOnce);
  }
}

TEST_F(ResponderTest, DefectNackTrimmedOnCeNacksAMarkedPacketItPlaced) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.nack_on_ce = quirk;
    sink_.clear();
    make({}, q);
    DataPacket p = data(op::kMrcWriteFirst, 0);
    p.ecn = wire::kEcnCe;
    deliver(p, 10);
    ASSERT_EQ(sink_.size(), quirk ? 2u : 1u);  // the SKIP_ONCE SACK either way
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().m, wire::MpVerdict::kSkipOnce);
    if (quirk) {
      EXPECT_EQ(sink_.last_of(&SentFeedback::is_nack).neth().nack_reason, wire::nack::kTrimmed);
      EXPECT_EQ(sink_.last_of(&SentFeedback::is_nack).neth().nack_psn, 0u);
    }
  }
}

TEST_F(ResponderTest, DefectAckBeforeCackAcksPastAHole) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.ack_before_cack = quirk;
    sink_.clear();
    make({}, q);
    DataPacket p = data(op::kMrcWriteOnly, 1, 64);  // PSN 0 missing
    p.ack_req = true;
    deliver(p, 10);
    EXPECT_EQ(sink_.count(&SentFeedback::is_ack), quirk ? 1u : 0u);
    if (quirk) {
      EXPECT_EQ(sink_.last_of(&SentFeedback::is_ack).cum(), 1u);
    }
  }
}

TEST_F(ResponderTest, DefectAcceptOutOfWindowPlacesBeyondTheWindow) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.accept_out_of_window = quirk;
    ResponderConfig c;
    c.mpr_dest = 1;
    sink_.clear();
    make(c, q);
    EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 128, 0, 64, 0x3C), 10),
              quirk ? RxOutcome::kPlacedOutOfWindow : RxOutcome::kOutOfWindow);
    EXPECT_EQ(sink_.count(&SentFeedback::is_sack), quirk ? 1u : 0u);  // MODEL: W12 a silent drop
    EXPECT_EQ(memory(0, 64), filled(64, quirk ? 0x3C : 0x00));
  }
}

TEST_F(ResponderTest, DefectNoTsReflectSendsZero) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.no_ts_reflect = quirk;
    sink_.clear();
    make({}, q);
    DataPacket p = data(op::kMrcWriteOnly, 0);
    p.ack_req = true;
    p.tseth = true;
    p.ts = 0x0777;
    deliver(p, 1000);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).cc().tx_timestamp, quirk ? 0 : 0x0777);
  }
}

}  // namespace
}  // namespace mrc::transport::test
