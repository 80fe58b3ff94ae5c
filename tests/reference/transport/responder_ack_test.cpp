// Responder feedback (W6-W9, W12): when a SACK is sent (A, RTX, ECN-CE, the byte counter, the
// delay timer, duplicates), what it carries (cack_psn, ack_psn, entropy, bitmap with PSN wrap,
// the reflected timestamp, rcvd_bytes), the Transport ACK once cack_psn covers a packet that asked,
// probes, the window edge and silent drops. Feedback is checked field by field.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;
using SF = SentFeedback;

TEST_F(ResponderTest, ByteCounterSendsOneSackPerFourKilobytes) {
  make();
  ASSERT_EQ(deliver(data(op::kMrcWriteFirst, 0, 0), 100), RxOutcome::kPlaced);
  ASSERT_EQ(deliver(data(op::kMrcWriteMiddle, 1, 64), 200), RxOutcome::kPlaced);
  ASSERT_EQ(deliver(data(op::kMrcWriteMiddle, 2, 128), 300), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.size(), 0u);  // each counts max(64, 1024) bytes: 3 KiB so far
  DataPacket p = data(op::kMrcWriteMiddle, 3, 192);
  p.flow_label = 0x2;
  p.sport = 0xC0DE;
  ASSERT_EQ(deliver(p, 400, 3), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 1u);
  const SentFeedback& fb = sink_.last();
  ASSERT_TRUE(fb.is_sack());
  EXPECT_EQ(fb.pkt.bth.opcode, op::kMrcSack);
  EXPECT_EQ(fb.pkt.bth.dest_qp, kRemoteQpn);
  EXPECT_EQ(fb.pkt.qpn, kLocalQpn);
  EXPECT_EQ(fb.cum(), 3u);  // BTH.PSN = cack_psn
  EXPECT_EQ(fb.seth().cack_psn, 3u);
  EXPECT_EQ(fb.seth().ack_psn(), 3u);
  EXPECT_FALSE(fb.seth().pr);
  EXPECT_EQ(fb.seth().m, wire::MpVerdict::kNone);
  EXPECT_EQ(fb.seth().entropy, 0x0002C0DEu);  // the trigger's EV (W2)
  EXPECT_EQ(fb.egress.arrival_port, 3);
  EXPECT_EQ(fb.seth().mpr, 0);  // Dynamic MPR off
  EXPECT_EQ(fb.seth().sack_offset, 1);
  EXPECT_EQ(fb.seth().sack_bitmap, 0u);
  EXPECT_EQ(fb.cc().tx_timestamp, 0);  // the trigger had no TSETH
  EXPECT_EQ(fb.cc().ooo_count, 0);
  EXPECT_GT(fb.cc().rcvd_bytes, 0u);
  EXPECT_EQ(fb.pkt.dscp, wire::DscpConfig{}.control);
  EXPECT_EQ(memory(0, 256), filled(256, 0xAB));
}

TEST_F(ResponderTest, LonePacketIsSackedWhenTheDelayTimerFires) {
  make();
  ASSERT_EQ(deliver(data(op::kMrcWriteFirst, 0), 1000), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(rsp_->next_deadline(), 3000u);  // MODEL: W6 ack_delay 2 us
  rsp_->advance(2999, sink_);
  EXPECT_EQ(sink_.size(), 0u);
  rsp_->advance(3000, sink_);
  ASSERT_EQ(sink_.size(), 1u);
  ASSERT_TRUE(sink_.last().is_sack());
  EXPECT_EQ(sink_.last().seth().cack_psn, 0u);
  EXPECT_EQ(sink_.last().seth().ack_psn(), 0u);
  EXPECT_EQ(rsp_->next_deadline(), Responder::kNever);  // no message ended: no ACK to wait for
}

TEST_F(ResponderTest, AckRequestDrawsSackAndTransportAckAtOnce) {
  make();
  DataPacket last = data(op::kMrcWriteOnly, 0, 0, 64);
  last.ack_req = true;
  ASSERT_EQ(deliver(last, 100), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 2u);
  EXPECT_EQ(sink_.count(&SF::is_sack), 1u);
  const SentFeedback& ack = sink_.last_of(&SF::is_ack);
  EXPECT_EQ(ack.pkt.bth.opcode, op::kMrcAck);
  EXPECT_EQ(ack.cum(), 0u);
  EXPECT_EQ(ack.syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(ack.pkt.aeth.msn, 1u);  // one message ended
  EXPECT_EQ(rsp_->stats().acks, 1u);
}

TEST_F(ResponderTest, TransportAckWaitsForTheHoleBeforeThePacketThatAsked) {
  make();
  DataPacket p2 = data(op::kMrcWriteOnly, 2, 128);
  p2.ack_req = true;
  ASSERT_EQ(deliver(p2, 100), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.count(&SF::is_sack), 1u);  // A: a SACK at once ...
  EXPECT_EQ(sink_.count(&SF::is_ack), 0u);   // ... but cack_psn is below PSN 2: no ACK yet
  EXPECT_EQ(sink_.last().seth().cack_psn, 0xFFFFFFu);
  EXPECT_EQ(sink_.last().seth().ack_psn(), 2u);
  EXPECT_TRUE(sink_.last().seth().sack_bit(2));  // base = cack + 1 = PSN 0: bit 2
  EXPECT_EQ(sink_.last().cc().ooo_count, 1);
  ASSERT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0), 200), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.count(&SF::is_ack), 0u);
  ASSERT_EQ(deliver(data(op::kMrcWriteOnly, 1, 64), 300), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.count(&SF::is_ack), 1u);  // the hole filled: one ACK for the new cack_psn
  EXPECT_EQ(sink_.last_of(&SF::is_ack).cum(), 2u);
  EXPECT_EQ(sink_.last_of(&SF::is_ack).pkt.aeth.msn, 3u);
}

TEST_F(ResponderTest, MessageEndWithoutAckRequestIsAckedAfterTheDelay) {
  make();
  ASSERT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0), 1000), RxOutcome::kPlaced);
  rsp_->advance(3000, sink_);
  ASSERT_EQ(sink_.count(&SF::is_ack), 1u);  // MODEL: W8 a requester that never asks completes
  EXPECT_EQ(sink_.last_of(&SF::is_ack).cum(), 0u);
}

TEST_F(ResponderTest, RetransmissionAndEcnCeDrawTheirOwnSack) {
  make();
  DataPacket rtx = data(op::kMrcWriteFirst, 0, 0);
  rtx.rtx = true;
  ASSERT_EQ(deliver(rtx, 100), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_TRUE(sink_.last().pkt.bth.rtx);  // S1: W3 the SACK echoes RTX
  DataPacket ce = data(op::kMrcWriteMiddle, 1, 64);
  ce.ecn = wire::kEcnCe;
  ASSERT_EQ(deliver(ce, 200), RxOutcome::kPlaced);
  ASSERT_EQ(sink_.size(), 2u);
  EXPECT_EQ(sink_.last().seth().m, wire::MpVerdict::kSkipOnce);  // W6 trigger 2
  EXPECT_EQ(sink_.last().seth().ack_psn(), 1u);
  EXPECT_FALSE(sink_.last().pkt.bth.rtx);
}

TEST_F(ResponderTest, SackReflectsTheTriggersTimestampPlusServiceTime) {
  ResponderConfig c;
  c.report_svc_time = false;
  make(c);
  DataPacket p = data(op::kMrcWriteOnly, 0, 0);
  p.ack_req = true;
  p.tseth = true;
  p.ts = 0xFFF0;
  deliver(p, 100);
  EXPECT_EQ(sink_.last_of(&SF::is_sack).cc().tx_timestamp, 0xFFF0);
  // With the service-time capability (MODEL: W14) the time held is added, in 128 ns units.
  sink_.clear();
  make();
  DataPacket q = data(op::kMrcWriteFirst, 0, 0);
  q.tseth = true;
  q.ts = 0xFFF0;
  deliver(q, 1000);
  rsp_->advance(3000, sink_);  // held 2000 ns = 15 units
  EXPECT_EQ(sink_.last_of(&SF::is_sack).cc().tx_timestamp, static_cast<std::uint16_t>(0xFFF0 + 15));
}

TEST_F(ResponderTest, OutOfOrderArrivalsFillTheBitmapFromCackPlusOne) {
  make();
  for (std::uint32_t psn : {1u, 3u, 63u, 64u}) {
    DataPacket p = data(op::kMrcWriteMiddle, psn, (psn % 64) * 64);
    p.ack_req = true;
    ASSERT_EQ(deliver(p, 100 + psn), RxOutcome::kPlaced);
  }
  const SentFeedback& fb = sink_.last_of(&SF::is_sack);
  EXPECT_EQ(fb.seth().cack_psn, 0xFFFFFFu);
  EXPECT_EQ(fb.seth().sack_base(), 0u);
  // Bit k is PSN base + k (wire::Seth::sack_mask): PSN 64 is past the 64-bit window.
  EXPECT_EQ(fb.seth().sack_bitmap, wire::Seth::sack_mask(1) | wire::Seth::sack_mask(3) | wire::Seth::sack_mask(63));
  EXPECT_EQ(fb.cc().ooo_count, 4);
}

TEST_F(ResponderTest, SackBitmapFollowsPsnWrapAround) {
  ResponderConfig c;
  c.rq_psn = 0xFFFFFE;
  make(c);
  DataPacket p = data(op::kMrcWriteMiddle, 0x000001, 0);
  p.ack_req = true;
  ASSERT_EQ(deliver(p, 100), RxOutcome::kPlaced);
  const SentFeedback& fb = sink_.last_of(&SF::is_sack);
  EXPECT_EQ(fb.seth().cack_psn, 0xFFFFFDu);
  EXPECT_EQ(fb.seth().sack_base(), 0xFFFFFEu);
  EXPECT_EQ(fb.seth().sack_bitmap, wire::Seth::sack_mask(3));  // 0xFFFFFE + 3 = 0x000001
  EXPECT_EQ(fb.seth().ack_psn(), 1u);
}

TEST_F(ResponderTest, DuplicateDrawsASackAndIsNeverPlacedTwice) {
  make();
  DataPacket p = data(op::kMrcWriteOnly, 0, 0, 64, 0x11);
  p.ack_req = true;
  ASSERT_EQ(deliver(p, 100), RxOutcome::kPlaced);
  sink_.clear();
  DataPacket again = data(op::kMrcWriteOnly, 0, 0, 64, 0x22);
  ASSERT_EQ(deliver(again, 200), RxOutcome::kDuplicate);
  ASSERT_GE(sink_.count(&SF::is_sack), 1u);  // W12: a duplicate draws a SACK, A or not
  EXPECT_EQ(sink_.last_of(&SF::is_sack).seth().ack_psn(), 0u);
  EXPECT_EQ(memory(0, 64), filled(64, 0x11));
  EXPECT_EQ(rsp_->stats().duplicates, 1u);
}

TEST_F(ResponderTest, WindowEdgeLastInWindowAcceptedFirstBeyondDroppedSilently) {
  ResponderConfig c;
  c.mpr_dest = 1;  // 128 PSNs: 0..127 from cack_psn 0xFFFFFF
  make(c);
  EXPECT_EQ(deliver(data(op::kMrcWriteMiddle, 127, 0), 100), RxOutcome::kPlaced);
  sink_.clear();
  EXPECT_EQ(deliver(data(op::kMrcWriteMiddle, 128, 64), 200), RxOutcome::kOutOfWindow);
  EXPECT_EQ(sink_.size(), 0u);  // MODEL: W12 silent drop
  EXPECT_EQ(rsp_->stats().out_of_window, 1u);
  // The oor-nack variant answers it with a NACK PSN_OOR_WINDOW instead (Table 7-3).
  c.oor_nack = true;
  make(c);
  sink_.clear();
  EXPECT_EQ(deliver(data(op::kMrcWriteMiddle, 128, 64), 300), RxOutcome::kOutOfWindow);
  ASSERT_EQ(sink_.size(), 1u);
  ASSERT_TRUE(sink_.last().is_nack());
  EXPECT_EQ(sink_.last().neth().nack_reason, wire::nack::kPsnOorWindow);
  EXPECT_EQ(sink_.last().neth().nack_psn, 128u);
}

TEST_F(ResponderTest, ProbeDrawsASackWithPrAndItsProbeId) {
  make();
  DataPacket p = data(op::kMrcWriteOnly, 0, 0);
  p.ack_req = true;
  deliver(p, 100);
  sink_.clear();
  wire::FrameSpec s;
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.flow_label = 0x3;
  s.udp.sport = 0xC003;
  s.bth.opcode = op::kMrcProbe;
  s.bth.dest_qp = kLocalQpn;
  s.bth.pkey = 0xFFFF;
  s.has_peth = true;
  s.peth.probe_id = 0xBEEF;
  s.peth.ts = wire::Timestamp{0x1234, false, wire::kFtypeTimestamp};
  std::vector<std::uint8_t> bytes(wire::kMaxFrameLen);
  const wire::EncodeResult e = wire::encode_frame(s, bytes);
  ASSERT_TRUE(e.ok());
  bytes.resize(e.length);
  wire::DecodedFrame f;
  ASSERT_TRUE(wire::decode_frame(bytes, f).ok());
  EXPECT_EQ(rsp_->on_probe(f, 2, 500, sink_), RxOutcome::kProbeAnswered);
  ASSERT_EQ(sink_.size(), 1u);
  const SentFeedback& fb = sink_.last();
  ASSERT_TRUE(fb.is_sack());
  EXPECT_TRUE(fb.seth().pr);
  EXPECT_EQ(fb.seth().probe_id(), 0xBEEF);
  EXPECT_EQ(fb.seth().cack_psn, 0u);  // the current cumulative state
  EXPECT_EQ(fb.seth().entropy, 0x0003C003u);
  EXPECT_EQ(fb.cc().tx_timestamp, 0x1234);  // answered at once
  EXPECT_EQ(rsp_->stats().probes, 1u);
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
