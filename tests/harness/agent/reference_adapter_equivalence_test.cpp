// One reference-DUT adapter: the in-process `reference` binding and the DUT agent's reference
// backend, given the same DutSetup (the agent through APPLY_CONFIG), build the same endpoint
// configuration, the same EV array, QPNs and keys, and put the same first frames on the wire.
#include <gtest/gtest.h>

#include <map>

#include "harness/agent/reference_backend.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "tests/harness/agent/agent_test_support.hpp"

namespace mrc::agent::testing {
namespace {

using PortFrames = std::map<std::uint8_t, std::vector<std::vector<std::uint8_t>>>;

struct Sides {
  std::unique_ptr<harness::Testbed> tb;
  harness::HostAddress addr;
  harness::DutSetup setup;
  harness::DutLocal remote;  // the peer both sides connect to (host 1 of the testbed)
};

Sides make_sides(ap::FormatMode mode) {
  Sides s;
  std::string why;
  s.tb = harness::make_sim_testbed(harness::TestbedRequest::named("mini"), 1, &why);
  EXPECT_TRUE(s.tb) << why;
  s.addr = s.tb->host_address(0);
  harness::use_default_evs(s.setup, s.tb->default_evs(harness::wire_mode(mode), 0, 1));
  s.setup.format_mode = mode;
  s.setup.ev_min_active = 1;
  s.setup.cc = ap::NsccParams{};
  s.setup.qp.mtu = 1024;
  s.setup.seed = 7;
  const harness::HostAddress peer = s.tb->host_address(1);
  s.remote.gid = peer.gid;
  s.remote.mac = peer.mac;
  s.remote.qpns = {0x123};
  return s;
}

// What the reference DUT transmits for `setup`, in-process: frames per egress port, taken from
// the testbed's transmit taps.
PortFrames in_process(Sides& s, harness::ReferenceBinding& dut, harness::DutLocal& local) {
  EXPECT_TRUE(dut.attach(*s.tb, 0).ok());
  harness::DutStatus st = dut.apply(s.setup, local);
  EXPECT_TRUE(st.ok()) << st.message;
  EXPECT_TRUE(dut.connect(s.remote).ok());
  for (std::uint32_t p = 1; p <= s.tb->planes(); ++p) {
    EXPECT_EQ(s.tb->add_tap("p" + std::to_string(p), 0, static_cast<int>(p), true), "");
  }
  std::vector<std::uint8_t> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  EXPECT_TRUE(dut.fill_local(0, data).ok());
  harness::WriteRequest w;
  w.wr_id = 1;
  w.length = 3000;
  w.remote_addr = 0x20000000;
  w.rkey = 0x55;
  EXPECT_TRUE(dut.post_write(w, 0).ok());
  s.tb->run_until(20'000);
  PortFrames out;
  for (const harness::TapCapture& t : s.tb->take_taps()) {
    for (std::size_t i = 0; i < t.capture.size(); ++i) {
      const auto b = t.capture.bytes(i);
      out[static_cast<std::uint8_t>(t.port)].emplace_back(b.begin(), b.end());
    }
  }
  return out;
}

// The same through the agent's backend on an in-memory wire with the testbed host's addresses.
PortFrames through_agent(const Sides& s, std::unique_ptr<ReferenceBackend>& backend, ap::ApplyOk& ok, MemoryWire& wire) {
  std::vector<std::uint8_t> ports;
  for (std::uint8_t p = 1; p <= s.tb->planes(); ++p) ports.push_back(p);
  ReferenceOptions opt;
  opt.mac = s.addr.mac;
  opt.gid = s.addr.gid;
  backend = std::make_unique<ReferenceBackend>(opt, std::make_unique<MemoryFrameIo>(wire, 0, ports));
  Outcome o = backend->apply(harness::to_apply_config(s.setup), ok);
  EXPECT_TRUE(o.ok()) << o.text;
  EXPECT_TRUE(backend->connect(harness::to_peer_info(s.remote)).ok());
  ap::WriteMemory m;
  m.addr = ok.regions.at(0).addr;
  for (std::size_t i = 0; i < 3000; ++i) m.bytes.push_back(static_cast<std::uint8_t>(i * 7));
  EXPECT_TRUE(backend->write_memory(m).ok());
  ap::PostWrite w;
  w.wr_id = 1;
  w.length = 3000;
  w.remote_addr = 0x20000000;
  w.rkey = 0x55;
  EXPECT_TRUE(backend->post_write(w).ok());
  backend->service(0);
  PortFrames out;
  for (auto& [port, bytes] : wire.to[1]) out[port].push_back(bytes);
  return out;
}

class AdapterEquivalence : public ::testing::TestWithParam<ap::FormatMode> {};

TEST_P(AdapterEquivalence, SameSetupSameEndpointSameFirstFrames) {
  Sides s = make_sides(GetParam());
  harness::ReferenceBinding dut;
  harness::DutLocal local;
  const PortFrames in = in_process(s, dut, local);

  MemoryWire wire;
  std::unique_ptr<ReferenceBackend> backend;
  ap::ApplyOk ok;
  const PortFrames agent = through_agent(s, backend, ok, wire);

  const ref::EndpointConfig& a = dut.endpoint()->config();
  const ref::EndpointConfig& b = backend->endpoint()->config();
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.num_ports, b.num_ports);
  EXPECT_EQ(a.mac, b.mac);
  EXPECT_EQ(a.gid, b.gid);
  EXPECT_EQ(a.ipv4, b.ipv4);
  EXPECT_EQ(a.limits.phy_port_mask, b.limits.phy_port_mask);
  EXPECT_EQ(a.limits.ev_count_align, b.limits.ev_count_align);
  EXPECT_EQ(a.limits.caps, b.limits.caps);
  EXPECT_EQ(a.device.caps, b.device.caps);
  EXPECT_EQ(a.control_queue_depth, b.control_queue_depth);

  const auto ea = dut.endpoint()->controller().ev_array(0);
  const auto eb = backend->endpoint()->controller().ev_array(0);
  ASSERT_EQ(ea.size(), eb.size());
  ASSERT_FALSE(ea.empty());
  for (std::size_t i = 0; i < ea.size(); ++i) {
    EXPECT_EQ(ea[i].wire, eb[i].wire) << "EV " << i;
    EXPECT_EQ(ea[i].port, eb[i].port) << "EV " << i;
  }
  EXPECT_EQ(local.qpns, ok.qpns);
  EXPECT_EQ(local.rkey, ok.regions.at(0).rkey);
  EXPECT_EQ(local.buffer_va, ok.regions.at(0).addr);

  ASSERT_FALSE(in.empty());
  EXPECT_EQ(in, agent);  // per port, the same frames byte for byte, in the same order
}

INSTANTIATE_TEST_SUITE_P(FormatModes, AdapterEquivalence,
                         ::testing::Values(ap::FormatMode::kStev, ap::FormatMode::kUdp, ap::FormatMode::kSrv6));

}  // namespace
}  // namespace mrc::agent::testing
