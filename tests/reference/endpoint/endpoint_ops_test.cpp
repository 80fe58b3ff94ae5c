// Endpoint EP operations (W10: ep_send probes and port-status updates, req_id rules,
// timeouts), port admin state, and QP capability negotiation seen on the wire (TRIM NACK off for a
// peer without support, dynamic MPR only when both sides enable it).
#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "tests/reference/endpoint/wire_view.hpp"
#include "tests/reference/endpoint/write_workload.hpp"

namespace mrc::ref::testing {
namespace {

EpRequest probe_to_b(const Pair& p, std::uint16_t id, std::uint8_t port) {
  EpRequest r;
  r.req_id = id;
  r.dgid = p.b->config().gid;
  r.dmac = p.b->config().mac;
  r.ev_fmt_mode = wire::EvFmtMode::kUdp;
  r.req_ev[0] = 0xC1;
  r.req_ev[1] = id & 0xFF;
  r.req_port = port;
  return r;
}

TEST(EndpointEp, ProbeIsAnsweredWithRttOnItsPort) {
  Pair p;
  ASSERT_EQ(p.error, "");
  p.fabric->record = true;
  const EpRequest reqs[] = {probe_to_b(p, 7, 2), probe_to_b(p, 8, 5)};
  ASSERT_EQ(p.a->ep_send(34, wire::EpOp::kEvProbe, reqs, 100'000), 0);
  std::vector<EpResponse> got;
  p.fabric->run_until([&] {
    EpResponse r;
    while (p.a->poll_ep_response(r)) got.push_back(r);
    return got.size() == 2;
  }, 1'000'000);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& r : got) {
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.op, wire::EpOp::kEvProbe);
    EXPECT_EQ(r.port, r.req_id == 7 ? 2u : 5u);  // the answer comes back on the probed plane
    EXPECT_GE(r.rtt_ns, 2000u);                   // two 1 us links
    EXPECT_LT(r.rtt_ns, 10'000u);
    EXPECT_EQ(r.adj_svc_time, 0u);  // no MRC 1.0 header carries a service time (W14)
  }
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_probe(w)) {
      EXPECT_EQ(w.f.ip6.dscp, 34u);  // req_tc is the request's DSCP
      EXPECT_EQ(w.f.bth.dest_qp, wire::kEndpointQpn);  // W10
      EXPECT_EQ(w.f.bth.psn, w.f.bth.psn & 0xFFFFu);    // PSN[23:16] = 0, the id below
    }
  }
}

TEST(EndpointEp, RequestIdsMustBeUniqueAmongOutstanding) {
  Pair p;
  ASSERT_EQ(p.error, "");
  const EpRequest dup[] = {probe_to_b(p, 1, 1), probe_to_b(p, 1, 2)};
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, dup, 100'000), EBUSY);
  const EpRequest one[] = {probe_to_b(p, 1, 1)};
  ASSERT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, one, 100'000), 0);
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, one, 100'000), EBUSY);  // still outstanding
  const EpRequest bad_port[] = {probe_to_b(p, 2, 9)};
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, bad_port, 100'000), EINVAL);
  EXPECT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, {}, 100'000), EINVAL);
}

TEST(EndpointEp, UnansweredProbeTimesOut) {
  Pair p;
  ASSERT_EQ(p.error, "");
  p.fabric->filter = [](int side, transport::TxFrame& f, std::uint64_t) { return !(side == 0 && f.port == 4); };
  const EpRequest reqs[] = {probe_to_b(p, 3, 4)};
  ASSERT_EQ(p.a->ep_send(46, wire::EpOp::kEvProbe, reqs, 50'000), 0);
  EpResponse r;
  p.fabric->run_until([&] { return p.a->poll_ep_response(r); }, 1'000'000);
  EXPECT_EQ(r.status, ETIMEDOUT);
  EXPECT_EQ(r.req_id, 3u);
  EXPECT_GE(p.fabric->now(), 50'000u);
}

TEST(EndpointEp, PortStatusUpdateSteersThePeersTraffic) {
  Pair p;
  ASSERT_EQ(p.error, "");
  p.fabric->record = true;
  EpRequest r = probe_to_b(p, 9, 1);
  r.port_status = 0xFF & ~(1u << 4);  // A tells B: my port 5 is down
  ASSERT_EQ(p.a->ep_send(46, wire::EpOp::kPortStatusUpdate, std::span<const EpRequest>(&r, 1), 100'000), 0);
  EpResponse rsp;
  ASSERT_TRUE(p.fabric->run_until([&] { return p.a->poll_ep_response(rsp); }, 1'000'000));
  EXPECT_EQ(rsp.status, 0);
  EXPECT_EQ(rsp.op, wire::EpOp::kPortStatusUpdate);
  // B now writes to A: nothing of it may use plane 5.
  transport::MemoryRegion src, dst;
  ASSERT_EQ(p.b->reg_mr(0, 1 << 20, IBV_ACCESS_LOCAL_WRITE, src), 0);
  ASSERT_EQ(p.a->reg_mr(0, 1 << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, dst), 0);
  transport::SendWr wr;
  wr.local_addr = src.addr;
  wr.length = 64 * 1024;
  wr.lkey = src.lkey;
  wr.remote_addr = dst.addr;
  wr.rkey = dst.rkey;
  ASSERT_EQ(p.b->post_send(p.qp.qpn_b, wr), 0);
  p.fabric->run_for(500'000);
  std::size_t b_data = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 1 && is_data_frame(w)) {
      ++b_data;
      EXPECT_NE(w.port(), 5u);
    }
  }
  EXPECT_EQ(b_data, 64u);
}

TEST(EndpointPorts, DownPortSendsAndReceivesNothing) {
  Pair p;
  ASSERT_EQ(p.error, "");
  p.fabric->record = true;
  ASSERT_EQ(p.a->modify_port(2, false), 0);
  EXPECT_FALSE(p.a->port_up(2));
  EXPECT_EQ(p.a->modify_port(9, false), EINVAL);
  Traffic t = setup_traffic(p);
  post_writes(p, t, 50, 8192);
  p.fabric->run_for(1'000'000);
  EXPECT_EQ(drain_completions(p).first, 50);
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0) {
      EXPECT_NE(w.port(), 2u);
    }
  }
  // A frame arriving on the down port is dropped.
  const auto before = p.a->stats().rx_port_down;
  transport::TxFrame f;
  std::array<std::uint8_t, 64> junk{};
  p.a->on_frame(2, junk, p.fabric->now());
  EXPECT_EQ(p.a->stats().rx_port_down, before + 1);
  ASSERT_EQ(p.a->modify_port(2, true), 0);
  post_writes(p, t, 50, 8192);
  p.fabric->run_for(1'000'000);
  bool used = false;
  for (const auto& w : decode_taps(*p.fabric)) used |= w.from() == 0 && w.port() == 2;
  EXPECT_TRUE(used);
}

std::size_t trim_nacks_on_wire(std::uint32_t cap_b) {
  PairOptions o;
  o.cap_b = cap_b;
  o.timeout = 4;
  Impairment imp;
  imp.trim = 0.05;
  Pair p(o, {}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  WorkloadOptions w;
  w.writes = 300;
  EXPECT_EQ(run_random_writes(p, w).failure, "");  // recovered either way
  std::size_t n = 0;
  for (const auto& f : decode_taps(*p.fabric)) {
    n += f.from() == 1 && is_nack(f) &&
         (f.f.neth.nack_reason == wire::nack::kTrimmed || f.f.neth.nack_reason == wire::nack::kTrimmedLastHop);
  }
  return n;
}

TEST(EndpointCaps, TrimNackOffForAPeerWithoutSupport) {
  EXPECT_GT(trim_nacks_on_wire(0), 0u);
  EXPECT_EQ(trim_nacks_on_wire(transport::qp_cap::kTrimNackDestUnsupported), 0u);
}

std::uint32_t window_after_shrink(std::uint32_t cap_a, std::uint32_t cap_b) {
  PairOptions o;
  o.mtu = IBV_MTU_256;
  o.mpr = 4;
  o.mpr_dest = 4;
  o.cap_a = cap_a;
  o.cap_b = cap_b;
  Pair p(o, LinkParams{1000, 10.0});
  EXPECT_EQ(p.error, "");
  if (cap_b & transport::qp_cap::kDynamicMpr) {
    transport::QpAttr a;
    a.qp_state = transport::QpState::kRts;
    a.mpr_dest = 1;  // B shrinks its window to 128 PSNs before traffic
    EXPECT_EQ(p.b->modify_qp(p.qp.qpn_b, a, transport::qp_attr::kState | transport::qp_attr::kMprDest), 0);
  }
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 100, 8192);
  p.fabric->run_for(2'000'000);
  // Skip the first round trip (A learns B's mpr from the first feedback); count new PSNs only
  // (PSNs of the first burst beyond B's window come back as type-4 and are resent).
  return max_unacked_on_wire(decode_taps(*p.fabric), 0x100, true, 20'000);
}

TEST(EndpointCaps, DynamicMprHonouredOnlyWhenBothSidesEnable) {
  namespace qc = transport::qp_cap;
  EXPECT_LE(window_after_shrink(qc::kDynamicMpr, qc::kDynamicMpr), 128u + 16u);
  EXPECT_GT(window_after_shrink(0, qc::kDynamicMpr), 256u);  // A never enabled it: 512-PSN window
  Pair p;
  transport::QpAttr a;
  a.qp_state = transport::QpState::kRts;
  a.mpr_dest = 1;
  EXPECT_EQ(p.b->modify_qp(p.qp.qpn_b, a, transport::qp_attr::kState | transport::qp_attr::kMprDest), EINVAL);
}

}  // namespace
}  // namespace mrc::ref::testing
