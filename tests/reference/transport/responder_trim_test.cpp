// Trimmed packets at the responder (W13, W7): never placed, an immediate NACK TRIMMED naming the
// PSN and echoing its EV; TRIMMED_LASTHOP for the last-hop DSCP; none when the QP says the peer
// lacks support; the trimmed PSN stays a hole in the SACK bitmap.
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
  ASSERT_TRUE(fb.is_nack());
  EXPECT_EQ(fb.pkt.bth.opcode, op::kMrcNack);
  EXPECT_EQ(fb.neth().nack_reason, wire::nack::kTrimmed);
  EXPECT_EQ(fb.neth().nack_psn, 1u);
  EXPECT_EQ(fb.cum(), 1u);  // BTH.PSN = nack_psn (W7)
  EXPECT_EQ(fb.neth().entropy, 0x0007C123u);
  EXPECT_EQ(fb.egress.arrival_port, 5);
  EXPECT_EQ(fb.neth().cc_type, 2);
  EXPECT_EQ(memory(1024, 1024), filled(1024, 0));  // not a byte of the stub
  // MODEL: W5 rcvd_bytes counts each placed packet's nominal size, UDP length + 40 (W14): the first
  // packet's 1024 payload bytes plus 8 UDP, 12 BTH, 4 METH, 16 RETH, 4 ICRC and 40. Not the stub.
  EXPECT_EQ(rsp_->rcvd_bytes(), 1024u + 8 + 12 + 4 + 16 + 4 + 40);
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
  ASSERT_TRUE(sink_.last().is_nack());
  EXPECT_EQ(sink_.last().neth().nack_reason, wire::nack::kTrimmedLastHop);
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

TEST_F(ResponderTest, TrimmedPacketLeavesAHoleInTheSackBitmap) {
  make();
  deliver(trimmed(data(op::kMrcWriteFirst, 0, 0, 1024)), 0);
  DataPacket p = data(op::kMrcWriteMiddle, 1, 1024, 1024);
  p.ack_req = true;
  deliver(p, 100);
  const SentFeedback& fb = sink_.last_of(&SentFeedback::is_sack);
  EXPECT_EQ(fb.seth().cack_psn, 0xFFFFFFu);  // PSN 0 was trimmed: not received
  EXPECT_EQ(fb.seth().sack_bitmap, wire::Seth::sack_mask(1));
}

TEST_F(ResponderTest, StubOfAReceivedPsnIsADuplicate) {
  make();
  deliver(data(op::kMrcWriteOnly, 0, 0, 1024, 0x11), 10);
  sink_.clear();
  EXPECT_EQ(deliver(trimmed(data(op::kMrcWriteOnly, 0, 0, 1024, 0x99)), 20), RxOutcome::kDuplicate);
  ASSERT_EQ(sink_.size(), 1u);
  ASSERT_TRUE(sink_.last().is_sack());  // W6 a duplicate draws a SACK
  EXPECT_EQ(sink_.last().seth().ack_psn(), 0u);
  EXPECT_EQ(memory(0, 1024), filled(1024, 0x11));
}

}  // namespace
}  // namespace mrc::transport::test
