// The simulated switches' traffic classes are configuration (W13): a trim re-marks the frame
// with the configured DSCP_TRIMMED, or DSCP_TRIMMED_LASTHOP on the link to the host, and a path
// trace sends its probe frame in the configured DSCP_TRIMMABLE.
#include <gtest/gtest.h>

#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

TopologyConfig configured() {
  TopologyConfig cfg = testing::mini();
  cfg.sw.dscp.trimmable = 20;
  cfg.sw.dscp.trimmable_retx = 22;
  cfg.sw.dscp.trimmed = 21;
  cfg.sw.dscp.trimmed_lasthop = 23;
  cfg.sw.dscp.control = 40;
  return cfg;
}

// Trims every frame on `dir` and returns the DSCP of what reached host 1.
std::vector<unsigned> trimmed_dscps(bool last_hop) {
  Simulator sim(configured());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {0, 1}, log);
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  const PathTrace tr = path_of(sim, 0, 1, ev);
  EXPECT_TRUE(tr.delivered);
  const DirId dir = last_hop ? tr.dirs.back() : tr.dirs[2];
  sim.set_impairment_hook(
      [](std::uint64_t, DirId, wire::MutBytes, std::uint16_t&) {
        Impairment imp;
        imp.action = Impairment::Action::kTrim;
        return imp;
      },
      {dir});
  std::array<std::uint8_t, wire::kMaxFrameLen> buf{};
  const std::size_t n = ev_frame(0, 1, ev, false, buf, 1024, 20);
  EXPECT_GT(n, 0u);
  EXPECT_EQ(sim.inject(0, ev.port, wire::Bytes(buf.data(), n), 100), SimError::kOk);
  sim.run_until_idle(1'000'000);
  std::vector<unsigned> out;
  for (const Received& r : *log) {
    wire::DecodedFrame f;
    wire::DecodeOptions opt;
    opt.trimmed_dscps = configured().sw.dscp.trimmed_mask();
    opt.trimmed_lasthop_dscp = configured().sw.dscp.trimmed_lasthop;
    EXPECT_TRUE(wire::decode_frame(wire::Bytes(r.bytes.data(), r.bytes.size()), f, opt).ok());
    EXPECT_TRUE(f.trimmed);  // a receiver configured alike recognises the trim by its DSCP
    out.push_back(f.ip6.dscp);
  }
  return out;
}

TEST(SimTrimDscp, ATrimReMarksWithTheConfiguredTrimmedValue) {
  EXPECT_EQ(trimmed_dscps(false), std::vector<unsigned>{21});
}

TEST(SimTrimDscp, ATrimOnTheLastHopReMarksWithTheConfiguredLastHopValue) {
  EXPECT_EQ(trimmed_dscps(true), std::vector<unsigned>{23});
}

TEST(SimTrimDscp, PathTraceFramesCarryTheConfiguredTrimmableValue) {
  std::array<std::uint8_t, wire::kMaxFrameLen> buf{};
  Simulator sim(configured());
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  const std::size_t n = ev_frame(0, 1, ev, false, buf, 16, sim.topology().config().sw.dscp.trimmable);
  wire::DecodedFrame f;
  ASSERT_TRUE(wire::decode_frame(wire::Bytes(buf.data(), n), f).ok());
  EXPECT_EQ(f.ip6.dscp, 20u);
  EXPECT_TRUE(path_of(sim, 0, 1, ev).delivered);  // the trace routes whatever the class
}

}  // namespace
}  // namespace mrc::sim
