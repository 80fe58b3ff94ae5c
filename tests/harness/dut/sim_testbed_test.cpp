// The Testbed interface over the simulator (harness/testbed/testbed.cpp). Lives with the DUT tests
// (label harness): tests/harness/testbed is the simulator's own suite.
#include <gtest/gtest.h>

#include <set>

#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/stimulus/frame_builder.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/endpoint.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {
namespace {

std::unique_ptr<Testbed> make(const TestbedRequest& spec) {
  std::string why;
  auto tb = make_sim_testbed(spec, 1, &why);
  EXPECT_TRUE(tb) << why;
  return tb;
}

TEST(SimTestbed, PresetsOverridesAndErrors) {
  TestbedRequest s;
  s.planes = 4;
  s.overrides = {{"queue_bytes", "262144"}};
  auto tb = make(s);
  ASSERT_TRUE(tb);
  EXPECT_EQ(tb->planes(), 4u);
  EXPECT_EQ(tb->hosts(), 2u);
  EXPECT_NE(tb->name().find("sim:mini"), std::string::npos);

  std::string why;
  EXPECT_FALSE(make_sim_testbed(TestbedRequest::named("galaxy"), 1, &why));
  EXPECT_NE(why.find("unknown testbed preset 'galaxy'"), std::string::npos);
  EXPECT_NE(why.find("rack"), std::string::npos);
  TestbedRequest bad;
  bad.overrides = {{"queue_bites", "1"}};
  EXPECT_FALSE(make_sim_testbed(bad, 1, &why));
  EXPECT_FALSE(why.empty());
  TestbedRequest file;
  file.file = "/nonexistent/testbed.yaml";
  EXPECT_FALSE(make_sim_testbed(file, 1, &why));
  EXPECT_NE(why.find("testbed.yaml"), std::string::npos);
}

TEST(SimTestbed, AddressesLinksAndSwitches) {
  auto tb = make(TestbedRequest{});
  const HostAddress a = tb->host_address(0);
  const HostAddress b = tb->host_address(1);
  EXPECT_NE(a.gid, b.gid);
  const LinkRef l = tb->host_link(0, 3);
  EXPECT_EQ(l.plane, 3);
  EXPECT_EQ(l.host, 0);
  EXPECT_EQ(tb->find_link(l.name).id, l.id);
  EXPECT_EQ(tb->find_link("plane9/nowhere").id, UINT32_MAX);
  EXPECT_EQ(tb->host_link(0, 99).id, UINT32_MAX);
  EXPECT_TRUE(tb->switch_exists("plane1/spine0"));
  EXPECT_FALSE(tb->switch_exists("plane1/spine9"));
}

TEST(SimTestbed, DefaultEvsRouteAndThePathQueryFollowsThem) {
  auto tb = make(TestbedRequest{});
  for (wire::EvFmtMode mode : {wire::EvFmtMode::kStev, wire::EvFmtMode::kUdp, wire::EvFmtMode::kSrv6}) {
    const auto d = tb->default_evs(mode, 0, 1);
    ASSERT_FALSE(d.evs.empty()) << static_cast<int>(mode);
    std::set<std::uint8_t> ports;
    stim::FrameContext fc;
    fc.src_gid = tb->host_address(0).gid;
    fc.dst_gid = tb->host_address(1).gid;
    fc.src_mac = tb->host_address(0).mac;
    fc.dst_mac = tb->host_address(1).mac;
    fc.mode = mode;
    fc.srv6_encapsulated = true;
    for (std::size_t i = 0; i < d.evs.size(); ++i) {
      stim::WireEv w;
      std::copy(d.evs[i].first.begin(), d.evs[i].first.end(), w.wire.begin());
      w.port = d.evs[i].second;
      w.index = static_cast<std::uint8_t>(i);
      fc.evs.push_back(w);
      ports.insert(w.port);
    }
    EXPECT_EQ(ports.size(), 8u);
    std::set<std::string> spines;
    for (std::size_t i = 0; i < fc.evs.size(); ++i) {
      FrameSpec f;
      f.opcode = wire::opcode::kMrcWriteOnly;
      f.ev = static_cast<std::uint32_t>(i);
      const auto frame = stim::build_frame(f, fc);
      ASSERT_TRUE(frame.ok());
      const Testbed::Path p = tb->path_of(0, fc.evs[i].port, frame.bytes);
      EXPECT_TRUE(p.delivered) << static_cast<int>(mode) << " EV " << i;
      EXPECT_EQ(p.links.front().plane, fc.evs[i].port);
      for (const auto& s : p.switches) {
        if (s.find("spine") != std::string::npos) spines.insert(s);
      }
    }
    EXPECT_EQ(spines.size(), 16u) << static_cast<int>(mode);  // 8 planes x 2 spines, all used
  }
}

TEST(SimTestbed, TapsInjectHookAndFaults) {
  auto tb = make(TestbedRequest{});
  ReferenceBinding dut;
  ReferenceBinding peer;
  ASSERT_TRUE(dut.attach(*tb, 0).ok());
  ASSERT_TRUE(peer.attach(*tb, 1).ok());
  DutSetup s;
  use_default_evs(s, tb->default_evs(wire::EvFmtMode::kStev, 0, 1));
  s.ev_min_active = 1;
  DutLocal local, peer_local;
  ASSERT_TRUE(dut.apply(s, local).ok());
  ASSERT_TRUE(peer.apply(s, peer_local).ok());
  ASSERT_TRUE(dut.connect(peer_local).ok());
  ASSERT_TRUE(peer.connect(local).ok());
  ASSERT_TRUE(tb->add_tap("dut.p1.rx", 0, 1, false).empty());
  ASSERT_TRUE(tb->add_tap("dut.p1.tx", 0, 1, true).empty());
  EXPECT_FALSE(tb->add_tap("bad", 0, 12, true).empty());

  // A READ request straight into the DUT's port 1: it arrives (rx tap) and draws a NAK (tx tap).
  stim::FrameContext fc;
  fc.src_gid = tb->host_address(1).gid;
  fc.dst_gid = tb->host_address(0).gid;
  fc.dqpn = local.qpns[0];
  FrameSpec f;
  f.opcode = wire::opcode::kRcReadRequest;
  f.payload = PayloadSpec{PayloadPattern::kZero, 0};
  const auto frame = stim::build_frame(f, fc);
  ASSERT_TRUE(tb->inject_to(0, 1, frame.bytes, 1000).empty());
  EXPECT_FALSE(tb->inject_to(0, 40, frame.bytes, 1000).empty());

  int hooked = 0;
  tb->set_impairment_hook([&](const LinkPacket& p) {
    ++hooked;
    EXPECT_GT(p.len, 0);
    return ImpairAction{};
  });
  FaultRequest down;
  down.kind = FaultRequest::Kind::kLinkDown;
  down.at_ns = 50'000;
  down.target = tb->host_link(0, 2).name;
  EXPECT_TRUE(tb->schedule_fault(down).empty());
  down.target = "plane2/nowhere";
  EXPECT_FALSE(tb->schedule_fault(down).empty());
  tb->run_until(100'000);
  EXPECT_EQ(tb->now(), 100'000u);
  const auto faults = tb->faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, "link_down");
  EXPECT_EQ(faults[0].at_ns, 50'000u);
  const auto taps = tb->take_taps();
  ASSERT_EQ(taps.size(), 2u);
  EXPECT_EQ(taps[0].capture.size(), 1u);
  EXPECT_FALSE(taps[0].from_dut);
  ASSERT_GE(taps[1].capture.size(), 1u);
  EXPECT_TRUE(taps[1].from_dut);
  EXPECT_TRUE(taps[1].capture.integrity().complete());
  wire::DecodedFrame nak;
  const auto b = taps[1].capture.bytes(0);
  ASSERT_TRUE(wire::decode_frame(wire::Bytes(b.data(), b.size()), nak).ok());
  EXPECT_EQ(nak.bth.opcode, wire::opcode::kMrcAck);  // a Transport NAK (W8)
  EXPECT_EQ(nak.aeth.syndrome, wire::syndrome::kNakInvalidRequest);
  EXPECT_GT(hooked, 0);
}

// Any host, not only the reference endpoint: a frame port that only records what reaches it and
// answers each frame with one of its own (a loopback NIC) is driven like an endpoint — frames in
// with their arrival time, its frames out on the port it names, its timer honoured, its port
// taken down by a port fault.
class LoopbackPort final : public FramePort {
 public:
  void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) override {
    arrivals.emplace_back(port, now_ns);
    pending_.assign(frame.begin(), frame.end());
    reply_port_ = port;
    wake_at_ = now_ns + 500;  // answer half a microsecond later, by timer
  }
  void advance(std::uint64_t now_ns) override { now_ = now_ns; }
  bool poll_frame(transport::TxFrame& out) override {
    if (pending_.empty() || now_ < wake_at_ || !up_[reply_port_]) return false;
    out.port = reply_port_;
    out.len = static_cast<std::uint16_t>(pending_.size());
    std::copy(pending_.begin(), pending_.end(), out.bytes.begin());
    pending_.clear();
    wake_at_ = UINT64_MAX;
    return true;
  }
  std::uint64_t next_deadline() const override { return pending_.empty() ? UINT64_MAX : wake_at_; }
  int set_port_up(std::uint8_t port, bool up) override {
    up_[port] = up;
    return 0;
  }

  std::vector<std::pair<std::uint8_t, std::uint64_t>> arrivals;

 private:
  std::vector<std::uint8_t> pending_;
  std::uint8_t reply_port_ = 1;
  std::uint64_t now_ = 0;
  std::uint64_t wake_at_ = UINT64_MAX;
  std::array<bool, 33> up_ = [] {
    std::array<bool, 33> a{};
    a.fill(true);
    return a;
  }();
};

TEST(SimTestbed, AnyFramePortIsAHost) {
  auto tb = make(TestbedRequest{});
  LoopbackPort nic;
  ASSERT_EQ(tb->attach_port(0, nic), "");
  EXPECT_NE(tb->attach_port(0, nic), "");  // one port per host
  ASSERT_EQ(tb->add_tap("nic.p3.tx", 0, 3, true), "");
  std::vector<std::uint8_t> frame(64, 0xAB);
  ASSERT_EQ(tb->inject_to(0, 3, frame, 1000), "");
  tb->run_until(10'000);
  ASSERT_EQ(nic.arrivals.size(), 1u);
  EXPECT_EQ(nic.arrivals[0].first, 3);
  EXPECT_EQ(nic.arrivals[0].second, 1000u);
  const auto taps = tb->take_taps();
  ASSERT_EQ(taps.size(), 1u);
  ASSERT_EQ(taps[0].capture.size(), 1u);  // the port's own frame left on port 3, after its timer
  EXPECT_EQ(taps[0].capture.packet(0).ts_ns, 1500u);
  EXPECT_EQ(taps[0].capture.bytes(0)[10], 0xAB);
}

}  // namespace
}  // namespace mrc::harness
