// The NSCC conformance quirks behind the nscc-* defects, each against the conforming controller:
// md_below_target (nscc-md-below-target), md_every_mark (nscc-md-every-mark), no_quick_adapt (nscc-no-quick-adapt), exceed_max_cwnd
// (nscc-exceed-max-cwnd). The wire symptoms are judged by cases reliab-v-150..153.
#include <gtest/gtest.h>

#include "reference/cc/nscc.hpp"

namespace mrc::cc {
namespace {

constexpr std::uint32_t kBase = 12'000;  // ns

// 100G / 12 us, no trimming: target 12 us, MaxWnd 225,000 bytes, epoch 24 us, QA gate 28,125.
NsccParams params(bool qa) {
  NsccConfig c;
  c.mtu_bytes = 4096;
  c.fabric_trims = false;
  c.base_rtt = kBase;
  c.disable_qa = qa ? 0 : 1;
  NsccParams p = resolve(c);
  EXPECT_TRUE(p.ok());
  return p;
}

AckSample ack(std::uint64_t t, std::uint32_t acked, std::uint32_t delay_ns, bool marked = false) {
  AckSample s;
  s.now_ns = t;
  s.acked_bytes = acked;
  s.rtt_ns = kBase + delay_ns;
  s.ecn_marked = marked;
  return s;
}

NsccQuirks quirk(quirk::Flag NsccQuirks::*field) {
  NsccQuirks q;
  q.*field = true;
  return q;
}

TEST(NsccQuirks, MdBelowTargetCutsOnAMarkWithLowDelay) {
  Nscc good(params(false));
  Nscc bad(params(false), quirk(&NsccQuirks::md_below_target));
  for (Nscc* n : {&good, &bad}) n->on_ack(ack(100, 4096, 2'000, true));  // 2 us delay, target 12 us
  EXPECT_DOUBLE_EQ(good.cwnd_exact(), 225'000.0);
  EXPECT_TRUE(good.last_decision().fired(NsccRule::kMarkBelowTarget));
  EXPECT_DOUBLE_EQ(bad.cwnd_exact(), 112'500.0);  // x max_md_jump 0.5
  // At most once per base RTT, then again.
  bad.on_ack(ack(5'000, 4096, 2'000, true));
  EXPECT_DOUBLE_EQ(bad.cwnd_exact(), 112'500.0);
  bad.on_ack(ack(13'000, 4096, 2'000, true));  // a base RTT on: cut again, and the period's eta
  EXPECT_TRUE(bad.last_decision().fired(NsccRule::kMultiplicativeDecrease));
  EXPECT_NEAR(bad.cwnd_exact(), 56'250.0 + 0.15 * 4096, 1e-6);
}

// Four marks with the delay far above target inside one base RTT: one decrease, or four.
TEST(NsccQuirks, MdEveryMarkCutsOncePerMarkInsideABaseRtt) {
  auto run = [](NsccQuirks q) {
    NsccParams p = params(false);
    p.adjust_period_threshold = 1'000'000;  // keeps eta out of the picture
    Nscc n(p, q);
    for (int i = 0; i < 20; ++i) n.on_ack(ack(100 + i, 0, 1'200'000));  // the average above target
    for (int k = 0; k < 4; ++k) n.on_ack(ack(1'000 + k * 1'000, 4096, 1'200'000, true));
    return n.cwnd_exact();
  };
  EXPECT_NEAR(run({}), 225'000.0 * 0.5, 1.0);
  EXPECT_NEAR(run(quirk(&NsccQuirks::md_every_mark)), 225'000.0 / 16, 1.0);
}

TEST(NsccQuirks, NoQuickAdaptKeepsTheWindowAfterAStarvedTrim) {
  Nscc good(params(true));
  Nscc bad(params(true), quirk(&NsccQuirks::no_quick_adapt));
  for (Nscc* n : {&good, &bad}) {
    n->on_ack(ack(0, 4096, 0));
    n->on_trim(5'000, 1'024);
    n->on_ack(ack(25'000, 4096, 0));  // the epoch achieved 8,192 < 28,125
  }
  EXPECT_EQ(good.cwnd(), 8'192u);
  EXPECT_GT(bad.cwnd(), 200'000u);
  EXPECT_EQ(bad.fired_count(NsccRule::kQuickAdapt), 0u);
}

TEST(NsccQuirks, ExceedMaxCwndRunsToFourTimesTheCeiling) {
  Nscc good(params(false));
  Nscc bad(params(false), quirk(&NsccQuirks::exceed_max_cwnd));
  EXPECT_EQ(good.cwnd(), 225'000u);
  EXPECT_EQ(bad.cwnd(), 900'000u);
  EXPECT_TRUE(good.can_send(220'000, 4096));
  EXPECT_FALSE(good.can_send(225'000, 4096));
  EXPECT_TRUE(bad.can_send(225'000, 4096));
}

TEST(NsccQuirks, ABoolStillMeansNeverDecrease) {
  Nscc n(params(false), true);
  EXPECT_TRUE(n.never_decrease());
  EXPECT_FALSE(n.quirks().md_below_target);
}

}  // namespace
}  // namespace mrc::cc
