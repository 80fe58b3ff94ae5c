// The reference backend's protocol logic without interfaces: two backends joined by an in-memory
// wire, driven with a virtual clock. APPLY + CONNECT bring up a QP pair, a WRITE (and a WRITE
// with immediate) lands byte-exact, and the control requests reach the endpoint.
#include <gtest/gtest.h>

#include <cerrno>

#include "harness/agent/reference_backend.hpp"
#include "tests/harness/agent/agent_test_support.hpp"

namespace mrc::agent::testing {
namespace {

ap::ApplyConfig stev_config() {
  ap::ApplyConfig c;
  c.format_mode = ap::FormatMode::kStev;
  c.format_widths = {16, 16};
  c.ev_mode = ap::EvMode::kExplicit;
  c.fields = {{16, 0, 0, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  for (std::uint8_t i = 0; i < 8; ++i) {
    c.evs.push_back({{static_cast<std::uint8_t>(0x10 + i), 0x00, static_cast<std::uint8_t>(i + 1)},
                     static_cast<std::uint8_t>(1 + i % 2)});
  }
  c.ev_min_active = 1;
  ap::NsccParams cc;
  cc.base_rtt = 12000;
  c.cc = cc;
  c.qp.mtu = 1024;
  c.regions = {{0x10000000, 64 * 1024}};
  return c;
}

ap::PeerInfo peer_of(const ap::ApplyOk& ok) {
  ap::PeerInfo p;
  p.gid = ok.gid;
  p.mac = ok.mac;
  p.ipv4 = ok.ipv4;
  p.qpns = ok.qpns;
  p.mpr_dest = ok.mpr_dest;
  p.max_wimm_dest = ok.max_wimm_dest;
  p.qp_caps = ok.qp_caps;
  p.first_psn = ok.first_psn;
  return p;
}

struct Pair {
  MemoryWire wire;
  ReferenceBackend a{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2})};
  ReferenceBackend b{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 1, std::vector<std::uint8_t>{1, 2})};
  ap::ApplyOk ok_a, ok_b;
  std::uint64_t t = 0;

  void bring_up(const ap::ApplyConfig& c) {
    Outcome o = a.apply(c, ok_a);
    ASSERT_TRUE(o.ok()) << o.text;
    o = b.apply(c, ok_b);
    ASSERT_TRUE(o.ok()) << o.text;
    ASSERT_TRUE(a.connect(peer_of(ok_b)).ok());
    ASSERT_TRUE(b.connect(peer_of(ok_a)).ok());
  }
  // Runs both sides in 1 us steps until `done` or `limit_ns` of virtual time.
  template <typename F>
  bool run(F done, std::uint64_t limit_ns = 20'000'000) {
    const std::uint64_t end = t + limit_ns;
    while (t < end) {
      t += 1000;
      a.service(t);
      b.service(t);
      if (done()) return true;
    }
    return false;
  }
};

TEST(ReferenceBackend, WriteLandsByteExact) {
  Pair p;
  p.bring_up(stev_config());
  EXPECT_NE(p.ok_a.gid, p.ok_b.gid);  // derived from distinct MACs
  ASSERT_EQ(p.ok_b.regions.size(), 1u);
  std::vector<std::uint8_t> data(10000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 3);
  ASSERT_TRUE(p.a.write_memory({p.ok_a.regions[0].addr, data}).ok());
  ap::PostWrite w;
  w.wr_id = 77;
  w.length = static_cast<std::uint32_t>(data.size());
  w.remote_addr = p.ok_b.regions[0].addr + 100;
  w.rkey = p.ok_b.regions[0].rkey;
  const Outcome o = p.a.post_write(w);
  ASSERT_TRUE(o.ok()) << o.text;
  ap::Completions c;
  ASSERT_TRUE(p.run([&] {
    ap::Completions got;
    p.a.poll(ap::Poll{}, got);
    c.completions.insert(c.completions.end(), got.completions.begin(), got.completions.end());
    return !c.completions.empty();
  }));
  ASSERT_EQ(c.completions.size(), 1u);
  EXPECT_EQ(c.completions[0].wr_id, 77u);
  EXPECT_EQ(c.completions[0].status, 0);
  EXPECT_TRUE(c.completions[0].is_send);
  EXPECT_EQ(c.completions[0].qp, 0u);
  ap::MemoryBytes got;
  ASSERT_TRUE(p.b.read_memory({p.ok_b.regions[0].addr + 100, static_cast<std::uint32_t>(data.size())}, got).ok());
  EXPECT_EQ(got.bytes, data);
  // The frames went over both ports (EVs alternate planes).
  ap::StateReport st;
  p.a.query_state(st);
  ASSERT_EQ(st.evs.size(), 8u);
  EXPECT_EQ(st.evs[1].port, 2);
  EXPECT_NE(st.evs[0].echo, st.evs[1].echo);
  double data_tx = 0;
  for (const auto& k : st.counters) {
    if (k.name == "ep.data_tx") data_tx = k.value;
  }
  EXPECT_GE(data_tx, 10.0);  // 10000 bytes at MTU 1024
}

TEST(ReferenceBackend, WriteWithImmediateCompletesOnTheResponder) {
  Pair p;
  p.bring_up(stev_config());
  ASSERT_TRUE(p.b.post_recv({0, 5}).ok());
  ap::PostWrite w;
  w.wr_id = 9;
  w.length = 3000;
  w.remote_addr = p.ok_b.regions[0].addr;
  w.rkey = p.ok_b.regions[0].rkey;
  w.with_imm = true;
  w.imm = 0xABCD1234;
  ASSERT_TRUE(p.a.post_write(w).ok());
  std::vector<ap::CompletionInfo> rx;
  ASSERT_TRUE(p.run([&] {
    ap::Completions got;
    p.b.poll(ap::Poll{}, got);
    rx.insert(rx.end(), got.completions.begin(), got.completions.end());
    return !rx.empty();
  }));
  EXPECT_EQ(rx[0].wr_id, 5u);
  EXPECT_FALSE(rx[0].is_send);
  EXPECT_TRUE(rx[0].has_imm);
  EXPECT_EQ(rx[0].imm, 0xABCD1234u);
}

TEST(ReferenceBackend, RequestsBeforeApplyAreRefused) {
  MemoryWire wire;
  ReferenceBackend a(ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1}));
  EXPECT_EQ(a.post_write({}).code, ap::ErrorCode::kNotApplied);
  EXPECT_EQ(a.connect({}).code, ap::ErrorCode::kNotApplied);
  EXPECT_EQ(a.set_ev_state({0, true}).code, ap::ErrorCode::kNotApplied);
  EXPECT_EQ(a.ep_op({}).code, ap::ErrorCode::kNotApplied);
  ap::MemoryBytes m;
  EXPECT_EQ(a.read_memory({0, 1}, m).code, ap::ErrorCode::kNotApplied);
  // Frames arriving before APPLY are counted, not fed to anything.
  wire.to[0].emplace_back(1, std::vector<std::uint8_t>(60, 0));
  a.service(1000);
  ap::StateReport st;
  a.query_state(st);
  bool found = false;
  for (const auto& c : st.counters) {
    if (c.name == "agent.rx_before_apply") found = c.value == 1.0;
  }
  EXPECT_TRUE(found);
}

// agent.rx.p<N> counts every frame received on port N, before APPLY_CONFIG and after it: the
// port-map probe of `mrc-conform doctor` reads them.
TEST(ReferenceBackend, CountsFramesPerPortBeforeAndAfterApply) {
  MemoryWire wire;
  ReferenceBackend a(ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2, 3}));
  auto counter = [&a](const std::string& name) {
    ap::StateReport st;
    EXPECT_TRUE(a.query_state(st).ok());
    EXPECT_TRUE(st.evs.empty() || a.endpoint() != nullptr);
    for (const auto& c : st.counters) {
      if (c.name == name) return c.value;
    }
    return -1.0;
  };
  EXPECT_EQ(counter("agent.rx.p1"), 0.0);
  EXPECT_EQ(counter("agent.rx.p4"), -1.0);  // no such port: no counter
  wire.to[0].emplace_back(2, std::vector<std::uint8_t>(60, 0));
  wire.to[0].emplace_back(2, std::vector<std::uint8_t>(60, 0));
  wire.to[0].emplace_back(3, std::vector<std::uint8_t>(60, 0));
  a.service(1000);
  EXPECT_EQ(counter("agent.rx.p1"), 0.0);
  EXPECT_EQ(counter("agent.rx.p2"), 2.0);
  EXPECT_EQ(counter("agent.rx.p3"), 1.0);
  ap::ApplyOk ok;
  ap::ApplyConfig c = stev_config();
  for (auto& ev : c.evs) ev.port = 1;
  ASSERT_TRUE(a.apply(c, ok).ok());
  wire.to[0].emplace_back(1, std::vector<std::uint8_t>(60, 0));  // not MRC: the endpoint ignores it
  a.service(2000);
  EXPECT_EQ(counter("agent.rx.p1"), 1.0);
  EXPECT_EQ(counter("agent.rx.p2"), 2.0);
  EXPECT_EQ(counter("agent.rx_before_apply"), 3.0);
}

TEST(ReferenceBackend, DeviceRulesComeBackAsRejections) {
  MemoryWire wire;
  ReferenceBackend a(ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2}));
  ap::ApplyOk ok;
  ap::ApplyConfig c = stev_config();
  c.evs[3].port = 5;  // no interface is port 5: not in phy_port_mask
  Outcome o = a.apply(c, ok);
  EXPECT_EQ(o.code, ap::ErrorCode::kRejected);
  EXPECT_EQ(o.err, EINVAL);
  // The reference adapter names the EV it could not install and the controller's reason.
  EXPECT_NE(o.text.find("EV 3"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("phy_port_mask"), std::string::npos) << o.text;
  c = stev_config();
  c.ev_min_active = 9;  // more than the 8 EVs in the array
  o = a.apply(c, ok);
  EXPECT_EQ(o.code, ap::ErrorCode::kRejected) << o.text;
  EXPECT_EQ(o.err, EINVAL);
  c = stev_config();
  c.ipv4 = true;  // the agent was given no IPv4 address
  EXPECT_EQ(a.apply(c, ok).code, ap::ErrorCode::kRejected);
  // After failures a good APPLY still works.
  o = a.apply(stev_config(), ok);
  EXPECT_TRUE(o.ok()) << o.text;
  EXPECT_EQ(a.post_write(ap::PostWrite{3, 1, 0, 0, 16, 0, 0, false, 0}).code, ap::ErrorCode::kBadValue);  // QP 3
  EXPECT_EQ(a.post_write(ap::PostWrite{0, 1, 0, 65000, 1000, 0, 0, false, 0}).code, ap::ErrorCode::kLimit);
  ap::MemoryBytes m;
  EXPECT_EQ(a.read_memory({ok.regions[0].addr + 65530, 10}, m).code, ap::ErrorCode::kLimit);
  EXPECT_EQ(a.set_ev_state({99, true}).code, ap::ErrorCode::kBadValue);
}

TEST(ReferenceBackend, ControlRequestsReachTheEndpoint) {
  Pair p;
  ap::ApplyConfig c = stev_config();
  c.denied = {2};
  p.bring_up(c);
  ap::StateReport st;
  p.a.query_state(st);
  EXPECT_TRUE(st.evs[2].denied);
  EXPECT_EQ(st.evs[2].state, 1u << 2);  // DENIED
  ASSERT_TRUE(p.a.set_ev_state({2, false}).ok());
  ASSERT_TRUE(p.a.set_ev_state({5, true}).ok());
  st = {};
  p.a.query_state(st);
  EXPECT_FALSE(st.evs[2].denied);
  EXPECT_TRUE(st.evs[5].denied);

  ASSERT_TRUE(p.a.port_admin({2, false}).ok());
  EXPECT_FALSE(p.a.endpoint()->port_up(2));
  EXPECT_EQ(p.a.port_admin({9, false}).code, ap::ErrorCode::kRejected);
  ASSERT_TRUE(p.a.port_admin({2, true}).ok());

  // An EV probe goes out and is answered by the peer's endpoint.
  ASSERT_TRUE(p.a.ep_op({ap::EpOpKind::kProbeEv, 1}).ok());
  ASSERT_TRUE(p.run([&] { return p.a.endpoint()->stats().probes_ok + p.a.endpoint()->stats().ep_tx > 0; }, 2'000'000));
  p.run([] { return false; }, 2'000'000);
  st = {};
  p.a.query_state(st);
  double responses = -1;
  for (const auto& k : st.counters) {
    if (k.name == "agent.ep_responses") responses = k.value;
  }
  EXPECT_EQ(responses, 1.0);
  ASSERT_TRUE(p.a.reset().ok());
  EXPECT_EQ(p.a.endpoint(), nullptr);
}

TEST(ReferenceBackend, IdentityNamesDefectsAndPorts) {
  MemoryWire wire;
  ReferenceOptions o;
  o.policy = *harness::parse_reference_policy("sack-eager,spray-single-ev", nullptr);
  ReferenceBackend a(o, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 3}));
  EXPECT_EQ(a.identity(), "reference:spray-single-ev,sack-eager on p1=mem0.1,p3=mem0.3");
}

}  // namespace
}  // namespace mrc::agent::testing
