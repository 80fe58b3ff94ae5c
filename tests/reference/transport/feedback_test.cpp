// Feedback packet building (MODEL: M5): syndromes, MFEH fields, the SACK block rule, service-time
// units, and a round trip through the wire codec into the requester's FeedbackInfo.
#include <gtest/gtest.h>

#include <vector>

#include "reference/transport/feedback.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport {
namespace {

TEST(Feedback, SyndromesAndTypesPerKind) {
  struct Row {
    FeedbackKind k;
    std::uint8_t syn;
    wire::FeedbackType t;
  };
  const Row rows[] = {
      {FeedbackKind::kAck, 0x1F, wire::FeedbackType::kAck},
      {FeedbackKind::kSack, 0x1F, wire::FeedbackType::kSack},
      {FeedbackKind::kNackLoss, 0x60, wire::FeedbackType::kNackLoss},
      {FeedbackKind::kTrimNack, 0x65, wire::FeedbackType::kTrimNack},
      {FeedbackKind::kPsnOutOfRange, 0x1F, wire::FeedbackType::kPsnOutOfRange},
      {FeedbackKind::kNakInvalidRequest, 0x61, wire::FeedbackType::kAck},
      {FeedbackKind::kNakRemoteAccess, 0x62, wire::FeedbackType::kAck},
      {FeedbackKind::kNakRemoteOpError, 0x63, wire::FeedbackType::kAck},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(syndrome_of(r.k), r.syn);
    EXPECT_EQ(mfeh_type_of(r.k), r.t);
  }
}

TEST(Feedback, ServiceTimeIsEightNanosecondUnitsSaturating) {
  EXPECT_EQ(svc_time_units(0), 0);
  EXPECT_EQ(svc_time_units(7), 0);
  EXPECT_EQ(svc_time_units(8), 1);
  EXPECT_EQ(svc_time_units(2000), 250);
  EXPECT_EQ(svc_time_units(8 * 0xFFFFull), 0xFFFF);
  EXPECT_EQ(svc_time_units(1'000'000'000), 0xFFFF);
}

TEST(Feedback, SackBlockIsTheAlignedBlockHoldingTheTrigger) {
  SackTracker t(1000, 1024, 1024);
  EXPECT_FALSE(sack_block(t, 1000).valid);  // nothing held: plain ACK
  t.mark(1001, {});
  t.mark(1200, {});
  SackBlock b = sack_block(t, 1001);
  EXPECT_TRUE(b.valid);
  EXPECT_EQ(b.base_off, 0);
  EXPECT_EQ(b.bitmap, std::uint64_t{1} << 62);
  b = sack_block(t, 1200);  // d = 200 -> block 192..255
  EXPECT_EQ(b.base_off, 192);
  EXPECT_EQ(b.bitmap, std::uint64_t{1} << (63 - 8));
  b = sack_block(t, 900);  // a trigger behind ePSN shows the first block
  EXPECT_EQ(b.base_off, 0);
}

FeedbackFields sample() {
  FeedbackFields f;
  f.kind = FeedbackKind::kSack;
  f.cum_psn = 0xFFFFF0;
  f.msn = 0x123456;
  f.trig_psn = 0x000011;
  f.ev_valid = true;
  f.ev_echo = 0x0001C0DE;
  f.ev_port = 4;
  f.ce = true;
  f.svc_valid = true;
  f.svc_time = 250;
  f.mpr = 8;
  f.sack_valid = true;
  f.sack_base_off = 64;
  f.sack_bitmap = 0x8000000000000001ull;
  f.rcvd_bytes = 0xDEADBEEF;
  return f;
}

TEST(Feedback, BuildsAnAcknowledgePacket) {
  TxPacket p;
  p.has_reth = true;  // overwritten
  build_feedback(sample(), 0x22, 0x33, 0x7FFF, p);
  EXPECT_EQ(p.qpn, 0x22u);
  EXPECT_EQ(p.path.kind, TxPath::Kind::kAnyQpEv);
  EXPECT_EQ(p.dscp, wire::kDscpControl);
  EXPECT_EQ(p.ecn, wire::kEcnNotEct);
  EXPECT_FALSE(p.has_reth);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kRcAck);
  EXPECT_EQ(p.bth.dest_qp, 0x33u);
  EXPECT_EQ(p.bth.psn, 0xFFFFF0u);
  EXPECT_EQ(p.bth.pkey, 0x7FFF);
  EXPECT_TRUE(p.has_aeth);
  EXPECT_EQ(p.aeth.syndrome, 0x1F);
  EXPECT_EQ(p.aeth.msn, 0x123456u);
  ASSERT_TRUE(p.has_mfeh);
  EXPECT_EQ(p.mfeh.version, 1);
  EXPECT_EQ(p.mfeh.type, wire::FeedbackType::kSack);
  EXPECT_TRUE(p.mfeh.ce);
  EXPECT_TRUE(p.mfeh.mpr_valid);
  EXPECT_EQ(p.mfeh.sack_base_off, 64);
  // Invalid parts are zeroed, whatever the fields said.
  FeedbackFields f = sample();
  f.sack_valid = false;
  f.ev_valid = false;
  f.svc_valid = false;
  build_feedback(f, 0x22, 0x33, 0xFFFF, p);
  EXPECT_EQ(p.mfeh.sack_bitmap, 0u);
  EXPECT_EQ(p.mfeh.sack_base_off, 0);
  EXPECT_EQ(p.mfeh.ev_echo, 0u);
  EXPECT_EQ(p.mfeh.svc_time, 0);
}

TEST(Feedback, RoundTripsThroughTheWireIntoFeedbackInfo) {
  TxPacket p;
  build_feedback(sample(), 0x22, 0x33, 0xFFFF, p);
  wire::FrameSpec s;
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.dscp = p.dscp;
  s.bth = p.bth;
  s.has_aeth = p.has_aeth;
  s.aeth = p.aeth;
  s.has_mfeh = p.has_mfeh;
  s.mfeh = p.mfeh;
  std::vector<std::uint8_t> buf(wire::kMaxFrameLen);
  const wire::EncodeResult e = wire::encode_frame(s, buf);
  ASSERT_TRUE(e.ok()) << wire::to_string(e.error);
  wire::DecodedFrame d;
  ASSERT_TRUE(wire::decode_frame(wire::Bytes(buf.data(), e.length), d).ok());
  ASSERT_TRUE(d.icrc_ok);
  const FeedbackInfo fb = feedback_from(d, 2);
  EXPECT_EQ(fb.cum_psn, 0xFFFFF0u);
  EXPECT_EQ(fb.syndrome, 0x1F);
  EXPECT_EQ(fb.msn, 0x123456u);
  EXPECT_EQ(fb.type, wire::FeedbackType::kSack);
  EXPECT_TRUE(fb.ce);
  EXPECT_EQ(fb.svc_time_ns, 2000u);
  EXPECT_EQ(fb.trig_psn, 0x11u);
  EXPECT_EQ(fb.ev_echo, 0x0001C0DEu);
  EXPECT_EQ(fb.ev_port, 4);
  EXPECT_EQ(fb.mpr, 8);
  // base = cum + 1 + 64, across the PSN wrap.
  EXPECT_EQ(fb.sack_base, (0xFFFFF0u + 1 + 64) & 0xFFFFFF);
  EXPECT_TRUE(fb.sack_has(0));
  EXPECT_TRUE(fb.sack_has(63));
  EXPECT_FALSE(fb.sack_has(1));
  EXPECT_EQ(fb.rcvd_bytes, 0xDEADBEEFu);
}

}  // namespace
}  // namespace mrc::transport
