// Injected endpoint-operation frames (W10): the ERTH / EETH a case gives, the BTH defaults
// (DestQP 0x2, the id in PSN[15:0]) and the Control class DSCP (W13).
#include <gtest/gtest.h>

#include "harness/stimulus/frame_builder.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness::stim {
namespace {

FrameContext context() {
  FrameContext c;
  c.src_mac = {2, 0, 0, 0, 0, 2};
  c.dst_mac = {2, 0, 0, 0, 0, 1};
  c.src_gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  c.dst_gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  WireEv a;
  a.wire = {0x00, 0x12, 0xC0, 0x34};
  c.evs = {a};
  c.dqpn = 0x123;  // a QP's number must not leak into an endpoint frame
  return c;
}

wire::DecodedFrame decode_ok(const BuiltFrame& f) {
  EXPECT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d;
  const auto r = wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d);
  EXPECT_TRUE(r.ok()) << wire::to_string(r.error);
  return d;
}

TEST(EpFrameBuilder, ErthFromTheCaseOnQp2WithTheIdInThePsn) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEndpointReq;
  EpSpec ep;
  ep.op = 0;  // PORT_STATUS_UPDATE (wire value, S1: W10)
  ep.id = 0xBEEF;
  ep.port_status_mask = 0x16;
  ep.tx_timestamp = 0x1234;
  s.ep = ep;
  const wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.bth.opcode, wire::opcode::kMrcEndpointReq);
  EXPECT_EQ(d.bth.dest_qp, wire::kEndpointQpn);  // W10, not the QP's 0x123
  EXPECT_EQ(d.bth.psn, 0xBEEFu);                 // the id in PSN[15:0]
  EXPECT_EQ(d.bth.pkey, 0xFFFF);
  EXPECT_EQ(d.ip6.dscp, wire::DscpConfig{}.control);  // the Control class by default
  ASSERT_TRUE(d.has_erth);
  EXPECT_EQ(d.erth.op, 0);
  EXPECT_EQ(d.erth.port_status_mask, 0x16u);
  EXPECT_EQ(d.erth.ts.tx_timestamp, 0x1234);
  EXPECT_EQ(d.erth.ts.ftype, wire::kFtypeTimestamp);
}

TEST(EpFrameBuilder, TheIdKeepsThePsnHighBitsACaseGives) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEndpointReq;
  s.psn = 0x010000;  // PSN[23:16] != 0: a near-miss for cases about the W10 BTH
  EpSpec ep;
  ep.id = 7;
  s.ep = ep;
  EXPECT_EQ(decode_ok(build_frame(s, context())).bth.psn, 0x010007u);
}

TEST(EpFrameBuilder, EethOfAResponseAndABareProbe) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEndpointRsp;
  EpSpec ep;
  ep.id = 21;
  ep.tx_timestamp = 0xABCD;
  s.ep = ep;
  wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  ASSERT_TRUE(d.has_eeth);
  EXPECT_EQ(d.bth.psn, 21u);
  EXPECT_EQ(d.eeth.op, static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe));  // default op
  EXPECT_EQ(d.eeth.tx_timestamp, 0xABCD);
  // No `ep`: an EV probe, id 0, timestamp 0.
  FrameSpec bare;
  bare.opcode = wire::opcode::kMrcEndpointReq;
  d = decode_ok(build_frame(bare, context()));
  ASSERT_TRUE(d.has_erth);
  EXPECT_EQ(d.erth.op, static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe));
  EXPECT_EQ(d.bth.psn, 0u);
}

TEST(EpFrameBuilder, ExplicitBthFieldsAndAnOpNoSourceNamesStillEncode) {
  FrameSpec s;  // invalid-input cases: another DestQP, an op value W10 does not name
  s.opcode = wire::opcode::kMrcEndpointReq;
  s.dqpn = 0x42;
  s.pkey = 0x7FFF;
  s.dscp = 26;
  EpSpec ep;
  ep.op = 3;
  s.ep = ep;
  const wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  EXPECT_EQ(d.bth.dest_qp, 0x42u);
  EXPECT_EQ(d.bth.pkey, 0x7FFF);
  EXPECT_EQ(d.ip6.dscp, 26);
  EXPECT_EQ(d.erth.op, 3);  // decoded as it is: receivers judge it, the decoder does not
}

}  // namespace
}  // namespace mrc::harness::stim
