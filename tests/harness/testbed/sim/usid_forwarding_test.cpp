// Static SRv6 uSID forwarding over every path of `mini`: uN shift at the spine and the last leaf,
// next SRH segment at End-of-Carrier, decapsulation at the last hop (W1), and the drops for
// addresses the tables do not know.
#include <gtest/gtest.h>

#include "harness/testbed/sim/frame_edit.hpp"
#include "reference/wire/usid.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

// Sends one frame per SRv6 EV from each host to the other and checks what arrives.
void every_path(bool with_srh) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {0, 1}, log);
  const Topology& t = sim.topology();
  // Tap each spine's links so the shifted DA can be seen in flight.
  std::vector<TapId> up_taps, down_taps;
  for (std::uint32_t p = 1; p <= t.planes(); ++p) {
    for (std::uint32_t s = 0; s < t.spines(); ++s) {
      up_taps.push_back(sim.add_tap({Topology::dir(t.fabric_link(p, 0, s), true)}));
      down_taps.push_back(sim.add_tap({Topology::dir(t.fabric_link(p, 1, s), false)}));
    }
  }
  std::size_t sent = 0;
  for (std::uint32_t src = 0; src < 2; ++src) {
    const std::uint32_t dst = 1 - src;
    const std::vector<EvSpec> evs = srv6_evs(t, src, dst, with_srh);
    ASSERT_EQ(evs.size(), t.planes() * t.spines());
    for (const EvSpec& ev : evs) {
      const auto f = testing::frame_for(src, dst, ev);
      ASSERT_EQ(sim.inject(src, ev.port, f, sim.now() + 1000 * sent), SimError::kOk);
      ++sent;
      const PathTrace tr = path_of(sim, src, dst, ev);
      ASSERT_TRUE(tr.delivered) << to_string(tr.drop);
      EXPECT_EQ(tr.dst_host, dst);
      EXPECT_EQ(tr.dst_port, ev.port);
      EXPECT_TRUE(tr.decapsulated);
      ASSERT_EQ(tr.dirs.size(), 4u);  // host->leaf, leaf->spine, spine->leaf, leaf->host
      EXPECT_EQ(Topology::link_of(tr.dirs[1]), t.fabric_link(ev.port, t.leaf_of_host(src), ev.spine));
    }
  }
  EXPECT_TRUE(sim.run_until_idle(10'000'000));
  ASSERT_EQ(log->size(), sent);
  for (const Received& r : *log) {
    wire::DecodedFrame f;
    ASSERT_TRUE(testing::decode(r.bytes, f));
    EXPECT_FALSE(f.encapsulated);  // decapsulated at the last leaf
    EXPECT_FALSE(f.has_srh);
    EXPECT_TRUE(f.icrc_ok);        // the ICRC covers the inner packet only (W1)
    EXPECT_EQ(f.ip6.dst, addr::host_gid(r.host));
    EXPECT_EQ(f.ip6.hop_limit, 64);  // the inner header is not decremented
    EXPECT_EQ(f.eth.dst, addr::host_mac(r.host));
  }
  // In flight: leaf->spine carries the spine uSID active; spine->leaf the leaf uSID (one shift).
  for (std::size_t i = 0; i < up_taps.size(); ++i) {
    const harness::Capture& up = sim.capture(up_taps[i]);
    const harness::Capture& down = sim.capture(down_taps[i]);
    ASSERT_EQ(up.size(), 1u);  // one EV per (plane, spine) from host 0
    ASSERT_EQ(down.size(), 1u);
    wire::DecodedFrame a, b;
    ASSERT_TRUE(wire::decode_frame(up.bytes(0), a).ok());
    ASSERT_TRUE(wire::decode_frame(down.bytes(0), b).ok());
    EXPECT_EQ(addr::decode_usid(static_cast<std::uint16_t>(wire::usid_active(a.ip6.dst))).kind, addr::UsidKind::kSpine);
    EXPECT_EQ(addr::decode_usid(static_cast<std::uint16_t>(wire::usid_active(b.ip6.dst))).kind, addr::UsidKind::kLeaf);
    wire::Ipv6Addr shifted = a.ip6.dst;
    wire::usid_shift(shifted);  // the spine's in-place shift is RFC 9800's (reference/wire/usid)
    if (!with_srh) {
      EXPECT_EQ(b.ip6.dst, shifted);
    }
    EXPECT_EQ(a.ip6.hop_limit, 63);
    EXPECT_EQ(b.ip6.hop_limit, 62);
    if (with_srh) {
      ASSERT_TRUE(a.has_srh);
      ASSERT_TRUE(b.has_srh);
      EXPECT_EQ(a.srh.segments_left, 1);  // the spine takes the next segment at End-of-Carrier
      EXPECT_EQ(b.srh.segments_left, 0);
    }
  }
}

TEST(SimUsidForwarding, EveryPathOfMini) { every_path(false); }
TEST(SimUsidForwarding, EveryPathOfMiniWithSrhSegment) { every_path(true); }

TEST(SimUsidForwarding, UnknownAddressesAreDroppedNotHashed) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {0, 1}, log);
  EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];  // plane 1, spine 0
  auto send = [&](const EvSpec& e) {
    ASSERT_EQ(sim.inject(0, e.port, testing::frame_for(0, 1, e), sim.now()), SimError::kOk);
    sim.run_until_idle(sim.now() + 1'000'000);
  };
  auto drops = [&](DropReason r) { return sim.stats().forward_drops[static_cast<std::size_t>(r)]; };

  EvSpec wrong_plane = ev;
  wrong_plane.wire[3] = 2;  // block of plane 2, sent on port 1
  send(wrong_plane);
  EXPECT_EQ(drops(DropReason::kWrongPlane), 1u);

  EvSpec no_spine = ev;
  no_spine.wire[4] = 0x20;
  no_spine.wire[5] = 0x07;  // spine 7 does not exist in mini
  send(no_spine);
  EXPECT_EQ(drops(DropReason::kNoRoute), 1u);

  EvSpec ends = ev;
  std::fill(ends.wire.begin() + 6, ends.wire.begin() + 16, 0);  // only the spine uSID
  send(ends);
  EXPECT_EQ(drops(DropReason::kEndsAtSwitch), 1u);

  EvSpec direct = ev;  // spine then the decap uSID of host 1: the spine routes it to host 1's leaf
  direct.wire[6] = static_cast<std::uint8_t>(addr::host_decap_usid(1) >> 8);
  direct.wire[7] = static_cast<std::uint8_t>(addr::host_decap_usid(1));
  std::fill(direct.wire.begin() + 8, direct.wire.begin() + 16, 0);
  send(direct);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->back().host, 1u);
  EXPECT_EQ(path_of(sim, 0, 1, direct).dirs.size(), 4u);
}

TEST(SimUsidForwarding, HopLimitExhaustionDrops) {
  Simulator sim(testing::mini());
  testing::make_external(sim, {0, 1}, std::make_shared<std::vector<Received>>());
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  auto f = testing::frame_for(0, 1, ev);
  f[wire::kEthLen + 7] = 2;  // outer hop limit: the first leaf leaves 1, the spine cannot forward
  ASSERT_EQ(sim.inject(0, ev.port, f, 0), SimError::kOk);
  sim.run_until_idle(1'000'000);
  EXPECT_EQ(sim.stats().forward_drops[static_cast<std::size_t>(DropReason::kHopLimit)], 1u);
}

// srv6_decap: host (W1, the receiver may decapsulate): the last leaf forwards the frame as
// it is, so the host gets the outer IPv6 header with its own decap uSID active, the inner packet
// addressed to it and an ICRC that still holds. Every other hop is unchanged.
TEST(SimUsidForwarding, LeafLeavesDecapsulationToTheHost) {
  for (bool with_srh : {false, true}) {
    TopologyConfig cfg = testing::mini();
    cfg.sw.srv6_decap_at_leaf = false;
    Simulator sim(cfg);
    auto log = std::make_shared<std::vector<Received>>();
    testing::make_external(sim, {0, 1}, log);
    const Topology& t = sim.topology();
    const std::vector<EvSpec> evs = srv6_evs(t, 0, 1, with_srh);
    std::size_t sent = 0;
    for (const EvSpec& ev : evs) {
      const auto f = testing::frame_for(0, 1, ev);
      ASSERT_EQ(sim.inject(0, ev.port, f, sim.now() + 1000 * sent), SimError::kOk);
      ++sent;
      const PathTrace tr = path_of(sim, 0, 1, ev);
      ASSERT_TRUE(tr.delivered) << to_string(tr.drop);
      EXPECT_EQ(tr.dst_port, ev.port);
      EXPECT_FALSE(tr.decapsulated);
      EXPECT_EQ(tr.dirs.size(), 4u);
    }
    EXPECT_TRUE(sim.run_until_idle(10'000'000));
    ASSERT_EQ(log->size(), sent);
    for (const Received& r : *log) {
      wire::DecodedFrame f;
      ASSERT_TRUE(testing::decode(r.bytes, f));
      ASSERT_TRUE(f.encapsulated) << with_srh;
      EXPECT_EQ(f.inner_ip6.dst, addr::host_gid(r.host));
      const addr::UsidRef active = addr::decode_usid(static_cast<std::uint16_t>(wire::usid_active(f.ip6.dst)));
      EXPECT_EQ(active.kind, addr::UsidKind::kHostDecap);
      EXPECT_EQ(active.index, r.host);
      EXPECT_TRUE(f.icrc_ok);
      EXPECT_EQ(f.ip6.hop_limit, 61);  // three switches decremented the outer header
      EXPECT_EQ(f.eth.dst, addr::host_mac(r.host));
      if (with_srh) {
        EXPECT_EQ(f.srh.segments_left, 0);
      }
    }
  }
}

}  // namespace
}  // namespace mrc::sim
