// Feedback packet building (W5-W8): the BTH each kind derives (opcode, PSN, RTX, DestQP, Control
// DSCP), SETH / CC_STATE / NETH / AETH fields, PDC ids in both orientations, and a round trip
// through the wire codec into the requester's FeedbackInfo.
#include <gtest/gtest.h>

#include <vector>

#include "reference/transport/feedback.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport {
namespace {

FeedbackAddress address(bool data_direction = false) {
  FeedbackAddress a;
  a.local_qpn = 0x12345;
  a.remote_qpn = 0x6789A;
  a.pkey = 0x8001;
  a.pdcid_data_direction = data_direction;
  return a;
}

wire::Seth sample_seth() {
  wire::Seth s;
  s.cack_psn = 0xFFFFF0;
  s.ack_psn_offset = 0x21;  // trigger 0x000011, across the wrap
  s.m = wire::MpVerdict::kSkipOnce;
  s.entropy = 0x0001C0DE;
  s.mpr = 8;
  s.sack_offset = 65;
  s.sack_bitmap = wire::Seth::sack_mask(0) | wire::Seth::sack_mask(63);
  return s;
}

TEST(Feedback, SackDerivesItsBthFromTheSeth) {
  TxPacket p;
  wire::CcState cc;
  cc.tx_timestamp = 0xBEEF;
  cc.rcvd_bytes = 0xABCDEF;
  build_sack(sample_seth(), cc, true, address(), p);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kMrcSack);
  EXPECT_EQ(p.bth.psn, 0xFFFFF0u);  // = cack_psn
  EXPECT_TRUE(p.bth.rtx);           // S1: W3 echoes the trigger's RTX
  EXPECT_FALSE(p.bth.ack_req);
  EXPECT_EQ(p.bth.dest_qp, 0x6789Au);
  EXPECT_EQ(p.bth.pkey, 0x8001);
  EXPECT_EQ(p.qpn, 0x12345u);
  EXPECT_EQ(p.dscp, wire::DscpConfig{}.control);
  EXPECT_EQ(p.ecn, wire::kEcnNotEct);
  ASSERT_TRUE(p.has_sack);
  EXPECT_FALSE(p.has_aeth || p.has_neth);
  EXPECT_EQ(p.seth.ack_psn(), 0x000011u);
  EXPECT_EQ(p.seth.spdcid, 0x2345);  // MODEL: W5 the sender's orientation
  EXPECT_EQ(p.seth.dpdcid, 0x789A);
  EXPECT_EQ(p.cc.tx_timestamp, 0xBEEF);
  TxPacket q;
  build_sack(sample_seth(), cc, false, address(true), q);
  EXPECT_EQ(q.seth.spdcid, 0x789A);  // F2's data direction
  EXPECT_EQ(q.seth.dpdcid, 0x2345);
  EXPECT_FALSE(q.bth.rtx);
}

TEST(Feedback, NackNamesThePacketAndReflectsItsTimestamp) {
  FeedbackTrigger t;
  t.valid = true;
  t.psn = 0x000777;
  t.entropy = 0x0007C123;
  t.has_ts = true;
  t.ts.tx_timestamp = 0x1234;
  TxPacket p;
  build_nack(t, wire::nack::kTrimmedLastHop, address(), p);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kMrcNack);
  EXPECT_EQ(p.bth.psn, 0x000777u);
  ASSERT_TRUE(p.has_neth);
  EXPECT_EQ(p.neth.nack_reason, wire::nack::kTrimmedLastHop);
  EXPECT_EQ(p.neth.nack_psn, 0x000777u);
  EXPECT_EQ(p.neth.entropy, 0x0007C123u);
  EXPECT_EQ(p.neth.tx_timestamp, 0x1234);
  EXPECT_EQ(p.neth.cc_type, 2);
  t.has_ts = false;
  build_nack(t, wire::nack::kTrimmed, address(), p);
  EXPECT_EQ(p.neth.tx_timestamp, 0);
}

TEST(Feedback, TransportAckAndNak) {
  TxPacket p;
  build_transport_ack(wire::syndrome::kAck, 0x000010, 0x123456, address(), p);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kMrcAck);
  EXPECT_EQ(p.bth.psn, 0x10u);
  ASSERT_TRUE(p.has_aeth);
  EXPECT_EQ(p.aeth.syndrome, wire::syndrome::kAck);
  EXPECT_EQ(p.aeth.msn, 0x123456u);
  EXPECT_FALSE(p.has_sack || p.has_neth);
  build_transport_ack(wire::syndrome::kNakRemoteAccess, 0x000011, 0, address(), p);
  EXPECT_EQ(p.aeth.syndrome, wire::syndrome::kNakRemoteAccess);
  EXPECT_EQ(p.bth.psn, 0x11u);
}

// Encodes a feedback TxPacket as a frame and decodes it back.
wire::DecodedFrame round_trip(const TxPacket& p, std::vector<std::uint8_t>& buf) {
  wire::FrameSpec s;
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.dscp = p.dscp;
  s.bth = p.bth;
  s.has_aeth = p.has_aeth;
  s.aeth = p.aeth;
  s.has_sack = p.has_sack;
  s.seth = p.seth;
  s.cc = p.cc;
  s.has_neth = p.has_neth;
  s.neth = p.neth;
  buf.assign(wire::kMaxFrameLen, 0);
  const wire::EncodeResult e = wire::encode_frame(s, buf);
  EXPECT_TRUE(e.ok()) << wire::to_string(e.error);
  wire::DecodedFrame d;
  EXPECT_TRUE(wire::decode_frame(wire::Bytes(buf.data(), e.length), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  return d;
}

TEST(Feedback, RoundTripsThroughTheWireIntoFeedbackInfo) {
  std::vector<std::uint8_t> buf;
  TxPacket p;
  wire::CcState cc;
  cc.tx_timestamp = 0xBEEF;
  cc.ooo_count = 5;
  cc.rcvd_bytes = 0xABCDEF;
  build_sack(sample_seth(), cc, true, address(), p);
  wire::DecodedFrame d = round_trip(p, buf);
  FeedbackInfo fb;
  ASSERT_TRUE(feedback_from(d, 2, fb));
  EXPECT_EQ(fb.kind, FeedbackInfo::Kind::kSack);
  EXPECT_EQ(fb.rx_port, 2);
  EXPECT_TRUE(fb.rtx);
  EXPECT_EQ(fb.psn, 0xFFFFF0u);
  EXPECT_EQ(fb.seth.ack_psn(), 0x11u);
  EXPECT_EQ(fb.seth.m, wire::MpVerdict::kSkipOnce);
  EXPECT_EQ(fb.seth.entropy, 0x0001C0DEu);
  EXPECT_EQ(fb.seth.mpr, 8);
  // base = cack + 65, across the PSN wrap; bits 0 and 63.
  EXPECT_EQ(fb.seth.sack_base(), (0xFFFFF0u + 65) & 0xFFFFFF);
  EXPECT_TRUE(fb.seth.sack_bit(0));
  EXPECT_TRUE(fb.seth.sack_bit(63));
  EXPECT_FALSE(fb.seth.sack_bit(1));
  EXPECT_EQ(fb.cc.tx_timestamp, 0xBEEF);
  EXPECT_EQ(fb.cc.ooo_count, 5);
  EXPECT_EQ(fb.cc.rcvd_bytes, 0xABCDEFu);

  FeedbackTrigger t;
  t.psn = 0x42;
  build_nack(t, wire::nack::kNoResource, address(), p);
  d = round_trip(p, buf);
  ASSERT_TRUE(feedback_from(d, 1, fb));
  EXPECT_EQ(fb.kind, FeedbackInfo::Kind::kNack);
  EXPECT_EQ(fb.neth.nack_reason, wire::nack::kNoResource);
  EXPECT_EQ(fb.neth.nack_psn, 0x42u);

  build_transport_ack(wire::syndrome::kAck, 0x99, 7, address(), p);
  d = round_trip(p, buf);
  ASSERT_TRUE(feedback_from(d, 1, fb));
  EXPECT_EQ(fb.kind, FeedbackInfo::Kind::kAck);
  EXPECT_EQ(fb.psn, 0x99u);
  EXPECT_EQ(fb.syndrome, wire::syndrome::kAck);
  EXPECT_EQ(fb.msn, 7u);
}

TEST(Feedback, DataFramesAreNoFeedback) {
  wire::DecodedFrame d;
  d.bth.opcode = wire::opcode::kMrcWriteOnly;
  FeedbackInfo fb;
  EXPECT_FALSE(feedback_from(d, 1, fb));
}

}  // namespace
}  // namespace mrc::transport
