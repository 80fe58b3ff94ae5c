// The same topology, traffic and seed give byte-identical pcaps: a write between two reference
// endpoints with seeded loss, a link failure and an impairment hook, captured on several taps and
// hashed; and a different seed gives different captures (the draws really are seeded).
#include <gtest/gtest.h>

#include "harness/capture/pcapng.hpp"
#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/sim_write.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

struct RunResult {
  std::uint64_t hash = 0;
  std::size_t packets = 0;
  std::uint64_t end_ns = 0;
  std::size_t faults = 0;
};

RunResult run(std::uint64_t seed, wire::EvFmtMode mode) {
  TopologyConfig cfg = testing::mini();
  cfg.seed = seed;
  Simulator sim(cfg);
  const Topology& t = sim.topology();
  ConnectOptions o;
  o.mode = mode;
  o.timeout = 6;
  Connection c;
  EXPECT_EQ(connect_hosts(sim, 0, 1, o, c), "");
  std::vector<TapId> taps;
  for (std::uint32_t p = 1; p <= t.planes(); ++p) {
    taps.push_back(sim.add_tap({t.host_tx_dir(0, p), TapPoint::kWire}));
    taps.push_back(sim.add_tap({t.host_rx_dir(0, p), TapPoint::kArrival}));
  }
  EXPECT_EQ(sim.set_loss(t.fabric_link(2, 0, 1), 0.02, 0), SimError::kOk);
  EXPECT_EQ(sim.link_down(t.fabric_link(5, 1, 0), 40'000), SimError::kOk);
  std::uint64_t n = 0;
  sim.set_impairment_hook(
      [&n](std::uint64_t, DirId, wire::MutBytes, std::uint16_t&) {
        Impairment imp;
        if (++n % 97 == 0) imp.action = Impairment::Action::kDuplicate;
        if (n % 101 == 0) imp.action = Impairment::Action::kTrim;
        return imp;
      },
      {t.host_tx_dir(0, 3)});
  WriteJob job;
  job.bytes = 8u << 20;
  job.chunk = 64 * 1024;
  job.with_imm = true;
  const WriteOutcome w = run_write(sim, c, job);
  EXPECT_EQ(w.failure, "");
  RunResult r;
  r.hash = 0xcbf29ce484222325ull;
  for (const TapId id : taps) {
    r.hash = fnv1a(harness::pcapng_bytes(sim.capture(id)), r.hash);
    r.packets += sim.capture(id).size();
  }
  r.end_ns = w.end_ns;
  r.faults = sim.fault_log().size();
  return r;
}

void same_inputs_same_bytes(wire::EvFmtMode mode) {
  const RunResult a = run(7, mode);
  const RunResult b = run(7, mode);
  EXPECT_GT(a.packets, 2000u);
  EXPECT_GT(a.faults, 3u);  // the link failure plus per-packet drops, trims and duplicates
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.packets, b.packets);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.faults, b.faults);
  const RunResult c = run(8, mode);
  EXPECT_NE(a.hash, c.hash);  // other loss draws, other captures
}

TEST(SimDeterminism, IdenticalPcapsSrv6) { same_inputs_same_bytes(wire::EvFmtMode::kSrv6); }
TEST(SimDeterminism, IdenticalPcapsStev) { same_inputs_same_bytes(wire::EvFmtMode::kStev); }

}  // namespace
}  // namespace mrc::sim
