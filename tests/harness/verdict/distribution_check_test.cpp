// The distribution check on traces built frame by frame: PASS on round-robin spraying, FAIL when
// one EV gets 3x its share, INCONCLUSIVE below the power-analysis sample size or when a tap lost
// packets, and the bar chart and metrics the report shows.
#include <gtest/gtest.h>

#include <algorithm>

#include <random>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Scenario;

DistributionCheck over(DistributionOver o, double alpha = 0.001) {
  DistributionCheck d;
  d.over = o;
  d.alpha = alpha;
  d.effect_size = 0.1;
  d.power = 0.9;
  return d;
}

TEST(DistributionCheck, RoundRobinSprayingPasses) {
  Scenario s(4, 8);
  s.spray(0, 100, 4000);
  const auto r = run_distribution(over(DistributionOver::kEv), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("n"), 4000);
  EXPECT_EQ(r.metrics.at("n_min"), 3183);
  EXPECT_EQ(r.metrics.at("df"), 7);
  EXPECT_DOUBLE_EQ(r.metrics.at("p_value"), 1.0);
  EXPECT_EQ(r.metrics.at("effect_size_w"), 0);
  ASSERT_EQ(r.charts.size(), 1u);
  EXPECT_EQ(r.charts[0].labels.size(), 8u);
  EXPECT_EQ(r.charts[0].values[3], 500);
  EXPECT_EQ(r.charts[0].expected[3], 500);
  EXPECT_NE(r.message.find("p = 1"), std::string::npos) << r.message;
}

TEST(DistributionCheck, OneEvWithThreeTimesItsShareFails) {
  Scenario s(4, 8);
  std::mt19937_64 rng(7);
  std::uint32_t psn = 0;
  for (std::uint64_t k = 0; k < 4000; ++k) {
    const std::uint64_t u = rng() % 10;  // EV 5 gets 3/10, the other seven 1/10 each
    const std::uint32_t ev = u < 3 ? 5 : static_cast<std::uint32_t>(u < 8 ? u - 3 : u - 2);
    Data d;
    d.psn = psn++;
    s.dut_sends(k * 100, d, ev);
  }
  const auto r = run_distribution(over(DistributionOver::kEv), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_LT(r.metrics.at("p_value"), 1e-10);
  EXPECT_GT(r.metrics.at("effect_size_w"), 0.3);
  EXPECT_NE(r.message.find("index 5"), std::string::npos) << r.message;
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].field, "ev");
  EXPECT_EQ(r.evidence[0].pcap, "dut.p2.tx.pcapng");  // EV 5 leaves on port 2
  EXPECT_GE(r.evidence[0].packet_index, 0);
  EXPECT_NE(r.evidence[0].display_filter.find("frame.number =="), std::string::npos);
}

// At 256 EVs a histogram in EV order is a comb; the chart stands the bars by plane, busiest
// first within each, and names each bar's plane, so the over-used EV leads its plane's group.
TEST(DistributionCheck, EvHistogramIsGroupedByPlaneAndSortedWithin) {
  Scenario s(4, 8);
  std::mt19937_64 rng(7);
  std::uint32_t psn = 0;
  for (std::uint64_t k = 0; k < 4000; ++k) {
    const std::uint64_t u = rng() % 10;  // EV 5 gets 3/10
    const std::uint32_t ev = u < 3 ? 5 : static_cast<std::uint32_t>(u < 8 ? u - 3 : u - 2);
    Data d;
    d.psn = psn++;
    s.dut_sends(k * 100, d, ev);
  }
  const auto r = run_distribution(over(DistributionOver::kEv), s.finish());
  ASSERT_EQ(r.charts.size(), 1u);
  const Chart& c = r.charts[0];
  ASSERT_EQ(c.groups.size(), 8u);
  ASSERT_EQ(c.labels.size(), 8u);
  EXPECT_TRUE(std::is_sorted(c.groups.begin(), c.groups.end())) << "bars grouped by plane";
  for (std::size_t i = 0; i + 1 < c.groups.size(); ++i) {
    if (c.groups[i] == c.groups[i + 1]) {
      EXPECT_GE(c.values[i], c.values[i + 1]) << "busiest first within a plane";
    }
  }
  const auto top = std::max_element(c.values.begin(), c.values.end()) - c.values.begin();
  EXPECT_NE(c.labels[static_cast<std::size_t>(top)].find("index 5"), std::string::npos);
  EXPECT_EQ(c.groups[static_cast<std::size_t>(top)], "plane 2");
  EXPECT_TRUE(top == 0 || c.groups[static_cast<std::size_t>(top) - 1] != "plane 2") << "it leads its plane";

  const auto plane = run_distribution(over(DistributionOver::kPlane), s.finish());
  ASSERT_EQ(plane.charts.size(), 1u);
  EXPECT_TRUE(plane.charts[0].groups.empty());  // a bar per plane needs no groups
}

TEST(DistributionCheck, SprayingOnOnePlaneFailsThePlaneTest) {
  Scenario s(4, 8);
  for (std::uint32_t k = 0; k < 4000; ++k) {
    Data d;
    d.psn = k;
    // Every EV used, but half the packets forced onto port 1: the plane test must see it.
    s.dut_sends(k * 100, d, k % 8, k % 2 == 0 ? 1 : 0);
  }
  const auto plane = run_distribution(over(DistributionOver::kPlane), s.finish());
  EXPECT_EQ(plane.verdict, Verdict::kFail) << plane.message;
  EXPECT_EQ(plane.metrics.at("categories"), 4);
  // By configured port the packets are still uniform (their EVs are).
  EXPECT_EQ(run_distribution(over(DistributionOver::kPort), s.ctx).verdict, Verdict::kPass);
}

TEST(DistributionCheck, GTestAgreesOnUniformAndSkewed) {
  Scenario s(2, 4);
  s.spray(0, 0, 4000);
  auto spec = over(DistributionOver::kPlane);
  spec.test = GofTest::kG;
  EXPECT_EQ(run_distribution(spec, s.finish()).verdict, Verdict::kPass);
  Scenario t(2, 4);
  for (std::uint32_t k = 0; k < 4000; ++k) {
    Data d;
    d.psn = k;
    t.dut_sends(k * 100, d, k % 3 == 0 ? 1 : 0);  // port 2 gets 1/3, port 1 gets 2/3
  }
  const auto r = run_distribution(spec, t.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.message.find("G = "), std::string::npos) << r.message;
}

TEST(DistributionCheck, TooFewPacketsIsInconclusiveWithTheNeededCount) {
  Scenario s(4, 8);
  s.spray(0, 0, 500);
  const auto r = run_distribution(over(DistributionOver::kEv), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("need >= 3183"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("saw 500"), std::string::npos) << r.message;
}

TEST(DistributionCheck, DeniedAndBadEvsAreNotCategories) {
  Scenario s(4, 8);
  s.ctx.dut.evs[2].denied = true;
  s.ctx.dut.evs[3].state = 1u << 1;  // ASSUMED_BAD at the end of the run
  for (std::uint32_t k = 0; k < 4000; ++k) {
    static const std::uint32_t live[] = {0, 1, 4, 5, 6, 7};
    Data d;
    d.psn = k;
    s.dut_sends(k * 100, d, live[k % 6]);
  }
  Data stray;
  stray.psn = 9999;
  s.dut_sends(500'000, stray, 2);  // a packet on the DENIED EV is outside the categories
  const auto r = run_distribution(over(DistributionOver::kEv), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("categories"), 6);
  EXPECT_EQ(r.metrics.at("outside_categories"), 1);
}

TEST(DistributionCheck, IncompleteCaptureIsInconclusiveNamingTheTap) {
  Scenario s(4, 8);
  s.spray(0, 0, 4000);
  s.finish();
  s.tx(3).capture.integrity().tap_dropped = 2;
  s.tx(3).capture.integrity().offered += 2;
  const auto r = run_distribution(over(DistributionOver::kEv), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p3.tx"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("tap dropped 2"), std::string::npos) << r.message;
}

TEST(DistributionCheck, QpFilterAndMissingEvListAreHandled) {
  Scenario s(4, 8);
  s.spray(0, 0, 4000);
  for (std::uint32_t k = 0; k < 2000; ++k) {  // another QP, all on EV 0: filtered out by qp
    Data d;
    d.psn = k;
    d.dqpn = 0x333;
    s.dut_sends(1'000'000 + k * 10, d, 0);
  }
  auto spec = over(DistributionOver::kEv);
  spec.qp = 0;
  EXPECT_EQ(run_distribution(spec, s.finish()).verdict, Verdict::kPass);
  spec.qp.reset();
  EXPECT_EQ(run_distribution(spec, s.ctx).verdict, Verdict::kFail);
  spec.qp = 3;
  EXPECT_EQ(run_distribution(spec, s.ctx).verdict, Verdict::kError);
  s.ctx.dut.evs.clear();
  EXPECT_EQ(run_distribution(over(DistributionOver::kEv), s.ctx).verdict, Verdict::kError);
}

// The false-fail rate through the whole check: 20 seeded uniform-random sprays at alpha = 0.01
// (rejections ~ Binomial(20, 0.01): P(X >= 3) < 0.002; fixed seeds, so it cannot flake).
TEST(DistributionCheck, SeededUniformSpraysRarelyFail) {
  int fails = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Scenario s(4, 8);
    std::mt19937_64 rng(seed);
    for (std::uint32_t k = 0; k < 2500; ++k) {
      Data d;
      d.psn = k;
      s.dut_sends(k * 100, d, static_cast<std::uint32_t>(rng() % 8));
    }
    const auto r = run_distribution(over(DistributionOver::kEv, 0.01), s.finish());
    ASSERT_NE(r.verdict, Verdict::kInconclusive) << r.message;
    fails += r.verdict == Verdict::kFail ? 1 : 0;
  }
  EXPECT_LE(fails, 2);
}

}  // namespace
}  // namespace mrc::harness
