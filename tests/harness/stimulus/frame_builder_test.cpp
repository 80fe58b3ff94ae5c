#include <gtest/gtest.h>

#include "harness/stimulus/frame_builder.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness::stim {
namespace {

FrameContext context(wire::EvFmtMode mode = wire::EvFmtMode::kStev) {
  FrameContext c;
  c.src_mac = {2, 0, 0, 0, 0, 2};
  c.dst_mac = {2, 0, 0, 0, 0, 1};
  c.src_gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  c.dst_gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  c.mode = mode;
  WireEv a;
  a.wire = {0x00, 0x12, 0xC0, 0x34};  // STEV V = 0x0012C034
  a.port = 1;
  a.index = 0;
  WireEv b;
  b.wire = {0x00, 0x56, 0xC0, 0x78};
  b.port = 2;
  b.index = 1;
  c.evs = {a, b};
  c.dqpn = 0x123;
  c.buffer_va = 0x10000000;
  c.rkey = 0xBEEF;
  c.first_psn = 0;
  c.mtu = 1024;
  return c;
}

wire::DecodedFrame decode(const BuiltFrame& f, bool* ok = nullptr) {
  wire::DecodedFrame d;
  const bool good = wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d).ok();
  if (ok) *ok = good;
  return d;
}

TEST(FrameBuilder, DataFramesTakeTheEndpointsDefaults) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteMiddle;
  s.psn = 3;
  s.ev = 1;
  s.payload = PayloadSpec{PayloadPattern::kIncrement, 1024};
  const BuiltFrame f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  bool ok = false;
  const wire::DecodedFrame d = decode(f, &ok);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.bth.dest_qp, 0x123u);
  EXPECT_EQ(d.bth.pkey, 0xFFFF);
  EXPECT_FALSE(d.bth.ack_req);  // only when the case's flags ask
  EXPECT_EQ(d.ip6.dscp, wire::kDscpTrimmable);
  EXPECT_EQ(d.ip6.ecn, wire::kEcnEct0);
  ASSERT_TRUE(d.has_meth);  // W4: METH on every data packet, msn 0 unless the case says
  EXPECT_EQ(d.meth.msn, 0u);
  EXPECT_FALSE(d.has_tseth);
  ASSERT_TRUE(d.has_reth);  // W4: a MIDDLE packet carries its own address
  EXPECT_EQ(d.reth.va, 0x10000000u + 3 * 1024);
  EXPECT_EQ(d.reth.rkey, 0xBEEFu);
  EXPECT_EQ(d.reth.dma_length, 1024u);
  EXPECT_EQ(wire::ev_echo_value(d, wire::EvFmtMode::kStev), 0x0056C078u);
  EXPECT_EQ(d.payload.size(), 1024u);
  EXPECT_EQ(d.payload[5], 5);
}

TEST(FrameBuilder, MethTsethAndRtxAsTheCaseGivesThem) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.meth = MethSpec{7, 2};
  s.tseth = TsethSpec{0x1234, false, 1};
  s.flags = {FrameFlag::kRtx, FrameFlag::kAckReq};
  const BuiltFrame f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  const wire::DecodedFrame d = decode(f);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.meth.msn, 7u);
  EXPECT_EQ(d.meth.rqmsn, 2u);
  ASSERT_TRUE(d.has_tseth);
  EXPECT_TRUE(d.bth.ts);
  EXPECT_EQ(d.tseth.tx_timestamp, 0x1234u);
  EXPECT_TRUE(d.bth.rtx);
  EXPECT_TRUE(d.bth.ack_req);
}

// A data packet cut with a trimmed DSCP is what a trimming switch forwards (W13): IP and UDP
// lengths fixed, recognised as trimmed by its DSCP.
TEST(FrameBuilder, TrimmedDscpAndTruncateMakeATrimmedPacket) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.payload = PayloadSpec{PayloadPattern::kIncrement, 1024};
  s.dscp = 11;
  s.truncate = 200;
  const BuiltFrame f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  ASSERT_EQ(f.bytes.size(), 200u);
  bool ok = false;
  const wire::DecodedFrame d = decode(f, &ok);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(d.trimmed);
  EXPECT_EQ(d.ip6.payload_length, 200u - 14 - 40);
  EXPECT_EQ(d.udp.length, 200u - 14 - 40);
  EXPECT_TRUE(d.has_reth);
}

// W13: the run's configured classes, not W13's defaults: a frame without its own dscp travels in
// the configured trimmable or control value, and a cut frame in the configured TRIMMED is a trim.
TEST(FrameBuilder, ClassesAndTrimsFollowTheConfiguredDscp) {
  FrameContext ctx = context();
  ctx.dscp.trimmable = 20;
  ctx.dscp.trimmed = 21;
  ctx.dscp.control = 40;
  FrameSpec data;
  data.opcode = wire::opcode::kMrcWriteOnly;
  data.payload = PayloadSpec{PayloadPattern::kIncrement, 1024};
  EXPECT_EQ(decode(build_frame(data, ctx)).ip6.dscp, 20u);
  FrameSpec ack;
  ack.opcode = wire::opcode::kRcAck;
  EXPECT_EQ(decode(build_frame(ack, ctx)).ip6.dscp, 40u);
  data.dscp = 21;
  data.truncate = 200;
  const BuiltFrame f = build_frame(data, ctx);
  ASSERT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d;
  wire::DecodeOptions opt;
  opt.trimmed_dscps = ctx.dscp.trimmed_mask();
  opt.trimmed_lasthop_dscp = ctx.dscp.trimmed_lasthop;
  ASSERT_TRUE(wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d, opt).ok());
  EXPECT_TRUE(d.trimmed);
  EXPECT_EQ(d.ip6.payload_length, 200u - 14 - 40);  // lengths fixed as for a switch's trim
}

// reth.past_end: the receiver's buffer and R_Key, the write placed against the buffer's end.
TEST(FrameBuilder, RethPastEndPlacesTheWriteAtTheBufferEnd) {
  FrameContext c = context();
  c.buffer_bytes = 65536;
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.psn = 0;
  s.reth = RethSpec{0, 0, 256, 0, std::nullopt};
  BuiltFrame f = build_frame(s, c);
  ASSERT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d = decode(f);
  EXPECT_EQ(d.reth.va, 0x10000000u + 65536 - 256);  // its last byte is the buffer's last byte
  EXPECT_EQ(d.reth.rkey, 0xBEEFu);
  EXPECT_EQ(d.reth.dma_length, 256u);
  EXPECT_EQ(d.payload.size(), 256u);
  s.reth->past_end = 1;
  f = build_frame(s, c);
  ASSERT_TRUE(f.ok()) << f.error;
  d = decode(f);
  EXPECT_EQ(d.reth.va, 0x10000000u + 65536 - 255);  // one byte past the end
  s.reth->len = 65538;  // longer than the buffer: refused
  s.payload = PayloadSpec{PayloadPattern::kIncrement, 64};
  EXPECT_FALSE(build_frame(s, c).ok());
  c.buffer_bytes = 0;  // the receiver's buffer size unknown: refused
  s.reth->len = 64;
  EXPECT_NE(build_frame(s, c).error.find("past_end"), std::string::npos);
}

// Near misses of the receiver's own values: its R_Key XOR rkey_xor at the packet's own address,
// its QPN XOR dqpn_xor.
TEST(FrameBuilder, NearMissesFlipBitsOfTheReceiversOwnKeyAndQpn) {
  FrameContext c = context();
  c.buffer_bytes = 65536;
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.psn = 2;
  s.reth = RethSpec{0, 0, 128, std::nullopt, 0x01};
  s.dqpn_xor = 0x10000;
  const BuiltFrame f = build_frame(s, c);
  ASSERT_TRUE(f.ok()) << f.error;
  const wire::DecodedFrame d = decode(f);
  EXPECT_EQ(d.reth.rkey, 0xBEEFu ^ 0x01u);
  EXPECT_EQ(d.reth.va, c.buffer_va + 2 * c.mtu);  // the packet's own address in the buffer
  EXPECT_EQ(d.reth.dma_length, 128u);
  EXPECT_EQ(d.bth.dest_qp, (c.dqpn ^ 0x10000u) & 0xFFFFFFu);
}

// W5, W7, W8, W9: injected feedback and probes carry their MRC 1.0 headers.
TEST(FrameBuilder, FeedbackAndProbesCarryTheirHeaders) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcSack;
  s.psn = 99;
  SackSpec m;
  m.m = 1;  // SKIP_ONCE
  m.ack_psn = 97;
  m.entropy = 0x13032102;
  m.bitmap = 0xF;
  m.sack_offset = 2;
  m.ts = 0x1234;
  m.rcvd_bytes = 1600;
  s.sack = m;
  BuiltFrame f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  wire::DecodedFrame d = decode(f);
  ASSERT_TRUE(d.has_sack);
  EXPECT_EQ(d.ip6.dscp, wire::kDscpControl);
  EXPECT_EQ(d.seth.cack_psn, 99u);
  EXPECT_EQ(d.seth.ack_psn(), 97u);  // a PSN below cack_psn: a negative offset
  EXPECT_EQ(d.seth.m, wire::MpVerdict::kSkipOnce);
  EXPECT_EQ(d.seth.entropy, 0x13032102u);
  EXPECT_EQ(d.seth.sack_base(), 101u);
  EXPECT_TRUE(d.seth.sack_bit(3));
  EXPECT_EQ(d.cc.tx_timestamp, 0x1234u);
  EXPECT_EQ(d.cc.rcvd_bytes, 1600u);

  m.pr = true;  // a probe's answer: the offset field carries the probe_id
  m.probe_id = 0x8001;
  s.sack = m;
  f = build_frame(s, context());
  ASSERT_TRUE(f.ok()) << f.error;
  d = decode(f);
  EXPECT_TRUE(d.seth.pr);
  EXPECT_EQ(d.seth.probe_id(), 0x8001u);

  FrameSpec n;
  n.opcode = wire::opcode::kMrcNack;
  n.psn = 7;
  n.nack = NackSpec{wire::nack::kTrimmedLastHop, 0x55, 0x66};
  f = build_frame(n, context());
  ASSERT_TRUE(f.ok()) << f.error;
  d = decode(f);
  ASSERT_TRUE(d.has_neth);
  EXPECT_EQ(d.bth.psn, 7u);
  EXPECT_EQ(d.neth.nack_psn, 7u);  // nack_psn = BTH.PSN
  EXPECT_EQ(d.neth.nack_reason, wire::nack::kTrimmedLastHop);
  EXPECT_EQ(d.neth.entropy, 0x55u);
  EXPECT_EQ(d.neth.tx_timestamp, 0x66u);

  FrameSpec p;
  p.opcode = wire::opcode::kMrcProbe;
  p.psn = 3;
  p.probe = ProbeSpec{42, std::uint16_t{0x777}};
  f = build_frame(p, context());
  ASSERT_TRUE(f.ok()) << f.error;
  d = decode(f);
  ASSERT_TRUE(d.has_peth);
  EXPECT_EQ(d.peth.probe_id, 42u);
  EXPECT_EQ(d.peth.ts.ftype, wire::kFtypeTimestamp);
  EXPECT_EQ(d.peth.ts.tx_timestamp, 0x777u);
  p.probe = ProbeSpec{43, std::nullopt};  // no timestamp: ftype 0
  d = decode(build_frame(p, context()));
  EXPECT_EQ(d.peth.ts.ftype, 0u);

  FrameSpec ack;
  ack.opcode = wire::opcode::kMrcAck;
  ack.psn = 12;
  ack.aeth = AethSpec{0x1F, 3};
  d = decode(build_frame(ack, context()));
  ASSERT_TRUE(d.has_aeth);
  EXPECT_EQ(d.aeth.msn, 3u);
  EXPECT_FALSE(d.has_sack);
}

TEST(FrameBuilder, TrimmedStubsBadIcrcAndForbiddenOpcodes) {
  FrameSpec stub;
  stub.opcode = wire::opcode::kMrcWriteFirst;
  stub.psn = 1;
  stub.dscp = wire::kDscpTrimmed;
  stub.payload = PayloadSpec{PayloadPattern::kPrbs, 1024};
  stub.truncate = 128;
  const BuiltFrame f = build_frame(stub, context());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.bytes.size(), 128u);
  wire::DecodedFrame d;
  wire::decode_frame(wire::Bytes(f.bytes.data(), f.bytes.size()), d);
  EXPECT_TRUE(d.trimmed);

  FrameSpec bad;
  bad.opcode = wire::opcode::kMrcWriteOnly;
  bad.icrc = IcrcMode::kBad;
  EXPECT_FALSE(decode(build_frame(bad, context())).icrc_ok);

  FrameSpec read;
  read.opcode = wire::opcode::kRcReadRequest;
  read.payload = PayloadSpec{PayloadPattern::kZero, 0};
  const wire::DecodedFrame r = decode(build_frame(read, context()));
  EXPECT_EQ(r.bth.opcode, wire::opcode::kRcReadRequest);
  EXPECT_TRUE(r.has_reth);
}

TEST(FrameBuilder, Srv6FramesForTheFabricOrForTheReceiversIngress) {
  FrameContext c = context(wire::EvFmtMode::kSrv6);
  c.evs[1].wire = {0xfc, 0x00, 0x00, 0x01, 0x20, 0x00, 0x10, 0x01, 0x80, 0x00};
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.ev = 1;
  // What the receiver sees after decapsulation at the last hop: the inner packet, EV index in sport.
  const wire::DecodedFrame inner = decode(build_frame(s, c));
  EXPECT_FALSE(inner.encapsulated);
  EXPECT_EQ(inner.udp.sport, wire::kSrv6SportBase | 1);
  EXPECT_EQ(inner.ip6.dst, c.dst_gid);
  // What the sender puts into the fabric: outer DA = the uSID container.
  c.srv6_encapsulated = true;
  const wire::DecodedFrame outer = decode(build_frame(s, c));
  EXPECT_TRUE(outer.encapsulated);
  EXPECT_EQ(outer.ip6.dst[0], 0xfc);
  EXPECT_EQ(outer.ip6.dst[4], 0x20);
  EXPECT_EQ(outer.inner_ip6.dst, c.dst_gid);
}

TEST(FrameBuilder, BadSpecsAreErrorsNotCrashes) {
  FrameSpec s;
  s.opcode = wire::opcode::kMrcWriteOnly;
  s.ev = 7;  // the array has 2 EVs
  EXPECT_FALSE(build_frame(s, context()).ok());
  s.ev.reset();
  s.payload = PayloadSpec{PayloadPattern::kZero, 5000};
  EXPECT_FALSE(build_frame(s, context()).ok());
}

}  // namespace
}  // namespace mrc::harness::stim
