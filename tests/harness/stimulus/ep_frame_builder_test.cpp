// Injected endpoint-operation frames (MODEL: M6): the `ep` header a case gives, the M6 BTH
// defaults, the return EV's length, and the EV probe DSCP (MODEL: M11).
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
  c.dqpn = 0x123;  // a QP's number must not leak into an EP frame
  return c;
}

wire::DecodedFrame decode_ok(const BuiltFrame& f) {
  EXPECT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d;
  const auto r = wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d);
  EXPECT_TRUE(r.ok()) << wire::to_string(r.error);
  return d;
}

TEST(EpFrameBuilder, HeaderFromTheCaseWithM6Bth) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEpReq;
  EpSpec ep;
  ep.op = 1;
  ep.req_id = 0xBEEF;
  ep.port_status = 0xB;
  ep.tx_timestamp = 0x0123456789ABCDEFull;
  ep.svc_time_ns = 480;
  s.ep = ep;
  const wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.bth.opcode, wire::opcode::kMrcEpReq);
  EXPECT_EQ(d.bth.dest_qp, wire::kEpDestQp);  // MODEL: M6, not the QP's 0x123
  EXPECT_EQ(d.bth.psn, 0u);
  EXPECT_EQ(d.bth.pkey, 0xFFFF);
  EXPECT_EQ(d.ip6.dscp, wire::kDscpControl);  // MODEL: M11
  ASSERT_TRUE(d.has_ep);
  EXPECT_EQ(d.ep.op, wire::EpOp::kPortStatusUpdate);
  EXPECT_EQ(d.ep.req_id, 0xBEEF);
  EXPECT_EQ(d.ep.port_status, 0xBu);
  EXPECT_EQ(d.ep.tx_timestamp, 0x0123456789ABCDEFull);
  EXPECT_TRUE(d.ep.svc_valid);
  EXPECT_EQ(d.ep.svc_time_ns, 480u);
  EXPECT_EQ(d.ep.rsp_ev_len, 0);
  EXPECT_EQ(d.ep.wire_length(), wire::kEpHdrFixedLen);  // the 24-byte fixed header
}

TEST(EpFrameBuilder, ReturnEvLengthFollowsItsSize) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEpReq;
  EpSpec ep;
  ep.rsp_fmt_mode = 1;  // STEV
  ep.rsp_port = 2;
  ep.rsp_ev = {0x0A, 0x0B, 0x0C};  // padded to 4 bytes
  s.ep = ep;
  wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  EXPECT_EQ(d.ep.rsp_ev_len, 4);
  EXPECT_EQ(d.ep.rsp_port, 2);
  EXPECT_EQ(d.ep.rsp_fmt_mode, 1);
  EXPECT_EQ(d.ep.rsp_ev[0], 0x0A);
  EXPECT_EQ(d.ep.rsp_ev[2], 0x0C);
  EXPECT_EQ(d.ep.rsp_ev[3], 0x00);
  EXPECT_FALSE(d.ep.svc_valid);

  s.ep->rsp_fmt_mode = 2;  // SRv6: a full container and segment
  s.ep->rsp_ev.assign(20, 0xFC);
  d = decode_ok(build_frame(s, context()));
  EXPECT_EQ(d.ep.rsp_ev_len, 32);
  EXPECT_EQ(d.ep.rsp_ev[19], 0xFC);
  EXPECT_EQ(d.ep.rsp_ev[20], 0x00);
  EXPECT_EQ(d.ep.wire_length(), wire::kEpHdrFixedLen + 32);
}

TEST(EpFrameBuilder, ExplicitBthFieldsAndBareProbe) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcEpRsp;
  s.dqpn = 0x42;
  s.pkey = 0x7FFF;
  s.dscp = 26;
  const wire::DecodedFrame d = decode_ok(build_frame(s, context()));
  EXPECT_EQ(d.bth.dest_qp, 0x42u);
  EXPECT_EQ(d.bth.pkey, 0x7FFF);
  EXPECT_EQ(d.ip6.dscp, 26);
  ASSERT_TRUE(d.has_ep);
  EXPECT_EQ(d.ep.op, wire::EpOp::kEvProbe);  // no `ep`: an all-zero header
  EXPECT_EQ(d.ep.req_id, 0);
}

TEST(EpFrameBuilder, UnknownOpStillEncodes) {
  FrameSpec s;  // invalid-input cases: an op the model does not define
  s.opcode = wire::opcode::kMrcEpReq;
  EpSpec ep;
  ep.op = 9;
  s.ep = ep;
  const BuiltFrame f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d;
  EXPECT_EQ(wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d).error, wire::WireError::kBadEpHeader);
}

}  // namespace
}  // namespace mrc::harness::stim
