// DutSetup <-> APPLY_CONFIG and DutLocal <-> PeerInfo carry every field both ways.
#include <gtest/gtest.h>

#include "harness/dut/agent_setup.hpp"

namespace mrc::harness {
namespace {

TEST(AgentSetup, SetupRoundTripsThroughApplyConfig) {
  DutSetup s;
  s.format_mode = ap::FormatMode::kUdp;
  s.format_widths = {16};
  s.ev_mode = ap::EvMode::kGenerated;
  s.fields = {{16, 1, 2, 300, 0xFFFF}};
  s.evs = {{{0x12, 0x34}, 3}};
  s.generate_count = 9;
  s.generate_seed = 77;
  s.ev_min_active = 2;
  s.denied = {1, 4};
  s.ev_event_mask = 0x7;
  s.cc = ap::NsccParams{};
  s.cc_line_rate_bps = 400'000'000'000;
  s.cc_fabric_trims = false;
  s.cc->base_rtt = 4321;
  s.qp.count = 3;
  s.qp.mtu = 2048;
  s.qp.caps = 5;
  s.qp.first_psn = 0xFFFFF0;
  s.buffer_va = 0x3000'0000;
  s.buffer_bytes = 1 << 20;
  s.ipv4 = true;
  s.seed = 99;
  s.dscp = ap::DscpValues{20, 22, 18, 21, 23, 40};
  const ap::ApplyConfig c = to_apply_config(s);
  EXPECT_EQ(c.dscp, s.dscp);  // W13 the configured classes reach the agent
  ASSERT_EQ(c.regions.size(), 1u);
  EXPECT_EQ(c.regions[0].addr, s.buffer_va);
  EXPECT_EQ(c.regions[0].length, s.buffer_bytes);
  EXPECT_FALSE(c.peer);
  const DutSetup back = to_dut_setup(c);
  EXPECT_EQ(back.format_mode, s.format_mode);
  EXPECT_EQ(back.format_widths, s.format_widths);
  EXPECT_EQ(back.ev_mode, s.ev_mode);
  EXPECT_EQ(back.fields, s.fields);
  EXPECT_EQ(back.evs, s.evs);
  EXPECT_EQ(back.generate_count, s.generate_count);
  EXPECT_EQ(back.generate_seed, s.generate_seed);
  EXPECT_EQ(back.ev_min_active, s.ev_min_active);
  EXPECT_EQ(back.denied, s.denied);
  EXPECT_EQ(back.ev_event_mask, s.ev_event_mask);
  EXPECT_EQ(back.cc, s.cc);
  EXPECT_EQ(back.cc_line_rate_bps, s.cc_line_rate_bps);
  EXPECT_EQ(back.cc_fabric_trims, s.cc_fabric_trims);
  EXPECT_EQ(back.qp, s.qp);
  EXPECT_EQ(back.buffer_va, s.buffer_va);
  EXPECT_EQ(back.buffer_bytes, s.buffer_bytes);
  EXPECT_EQ(back.ipv4, s.ipv4);
  EXPECT_EQ(back.seed, s.seed);
  EXPECT_EQ(back.dscp, s.dscp);
}

TEST(AgentSetup, LocalRoundTripsThroughPeerInfo) {
  DutLocal l;
  l.gid[15] = 9;
  l.mac[5] = 3;
  l.ipv4 = 0x0A000001;
  l.qpns = {0x11, 0x22};
  l.mpr_dest = 4;
  l.max_wimm_dest = 12;
  l.qp_caps = 2;
  l.first_psn = 77;
  const DutLocal back = to_dut_local(to_peer_info(l));
  EXPECT_EQ(back.gid, l.gid);
  EXPECT_EQ(back.mac, l.mac);
  EXPECT_EQ(back.ipv4, l.ipv4);
  EXPECT_EQ(back.qpns, l.qpns);
  EXPECT_EQ(back.mpr_dest, l.mpr_dest);
  EXPECT_EQ(back.max_wimm_dest, l.max_wimm_dest);
  EXPECT_EQ(back.qp_caps, l.qp_caps);
  EXPECT_EQ(back.first_psn, l.first_psn);
}

}  // namespace
}  // namespace mrc::harness
