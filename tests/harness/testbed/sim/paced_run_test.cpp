// The paced fabric pauses instead of running a long gap at once (sim/paced_run.hpp): when the
// machine leaves it far behind the clock, its clock stands still for the rest, so the in-process
// peer's timers do not all fire in one turn before a DUT behind the bridge saw that turn's frames.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "harness/testbed/sim/paced_run.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

// A bound host with no interface: nothing to read, nothing sent.
class SilentWireHost final : public harness::WireHost {
 public:
  void on_frame(std::uint8_t, std::span<const std::uint8_t>, std::uint64_t) override {}
  void advance(std::uint64_t) override {}
  bool poll_frame(transport::TxFrame&) override { return false; }
  std::uint64_t next_deadline() const override { return UINT64_MAX; }
  int set_port_up(std::uint8_t, bool) override { return 0; }
  std::string describe() const override { return "silent"; }
  std::vector<std::uint8_t> ports() const override { return {1}; }
  std::vector<int> fds() const override { return {}; }
  void start(const harness::PacedClock&) override {}
  int receive() override { return 0; }
  const std::string& error() const override { return error_; }
  const harness::BridgeFigures& figures() override { return figures_; }

 private:
  std::string error_;
  harness::BridgeFigures figures_;
};

// The mini fabric with host 0 bound to a SilentWireHost (host 1 external), its clock started.
// With `priority` and `spin_ns`, its thread asks for them (Testbed::BridgeDeclaration).
struct Paced {
  Simulator sim{testing::mini()};
  PacedRun paced{sim};
  std::string bound;
  std::shared_ptr<std::vector<testing::Received>> at_host1 = std::make_shared<std::vector<testing::Received>>();
  explicit Paced(int priority = 0, std::uint64_t spin_ns = 0) {
    testing::make_external(sim, {1}, at_host1);
    bound = paced.bind(0, std::make_unique<SilentWireHost>());
    paced.ask_realtime(priority, spin_ns);
    if (bound.empty()) paced.start_clock();
  }
};

// A frame from host 1 due to cross the fabric 1 ms in.
void frame_due_in_1ms(Simulator& sim) {
  const auto evs = srv6_evs(sim.topology(), 1, 0);
  const auto f = testing::frame_for(1, 0, evs.front());
  ASSERT_EQ(sim.inject(1, 1, wire::Bytes(f.data(), f.size()), sim.now() + 1'000'000), SimError::kOk);
}

// The runner keeps the fabric 30 ms (as a machine that leaves the fabric's thread asleep does)
// with an event due 1 ms in: the fabric's time then moves on by about that, not by the 30 ms.
TEST(PacedRun, AFabricLeftFarBehindPausesItsClockInsteadOfRunningTheGapAtOnce) {
  Paced f;
  ASSERT_EQ(f.bound, "");
  const std::uint64_t sim_before = f.sim.now();
  frame_due_in_1ms(f.sim);
  const auto wall_before = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_TRUE(f.paced.run_until(f.sim.now() + 200'000));
  const auto wall_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - wall_before).count());

  ASSERT_GE(f.paced.pauses().count(), 1u);
  EXPECT_GE(f.paced.pauses().max(), 20'000'000u);
  EXPECT_LE(f.sim.now() - sim_before, wall_ns - 20'000'000u)
      << "the fabric ran the whole stall: its time followed the wall clock through it";
}

// With nothing due, a fabric that slept long lost nothing: no pause, its time follows the clock.
TEST(PacedRun, AnIdleFabricThatSleptLongDoesNotPause) {
  Paced f;
  ASSERT_EQ(f.bound, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(f.paced.run_until(f.sim.now() + 100'000));
  EXPECT_EQ(f.paced.pauses().count(), 0u);
  EXPECT_GE(f.paced.clock_now(), 20'000'000u);
}

// While the runner holds the fabric its clock stands still (what it does in one hold happens at
// one time); it moves on, never back, once the runner takes the fabric again.
TEST(PacedRun, TheClockStandsStillWhileTheRunnerHoldsTheFabric) {
  Paced f;
  ASSERT_EQ(f.bound, "");
  frame_due_in_1ms(f.sim);
  const std::uint64_t held = f.paced.clock_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(f.paced.clock_now(), held) << "the clock ran on while the runner held the fabric";
  ASSERT_TRUE(f.paced.run_until(f.sim.now() + 100'000));
  EXPECT_GE(f.paced.clock_now(), held);
}

// A priority the kernel refuses (SCHED_FIFO has 1 .. 99) fails the run with what was asked and
// what to do, instead of running with a scheduling the lab file did not ask for.
TEST(PacedRun, ARealTimePriorityTheKernelRefusesFailsTheRunAndSaysWhy) {
  Paced f(100);
  ASSERT_EQ(f.bound, "");
  EXPECT_FALSE(f.paced.run_until(f.sim.now() + 100'000));
  EXPECT_NE(f.paced.error().find("fabric_priority 100: the kernel refused SCHED_FIFO"), std::string::npos)
      << f.paced.error();
}

// A thread awake through the last 2 ms of its waits still runs nothing before its time, and
// does run it: a frame host 0 sends 1 ms in reaches host 1 after that, within the run.
TEST(PacedRun, AFabricAwakeThroughItsWaitsRunsEventsAtTheirTimeNotBefore) {
  Paced f(0, 2'000'000);
  ASSERT_EQ(f.bound, "");
  const auto evs = srv6_evs(f.sim.topology(), 0, 1);
  const auto frame = testing::frame_for(0, 1, evs.front());
  const std::uint64_t due = f.sim.now() + 1'000'000;
  ASSERT_EQ(f.sim.inject(0, 1, wire::Bytes(frame.data(), frame.size()), due), SimError::kOk);
  ASSERT_TRUE(f.paced.run_until(due + 2'000'000)) << f.paced.error();
  ASSERT_EQ(f.at_host1->size(), 1u);
  EXPECT_GE(f.at_host1->front().t, due);
  EXPECT_GE(f.paced.wake_lateness().count(), 1u);
}

}  // namespace
}  // namespace mrc::sim
