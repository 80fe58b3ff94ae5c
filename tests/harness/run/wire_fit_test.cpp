// wire_fit: which cases a real-time bridge can carry, from the case and the declared figures.
#include "harness/run/wire_fit.hpp"

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/time_expr.hpp"
#include "harness/testbed/testbed.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::run {
namespace {

harness::Case with_traffic(std::uint8_t timeout, std::uint32_t writes, std::uint64_t size) {
  harness::Case c;
  c.id = "t-v-001";
  c.config.qp.timeout = timeout;
  harness::TrafficStep t;
  t.writes = writes;
  t.size = size;
  c.stimulus.push_back(harness::StimulusStep{{}, t});
  return c;
}

// The bridge --testbed netns declares on mini: 5.4 us of fabric plus 50 us of bridge round trip.
constexpr WireFacts kNetns{55'400, 1'000'000'000, 2'000'000'000};

TEST(WireFit, AnAckTimeoutShorterThanTwoRoundTripsDoesNotFitAndSaysWhy) {
  // 1.024 us x 2^6 = 65.5 us < 2 x 55.4 us
  const std::string why = wire_misfit(with_traffic(6, 1, 4096), kNetns);
  EXPECT_NE(why.find("config.qp.timeout 6: 65.5 us"), std::string::npos) << why;
  EXPECT_NE(why.find("2 x 55.4 us"), std::string::npos) << why;
  EXPECT_NE(why.find("--testbed mini"), std::string::npos) << why;
}

TEST(WireFit, AFixedCaseKeepsItsTimeoutAndSaysItsTimesAreFixed) {
  const harness::Case c = with_traffic(6, 1, 4096);
  EXPECT_EQ(wire_timeout(c, kNetns), std::nullopt);
  EXPECT_NE(wire_misfit(c, kNetns).find("its times are fixed"), std::string::npos);
}

TEST(WireFit, AScalingCaseGetsTheSmallestTimeoutOverTwoRoundTripsAndTwiceTheBudget) {
  harness::Case c = with_traffic(6, 1, 4096);
  c.timing_scales = true;
  WireFacts w = kNetns;
  EXPECT_EQ(wire_timeout(c, w), 7);  // no budget declared: 131 us >= 2 x 55.4 us
  w.budget_ns = 500'000;
  EXPECT_EQ(wire_timeout(c, w), 10);  // 1.049 ms >= 2 x 500 us; 2^9 (524 us) is not
  c.config.qp.timeout = 8;  // 262 us: two round trips, but under twice the budget
  EXPECT_EQ(wire_timeout(c, w), 10);
  c.config.qp.timeout = 12;
  EXPECT_EQ(wire_timeout(c, w), std::nullopt);  // its own T fits
  c.config.qp.timeout = 6;
  w.base_rtt_ns = 20'000'000'000;  // no exponent up to 24 (17.2 s) fits 40 s
  EXPECT_EQ(wire_timeout(c, w), std::nullopt);
}

TEST(WireFit, ATimelineLongerThanTheWallClockBoundDoesNotFit) {
  harness::Case c = with_traffic(12, 1, 4096);
  harness::ExpectStep e;
  e.within_ns = 40'000'000'000;  // 40 s of expected silence: 40 s of real time on a wire
  e.absent = true;
  c.stimulus.push_back(harness::StimulusStep{{}, e});
  c.timeout_s = 30;
  const std::string why = wire_misfit(c, kNetns);
  EXPECT_NE(why.find("its timeline runs 40.0 s"), std::string::npos) << why;
  EXPECT_NE(why.find("wall-clock bound of 30 s (timeout_s)"), std::string::npos) << why;
  c.timeout_s = 60;
  EXPECT_EQ(wire_misfit(c, kNetns), "");
}

TEST(WireFit, TheDefaultAckTimeoutFitsTheNetnsBridge) {
  // 1.024 us x 2^8 = 262 us >= 110.8 us; and 2^7 = 131 us too.
  EXPECT_EQ(wire_misfit(with_traffic(8, 16, 65536), kNetns), "");
  EXPECT_EQ(wire_misfit(with_traffic(7, 16, 65536), kNetns), "");
}

TEST(WireFit, TimersDoNotMatterWithoutTraffic) {
  harness::Case c = with_traffic(2, 1, 4096);
  c.stimulus.clear();  // injected frames only: no QP of the DUT's times anything out
  EXPECT_EQ(wire_misfit(c, kNetns), "");
}

TEST(WireFit, MoreDataThanTheBridgeCarriesInHalfTheTimeLimitDoesNotFit) {
  // 200 x 1 MB = 1.6 Gbit: 1.6 s at 1 Gb/s, over half of 2 s.
  const std::string why = wire_misfit(with_traffic(10, 200, 1'000'000), kNetns);
  EXPECT_NE(why.find("writes 200.0 MB, 1.60 s at the bridge's 1.00 Gb/s"), std::string::npos) << why;
  // The same on a 10 Gb/s lab wire fits.
  EXPECT_EQ(wire_misfit(with_traffic(10, 200, 1'000'000), WireFacts{55'400, 10'000'000'000, 2'000'000'000}), "");
}

// Its times are compared as the field class `bridged` (paced at the bridge's rate), so it runs.
TEST(WireFit, AGoldenThatComparesTimesFitsAsOneThatMasksThemDoes) {
  harness::Case c = with_traffic(8, 4, 4096);
  harness::GoldenCheck g;
  g.pcap = "pcaps/spray/x.pcapng";
  g.tolerance_ns = 50'000;
  c.checks.push_back(harness::Check{{}, "", {}, g, harness::Level::kMust});
  EXPECT_EQ(wire_misfit(c, kNetns), "");
  std::get<harness::GoldenCheck>(c.checks[0].params).masks = {"ts"};
  EXPECT_EQ(wire_misfit(c, kNetns), "");
}

TEST(WireFit, AnImpairmentWindowShorterThanARoundTripDoesNotFit) {
  harness::Case c = with_traffic(8, 4, 4096);
  harness::ImpairStep drop;
  drop.select.time_window = std::pair<std::uint64_t, std::uint64_t>{0, 5000};
  c.stimulus.push_back(harness::StimulusStep{{}, drop});
  const std::string why = wire_misfit(c, kNetns);
  EXPECT_NE(why.find("a window of 5.0 us (0.0 us .. 5.0 us), shorter than a round trip across this wire"),
            std::string::npos)
      << why;
  std::get<harness::ImpairStep>(c.stimulus.back().body).select.time_window =
      std::pair<std::uint64_t, std::uint64_t>{0, 1'000'000};
  EXPECT_EQ(wire_misfit(c, kNetns), "");
}

TEST(WireFit, AnExpectThatTimesTrafficMustHoldItAtTheBridgesRate) {
  // 16 x 64 KiB = 1.05 MB: 8.4 ms at 1 Gb/s, against an expect of 2 ms.
  harness::Case c = with_traffic(8, 16, 65536);
  harness::ExpectStep e;
  e.within_ns = 2'000'000;
  c.stimulus.push_back(harness::StimulusStep{{}, e});
  const std::string why = wire_misfit(c, kNetns);
  EXPECT_NE(why.find("an expect gives the traffic before it 2000.0 us, but it writes 1.0 MB, 8.39 ms"), std::string::npos)
      << why;
  std::get<harness::ExpectStep>(c.stimulus.back().body).within_ns = 10'000'000;
  EXPECT_EQ(wire_misfit(c, kNetns), "");
}

TEST(WireFit, SuiteCasesWithShortTimersAreNamed) {
  // failover-v-001 sets qp.timeout 6 on purpose (a link dies and must cost one short timeout).
  const auto loaded = harness::load_case(std::filesystem::path(MRC_SOURCE_DIR) / "cases/failover/failover-v-001.yaml");
  ASSERT_TRUE(loaded.value.has_value());
  EXPECT_NE(wire_misfit(*loaded.value, kNetns).find("config.qp.timeout 6"), std::string::npos);
}

// A packet the case holds back must not be taken for lost: T covers the longest hold on top of
// twice the budget (reorder's delay_ns, by default depth x 1 us; delay's delay_ns + jitter_ns).
TEST(WireFit, TheTimeoutCoversTheLongestHold) {
  harness::Case c = with_traffic(8, 24, 65536);
  c.timing_scales = true;
  WireFacts w = kNetns;
  w.budget_ns = 500'000;
  EXPECT_EQ(longest_hold_ns(c), 0u);
  EXPECT_EQ(wire_timeout(c, w), 10);  // 1.05 ms >= 2 x 500 us
  harness::ImpairStep reorder;
  reorder.kind = harness::ImpairKind::kReorder;
  reorder.params.depth = 2;
  reorder.params.delay_ns = 2'383'328;  // 71 F at 1 Gb/s
  c.stimulus.push_back(harness::StimulusStep{{}, reorder});
  EXPECT_EQ(longest_hold_ns(c), 2'383'328u);
  EXPECT_EQ(wire_timeout(c, w), 12);  // 4.19 ms >= 1 ms + 2.38 ms; 2^11 (2.1 ms) is not
  reorder.params.delay_ns.reset();   // the impairment's default: depth x 1 us
  c.stimulus.back() = harness::StimulusStep{{}, reorder};
  EXPECT_EQ(longest_hold_ns(c), 2000u);
  harness::ImpairStep delay;
  delay.kind = harness::ImpairKind::kDelay;
  delay.params.delay_ns = 3'000'000;
  delay.params.jitter_ns = 1'000'000;
  c.stimulus.push_back(harness::StimulusStep{{}, delay});
  EXPECT_EQ(longest_hold_ns(c), 4'000'000u);
  EXPECT_EQ(wire_timeout(c, w), 13);  // 8.4 ms >= 1 ms + 4 ms
}

// A case that writes F is loaded again at the rate its QP sprays at on the testbed, on a simulated
// testbed of other links as across a bridge; its windows hold as many packets and it runs longer.
TEST(WireFit, TimesInFramesFollowTheTestbedsRate) {
  const auto dir = harness::testing::scratch_dir();
  const std::filesystem::path clauses = std::filesystem::path(MRC_SOURCE_DIR) / "cases/clauses.yaml";
  const auto file = harness::testing::write_file(
      dir / "reliab-v-001.yaml",
      "id: reliab-v-001\ntitle: t\nclauses: [RETX-SELECTIVE]\nlevel: SHOULD\nbehaviour: valid\nrationale: r\n"
      "role: requester\ntiming: scales\nconfig:\n  qp: {timeout: 6}\nstimulus:\n  - traffic: {writes: 20, size: 65536}\n"
      "  - impair: {kind: drop, select: {probability: 0.1, time_window: [0, 240 F]}}\n"
      "checks:\n  - {type: positive_control}\n");
  harness::LoadResult loaded = harness::load_case(file, harness::testing::project_clauses());
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  const auto window_end = [](const harness::Case& k) {
    return std::get<harness::ImpairStep>(k.stimulus.at(1).body).select.time_window->second;
  };
  EXPECT_EQ(window_end(c), 10070u);  // 240 x 41.96 ns
  EXPECT_FALSE(rescale_for_testbed(c, nullptr, harness::kDefaultSprayBps, clauses).rescaled);  // the built-in rate

  const WireRescale half = rescale_for_testbed(c, nullptr, 400'000'000'000, clauses);  // a fabric of 50 Gb/s links
  ASSERT_TRUE(half.rescaled) << half.error;
  EXPECT_EQ(window_end(*half.rescaled), 20141u);
  ASSERT_EQ(half.notes.size(), 1u);
  EXPECT_NE(half.notes[0].find("frame time F on this testbed: 41.96 ns -> 83.92 ns (a 4196-byte data frame at 400.00 Gb/s"),
            std::string::npos)
      << half.notes[0];

  WireFacts w = kNetns;
  w.budget_ns = 500'000;
  const WireRescale wire = rescale_for_testbed(c, &w, w.rate_bps, clauses);
  ASSERT_TRUE(wire.rescaled) << wire.error;
  EXPECT_EQ(wire.rescaled->config.qp.timeout, 10);
  EXPECT_EQ(window_end(*wire.rescaled), 8'056'320u);  // 240 frames at 1 Gb/s: 8 ms, over a round trip
  ASSERT_EQ(wire.notes.size(), 2u);
  EXPECT_NE(wire.notes[0].find("config.qp.timeout 6 -> 10"), std::string::npos) << wire.notes[0];
  EXPECT_NE(wire.notes[1].find("-> 33.57 us (a 4196-byte data frame at 1.00 Gb/s"), std::string::npos) << wire.notes[1];
  EXPECT_EQ(wire_misfit(*wire.rescaled, w), "");
  harness::Case as_written = c;  // its window as written (given the timeout it fits with): too short
  as_written.config.qp.timeout = 10;
  EXPECT_NE(wire_misfit(as_written, w).find("a window of 10.1 us"), std::string::npos) << wire_misfit(as_written, w);

  const harness::Case plain = with_traffic(6, 1, 4096);  // writes no F: nothing to refit
  EXPECT_FALSE(rescale_for_testbed(plain, nullptr, 1'000'000'000, clauses).rescaled);
}

}  // namespace
}  // namespace mrc::run

namespace mrc::run {
namespace {

// A case that times how soon the DUT leaves a failed path it must detect: a link down and a
// stop_using_failed bound.
harness::Case detection_case(std::uint8_t timeout, std::uint64_t bound_ns, harness::ImpairKind kind) {
  harness::Case c = with_traffic(timeout, 100, 65536);
  c.config.qp.mtu = 4096;
  harness::ImpairStep down;
  down.kind = kind;
  c.stimulus.push_back(harness::StimulusStep{{}, down});
  harness::TimingCheck t;
  t.metric = harness::TimingMetric::kStopUsingFailed;
  t.bound_ns = bound_ns;
  c.checks.push_back(harness::Check{{}, "detect", {}, t, harness::Level::kMust});
  return c;
}

// 32 EVs x (4096 + 100) bytes at 1 Gb/s = 1.074 ms: a DUT learns a path failed only from a packet
// it sends on it, so a scaling case gets T over that plus two budgets, and a fixed bound under it
// does not fit. A port going down is the DUT's own to know: no cycle.
TEST(WireFit, FailureDetectionNeedsOnePacketPerEvAtTheBridgesRate) {
  WireFacts w = kNetns;
  w.budget_ns = 500'000;
  w.dut_evs = 32;
  harness::Case scales = detection_case(6, 200'000, harness::ImpairKind::kLinkDown);
  scales.timing_scales = true;
  EXPECT_EQ(wire_timeout(scales, w), 11);  // 2.1 ms >= 1.074 ms + 2 x 500 us; 2^10 (1.05 ms) is not
  const std::string why = wire_misfit(detection_case(12, 200'000, harness::ImpairKind::kLinkDown), w);
  EXPECT_NE(why.find("bounds failure detection by 200.0 us, but one packet on each of the DUT's 32 EVs takes 1074.2 us"),
            std::string::npos)
      << why;
  EXPECT_EQ(wire_misfit(detection_case(12, 2'000'000, harness::ImpairKind::kLinkDown), w), "");
  EXPECT_EQ(wire_misfit(detection_case(12, 200'000, harness::ImpairKind::kPortDown), w), "");
  harness::Case other = detection_case(12, 2'000'000, harness::ImpairKind::kLinkDown);
  harness::TimingCheck ack;  // a bound on another metric is no detection bound
  ack.metric = harness::TimingMetric::kAckTimeout;
  ack.bound_ns = 100'000;
  other.checks.push_back(harness::Check{{}, "ack", {}, ack, harness::Level::kMust});
  EXPECT_EQ(wire_misfit(other, w), "");
  harness::Case port = detection_case(6, 200'000, harness::ImpairKind::kPortDown);
  port.timing_scales = true;
  EXPECT_EQ(wire_timeout(port, w), 10);  // twice the budget only
}

}  // namespace
}  // namespace mrc::run
