// Endpoint operations (MODEL: M6): request building, the probe responder (req_id/tx_timestamp
// echo, rsp_ev return path, svc_time), port-status recording, request-id rules and RTT.
#include <gtest/gtest.h>

#include <vector>

#include "reference/transport/ep_ops.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport {
namespace {

// Encodes an EP TxPacket as the endpoint would (addresses filled here) and decodes it back.
struct EpFrame {
  std::vector<std::uint8_t> bytes;
  wire::DecodedFrame f;
};

EpFrame to_wire(const TxPacket& p, std::uint8_t src_last, std::uint8_t dst_last) {
  wire::FrameSpec s;
  s.eth.src = {0x02, 0, 0, 0, 0, src_last};
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.src[0] = 0xfd;
  s.ip6.src[15] = src_last;
  s.ip6.dst[0] = 0xfd;
  s.ip6.dst[15] = dst_last;
  s.ip6.dscp = p.dscp;
  s.ip6.ecn = p.ecn;
  s.bth = p.bth;
  s.has_ep = p.has_ep;
  s.ep = p.ep;
  EpFrame w;
  w.bytes.resize(wire::kMaxFrameLen);
  const wire::EncodeResult e = wire::encode_frame(s, w.bytes);
  EXPECT_TRUE(e.ok()) << wire::to_string(e.error);
  w.bytes.resize(e.length);
  EXPECT_TRUE(wire::decode_frame(w.bytes, w.f).ok());
  return w;
}

EpRequestSpec probe_spec() {
  EpRequestSpec s;
  s.op = wire::EpOp::kEvProbe;
  s.req_id = 0x1234;
  s.tx_timestamp_ns = 0x0102030405060708ull;
  s.path.kind = TxPath::Kind::kExplicitEv;
  s.path.port = 3;
  s.path.ev[0] = 0x12;
  s.req_tc = 26;
  s.rsp_fmt_mode = wire::EvFmtMode::kStev;
  s.rsp_port = 5;
  s.rsp_ev_len = 4;
  s.rsp_ev = {0xAA, 0xBB, 0xCC, 0xDD};
  return s;
}

TEST(EpOps, BuildsARequest) {
  TxPacket p;
  ASSERT_TRUE(build_ep_request(probe_spec(), p));
  EXPECT_EQ(p.qpn, 0u);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kMrcEpReq);
  EXPECT_EQ(p.bth.dest_qp, 0xFFFFFFu);
  EXPECT_EQ(p.bth.psn, 0u);
  EXPECT_EQ(p.bth.pkey, 0xFFFF);
  EXPECT_EQ(p.dscp, 26);
  EXPECT_EQ(p.path.port, 3);
  EXPECT_EQ(p.path.ev[0], 0x12);
  ASSERT_TRUE(p.has_ep);
  EXPECT_EQ(p.ep.req_id, 0x1234);
  EXPECT_EQ(p.ep.tx_timestamp, 0x0102030405060708ull);
  EXPECT_EQ(p.ep.rsp_ev_len, 4);
  EXPECT_EQ(p.ep.rsp_ev[3], 0xDD);
  EpRequestSpec bad = probe_spec();
  bad.rsp_ev_len = 16;
  EXPECT_FALSE(build_ep_request(bad, p));
}

TEST(EpOps, ProbeResponderEchoesAndAnswersOnRspEv) {
  TxPacket req;
  ASSERT_TRUE(build_ep_request(probe_spec(), req));
  const EpFrame in = to_wire(req, 1, 2);
  EpResponderConfig cfg;
  cfg.local_ports_up = 0b1011;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(in.f, 3, 1000, 1480, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.bth.opcode, wire::opcode::kMrcEpRsp);
  EXPECT_EQ(rsp.bth.dest_qp, 0xFFFFFFu);
  EXPECT_EQ(rsp.ep.op, wire::EpOp::kEvProbe);
  EXPECT_EQ(rsp.ep.req_id, 0x1234);
  EXPECT_EQ(rsp.ep.tx_timestamp, 0x0102030405060708ull);
  EXPECT_TRUE(rsp.ep.svc_valid);
  EXPECT_EQ(rsp.ep.svc_time_ns, 480u);
  EXPECT_EQ(rsp.ep.port_status, 0b1011u);
  EXPECT_EQ(rsp.path.kind, TxPath::Kind::kExplicitEv);
  EXPECT_EQ(rsp.path.port, 5);
  EXPECT_EQ(rsp.path.fmt, wire::EvFmtMode::kStev);
  EXPECT_EQ(rsp.path.ev[0], 0xAA);
  EXPECT_EQ(rsp.path.ev[3], 0xDD);
  EXPECT_EQ(rsp.path.ev[4], 0x00);
  EXPECT_EQ(rsp.dgid[15], 1);  // back to the prober
  EXPECT_EQ(rsp.dmac[5], 1);
  EXPECT_EQ(rsp.dscp, 26);     // the prober's traffic class
  EXPECT_EQ(r.stats().probes, 1u);
}

TEST(EpOps, ProbeWithoutRspEvUsesTheDefaultPath) {
  EpRequestSpec s = probe_spec();
  s.rsp_ev_len = 0;
  TxPacket req;
  ASSERT_TRUE(build_ep_request(s, req));
  const EpFrame in = to_wire(req, 1, 2);
  EpResponderConfig cfg;
  cfg.default_path.kind = TxPath::Kind::kExplicitEv;
  cfg.default_path.port = 7;
  cfg.default_path.ev[0] = 0x77;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(in.f, 3, 10, 10, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.path.port, 7);
  EXPECT_EQ(rsp.path.ev[0], 0x77);
  EXPECT_EQ(rsp.ep.svc_time_ns, 0u);
  // A default path without a port answers on the arrival port.
  EpResponderConfig cfg0;
  cfg0.default_path.kind = TxPath::Kind::kExplicitEv;
  EpResponder r0(cfg0);
  ASSERT_EQ(r0.on_request(in.f, 4, 10, 10, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.path.port, 4);
}

TEST(EpOps, RspPortZeroMeansTheArrivalPort) {
  EpRequestSpec s = probe_spec();
  s.rsp_port = 0;
  TxPacket req;
  ASSERT_TRUE(build_ep_request(s, req));
  const EpFrame in = to_wire(req, 1, 2);
  EpResponder r({});
  TxPacket rsp;
  ASSERT_EQ(r.on_request(in.f, 6, 0, 0, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.path.port, 6);
}

TEST(EpOps, PortStatusUpdateIsRecordedPerPeer) {
  EpRequestSpec s = probe_spec();
  s.op = wire::EpOp::kPortStatusUpdate;
  s.port_status = 0b0110;  // ports 2 and 3 up
  TxPacket req;
  ASSERT_TRUE(build_ep_request(s, req));
  const EpFrame from1 = to_wire(req, 1, 2);
  EpResponderConfig cfg;
  cfg.max_peers = 1;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(from1.f, 1, 0, 0, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.ep.op, wire::EpOp::kPortStatusUpdate);
  wire::Ipv6Addr gid1{};
  gid1[0] = 0xfd;
  gid1[15] = 1;
  ASSERT_TRUE(r.peers().ports(gid1).has_value());
  EXPECT_EQ(*r.peers().ports(gid1), 0b0110u);
  EXPECT_FALSE(r.peers().port_up(gid1, 1));
  EXPECT_TRUE(r.peers().port_up(gid1, 2));
  EXPECT_TRUE(r.peers().port_up(gid1, 3));
  // An update replaces; a second peer does not fit the table of one but is still answered.
  s.port_status = 0b0001;
  ASSERT_TRUE(build_ep_request(s, req));
  ASSERT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 5, 5, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(*r.peers().ports(gid1), 0b0001u);
  EXPECT_EQ(r.on_request(to_wire(req, 9, 2).f, 1, 6, 6, rsp), EpRxOutcome::kPeerTableFull);
  EXPECT_EQ(rsp.ep.req_id, 0x1234);
}

TEST(EpOps, ResponderDropsWhatIsNotARequest) {
  TxPacket req;
  ASSERT_TRUE(build_ep_request(probe_spec(), req));
  req.bth.opcode = wire::opcode::kMrcEpRsp;
  EpResponder r({});
  TxPacket rsp;
  EXPECT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, 0, rsp), EpRxOutcome::kDroppedNotRequest);
  ASSERT_TRUE(build_ep_request(probe_spec(), req));
  req.bth.dest_qp = 0x10;
  EXPECT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, 0, rsp), EpRxOutcome::kDroppedBadHeader);
  ASSERT_TRUE(build_ep_request(probe_spec(), req));
  req.ep.rsp_fmt_mode = 3;
  EXPECT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, 0, rsp), EpRxOutcome::kDroppedBadHeader);
}

TEST(EpOps, RequestIdsAreUniqueWhileOutstandingAndLingerAfterTimeout) {
  EpRequestTracker t({4, 0});
  EXPECT_EQ(t.begin(7, wire::EpOp::kEvProbe, 0, 1000), EpRequestTracker::Status::kOk);
  EXPECT_EQ(t.begin(7, wire::EpOp::kEvProbe, 0, 1000), EpRequestTracker::Status::kIdBusy);
  EXPECT_EQ(t.next_deadline(), 1000u);
  EXPECT_EQ(t.advance(999), 0u);
  EXPECT_EQ(t.advance(1000), 1u);  // timed out, id lingers for one more timeout
  EXPECT_EQ(t.outstanding(), 0u);
  EXPECT_EQ(t.begin(7, wire::EpOp::kEvProbe, 1500, 1000), EpRequestTracker::Status::kIdBusy);
  wire::EpHdr late;
  late.req_id = 7;
  EXPECT_FALSE(t.on_response(late, 1, 1800).has_value());
  EXPECT_EQ(t.stats().late, 1u);
  t.advance(2000);
  EXPECT_FALSE(t.busy(7));
  EXPECT_EQ(t.begin(7, wire::EpOp::kEvProbe, 2000, 1000), EpRequestTracker::Status::kOk);
}

TEST(EpOps, TrackerIsBoundedAndHandsOutFreeIds) {
  EpRequestTracker t({2, 0});
  const auto a = t.next_free_id();
  ASSERT_TRUE(a);
  ASSERT_EQ(t.begin(*a, wire::EpOp::kEvProbe, 0, 100), EpRequestTracker::Status::kOk);
  const auto b = t.next_free_id();
  ASSERT_TRUE(b);
  EXPECT_NE(*a, *b);
  ASSERT_EQ(t.begin(*b, wire::EpOp::kEvProbe, 0, 100), EpRequestTracker::Status::kOk);
  EXPECT_FALSE(t.next_free_id().has_value());
  EXPECT_EQ(t.begin(99, wire::EpOp::kEvProbe, 0, 100), EpRequestTracker::Status::kFull);
}

TEST(EpOps, RttSubtractsTheResponderServiceTime) {
  EpRequestTracker t({8, 0});
  ASSERT_EQ(t.begin(1, wire::EpOp::kEvProbe, 1000, 100000), EpRequestTracker::Status::kOk);
  ASSERT_EQ(t.begin(2, wire::EpOp::kEvProbe, 1000, 100000), EpRequestTracker::Status::kOk);
  wire::EpHdr rsp;
  rsp.req_id = 1;
  rsp.tx_timestamp = 1000;
  rsp.svc_valid = true;
  rsp.svc_time_ns = 300;
  rsp.port_status = 0xF;
  const auto r = t.on_response(rsp, 4, 6000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rtt_ns, 4700u);
  EXPECT_EQ(r->adj_svc_time, 300u);
  EXPECT_EQ(r->port, 4);
  EXPECT_EQ(r->port_status, 0xFu);
  EXPECT_TRUE(r->timestamp_echoed);
  EXPECT_FALSE(t.busy(1));  // answered: free at once
  // No svc_valid: raw RTT, not adjusted; a tampered timestamp is flagged.
  rsp.req_id = 2;
  rsp.svc_valid = false;
  rsp.tx_timestamp = 999;
  const auto r2 = t.on_response(rsp, 4, 6000);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->rtt_ns, 5000u);
  EXPECT_EQ(r2->adj_svc_time, 0u);
  EXPECT_FALSE(r2->timestamp_echoed);
  EXPECT_FALSE(t.on_response(rsp, 4, 7000).has_value());  // answered already
  EXPECT_EQ(t.stats().unknown, 1u);
}

TEST(EpOps, EndToEndProbeThroughResponderAndTracker) {
  EpRequestTracker tracker({8, 0});
  EpRequestSpec s = probe_spec();
  s.tx_timestamp_ns = 10'000;
  ASSERT_EQ(tracker.begin(s.req_id, s.op, 10'000, 1'000'000), EpRequestTracker::Status::kOk);
  TxPacket req;
  ASSERT_TRUE(build_ep_request(s, req));
  EpResponder responder({});
  TxPacket rsp;
  ASSERT_EQ(responder.on_request(to_wire(req, 1, 2).f, 3, 12'000, 12'200, rsp),
            EpRxOutcome::kResponded);
  const EpFrame back = to_wire(rsp, 2, 1);
  ASSERT_TRUE(back.f.has_ep);
  const auto r = tracker.on_response(back.f.ep, 5, 14'200);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rtt_ns, 4'000u);  // 4200 raw - 200 held at the responder
  EXPECT_EQ(r->adj_svc_time, 200u);
}

}  // namespace
}  // namespace mrc::transport
