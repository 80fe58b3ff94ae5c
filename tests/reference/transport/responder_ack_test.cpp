// Responder acknowledgement: coalescing, SACK bitmaps (with PSN wrap), duplicates, the MPR window
// edge, CE, NACK-loss timing, silent drops. Feedback is checked field by field.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;
using FT = wire::FeedbackType;

TEST_F(ResponderTest, InOrderPacketsCoalesceToOneAckPerFour) {
  make();
  ASSERT_EQ(deliver(data(op::kMrcWriteFirst, 0, 0), 100), RxOutcome::kPlaced);
  ASSERT_EQ(deliver(data(op::kMrcWriteMiddle, 1, 64), 200), RxOutcome::kPlaced);
  ASSERT_EQ(deliver(data(op::kMrcWriteMiddle, 2, 128), 300), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.size(), 0u);
  DataPacket p = data(op::kMrcWriteMiddle, 3, 192);
  p.flow_label = 0x2;
  p.sport = 0xC0DE;
  ASSERT_EQ(deliver(p, 400, 3), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 1u);
  const SentFeedback& fb = sink_.last();
  EXPECT_EQ(fb.pkt.bth.opcode, op::kRcAck);
  EXPECT_EQ(fb.pkt.bth.dest_qp, kRemoteQpn);
  EXPECT_EQ(fb.pkt.qpn, kLocalQpn);
  EXPECT_EQ(fb.cum(), 3u);
  EXPECT_EQ(fb.syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(fb.pkt.aeth.msn, 0u);  // no message ended yet
  EXPECT_EQ(fb.pkt.dscp, wire::kDscpControl);
  ASSERT_TRUE(fb.pkt.has_mfeh);
  EXPECT_EQ(fb.m().type, FT::kAck);
  EXPECT_FALSE(fb.m().sack_valid);
  EXPECT_EQ(fb.m().sack_bitmap, 0u);
  EXPECT_EQ(fb.m().trig_psn, 3u);
  EXPECT_TRUE(fb.m().ev_valid);
  EXPECT_EQ(fb.m().ev_echo, 0x0002C0DEu);
  EXPECT_EQ(fb.m().ev_port, 3);
  EXPECT_EQ(fb.egress.arrival_port, 3);
  EXPECT_TRUE(fb.m().mpr_valid);
  EXPECT_EQ(fb.m().mpr, 8);
  EXPECT_EQ(fb.m().rcvd_bytes, 256u);
  EXPECT_TRUE(fb.m().svc_valid);
  EXPECT_EQ(fb.m().svc_time, 0);  // immediate
  EXPECT_FALSE(fb.m().ce);
  EXPECT_EQ(memory(0, 256), filled(256, 0xAB));
}

TEST_F(ResponderTest, LonePacketIsAckedWhenTheCoalescingTimerFires) {
  make();
  ASSERT_EQ(deliver(data(op::kMrcWriteFirst, 0), 1000), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(rsp_->next_deadline(), 3000u);
  rsp_->advance(2999, sink_);
  EXPECT_EQ(sink_.size(), 0u);
  rsp_->advance(3000, sink_);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().cum(), 0u);
  EXPECT_EQ(sink_.last().m().trig_psn, 0u);
  EXPECT_TRUE(sink_.last().m().svc_valid);
  EXPECT_EQ(sink_.last().m().svc_time, 2000 / 8);  // held 2 us, in 8 ns units
  EXPECT_EQ(rsp_->next_deadline(), Responder::kNever);
}

TEST_F(ResponderTest, LastPacketWithAckRequestIsAckedAtOnceWithMsn) {
  make();
  deliver(data(op::kMrcWriteFirst, 0), 10);
  DataPacket last = data(op::kMrcWriteLast, 1, 64);
  last.ack_req = true;
  deliver(last, 20);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().cum(), 1u);
  EXPECT_EQ(sink_.last().pkt.aeth.msn, 1u);
  // BTH.A on a MIDDLE does not force an ACK.
  DataPacket mid = data(op::kMrcWriteFirst, 2, 128);
  mid.ack_req = true;
  deliver(mid, 30);
  EXPECT_EQ(sink_.size(), 1u);
}

TEST_F(ResponderTest, OutOfOrderArrivalsDrawSackBitmaps) {
  ResponderConfig c;
  c.rq_psn = 100;
  make(c);
  deliver(data(op::kMrcWriteFirst, 100, 0), 10);
  EXPECT_EQ(sink_.size(), 0u);
  deliver(data(op::kMrcWriteMiddle, 102, 128), 20);
  ASSERT_EQ(sink_.size(), 1u);
  {
    const SentFeedback& fb = sink_.last();
    EXPECT_EQ(fb.cum(), 100u);
    EXPECT_EQ(fb.m().type, FT::kSack);
    EXPECT_TRUE(fb.m().sack_valid);
    EXPECT_EQ(fb.m().sack_base_off, 0);  // base = 101
    EXPECT_EQ(fb.m().sack_bitmap, std::uint64_t{1} << 62);  // i = 1 -> PSN 102
    EXPECT_EQ(fb.m().trig_psn, 102u);
  }
  deliver(data(op::kMrcWriteMiddle, 104, 256), 30);
  ASSERT_EQ(sink_.size(), 2u);
  EXPECT_EQ(sink_.last().m().sack_bitmap, (std::uint64_t{1} << 62) | (std::uint64_t{1} << 60));
  // The hole fills: cumulative ACK jumps to 102, 104 still held.
  deliver(data(op::kMrcWriteMiddle, 101, 64), 40);
  ASSERT_EQ(sink_.size(), 3u);
  EXPECT_EQ(sink_.last().cum(), 102u);
  EXPECT_EQ(sink_.last().m().type, FT::kSack);
  EXPECT_EQ(sink_.last().m().sack_bitmap, std::uint64_t{1} << 62);  // base 103: 104 = i 1
  deliver(data(op::kMrcWriteMiddle, 103, 192), 50);
  ASSERT_EQ(sink_.size(), 4u);
  EXPECT_EQ(sink_.last().cum(), 104u);
  EXPECT_EQ(sink_.last().m().type, FT::kAck);
  EXPECT_FALSE(sink_.last().m().sack_valid);
  EXPECT_EQ(rsp_->stats().placed, 5u);
}

TEST_F(ResponderTest, SackBitmapFollowsPsnWrapAround) {
  ResponderConfig c;
  c.rq_psn = 0xFFFFFE;
  make(c);
  deliver(data(op::kMrcWriteFirst, 0xFFFFFE, 0), 10);
  deliver(data(op::kMrcWriteMiddle, 0x000001, 192), 20);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().cum(), 0xFFFFFEu);
  EXPECT_EQ(sink_.last().m().sack_base_off, 0);  // base = 0xFFFFFF
  // 0xFFFFFF = i 0, 0x000000 = i 1, 0x000001 = i 2.
  EXPECT_EQ(sink_.last().m().sack_bitmap, std::uint64_t{1} << 61);
  deliver(data(op::kMrcWriteMiddle, 0xFFFFFF, 64), 30);
  EXPECT_EQ(sink_.last().cum(), 0xFFFFFFu);
  EXPECT_EQ(sink_.last().m().sack_bitmap, std::uint64_t{1} << 62);  // base 0: PSN 1 = i 1
  deliver(data(op::kMrcWriteMiddle, 0x000000, 128), 40);
  EXPECT_EQ(sink_.last().cum(), 1u);
  EXPECT_EQ(sink_.last().m().type, FT::kAck);
  EXPECT_EQ(memory(0, 256), filled(256, 0xAB));
}

TEST_F(ResponderTest, SackBlockHoldsAFarTrigger) {
  make();
  deliver(data(op::kMrcWriteFirst, 70, 0), 10);  // d = 70 from ePSN 0
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().cum(), 0xFFFFFFu);  // nothing in order yet
  EXPECT_EQ(sink_.last().m().sack_base_off, 64);  // base = ePSN + 64 = 64
  EXPECT_EQ(sink_.last().m().sack_bitmap, std::uint64_t{1} << (63 - 6));
}

TEST_F(ResponderTest, DuplicateIsReAckedButNeverPlacedTwice) {
  make();
  deliver(data(op::kMrcWriteOnly, 0, 0, 64, 0x11), 10);
  deliver(data(op::kMrcWriteOnly, 1, 64, 64, 0x22), 20);
  sink_.clear();
  const std::uint32_t bytes_before = rsp_->rcvd_bytes();
  // Same PSN, different bytes: a second placement would overwrite.
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0, 64, 0x99), 30, 2), RxOutcome::kDuplicate);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().cum(), 1u);
  EXPECT_EQ(sink_.last().m().trig_psn, 0u);
  EXPECT_EQ(sink_.last().m().ev_port, 2);
  EXPECT_EQ(memory(0, 64), filled(64, 0x11));
  EXPECT_EQ(rsp_->rcvd_bytes(), bytes_before);
  EXPECT_EQ(rsp_->stats().placed, 2u);
  EXPECT_EQ(rsp_->stats().duplicates, 1u);
  // A duplicate of a PSN held out of order is a duplicate too.
  deliver(data(op::kMrcWriteOnly, 5, 128, 64, 0x33), 40);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 5, 128, 64, 0x44), 50), RxOutcome::kDuplicate);
  EXPECT_EQ(memory(128, 64), filled(64, 0x33));
}

TEST_F(ResponderTest, WindowEdgeLastInWindowAcceptedFirstBeyondGetsTypeFour) {
  ResponderConfig c;
  c.mpr_dest = 1;  // 128 PSNs: [0, 127]
  make(c);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 127, 0, 64, 0x11), 10), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().m().type, FT::kSack);
  EXPECT_EQ(memory(0, 64), filled(64, 0x11));
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 128, 64, 64, 0x22), 20), RxOutcome::kOutOfWindow);
  ASSERT_EQ(sink_.size(), 2u);
  const SentFeedback& fb = sink_.last();
  EXPECT_EQ(fb.syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(fb.m().type, FT::kPsnOutOfRange);
  EXPECT_EQ(fb.m().trig_psn, 128u);
  EXPECT_EQ(fb.cum(), 0xFFFFFFu);
  EXPECT_TRUE(fb.m().mpr_valid);
  EXPECT_EQ(fb.m().mpr, 1);
  EXPECT_EQ(memory(64, 64), filled(64, 0x00));  // not placed
  EXPECT_EQ(rsp_->stats().placed, 1u);
  // The window slides with ePSN: once 0 arrives, 128 fits.
  deliver(data(op::kMrcWriteOnly, 0, 128, 64, 0x33), 30);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 128, 64, 64, 0x22), 40), RxOutcome::kPlaced);
}

TEST_F(ResponderTest, CeMarkedDataSetsCeAndIsAckedAtOnce) {
  make();
  DataPacket p = data(op::kMrcWriteFirst, 0);
  p.ecn = wire::kEcnCe;
  deliver(p, 10);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_TRUE(sink_.last().m().ce);
  deliver(data(op::kMrcWriteMiddle, 1, 64), 20);
  deliver(data(op::kMrcWriteMiddle, 2, 128), 30);
  deliver(data(op::kMrcWriteMiddle, 3, 192), 40);
  deliver(data(op::kMrcWriteMiddle, 4, 256), 50);
  ASSERT_EQ(sink_.size(), 2u);
  EXPECT_FALSE(sink_.last().m().ce);
}

TEST_F(ResponderTest, NackLossAfterTheOutOfOrderTolerance) {
  ResponderConfig c;
  c.ooo_tolerance_ns = 10000;
  make(c);
  deliver(data(op::kMrcWriteFirst, 0, 0), 0);
  deliver(data(op::kMrcWriteMiddle, 2, 128), 1000);  // PSN 1 is now a hole
  sink_.clear();
  EXPECT_EQ(rsp_->next_deadline(), 11000u);
  rsp_->advance(10999, sink_);
  EXPECT_EQ(sink_.size(), 0u);
  rsp_->advance(11000, sink_);
  ASSERT_EQ(sink_.size(), 1u);
  const SentFeedback& fb = sink_.last();
  EXPECT_EQ(fb.syndrome(), wire::syndrome::kNakPsnSeqError);
  EXPECT_EQ(fb.m().type, FT::kNackLoss);
  EXPECT_EQ(fb.cum(), 0u);
  EXPECT_EQ(fb.m().trig_psn, 1u);  // the missing PSN
  EXPECT_FALSE(fb.m().ev_valid);
  EXPECT_TRUE(fb.m().sack_valid);
  EXPECT_EQ(fb.m().sack_bitmap, std::uint64_t{1} << 62);
  // Once per hole.
  rsp_->advance(1'000'000, sink_);
  EXPECT_EQ(sink_.size(), 1u);
  EXPECT_EQ(rsp_->next_deadline(), Responder::kNever);
  // The retransmission fills it; a new hole restarts the timer from its own time.
  deliver(data(op::kMrcWriteMiddle, 1, 64), 2'000'000);
  deliver(data(op::kMrcWriteMiddle, 4, 256), 2'000'100);
  EXPECT_EQ(rsp_->next_deadline(), 2'010'100u);
  deliver(data(op::kMrcWriteMiddle, 3, 192), 2'000'200);
  EXPECT_EQ(rsp_->next_deadline(), Responder::kNever);  // no hole, and the fill was ACKed at once
}

TEST_F(ResponderTest, BadIcrcWrongPkeyAndWrongQpAreDroppedSilently) {
  make();
  DataPacket bad = data(op::kMrcWriteOnly, 0, 0, 64, 0x55);
  bad.corrupt_icrc = true;
  EXPECT_EQ(deliver(bad, 10), RxOutcome::kDroppedBadIcrc);
  DataPacket pk = data(op::kMrcWriteOnly, 0, 0, 64, 0x55);
  pk.pkey = 0x8001;
  EXPECT_EQ(deliver(pk, 20), RxOutcome::kDroppedBadPkey);
  DataPacket qp = data(op::kMrcWriteOnly, 0, 0, 64, 0x55);
  qp.dest_qp = 0x777;
  EXPECT_EQ(deliver(qp, 30), RxOutcome::kDroppedWrongQp);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(memory(0, 64), filled(64, 0));
  EXPECT_EQ(rsp_->stats().bad_icrc, 1u);
  EXPECT_EQ(rsp_->stats().bad_pkey, 1u);
  EXPECT_EQ(rsp_->stats().wrong_qp, 1u);
  EXPECT_FALSE(rsp_->in_error());
  // Full-member and limited-member forms of the same P_Key both match (low 15 bits).
  DataPacket limited = data(op::kMrcWriteOnly, 0, 0, 64, 0x55);
  limited.pkey = 0x7FFF;
  EXPECT_EQ(deliver(limited, 40), RxOutcome::kPlaced);
}

}  // namespace
}  // namespace mrc::transport::test
