// The EV-to-path query agrees with where packets actually go, in every EV format mode; the STEV /
// UDP builders reach every plane and spine through the ECMP hash.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

// Sends every EV's frame alone through the fabric and compares the directions whose tx counters
// moved with the query's path.
void query_matches_packets(const TopologyConfig& cfg, std::uint32_t src, std::uint32_t dst,
                           const std::vector<EvSpec>& evs, bool ipv4 = false) {
  Simulator sim(cfg);
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {src, dst}, log);
  const Topology& t = sim.topology();
  for (const EvSpec& ev : evs) {
    std::vector<std::uint64_t> before(t.dir_count());
    for (DirId d = 0; d < t.dir_count(); ++d) before[d] = sim.dir_counters(d).tx_frames;
    ASSERT_EQ(sim.inject(src, ev.port, testing::frame_for(src, dst, ev, ipv4), sim.now()), SimError::kOk);
    ASSERT_TRUE(sim.run_until_idle(sim.now() + 1'000'000));
    std::set<DirId> moved;
    for (DirId d = 0; d < t.dir_count(); ++d) {
      if (sim.dir_counters(d).tx_frames != before[d]) moved.insert(d);
    }
    const PathTrace tr = path_of(sim, src, dst, ev, ipv4);
    ASSERT_TRUE(tr.delivered);
    EXPECT_EQ(moved, std::set<DirId>(tr.dirs.begin(), tr.dirs.end())) << "EV index " << int(ev.index);
    ASSERT_FALSE(log->empty());
    EXPECT_EQ(log->back().host, dst);
    EXPECT_EQ(log->back().port, ev.port);
    EXPECT_EQ(testing::echo_of(log->back().bytes, ev.mode), ev.echo());
  }
  EXPECT_EQ(log->size(), evs.size());
}

// Every (plane, spine) pair is reached, each the same number of times.
void covers_evenly(const Topology& t, const std::vector<EvSpec>& evs) {
  std::map<std::pair<int, std::uint32_t>, int> hits;
  for (const EvSpec& e : evs) ++hits[{e.port, e.spine}];
  ASSERT_EQ(hits.size(), std::size_t{t.planes()} * t.spines());
  for (const auto& [k, n] : hits) {
    EXPECT_NE(k.second, kNone);
    EXPECT_EQ(n, static_cast<int>(evs.size() / hits.size()));
  }
  // Consecutive EVs change plane first.
  for (std::size_t i = 1; i < evs.size() && i < t.planes(); ++i) EXPECT_NE(evs[i].port, evs[i - 1].port);
}

TEST(SimPathQuery, StevEvsCoverEveryPlaneAndSpineOfRack) {
  Simulator sim(testing::rack());
  const auto evs = stev_evs_covering_all_spines(sim, 3, 29, 128);
  ASSERT_EQ(evs.size(), 128u);
  covers_evenly(sim.topology(), evs);
  std::set<std::uint32_t> distinct;
  for (const EvSpec& e : evs) distinct.insert(e.echo());
  EXPECT_EQ(distinct.size(), evs.size());
  query_matches_packets(testing::rack(), 3, 29, evs);
}

TEST(SimPathQuery, UdpEvsCoverEveryPlaneAndSpine) {
  Simulator sim(testing::rack());
  const auto evs6 = udp_evs_covering_all_spines(sim, 0, 31, 64);
  covers_evenly(sim.topology(), evs6);
  query_matches_packets(testing::rack(), 0, 31, evs6);
  const auto evs4 = udp_evs_covering_all_spines(sim, 0, 31, 64, /*ipv4=*/true);
  covers_evenly(sim.topology(), evs4);
  query_matches_packets(testing::rack(), 0, 31, evs4, true);
}

TEST(SimPathQuery, Srv6EvsMatchPacketsOnRack) {
  const TopologyConfig cfg = testing::rack();
  const Topology t(cfg);
  const auto evs = srv6_evs(t, 5, 20);
  ASSERT_EQ(evs.size(), 64u);
  covers_evenly(t, evs);
  query_matches_packets(cfg, 5, 20, evs);
  query_matches_packets(cfg, 20, 5, srv6_evs(t, 20, 5, /*with_srh=*/true));
}

TEST(SimPathQuery, HostsUnderOneLeafStayThere) {
  // STEV between two hosts of one leaf never climbs to a spine; SRv6 paths still do.
  Simulator sim(testing::rack());
  const auto evs = stev_evs_covering_all_spines(sim, 0, 1, 16);
  ASSERT_EQ(evs.size(), 16u);
  for (const EvSpec& e : evs) {
    EXPECT_EQ(e.spine, kNone);
    EXPECT_EQ(path_of(sim, 0, 1, e).dirs.size(), 2u);
  }
  EXPECT_EQ(path_of(sim, 0, 1, srv6_evs(sim.topology(), 0, 1)[0]).dirs.size(), 4u);
}

TEST(SimPathQuery, AffectedEvsAreExactlyThoseOnTheLink) {
  Simulator sim(testing::mini());
  const Topology& t = sim.topology();
  const auto evs = srv6_evs(t, 0, 1);
  const LinkId l = t.fabric_link(3, 1, 1);  // plane 3, spine 1 down to host 1's leaf
  const auto hit = evs_crossing(sim, 0, 1, evs, l);
  ASSERT_EQ(hit.size(), 1u);
  EXPECT_EQ(evs[hit[0]].port, 3);
  EXPECT_EQ(evs[hit[0]].spine, 1u);
  EXPECT_EQ(affected_evs(sim, 0, 1, evs, l), std::vector<std::uint32_t>{evs[hit[0]].echo()});
  // A host link carries every EV of its plane.
  EXPECT_EQ(evs_crossing(sim, 0, 1, evs, t.host_link(0, 5)).size(), t.spines());
}

}  // namespace
}  // namespace mrc::sim
