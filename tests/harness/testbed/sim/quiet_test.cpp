// What the runner may skip (Testbed::quiet_until): the simulator says whether its last run moved
// anything and when its next event is due, so a session waiting on a long timer jumps to it.
#include <gtest/gtest.h>

#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

TEST(SimQuiet, LastRunDispatchedAndNextEvent) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<testing::Received>>();
  testing::make_external(sim, {0, 1}, log);
  EXPECT_TRUE(sim.last_run_dispatched());  // before any run: never claim quiet
  sim.run_until(1000);
  EXPECT_FALSE(sim.last_run_dispatched());
  EXPECT_TRUE(sim.idle());
  const auto evs = srv6_evs(sim.topology(), 0, 1);
  const auto f = testing::frame_for(0, 1, evs.front());
  ASSERT_EQ(sim.inject(0, 1, wire::Bytes(f.data(), f.size()), 50'000), SimError::kOk);
  EXPECT_EQ(sim.next_event_time(), 50'000u);
  sim.run_until(2000);  // nothing due yet
  EXPECT_FALSE(sim.last_run_dispatched());
  EXPECT_TRUE(log->empty());
  sim.run_until(200'000);  // the frame crosses the fabric
  EXPECT_TRUE(sim.last_run_dispatched());
  EXPECT_EQ(log->size(), 1u);
}

}  // namespace
}  // namespace mrc::sim
