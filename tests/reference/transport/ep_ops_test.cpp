// Endpoint operations (W10): request building (0xD8, DestQP 0x2, the id in PSN[15:0], the ERTH),
// the responder (0xD9, the id and op echoed, the ERTH timestamp reflected, the Control class, the
// default path), port-status recording, request-id rules and RTT.
#include <gtest/gtest.h>

#include <vector>

#include "reference/transport/ep_ops.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport {
namespace {

// Encodes an endpoint TxPacket as the endpoint would (addresses filled here) and decodes it back.
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
  s.has_erth = p.has_erth;
  s.erth = p.erth;
  s.has_eeth = p.has_eeth;
  s.eeth = p.eeth;
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
  return s;
}

TEST(EpOps, BuildsARequest) {
  TxPacket p;
  build_ep_request(probe_spec(), p);
  EXPECT_EQ(p.qpn, 0u);
  EXPECT_EQ(p.bth.opcode, wire::opcode::kMrcEndpointReq);
  EXPECT_EQ(p.bth.dest_qp, wire::kEndpointQpn);
  EXPECT_EQ(p.bth.psn, 0x1234u);  // the id in PSN[15:0], PSN[23:16] = 0
  EXPECT_EQ(p.dscp, 26);          // req_tc
  EXPECT_EQ(p.path.port, 3);
  EXPECT_EQ(p.path.ev[0], 0x12);
  ASSERT_TRUE(p.has_erth);
  EXPECT_FALSE(p.has_eeth);
  EXPECT_EQ(p.erth.op, static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe));
  EXPECT_EQ(p.erth.port_status_mask, 0u);  // only an update carries one
  EXPECT_EQ(p.erth.ts.tx_timestamp, static_cast<std::uint16_t>(0x0102030405060708ull / wire::kTimestampUnitNs));
  EXPECT_EQ(p.erth.ts.ftype, wire::kFtypeTimestamp);
  // A port-status update carries the up ports in the ERTH numbering (bit N = port N, W10).
  EpRequestSpec u = probe_spec();
  u.op = wire::EpOp::kPortStatusUpdate;
  u.port_status = 0b1011;  // ports 1, 2 and 4 up
  build_ep_request(u, p);
  EXPECT_EQ(p.erth.op, static_cast<std::uint8_t>(wire::EpWireOp::kPortStatusUpdate));
  EXPECT_EQ(p.erth.port_status_mask, 0b10110u);
}

TEST(EpOps, ProbeResponderEchoesTheIdAndReflectsTheTimestamp) {
  TxPacket req;
  build_ep_request(probe_spec(), req);
  const EpFrame in = to_wire(req, 1, 2);
  EpResponderConfig cfg;
  cfg.control_dscp = 40;
  cfg.default_path.kind = TxPath::Kind::kExplicitEv;
  cfg.default_path.port = 7;
  cfg.default_path.ev[0] = 0x77;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(in.f, 3, 1000, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.bth.opcode, wire::opcode::kMrcEndpointRsp);
  EXPECT_EQ(rsp.bth.dest_qp, wire::kEndpointQpn);
  EXPECT_EQ(rsp.bth.psn, 0x1234u);
  ASSERT_TRUE(rsp.has_eeth);
  EXPECT_FALSE(rsp.has_erth);
  EXPECT_EQ(rsp.eeth.op, static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe));
  EXPECT_EQ(rsp.eeth.tx_timestamp, in.f.erth.ts.tx_timestamp);
  EXPECT_EQ(rsp.dscp, 40);  // the Control class, whatever class the request came in (S1: W10)
  EXPECT_EQ(rsp.ecn, wire::kEcnNotEct);
  EXPECT_EQ(rsp.path.port, 7);
  EXPECT_EQ(rsp.path.ev[0], 0x77);
  EXPECT_EQ(rsp.dgid[15], 1);  // back to the prober
  EXPECT_EQ(rsp.dmac[5], 1);
  EXPECT_EQ(r.stats().probes, 1u);
  // The response decodes as one: EETH after the BTH, the id in PSN[15:0].
  const EpFrame back = to_wire(rsp, 2, 1);
  EXPECT_TRUE(back.f.has_eeth);
  EXPECT_EQ(ep_request_id(back.f.bth), 0x1234u);
}

TEST(EpOps, ADefaultPathWithoutAPortAnswersOnTheArrivalPort) {
  TxPacket req;
  build_ep_request(probe_spec(), req);
  EpResponderConfig cfg;
  cfg.default_path.kind = TxPath::Kind::kExplicitEv;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(to_wire(req, 1, 2).f, 6, 0, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.path.port, 6);
}

TEST(EpOps, PortStatusUpdateIsRecordedPerPeer) {
  EpRequestSpec s = probe_spec();
  s.op = wire::EpOp::kPortStatusUpdate;
  s.port_status = 0b0110;  // ports 2 and 3 up
  TxPacket req;
  build_ep_request(s, req);
  const EpFrame from1 = to_wire(req, 1, 2);
  EpResponderConfig cfg;
  cfg.max_peers = 1;
  EpResponder r(cfg);
  TxPacket rsp;
  ASSERT_EQ(r.on_request(from1.f, 1, 0, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(rsp.eeth.op, static_cast<std::uint8_t>(wire::EpWireOp::kPortStatusUpdate));
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
  build_ep_request(s, req);
  ASSERT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 5, rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(*r.peers().ports(gid1), 0b0001u);
  EXPECT_EQ(r.on_request(to_wire(req, 9, 2).f, 1, 6, rsp), EpRxOutcome::kPeerTableFull);
  EXPECT_EQ(ep_request_id(rsp.bth), 0x1234u);
}

TEST(EpOps, ResponderDropsWhatIsNotARequest) {
  EpResponder r({});
  TxPacket rsp;
  // A response is no request.
  TxPacket req;
  build_ep_request(probe_spec(), req);
  TxPacket as_rsp;
  ASSERT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, as_rsp), EpRxOutcome::kResponded);
  EXPECT_EQ(r.on_request(to_wire(as_rsp, 1, 2).f, 1, 0, rsp), EpRxOutcome::kDroppedNotRequest);
  // A request to another QP than 0x2 (W10), or with an op no source names, is not answered.
  req.bth.dest_qp = 0x10;
  EXPECT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, rsp), EpRxOutcome::kDroppedBadHeader);
  build_ep_request(probe_spec(), req);
  req.erth.op = 2;
  EXPECT_EQ(r.on_request(to_wire(req, 1, 2).f, 1, 0, rsp), EpRxOutcome::kDroppedBadHeader);
  // A bad ICRC is dropped before anything is read.
  build_ep_request(probe_spec(), req);
  EpFrame bad = to_wire(req, 1, 2);
  bad.bytes.back() ^= 0xFF;
  ASSERT_TRUE(wire::decode_frame(bad.bytes, bad.f).ok());
  EXPECT_EQ(r.on_request(bad.f, 1, 0, rsp), EpRxOutcome::kDroppedBadIcrc);
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
  EXPECT_FALSE(t.on_response(7, wire::Eeth{}, 1, 1800).has_value());
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

TEST(EpOps, RttIsArrivalMinusSendAndATamperedTimestampIsFlagged) {
  EpRequestTracker t({8, 0});
  ASSERT_EQ(t.begin(1, wire::EpOp::kEvProbe, 1280, 100000), EpRequestTracker::Status::kOk);
  ASSERT_EQ(t.begin(2, wire::EpOp::kEvProbe, 1280, 100000), EpRequestTracker::Status::kOk);
  wire::Eeth rsp;
  rsp.tx_timestamp = 1280 / wire::kTimestampUnitNs;  // the ERTH timestamp reflected
  const auto r = t.on_response(1, rsp, 4, 6000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rtt_ns, 4720u);
  EXPECT_EQ(r->port, 4);
  EXPECT_TRUE(r->timestamp_echoed);
  EXPECT_FALSE(t.busy(1));  // answered: free at once
  rsp.tx_timestamp = 9;
  const auto r2 = t.on_response(2, rsp, 4, 6000);
  ASSERT_TRUE(r2);
  EXPECT_FALSE(r2->timestamp_echoed);
  EXPECT_FALSE(t.on_response(2, rsp, 4, 7000).has_value());  // answered already
  EXPECT_EQ(t.stats().unknown, 1u);
}

TEST(EpOps, EndToEndProbeThroughResponderAndTracker) {
  EpRequestTracker tracker({8, 0});
  EpRequestSpec s = probe_spec();
  s.tx_timestamp_ns = 10'000;
  ASSERT_EQ(tracker.begin(s.req_id, s.op, 10'000, 1'000'000), EpRequestTracker::Status::kOk);
  TxPacket req;
  build_ep_request(s, req);
  EpResponder responder({});
  TxPacket rsp;
  ASSERT_EQ(responder.on_request(to_wire(req, 1, 2).f, 3, 12'000, rsp), EpRxOutcome::kResponded);
  const EpFrame back = to_wire(rsp, 2, 1);
  ASSERT_TRUE(back.f.has_eeth);
  const auto r = tracker.on_response(ep_request_id(back.f.bth), back.f.eeth, 5, 14'200);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rtt_ns, 4'200u);
  EXPECT_TRUE(r->timestamp_echoed);
  EXPECT_EQ(r->port, 5);
}

}  // namespace
}  // namespace mrc::transport
