// Wire symptoms of the endpoint-operation defects (W10), each against a control run:
// probe-reqid-mangled, probe-needs-qp, probe-ignores-tc, reqid-reuse, port-status-down-port-up.
#include <gtest/gtest.h>

#include <cerrno>
#include <optional>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

std::vector<WireFrame> ep_frames(Fabric& f, int from, std::uint8_t opcode) {
  std::vector<WireFrame> out;
  for (const auto& w : decode_taps(f)) {
    if (w.ok && w.from() == from && w.f.bth.opcode == opcode && (w.f.has_erth || w.f.has_eeth)) out.push_back(w);
  }
  return out;
}

// A probes B once (req_id 0x1234); B's replies as seen on the wire, and what A's poll reported.
struct ProbeRun {
  std::vector<WireFrame> replies;
  std::optional<EpResponse> result;
};

ProbeRun probe_once(PairOptions o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  const EpRequest r = request_to(*p.b, 0x1234, 2);
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&r, 1), 50'000), 0);
  ProbeRun run;
  EpResponse rsp;
  if (p.fabric->run_until([&] { return p.a->poll_ep_response(rsp); }, 1'000'000)) run.result = rsp;
  run.replies = ep_frames(*p.fabric, 1, wire::opcode::kMrcEndpointRsp);
  return run;
}

TEST(EpDefectWire, ProbeReqidMangled) {
  const ProbeRun good = probe_once({});
  ASSERT_EQ(good.replies.size(), 1u);
  EXPECT_EQ(good.replies[0].f.bth.psn, 0x1234u);  // W10: the id in PSN[15:0]
  ASSERT_TRUE(good.result);
  EXPECT_EQ(good.result->status, 0);

  PairOptions o;
  o.defects_b = with(Defect::kProbeReqidMangled);
  const ProbeRun bad = probe_once(o);
  ASSERT_EQ(bad.replies.size(), 1u);
  EXPECT_EQ(bad.replies[0].f.bth.psn, 0x1235u);  // the reply names another request
  ASSERT_TRUE(bad.result);
  EXPECT_EQ(bad.result->status, ETIMEDOUT);  // so the prober never matches it
}

// Two endpoints with profiles but no QP between them: A probes B.
std::size_t replies_without_qp(const DefectSet& b_defects) {
  PairOptions o;
  o.defects_b = b_defects;
  Endpoint a(endpoint_config(o, 0));
  Endpoint b(endpoint_config(o, 1));
  EXPECT_EQ(setup_profiles(a, o), "");
  EXPECT_EQ(setup_profiles(b, o), "");
  EXPECT_TRUE(a.qp_numbers().empty() && b.qp_numbers().empty());
  Fabric f(a, b);
  f.record = true;
  const EpRequest r = request_to(b, 77, 1);
  EXPECT_EQ(a.ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&r, 1), 50'000), 0);
  f.run_for(200'000);
  return ep_frames(f, 1, wire::opcode::kMrcEndpointRsp).size();
}

TEST(EpDefectWire, ProbeNeedsQp) {
  EXPECT_EQ(replies_without_qp({}), 1u);  // connectionless: answered with no QP at all
  EXPECT_EQ(replies_without_qp(with(Defect::kProbeNeedsQp)), 0u);
  // With a QP towards the prober the defective responder answers: the defect hides in a
  // connected setup.
  PairOptions o;
  o.defects_b = with(Defect::kProbeNeedsQp);
  EXPECT_EQ(probe_once(o).replies.size(), 1u);
}

std::vector<WireFrame> requests_with_tc(const DefectSet& a_defects, wire::EpOp op) {
  PairOptions o;
  o.defects_a = a_defects;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  const EpRequest r = request_to(*p.b, 5, 1);
  EXPECT_EQ(p.a->ep_send(26, op, std::span<const EpRequest>(&r, 1), 50'000), 0);
  p.fabric->run_for(100'000);
  return ep_frames(*p.fabric, 0, wire::opcode::kMrcEndpointReq);
}

TEST(EpDefectWire, ProbeIgnoresTc) {
  const auto good = requests_with_tc({}, wire::EpOp::kEvProbe);
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].f.ip6.dscp, 26);
  const auto bad = requests_with_tc(with(Defect::kProbeIgnoresTc), wire::EpOp::kEvProbe);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].f.ip6.dscp, wire::DscpConfig{}.control);
  const auto update = requests_with_tc(with(Defect::kProbeIgnoresTc), wire::EpOp::kPortStatusUpdate);
  ASSERT_EQ(update.size(), 1u);
  EXPECT_EQ(update[0].f.ip6.dscp, 26);  // only probes are affected
}

std::vector<std::uint16_t> ids_on_wire(const DefectSet& a_defects) {
  PairOptions o;
  o.defects_a = a_defects;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  for (std::uint8_t port = 1; port <= 3; ++port) {  // three probes at once, ids from the endpoint
    const auto id = p.a->next_ep_req_id();
    EXPECT_TRUE(id);
    const EpRequest r = request_to(*p.b, id.value_or(0), port);
    EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&r, 1), 50'000), 0);
  }
  p.fabric->run_for(200'000);
  std::vector<std::uint16_t> ids;
  for (const auto& w : ep_frames(*p.fabric, 0, wire::opcode::kMrcEndpointReq)) ids.push_back(static_cast<std::uint16_t>(w.f.bth.psn));
  return ids;
}

TEST(EpDefectWire, ReqidReuse) {
  const auto good = ids_on_wire({});
  ASSERT_EQ(good.size(), 3u);
  EXPECT_NE(good[0], good[1]);
  EXPECT_NE(good[1], good[2]);
  EXPECT_NE(good[0], good[2]);
  const auto bad = ids_on_wire(with(Defect::kReqidReuse));
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_EQ(bad[0], bad[1]);  // reused while the first is outstanding
  EXPECT_EQ(bad[1], bad[2]);
}

TEST(EpDefectWire, ReqidReuseAcceptsABusyId) {
  Pair p;
  ASSERT_EQ(p.error, "");
  const EpRequest r = request_to(*p.b, 9, 1);
  ASSERT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&r, 1), 50'000), 0);
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&r, 1), 50'000), EBUSY);
  PairOptions o;
  o.defects_a = with(Defect::kReqidReuse);
  Pair q(o);
  ASSERT_EQ(q.error, "");
  const EpRequest s = request_to(*q.b, 9, 1);
  ASSERT_EQ(q.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&s, 1), 50'000), 0);
  EXPECT_EQ(q.a->ep_send(46, wire::EpOp::kEvProbe, std::span<const EpRequest>(&s, 1), 50'000), 0);
}

// A (port 3 down) sends B a port-status update: the ERTH mask on the wire, and the ports B records.
std::pair<std::uint32_t, std::uint32_t> port_masks(const DefectSet& defects) {
  PairOptions o;
  o.defects_a = defects;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  EXPECT_EQ(p.a->modify_port(3, false), 0);
  const EpRequest r = request_to(*p.b, 12, 1);  // port_status 0: A's own up ports
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kPortStatusUpdate, std::span<const EpRequest>(&r, 1), 50'000), 0);
  p.fabric->run_for(100'000);
  const auto req = ep_frames(*p.fabric, 0, wire::opcode::kMrcEndpointReq);
  const auto rsp = ep_frames(*p.fabric, 1, wire::opcode::kMrcEndpointRsp);
  EXPECT_EQ(req.size(), 1u);
  EXPECT_EQ(rsp.size(), 1u);  // the update is answered, naming its id
  if (req.empty() || rsp.empty()) return {0, 0};
  EXPECT_EQ(rsp[0].f.bth.psn, 12u);
  return {req[0].f.erth.port_status_mask, wire::up_ports_of_mask(req[0].f.erth.port_status_mask)};
}

TEST(EpDefectWire, PortStatusDownPortUp) {
  // 8 ports; A's port 3 down: the ERTH mask has bit N for each up port N (MODEL: W10), bit 3 clear.
  EXPECT_EQ(port_masks({}), std::make_pair(0x1F6u, 0xFBu));
  // The defect reports port 3 usable although it is down.
  EXPECT_EQ(port_masks(with(Defect::kPortStatusDownPortUp)), std::make_pair(0x1FEu, 0xFFu));
}

}  // namespace
}  // namespace mrc::ref::testing
