// Topology ids, names, presets and the address plan.
#include "harness/testbed/sim/topology.hpp"

#include <gtest/gtest.h>

#include <set>

#include "harness/case/time_expr.hpp"
#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/testbed.hpp"
#include "harness/testbed/sim/simulator.hpp"

namespace mrc::sim {
namespace {

TEST(SimTopology, PresetsHaveTheAdvertisedShape) {
  const auto m = preset("mini");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->hosts, 2u);
  EXPECT_EQ(m->planes, 8u);
  EXPECT_EQ(m->spines, 2u);
  EXPECT_EQ(m->leaves(), 2u);  // hosts on different leaves: every path crosses a spine
  EXPECT_EQ(preset("rack")->hosts, 32u);
  EXPECT_EQ(preset("pod")->hosts, 1024u);
  EXPECT_FALSE(preset("campus"));
  for (const auto& n : preset_names()) EXPECT_EQ(preset(n)->validate(), "") << n;
}

// A case's frame time F is evaluated at kDefaultSprayBps as it is loaded; the runner loads it
// again only where the testbed's rate differs, so every preset keeps the rate cases were written at.
TEST(SimTopology, PresetsSprayAtTheRateCasesAreLoadedAt) {
  for (const std::string& name : harness::testbed_preset_names()) {
    std::string error;
    const auto tb = harness::make_sim_testbed(harness::TestbedRequest::named(name), 1, &error);
    ASSERT_TRUE(tb) << error;
    EXPECT_EQ(tb->network_facts(0, 1, 4096).line_rate_bps, harness::kDefaultSprayBps) << name;
  }
}

TEST(SimTopology, ValidateNamesTheBadKey) {
  TopologyConfig c;
  c.spines = 0;
  EXPECT_EQ(c.validate().rfind("spines:", 0), 0u) << c.validate();
  c = TopologyConfig{};
  c.planes = 33;
  EXPECT_EQ(c.validate().rfind("planes:", 0), 0u);
  c = TopologyConfig{};
  c.sw.trim_bytes = 250;
  EXPECT_EQ(c.validate().rfind("trim_bytes:", 0), 0u);
  std::string why;
  EXPECT_EQ(Simulator::create(c, &why), nullptr);
  EXPECT_NE(why.find("trim_bytes"), std::string::npos);
}

TEST(SimTopology, EveryDirectionRoundTripsThroughItsName) {
  const Topology t(*preset("rack"));
  EXPECT_EQ(t.link_count(), 8u * 32 + 8u * 4 * 8);
  std::set<std::string> names;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const std::string n = t.link_name(l);
    EXPECT_TRUE(names.insert(n).second) << n;
    ASSERT_EQ(t.find_link(n), l) << n;
    const LinkInfo i = t.link(l);
    // Both directions connect the link's nodes, and the egress port of each end leads back here.
    EXPECT_EQ(t.dir_from(Topology::dir(l, true)), i.lower);
    EXPECT_EQ(t.dir_to(Topology::dir(l, true)), i.upper);
    EXPECT_EQ(t.egress_dir(i.lower, i.lower_port), Topology::dir(l, true));
    EXPECT_EQ(t.egress_dir(i.upper, i.upper_port), Topology::dir(l, false));
    EXPECT_EQ(t.dir_to_port(Topology::dir(l, false)), i.lower_port);
  }
  EXPECT_EQ(t.link_name(t.fabric_link(3, 1, 7)), "plane3/leaf1-spine7");
  EXPECT_EQ(t.dir_name(Topology::dir(t.fabric_link(3, 1, 7), false)), "plane3/spine7->leaf1");
  EXPECT_EQ(t.link_name(t.host_link(9, 2)), "plane2/host9-leaf1");
  EXPECT_FALSE(t.find_link("plane2/host9-leaf0"));  // host 9 sits on leaf 1
  EXPECT_FALSE(t.find_link("plane9/leaf0-spine0"));
  EXPECT_EQ(t.find_switch("plane4/spine3"), t.spine_node(4, 3));
  EXPECT_EQ(t.node_name(t.leaf_node(2, 3)), "plane2/leaf3");
}

TEST(SimTopology, AddressPlanRoundTrips) {
  for (std::uint32_t h : {0u, 1u, 255u, 1023u}) {
    EXPECT_EQ(addr::host_of_gid(addr::host_gid(h), 1024), h);
    EXPECT_EQ(addr::host_of_ipv4(addr::host_ipv4(h), 1024), h);
    const addr::UsidRef r = addr::decode_usid(addr::host_decap_usid(h));
    EXPECT_EQ(r.kind, addr::UsidKind::kHostDecap);
    EXPECT_EQ(r.index, h);
  }
  EXPECT_EQ(addr::host_gid(0)[15], 1);  // fd00::1, as the endpoint tests use
  EXPECT_FALSE(addr::host_of_gid(addr::host_gid(5), 5));
  EXPECT_EQ(addr::decode_usid(addr::spine_usid(31)).kind, addr::UsidKind::kSpine);
  EXPECT_EQ(addr::decode_usid(addr::leaf_usid(4095)).index, 4095u);
  EXPECT_EQ(addr::decode_usid(0).kind, addr::UsidKind::kEndOfCarrier);
  EXPECT_EQ(addr::decode_usid(0x3000).kind, addr::UsidKind::kUnknown);
  EXPECT_EQ(addr::plane_of_block(addr::block(8), 8), 8u);
  EXPECT_FALSE(addr::plane_of_block(addr::block(9), 8));
  const std::array<std::uint16_t, 3> u{0x2001, 0x1000, 0x8001};
  const wire::Ipv6Addr c = addr::container(3, u);
  const wire::Ipv6Addr want{0xfc, 0x00, 0x00, 0x03, 0x20, 0x01, 0x10, 0x00, 0x80, 0x01, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(c, want);
}

TEST(SimTopology, PodBuildsWithinItsMemoryAccounting) {
  auto sim = Simulator::create(*preset("pod"), nullptr);
  ASSERT_TRUE(sim);
  const Topology& t = sim->topology();
  EXPECT_EQ(t.hosts(), 1024u);
  EXPECT_EQ(t.link_count(), 8u * 1024 + 8u * 32 * 32);
  // Tables, per-direction state and hosts of a 1,024-host, 8-plane pod stay well under 64 MiB.
  EXPECT_LT(sim->memory_bytes(), 64u << 20);
  EXPECT_GT(sim->memory_bytes(), 1u << 20);
}

}  // namespace
}  // namespace mrc::sim
