// bridge_trust: when a run across the real-time bridge kept to what the bridge declared.
#include "harness/run/bridge_trust.hpp"

#include <gtest/gtest.h>

namespace mrc::run {
namespace {

harness::BridgeFigures lagging(std::uint64_t tx_lag_ns, std::uint64_t entry_ns, int frames = 100) {
  harness::BridgeFigures b;
  for (int i = 0; i < frames; ++i) {
    b.tx_lag.add(tx_lag_ns);
    b.rx_entry.add(entry_ns);
  }
  b.tx_frames = b.rx_frames = static_cast<std::uint64_t>(frames);
  return b;
}

TEST(BridgeTrust, ABridgeInsideItsBudgetKeptItsDeclaration) {
  EXPECT_EQ(bridge_overrun(lagging(150'000, 2'000), 200'000, "DUT"), "");
}

TEST(BridgeTrust, LostFramesOrALagPastTheBudgetAreNamed) {
  harness::BridgeFigures lost = lagging(1'000, 1'000);
  lost.kernel_drops = 2;
  lost.tx_errors = 1;
  EXPECT_EQ(bridge_overrun(lost, 200'000, "peer"), "the real-time bridge lost 3 frame(s) to or from the peer");
  const std::string late = bridge_overrun(lagging(300'000, 1'000), 200'000, "DUT");
  EXPECT_NE(late.find("lag towards the DUT reached 300.0 us (p99 300."), std::string::npos) << late;
  EXPECT_NE(late.find("over its declared timing budget of 200.0 us"), std::string::npos) << late;
  const std::string entry = bridge_overrun(lagging(1'000, 250'000), 200'000, "DUT");
  EXPECT_NE(entry.find("entry delay from the DUT reached 250.0 us"), std::string::npos) << entry;
  // One frame past the budget is enough: it may be the one a check judged.
  harness::BridgeFigures one_late = lagging(1'000, 1'000);
  one_late.tx_lag.add(201'000);
  const std::string one = bridge_overrun(one_late, 200'000, "DUT");
  EXPECT_NE(one.find("lag towards the DUT reached 201.0 us (p99 "), std::string::npos) << one;
}

TEST(BridgeTrust, ARunStopsBeingRealTimeWhenTheFabricOrAQueueFallsBehind) {
  const harness::BridgeFigures fine = lagging(100'000, 1'000);
  EXPECT_EQ(real_time_lost(10'000'000, &fine, nullptr), "");
  const std::string fabric = real_time_lost(kMaxBehindNs + 1'000'000, &fine, nullptr);
  EXPECT_NE(fabric.find("the simulated fabric fell 51 ms behind real time (limit 50 ms)"), std::string::npos) << fabric;
  const harness::BridgeFigures deep = lagging(kMaxBehindNs + 10'000'000, 1'000, 1);
  const std::string queue = real_time_lost(0, &fine, &deep);
  EXPECT_NE(queue.find("queue towards the peer reached 60 ms"), std::string::npos) << queue;
}

TEST(BridgeTrust, APauseLongerThanTheBudgetIsNamedAndShorterOnesOnlyNoted) {
  harness::LatencyHistogram pauses;
  EXPECT_EQ(pause_note(pauses), "");
  EXPECT_EQ(pause_overrun(pauses, 0, 500'000), "");
  pauses.add(120'000);
  pauses.add(300'000);
  EXPECT_EQ(pause_overrun(pauses, 150'000, 500'000), "");
  const std::string note = pause_note(pauses);
  EXPECT_NE(note.find("paused 2 time(s), longest 300.0 us"), std::string::npos) << note;
  // The pause and the bridge's lag add up past the budget.
  const std::string with_lag = pause_overrun(pauses, 250'000, 500'000);
  EXPECT_NE(with_lag.find("stood still for up to 300.0 us"), std::string::npos) << with_lag;
  EXPECT_NE(with_lag.find("with the bridge's lag (up to 250.0 us) passes its declared timing budget of 500.0 us"),
            std::string::npos) << with_lag;
  pauses.add(2'400'000);
  EXPECT_NE(pause_overrun(pauses, 0, 500'000).find("stood still for up to 2400.0 us"), std::string::npos);
}

TEST(BridgeTrust, ARunStoppedForFallingBehindSaysWhatCrossedTheBridge) {
  const harness::BridgeFigures some = lagging(100'000, 1'000, 7);
  const std::string lost = real_time_lost(kMaxBehindNs + 1'000'000, &some, nullptr);
  EXPECT_NE(lost.find("; real-time bridge: 7 frames to the DUT"), std::string::npos) << lost;
}

TEST(BridgeTrust, TheNoteSaysWhatTheBridgeAddedEachWay) {
  const std::string note = bridge_note(lagging(50'000, 3'000, 10), "DUT");
  EXPECT_EQ(note.find("real-time bridge: 10 frames to the DUT (lag p50 50."), 0u) << note;
  EXPECT_NE(note.find("10 from it (entry delay p99 3."), std::string::npos) << note;
  EXPECT_NE(note.find("0 lost, 0 not sent"), std::string::npos) << note;
}

}  // namespace
}  // namespace mrc::run

namespace mrc::run {
namespace {

// Past two thirds of its wall-clock bound a wire case stops with the pauses named, before the
// watchdog would kill it while its captures are judged.
TEST(BridgeTrust, ACaseNearItsWallClockBoundStopsNamingThePauses) {
  using namespace std::chrono;
  const steady_clock::time_point start{};
  const auto deadline = start + seconds(30);
  EXPECT_EQ(wall_clock_short(start, deadline, start + seconds(19), 2'000'000'000), "");
  const std::string why = wall_clock_short(start, deadline, start + seconds(21), 2'000'000'000);
  EXPECT_NE(why.find("two thirds of its wall-clock bound (21.0 s of 30.0 s, timeout_s) in 2.000 s of testbed time"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("clock stood still for 19.0 s"), std::string::npos) << why;
  EXPECT_EQ(wall_clock_short(start, steady_clock::time_point::max(), start + seconds(1000), 0), "");
}

}  // namespace
}  // namespace mrc::run
