// Faults at scheduled virtual times: a failed link loses only the packets of EVs that cross it;
// switch down, black-hole, loss, corruption, extra delay and link up behave as documented; every
// applied fault is in the log.
#include <gtest/gtest.h>

#include <set>

#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

struct Rig {
  explicit Rig(TopologyConfig cfg = testing::mini()) : sim(cfg) {
    testing::make_external(sim, {0, 1}, log);
  }
  // One frame per EV from host 0 to host 1, `gap_ns` apart from `t0`.
  void send_all(const std::vector<EvSpec>& evs, std::uint64_t t0, std::uint64_t gap_ns = 2000) {
    for (std::size_t i = 0; i < evs.size(); ++i) {
      ASSERT_EQ(sim.inject(0, evs[i].port, testing::frame_for(0, 1, evs[i]), t0 + i * gap_ns), SimError::kOk);
    }
  }
  std::set<std::uint32_t> echoes(wire::EvFmtMode mode) const {
    std::set<std::uint32_t> s;
    for (const Received& r : *log) s.insert(testing::echo_of(r.bytes, mode));
    return s;
  }
  Simulator sim;
  std::shared_ptr<std::vector<Received>> log = std::make_shared<std::vector<Received>>();
};

std::set<std::uint32_t> all_but(const std::vector<EvSpec>& evs, const std::vector<std::uint32_t>& hit) {
  std::set<std::uint32_t> s;
  for (const EvSpec& e : evs) s.insert(e.echo());
  for (const std::uint32_t h : hit) s.erase(h);
  return s;
}

void link_failure_loses_only_crossing_evs(wire::EvFmtMode mode) {
  Rig r;
  const Topology& t = r.sim.topology();
  const std::vector<EvSpec> evs = mode == wire::EvFmtMode::kSrv6 ? srv6_evs(t, 0, 1)
                                                                  : stev_evs_covering_all_spines(r.sim, 0, 1, 32);
  const LinkId l = t.fabric_link(4, 0, 1);  // plane 4: leaf 0 <-> spine 1
  ASSERT_EQ(r.sim.link_down(l, 5'000), SimError::kOk);
  r.send_all(evs, 10'000);
  r.sim.run_until_idle(10'000'000);
  const auto hit = affected_evs(r.sim, 0, 1, evs, l);
  ASSERT_FALSE(hit.empty());
  EXPECT_EQ(r.echoes(mode), all_but(evs, hit));
  EXPECT_EQ(r.log->size(), evs.size() - hit.size());
  EXPECT_EQ(r.sim.dir_counters(Topology::dir(l, true)).dropped_fault, hit.size());
  ASSERT_EQ(r.sim.fault_log().size(), 1u);
  const FaultRecord& f = r.sim.fault_log()[0];
  EXPECT_EQ(f.kind, FaultKind::kLinkDown);
  EXPECT_EQ(f.at_ns, 5'000u);
  EXPECT_EQ(f.plane, 4u);
  EXPECT_EQ(r.sim.fault_target(f), "plane4/leaf0-spine1");
}

TEST(SimFaults, LinkFailureLosesOnlyEvsThatCrossItSrv6) { link_failure_loses_only_crossing_evs(wire::EvFmtMode::kSrv6); }
TEST(SimFaults, LinkFailureLosesOnlyEvsThatCrossItStev) { link_failure_loses_only_crossing_evs(wire::EvFmtMode::kStev); }

TEST(SimFaults, LinkUpRestoresAndInFlightPacketsAreLost) {
  Rig r;
  const Topology& t = r.sim.topology();
  const EvSpec ev = srv6_evs(t, 0, 1)[0];
  const LinkId l = t.host_link(1, ev.port);  // the last hop, leaf -> host 1
  const auto f = testing::frame_for(0, 1, ev);
  ASSERT_EQ(r.sim.inject(0, ev.port, f, 0), SimError::kOk);
  // The frame reaches the last link after ~3 serializations + 3 propagations; cut it mid-flight.
  const PathTrace tr = path_of(r.sim, 0, 1, ev);
  r.sim.run_until(1);
  std::uint64_t on_wire = 0;
  while (r.sim.step()) {
    if (r.sim.dir_counters(tr.dirs[3]).tx_frames == 1) {
      on_wire = r.sim.now();
      break;
    }
  }
  ASSERT_GT(on_wire, 0u);
  ASSERT_EQ(r.sim.link_down(l, on_wire + 10), SimError::kOk);
  ASSERT_EQ(r.sim.link_up(l, on_wire + 20), SimError::kOk);  // back up before the frame lands
  r.sim.run_until_idle(1'000'000);
  EXPECT_TRUE(r.log->empty());  // lost in flight although the link is up again on arrival
  EXPECT_EQ(r.sim.dir_counters(tr.dirs[3]).dropped_fault, 1u);
  ASSERT_EQ(r.sim.inject(0, ev.port, f, r.sim.now()), SimError::kOk);
  r.sim.run_until_idle(r.sim.now() + 1'000'000);
  EXPECT_EQ(r.log->size(), 1u);
}

TEST(SimFaults, SwitchDownLosesEveryPathThroughIt) {
  Rig r;
  const Topology& t = r.sim.topology();
  const auto evs = srv6_evs(t, 0, 1);
  ASSERT_EQ(r.sim.switch_down(t.spine_node(2, 0), 0), SimError::kOk);
  r.sim.run_until(0);
  EXPECT_TRUE(r.sim.switch_is_down(t.spine_node(2, 0)));
  EXPECT_EQ(r.sim.switch_down(0, 0), SimError::kBadSwitch);  // node 0 is a host
  r.send_all(evs, 1000);
  r.sim.run_until_idle(10'000'000);
  EXPECT_EQ(r.log->size(), evs.size() - 1);
  for (const Received& x : *r.log) {
    // The reference's SRv6 tag is 0xC000 | the EV's index (W2).
    const std::uint32_t index = testing::echo_of(x.bytes, wire::EvFmtMode::kSrv6) & 0xFFu;
    ASSERT_LT(index, evs.size());
    const EvSpec& e = evs[index];
    EXPECT_FALSE(e.port == 2 && e.spine == 0);
  }
  ASSERT_EQ(r.sim.switch_up(t.spine_node(2, 0), r.sim.now()), SimError::kOk);
  r.sim.run_until(r.sim.now());
  r.send_all(evs, r.sim.now());
  r.sim.run_until_idle(r.sim.now() + 10'000'000);
  EXPECT_EQ(r.log->size(), 2 * evs.size() - 1);
  EXPECT_EQ(r.sim.fault_target(r.sim.fault_log().front()), "plane2/spine0");
}

TEST(SimFaults, BlackholeLossCorruptionAndDelay) {
  Rig r;
  const Topology& t = r.sim.topology();
  const auto evs = srv6_evs(t, 0, 1);
  const EvSpec& ev = evs[0];
  const PathTrace tr = path_of(r.sim, 0, 1, ev);
  const LinkId spine_link = Topology::link_of(tr.dirs[1]);

  // Black-hole: the link stays up but nothing crosses.
  ASSERT_EQ(r.sim.blackhole(spine_link, 0), SimError::kOk);
  r.send_all({ev}, 100);
  r.sim.run_until_idle(1'000'000);
  EXPECT_TRUE(r.log->empty());
  ASSERT_EQ(r.sim.blackhole(spine_link, r.sim.now(), false), SimError::kOk);

  // Extra delay: the same frame arrives exactly 7 us later than without it.
  const std::uint64_t t0 = r.sim.now() + 1000;
  r.send_all({ev}, t0);
  r.sim.run_until_idle(t0 + 1'000'000);
  ASSERT_EQ(r.log->size(), 1u);
  const std::uint64_t base = r.log->back().t - t0;
  ASSERT_EQ(r.sim.set_extra_delay(spine_link, 7000, r.sim.now()), SimError::kOk);
  const std::uint64_t t1 = r.sim.now() + 1000;
  r.send_all({ev}, t1);
  r.sim.run_until_idle(t1 + 1'000'000);
  ASSERT_EQ(r.log->size(), 2u);
  EXPECT_EQ(r.log->back().t - t1, base + 7000);
  ASSERT_EQ(r.sim.set_extra_delay(spine_link, 0, r.sim.now()), SimError::kOk);

  // Corruption with probability 1: every frame arrives with a failing ICRC.
  ASSERT_EQ(r.sim.set_corruption(spine_link, 1.0, r.sim.now()), SimError::kOk);
  r.send_all({ev, ev, ev}, r.sim.now() + 1000);
  r.sim.run_until_idle(r.sim.now() + 1'000'000);
  ASSERT_EQ(r.log->size(), 5u);
  for (std::size_t i = 2; i < 5; ++i) {
    wire::DecodedFrame f;
    ASSERT_TRUE(testing::decode((*r.log)[i].bytes, f));
    EXPECT_FALSE(f.icrc_ok);
  }
  ASSERT_EQ(r.sim.set_corruption(spine_link, 0, r.sim.now()), SimError::kOk);

  // Loss 30%: seeded draws lose a plausible share of 400 frames.
  ASSERT_EQ(r.sim.set_loss(spine_link, 0.3, r.sim.now()), SimError::kOk);
  const std::size_t before = r.log->size();
  r.send_all(std::vector<EvSpec>(400, ev), r.sim.now() + 1000, 500);
  r.sim.run_until_idle(r.sim.now() + 10'000'000);
  const std::size_t lost = 400 - (r.log->size() - before);
  EXPECT_GT(lost, 80u);
  EXPECT_LT(lost, 160u);
  std::size_t drop_records = 0;
  for (const FaultRecord& f : r.sim.fault_log()) drop_records += f.kind == FaultKind::kDrop && f.per_packet;
  EXPECT_EQ(drop_records, lost);

  EXPECT_EQ(r.sim.set_loss(spine_link, 1.5, r.sim.now()), SimError::kBadArgument);
  EXPECT_EQ(r.sim.set_loss(9999, 0.5, r.sim.now()), SimError::kBadLink);
  EXPECT_EQ(r.sim.set_loss(spine_link, 0.5, 0), SimError::kInPast);
}

TEST(SimFaults, OneDirectionOnly) {
  Rig r;
  const Topology& t = r.sim.topology();
  const EvSpec fwd = srv6_evs(t, 0, 1)[0];
  const EvSpec back = srv6_evs(t, 1, 0)[0];  // the same plane and spine, the other way
  const LinkId l = t.fabric_link(fwd.port, 0, fwd.spine);
  ASSERT_EQ(r.sim.link_down(l, 0, LinkSide::kUp), SimError::kOk);  // leaf0 -> spine only
  ASSERT_EQ(r.sim.inject(0, fwd.port, testing::frame_for(0, 1, fwd), 10), SimError::kOk);
  ASSERT_EQ(r.sim.inject(1, back.port, testing::frame_for(1, 0, back), 10), SimError::kOk);
  r.sim.run_until_idle(1'000'000);
  ASSERT_EQ(r.log->size(), 1u);
  EXPECT_EQ(r.log->front().host, 0u);
  EXPECT_EQ(r.sim.fault_target(r.sim.fault_log().front()), "plane1/leaf0->spine0");
}

}  // namespace
}  // namespace mrc::sim
