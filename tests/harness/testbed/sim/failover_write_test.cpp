// Reference endpoints over the fabric: writes complete byte-exact in every EV format mode, and a
// spine link failing mid-transfer costs only the EVs that cross it: the transfer still completes
// byte-exact and the requester stops using the affected EVs (ASSUMED_BAD, no more data on them).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/sim_write.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

struct Mode {
  wire::EvFmtMode mode;
  bool srh;
};

void clean_write(Mode m) {
  Simulator sim(testing::mini());
  ConnectOptions o;
  o.mode = m.mode;
  o.srh = m.srh;
  Connection c;
  ASSERT_EQ(connect_hosts(sim, 0, 1, o, c), "");
  WriteJob job;
  job.bytes = 4u << 20;
  job.chunk = 256 * 1024;
  job.with_imm = true;
  const WriteOutcome w = run_write(sim, c, job);
  ASSERT_EQ(w.failure, "");
  EXPECT_TRUE(w.completed && w.data_ok);
  // Sprayed: every EV of A's profile carried data, every plane's host link carried frames.
  const auto per_ev = c.a->tx_per_ev(c.qpn_a);
  for (std::size_t i = 0; i < c.evs_a.size(); ++i) EXPECT_GT(per_ev[i], 0u) << "EV " << i;
  for (std::uint32_t p = 1; p <= sim.topology().planes(); ++p) {
    EXPECT_GT(sim.dir_counters(sim.topology().host_tx_dir(0, p)).tx_frames, 100u);
  }
  EXPECT_EQ(c.a->stats().rx_decode_error + c.b->stats().rx_decode_error, 0u);
  EXPECT_EQ(c.a->stats().rx_not_for_us + c.b->stats().rx_not_for_us, 0u);
  const auto& rs = c.a->requester(c.qpn_a)->stats();
  EXPECT_EQ(rs.retransmits, 0u);
}

TEST(SimEndpoints, CleanWriteSrv6) { clean_write({wire::EvFmtMode::kSrv6, false}); }
TEST(SimEndpoints, CleanWriteSrv6WithSrh) { clean_write({wire::EvFmtMode::kSrv6, true}); }
TEST(SimEndpoints, CleanWriteStev) { clean_write({wire::EvFmtMode::kStev, false}); }
TEST(SimEndpoints, CleanWriteUdp) { clean_write({wire::EvFmtMode::kUdp, false}); }

// side kBoth: the whole link fails, so B's feedback crossing it is lost too and the requester may
// also retire data EVs whose ACKs died there; kDown: only the data direction fails and exactly
// the EVs that cross it may turn ASSUMED_BAD.
void failover(Mode m, LinkSide side) {
  Simulator sim(testing::mini());
  ConnectOptions o;
  o.mode = m.mode;
  o.srh = m.srh;
  o.timeout = 5;  // 32.8 us ACK timeout: detection well inside the transfer
  Connection c;
  ASSERT_EQ(connect_hosts(sim, 0, 1, o, c), "");
  const Topology& t = sim.topology();
  const LinkId failed = t.fabric_link(3, 1, 0);  // plane 3: spine 0 <-> host 1's leaf
  const std::uint64_t fail_at = 100'000;
  ASSERT_EQ(sim.link_down(failed, fail_at, side), SimError::kOk);
  const auto hit = evs_crossing(sim, 0, 1, c.evs_a, failed);
  ASSERT_FALSE(hit.empty());
  const std::set<std::size_t> affected(hit.begin(), hit.end());

  WriteTransfer xfer;
  WriteJob job;
  job.bytes = 96u << 20;  // about 1 ms at 8 x 100 Gb/s
  job.chunk = 1u << 20;
  ASSERT_EQ(xfer.start(sim, c, job), "");
  // Run to 300 us after the failure (detection takes a few ACK timeouts), then snapshot.
  const std::uint64_t settle = fail_at + 300'000;
  while (!xfer.poll() && sim.now() < settle) sim.run_until(sim.now() + 1000);
  ASSERT_FALSE(xfer.done()) << "the transfer should outlast the failure; make it larger";
  const auto mid = std::vector<std::uint64_t>(c.a->tx_per_ev(c.qpn_a).begin(), c.a->tx_per_ev(c.qpn_a).end());
  while (!xfer.poll() && sim.now() < 2'000'000'000) sim.run_until(sim.now() + 1000);
  ASSERT_EQ(xfer.failure(), "");
  ASSERT_TRUE(xfer.done());
  EXPECT_TRUE(xfer.verify());
  const auto end = c.a->tx_per_ev(c.qpn_a);
  const auto states = c.a->ev_states(c.qpn_a);
  ASSERT_EQ(states.size(), end.size());
  std::uint64_t after_unaffected = 0;
  std::size_t good = 0;
  for (std::size_t i = 0; i < c.evs_a.size(); ++i) {
    if (affected.count(i)) {
      EXPECT_EQ(states[i], ev::EvState::kAssumedBad) << "EV " << i;
      EXPECT_EQ(end[i], mid[i]) << "EV " << i << " still carried data after the failure was detected";
    } else {
      if (side == LinkSide::kDown) {
        EXPECT_EQ(states[i], ev::EvState::kGood) << "EV " << i;
      }
      good += states[i] == ev::EvState::kGood;
      after_unaffected += end[i] - mid[i];
    }
  }
  EXPECT_GE(good, (c.evs_a.size() - affected.size()) / 2);
  EXPECT_GT(after_unaffected, 1000u);
  const auto& rs = c.a->requester(c.qpn_a)->stats();
  std::printf("failover: %zu/%zu EVs hit, %zu others GOOD, done at %.3f ms, retransmits %llu, timeouts %llu, lost on link %llu\n",
              affected.size(), c.evs_a.size(), good, static_cast<double>(sim.now()) / 1e6,
              static_cast<unsigned long long>(rs.retransmits), static_cast<unsigned long long>(rs.timeouts),
              static_cast<unsigned long long>(sim.dir_counters(Topology::dir(failed, false)).dropped_fault));
  // What crossed the failed link after the failure was lost there, and only there.
  EXPECT_GT(sim.dir_counters(Topology::dir(failed, false)).dropped_fault, 0u);
  EXPECT_GT(c.a->requester(c.qpn_a)->stats().retransmits, 0u);
}

TEST(SimEndpoints, SpineLinkFailsMidWriteSrv6) { failover({wire::EvFmtMode::kSrv6, false}, LinkSide::kBoth); }
TEST(SimEndpoints, SpineLinkFailsMidWriteStev) { failover({wire::EvFmtMode::kStev, false}, LinkSide::kBoth); }
TEST(SimEndpoints, DataDirectionFailsOnlyCrossingEvsTurnBad) {
  failover({wire::EvFmtMode::kSrv6, false}, LinkSide::kDown);
}

}  // namespace
}  // namespace mrc::sim
