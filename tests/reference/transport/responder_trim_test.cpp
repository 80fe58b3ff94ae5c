// Trimmed stubs at the responder (MODEL: M11, M5): never placed, an immediate TRIM NACK with
// trig_psn, ev_echo and ce = 1; no TRIM NACK when the QP says the peer lacks support; the trimmed
// PSN is not reported again as lost.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;

// What a trimming switch makes of a data packet: DSCP 11, cut to 256 bytes, lengths and ICRC
// left as they were.
DataPacket trimmed(DataPacket p) {
  p.dscp = wire::kDscpTrimmed;
  p.truncate_to = wire::kTrimLength;
  return p;
}

TEST_F(ResponderTest, TrimmedStubDrawsImmediateTrimNackAndIsNotPlaced) {
  make();
  deliver(data(op::kMrcWriteFirst, 0, 0, 1024, 0x11), 10);
  sink_.clear();
  DataPacket p = trimmed(data(op::kMrcWriteMiddle, 1, 1024, 1024, 0x22));
  p.flow_label = 0x7;
  p.sport = 0xC123;
  EXPECT_EQ(deliver(p, 20, 5), RxOutcome::kTrimNacked);
  ASSERT_EQ(sink_.size(), 1u);
  const SentFeedback& fb = sink_.last();
  EXPECT_EQ(fb.syndrome(), wire::syndrome::kNakTrim);
  EXPECT_EQ(fb.m().type, wire::FeedbackType::kTrimNack);
  EXPECT_EQ(fb.m().trig_psn, 1u);
  EXPECT_TRUE(fb.m().ev_valid);
  EXPECT_EQ(fb.m().ev_echo, 0x0007C123u);
  EXPECT_EQ(fb.m().ev_port, 5);
  EXPECT_TRUE(fb.m().ce);
  EXPECT_EQ(fb.cum(), 0u);
  EXPECT_EQ(memory(1024, 1024), filled(1024, 0));  // not a byte of the stub
  EXPECT_EQ(rsp_->rcvd_bytes(), 1024u);
  EXPECT_FALSE(rsp_->window().received(1));
  // The full retransmission is placed normally.
  EXPECT_EQ(deliver(data(op::kMrcWriteMiddle, 1, 1024, 1024, 0x22), 30), RxOutcome::kPlaced);
  EXPECT_EQ(memory(1024, 1024), filled(1024, 0x22));
}

// W13: only the DSCP marks a trim. A packet cut short without it is damage: dropped silently.
TEST_F(ResponderTest, ShortPacketWithoutTheTrimmedDscpIsDroppedSilently) {
  make();
  DataPacket p = data(op::kMrcWriteOnly, 0, 0, 1024, 0x22);
  p.truncate_to = 300;  // cut without remarking
  EXPECT_EQ(deliver(p, 10), RxOutcome::kDroppedBadIcrc);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(memory(0, 1024), filled(1024, 0));
}

TEST_F(ResponderTest, LastHopTrimmedDscpIsATrimmedPacketToo) {
  make();
  DataPacket p = data(op::kMrcWriteOnly, 0, 0, 1024, 0x22);
  p.dscp = 13;  // W13 TRIMMED_LASTHOP (MODEL: W13 default value)
  p.truncate_to = 300;
  EXPECT_EQ(deliver(p, 10), RxOutcome::kTrimNacked);
  EXPECT_EQ(memory(0, 1024), filled(1024, 0));
}

TEST_F(ResponderTest, NoTrimNackWhenThePeerLacksSupport) {
  ResponderConfig c;
  c.cap = qp_cap::kTrimNackDestUnsupported;
  make(c);
  EXPECT_EQ(deliver(trimmed(data(op::kMrcWriteOnly, 0, 0, 1024, 0x22)), 10), RxOutcome::kTrimDropped);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(memory(0, 1024), filled(1024, 0));
}

TEST_F(ResponderTest, TrimmedHoleIsNotAlsoReportedLost) {
  make();
  deliver(trimmed(data(op::kMrcWriteFirst, 0, 0, 1024)), 0);
  deliver(data(op::kMrcWriteMiddle, 1, 1024, 1024), 100);
  EXPECT_EQ(rsp_->next_deadline(), Responder::kNever);
  rsp_->advance(1'000'000, sink_);
  for (const SentFeedback& fb : sink_.sent) EXPECT_NE(fb.m().type, wire::FeedbackType::kNackLoss);
  // Without the trim the same hole is reported.
  rsp_ = std::make_unique<Responder>(cfg_, mem_);
  sink_.clear();
  deliver(data(op::kMrcWriteMiddle, 1, 1024, 1024), 100);
  EXPECT_NE(rsp_->next_deadline(), Responder::kNever);
  rsp_->advance(1'000'000, sink_);
  ASSERT_FALSE(sink_.sent.empty());
  EXPECT_EQ(sink_.last().m().type, wire::FeedbackType::kNackLoss);
}

TEST_F(ResponderTest, StubOfAReceivedPsnIsADuplicate) {
  make();
  deliver(data(op::kMrcWriteOnly, 0, 0, 1024, 0x11), 10);
  sink_.clear();
  EXPECT_EQ(deliver(trimmed(data(op::kMrcWriteOnly, 0, 0, 1024, 0x99)), 20), RxOutcome::kDuplicate);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(memory(0, 1024), filled(1024, 0x11));
}

}  // namespace
}  // namespace mrc::transport::test
