// throughput_recovered reads its rate window and recovered share from the check (window_ns,
// recovered_pct), with 20 us and 90 % when the case gives neither, and counts after the fault only
// data on EVs the fault left working.
#include <gtest/gtest.h>

#include <array>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Scenario;
using testing::ev_value;

constexpr std::uint64_t kUs = 1000;

// Full-rate DUT data (one packet per 100 ns) over 8 EVs until a fault at 100 us that takes EVs 1
// and 5, silence until 130 us, then full rate again until 250 us: on the six EVs left working,
// or (`keep_spraying`) on all eight, a quarter of it into the dead ones.
Scenario outage(bool keep_spraying = false) {
  Scenario s(4, 8);
  constexpr std::array<std::uint32_t, 6> kWorking{0, 2, 3, 4, 6, 7};
  std::uint32_t psn = 0;
  for (std::uint64_t t = 0; t < 250 * kUs; t += 100) {
    if (t >= 100 * kUs && t < 130 * kUs) continue;
    Data d;
    d.psn = psn++;
    s.dut_sends(t, d, t < 100 * kUs || keep_spraying ? psn % 8 : kWorking[psn % kWorking.size()]);
  }
  FaultEvent f;
  f.at_ns = 100 * kUs;
  f.kind = "link_down";
  f.target = "plane2/leaf0-spine0";
  f.plane = 2;
  f.affected_evs = {ev_value(1), ev_value(5)};
  s.ctx.faults.push_back(f);
  s.finish();
  return s;
}

double recovery_ns(const CheckContext& ctx, std::uint64_t window_ns, double pct) {
  TimingCheck t;
  t.metric = TimingMetric::kThroughputRecovered;
  t.bound_ns = 200 * kUs;
  t.window_ns = window_ns;
  t.recovered_pct = pct;
  const CheckResult r = run_timing(t, ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  return r.metrics.count("max_ns") ? r.metrics.at("max_ns") : -1;
}

TEST(TimingRateParams, DefaultsAreTwentyMicrosecondsAndNinetyPercent) {
  const Scenario s = outage();
  // 18 us of traffic after 130 us fill 90 % of a 20 us window.
  EXPECT_NEAR(recovery_ns(s.ctx, 20'000, 90), 48 * kUs, 1 * kUs);
  TimingCheck def;
  EXPECT_EQ(def.window_ns, 20'000u);
  EXPECT_DOUBLE_EQ(def.recovered_pct, 90.0);
}

TEST(TimingRateParams, ShareAndWindowMoveTheRecoveryPoint) {
  const Scenario s = outage();
  // Half the pre-fault rate: 10 us of traffic in the 20 us window.
  EXPECT_NEAR(recovery_ns(s.ctx, 20'000, 50), 40 * kUs, 1 * kUs);
  // A 40 us window at 90 %: 36 us of traffic after 130 us.
  EXPECT_NEAR(recovery_ns(s.ctx, 40'000, 90), 66 * kUs, 1 * kUs);
}

// Goodput: after the fault only data on EVs it left working counts. A DUT whose egress is back at
// full rate but a quarter of it into dead EVs never gets back to 90 % of the pre-fault rate; the
// same DUT is back at 75 % as soon as the window fills after its traffic met the dead EVs (130 us,
// where the span starts).
TEST(TimingRateParams, DataOnFailedEvsIsNoThroughput) {
  const Scenario s = outage(/*keep_spraying=*/true);
  TimingCheck t;
  t.metric = TimingMetric::kThroughputRecovered;
  t.bound_ns = 100 * kUs;  // passed while the trial still ran: FAIL, not a censored unknown
  const CheckResult r = run_timing(t, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.message.find("censored"), std::string::npos) << r.message;
  EXPECT_NEAR(recovery_ns(s.ctx, 20'000, 75), 20 * kUs, 1 * kUs);  // 20 us of 75 % after 130 us
}

}  // namespace
}  // namespace mrc::harness
