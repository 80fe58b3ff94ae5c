// NSCC: default resolution (mrc-wire-model.md §4.2) and one test per rule; every expected value
// is worked out by hand from the UEC formulas, so dropping a rule changes a number here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

#include "reference/cc/nscc.hpp"

namespace mrc::cc {
namespace {

constexpr std::uint64_t k100G = 100'000'000'000ull;
constexpr std::uint64_t k400G = 400'000'000'000ull;
constexpr std::uint32_t kMtu = 4096;
constexpr std::uint32_t kBase = 12'000;  // ns

// 100G / 12 us, no trimming: target = 12 us, qa_threshold = 48 us, MaxWnd = 225,000 bytes.
template <typename Tweak>
NsccParams params(Tweak tweak) {
  NsccConfig c;
  c.line_rate_bps = k100G;
  c.mtu_bytes = kMtu;
  c.fabric_trims = false;
  c.base_rtt = kBase;
  c.disable_qa = 1;  // rule tests isolate one rule; the QuickAdapt tests turn it back on
  tweak(c);
  NsccParams p = resolve(c);
  EXPECT_TRUE(p.ok()) << to_string(p.error);
  return p;
}
NsccParams params() {
  return params([](NsccConfig&) {});
}

AckSample ack(std::uint64_t t, std::uint32_t acked, std::uint32_t delay_ns, bool marked = false) {
  AckSample s;
  s.now_ns = t;
  s.acked_bytes = acked;
  s.rtt_ns = kBase + delay_ns;
  s.ecn_marked = marked;
  return s;
}

bool fired(const Nscc& n, NsccRule r) { return n.last_decision().fired(r); }

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

TEST(NsccResolve, Defaults100G12usTrimming) {
  NsccConfig c;  // every API field 0
  c.line_rate_bps = k100G;
  c.mtu_bytes = kMtu;
  c.fabric_trims = true;
  c.base_rtt = kBase;
  const NsccParams p = resolve(c);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p.bdp_bytes, 150'000.0);
  EXPECT_DOUBLE_EQ(p.scaling_a, 1.0);
  EXPECT_EQ(p.target_delay, 9'000u);  // 0.75 x base RTT with trimming
  EXPECT_DOUBLE_EQ(p.scaling_b, 0.75);
  EXPECT_EQ(p.max_cwnd, 225'000u);    // 1.5 BDP
  EXPECT_NEAR(p.fi, 5.0 * 4096, 1e-9);
  EXPECT_NEAR(p.fi_scale, 0.25, 1e-12);
  EXPECT_NEAR(p.eta, 0.15 * 4096, 1e-9);
  EXPECT_EQ(p.adjust_bytes_threshold, 8u * 4096);
  EXPECT_EQ(p.adjust_period_threshold, kBase);
  EXPECT_DOUBLE_EQ(p.gamma, 0.8);
  EXPECT_DOUBLE_EQ(p.max_md_jump, 0.5);
  EXPECT_EQ(p.qa_gate, 3u);
  EXPECT_EQ(p.qa_threshold, kQaThresholdOff);  // trims are the fast signal
  EXPECT_FALSE(p.disable_qa);
  EXPECT_NEAR(p.alpha, 4.0 * 4096 * 1.0 * 0.75 / 9000.0, 1e-12);

  // base_rtt 0 means the reference network's 12 us.
  c.base_rtt = 0;
  EXPECT_EQ(resolve(c).base_rtt, kBase);
  EXPECT_EQ(resolve(c).max_cwnd, 225'000u);
}

TEST(NsccResolve, Defaults100G12usNoTrimming) {
  const NsccParams p = params([](NsccConfig& c) { c.disable_qa = 0; });
  EXPECT_EQ(p.target_delay, kBase);  // 1 x base RTT without trimming
  EXPECT_DOUBLE_EQ(p.scaling_b, 1.0);
  EXPECT_EQ(p.qa_threshold, 4u * kBase);
  EXPECT_NEAR(p.alpha, 4.0 * 4096 / 12000.0, 1e-12);
}

TEST(NsccResolve, Defaults400G8us) {
  NsccConfig c;
  c.line_rate_bps = k400G;
  c.mtu_bytes = kMtu;
  c.fabric_trims = true;
  c.base_rtt = 8'000;
  const NsccParams p = resolve(c);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p.bdp_bytes, 400'000.0);  // 50 GB/s x 8 us
  const double a = 400'000.0 / 150'000.0;
  EXPECT_NEAR(p.scaling_a, a, 1e-12);
  EXPECT_EQ(p.target_delay, 6'000u);
  EXPECT_NEAR(p.scaling_b, 0.5, 1e-12);
  EXPECT_EQ(p.max_cwnd, 600'000u);
  EXPECT_NEAR(p.fi, 5.0 * 4096 * a, 1e-6);          // 54,613.3
  EXPECT_NEAR(p.fi_scale, 0.25 * a, 1e-12);
  EXPECT_NEAR(p.eta, 0.15 * 4096 * a, 1e-6);        // 1,638.4
  EXPECT_EQ(p.adjust_bytes_threshold, 32'768u);
  EXPECT_EQ(p.adjust_period_threshold, 8'000u);
  EXPECT_EQ(p.qa_threshold, kQaThresholdOff);
  EXPECT_NEAR(p.alpha, 4.0 * 4096 * a * 0.5 / 6000.0, 1e-12);

  c.fabric_trims = false;
  const NsccParams q = resolve(c);
  EXPECT_EQ(q.target_delay, 8'000u);
  EXPECT_EQ(q.qa_threshold, 32'000u);
}

TEST(NsccResolve, ExplicitFieldsWin) {
  NsccConfig c;
  c.disable_qa = 1;
  c.adjust_bytes_threshold = 1000;
  c.adjust_period_threshold = 2000;
  c.base_rtt = 5000;
  c.eta = 1.5f;
  c.fi = 2.5f;
  c.fi_scale = 0.125f;
  c.gamma = 0.5f;
  c.max_md_jump = 0.25f;
  c.max_cwnd = 70'000;
  c.qa_gate = 2;
  c.qa_threshold = 7000;
  c.target_delay = 3000;
  const NsccParams p = resolve(c);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.disable_qa);
  EXPECT_EQ(p.adjust_bytes_threshold, 1000u);
  EXPECT_EQ(p.adjust_period_threshold, 2000u);
  EXPECT_EQ(p.base_rtt, 5000u);
  EXPECT_DOUBLE_EQ(p.eta, 1.5);
  EXPECT_DOUBLE_EQ(p.fi, 2.5);
  EXPECT_DOUBLE_EQ(p.fi_scale, 0.125);
  EXPECT_DOUBLE_EQ(p.gamma, 0.5);
  EXPECT_DOUBLE_EQ(p.max_md_jump, 0.25);
  EXPECT_EQ(p.max_cwnd, 70'000u);
  EXPECT_EQ(p.qa_gate, 2u);
  EXPECT_EQ(p.qa_threshold, 7000u);
  EXPECT_EQ(p.target_delay, 3000u);
}

TEST(NsccResolve, BadInputIsATypedErrorWithSaneParams) {
  auto err = [](auto tweak) {
    NsccConfig c;
    tweak(c);
    return resolve(c);
  };
  EXPECT_EQ(err([](NsccConfig& c) { c.line_rate_bps = 0; }).error, NsccError::kBadLineRate);
  EXPECT_EQ(err([](NsccConfig& c) { c.mtu_bytes = 0; }).error, NsccError::kBadMtu);
  EXPECT_EQ(err([](NsccConfig& c) { c.gamma = std::numeric_limits<float>::quiet_NaN(); }).error,
            NsccError::kBadFactor);
  EXPECT_EQ(err([](NsccConfig& c) { c.fi = -1.0f; }).error, NsccError::kBadFactor);
  EXPECT_EQ(err([](NsccConfig& c) { c.eta = std::numeric_limits<float>::infinity(); }).error,
            NsccError::kBadFactor);
  EXPECT_EQ(err([](NsccConfig& c) { c.gamma = 1.5f; }).error, NsccError::kBadGamma);
  EXPECT_EQ(err([](NsccConfig& c) { c.max_md_jump = 2.0f; }).error, NsccError::kBadMdJump);
  EXPECT_EQ(err([](NsccConfig& c) { c.max_cwnd = 100; }).error, NsccError::kMaxCwndTooSmall);
  EXPECT_EQ(err([](NsccConfig& c) { c.qa_gate = 40; }).error, NsccError::kBadThreshold);

  const NsccParams bad = err([](NsccConfig& c) { c.mtu_bytes = 0; });
  EXPECT_FALSE(bad.ok());
  EXPECT_GE(bad.max_cwnd, bad.mtu_bytes);
  EXPECT_GT(bad.mtu_bytes, 0u);
  EXPECT_FALSE(to_string(bad.error).empty());
}

// ---------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------

TEST(NsccController, StartsAtMaxWnd) {
  Nscc n(params());
  EXPECT_EQ(n.cwnd(), 225'000u);
  EXPECT_FALSE(n.next_deadline().has_value());
  static_assert(std::is_trivially_copyable_v<Nscc>, "no heap-owning state: nothing to allocate");
}

// Unmarked, delay >= target: inc += fi x acked; 9 x 4096 > 8 MTU applies inc / cwnd.
TEST(NsccController, FairIncrease) {
  Nscc n(params());
  n.on_loss(0, 125'000);
  ASSERT_DOUBLE_EQ(n.cwnd_exact(), 100'000.0);
  for (int i = 0; i < 8; ++i) {
    n.on_ack(ack(100 + i, 4096, 15'000));
    EXPECT_TRUE(fired(n, NsccRule::kFairIncrease));
    EXPECT_FALSE(fired(n, NsccRule::kProportionalIncrease));
  }
  EXPECT_NEAR(n.pending_inc_bytes(), 8 * 4096.0 * 20480.0, 1e-3);
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 100'000.0);  // batched, not yet applied
  n.on_ack(ack(200, 4096, 15'000));
  EXPECT_TRUE(fired(n, NsccRule::kFulfillBytes));
  EXPECT_NEAR(n.cwnd_exact(), 100'000.0 + 9 * 4096.0 * 20480.0 / 100'000.0, 1e-6);  // +7549.75
  EXPECT_EQ(n.pending_inc_bytes(), 0.0);
}

// Unmarked, delay < target: inc += alpha x acked x (target - delay).
TEST(NsccController, ProportionalIncrease) {
  Nscc n(params());
  n.on_loss(0, 125'000);
  for (int i = 0; i < 9; ++i) {
    n.on_ack(ack(100 + i, 4096, 6'000));
    EXPECT_TRUE(fired(n, NsccRule::kProportionalIncrease));
    EXPECT_FALSE(fired(n, NsccRule::kFairIncrease));
  }
  // alpha = 4 x 4096 / 12000 B/ns; per ACK 4096 x 6000 x alpha = 2 x 4096^2.
  EXPECT_NEAR(n.cwnd_exact(), 100'000.0 + 9 * 2.0 * 4096 * 4096 / 100'000.0, 1e-6);

  // Less headroom, less growth.
  Nscc m(params());
  m.on_loss(0, 125'000);
  for (int i = 0; i < 9; ++i) m.on_ack(ack(100 + i, 4096, 10'000));
  EXPECT_LT(m.cwnd_exact(), n.cwnd_exact());
  EXPECT_GT(m.cwnd_exact(), 100'000.0);
}

// After more than a cwnd of ACKs at ~0 delay, each ACK grows cwnd by fi_scale x acked at once.
TEST(NsccController, FastIncrease) {
  Nscc n(params());
  n.on_loss(0, 125'000);
  int acks = 0;
  std::uint64_t t = 100;
  while (!n.in_fast_increase() && acks < 200) {
    n.on_ack(ack(t++, 4096, 0));
    ++acks;
  }
  ASSERT_TRUE(n.in_fast_increase());
  EXPECT_GT(acks * 4096.0, 100'000.0);  // needed more than a (growing) cwnd of clear bytes
  EXPECT_TRUE(fired(n, NsccRule::kFastIncrease));

  // Let the batch accrued before fast increase drain, so one ACK's effect stands alone.
  while (n.pending_inc_bytes() > 0 && acks < 400) {
    n.on_ack(ack(t++, 4096, 0));
    ++acks;
  }
  ASSERT_EQ(n.pending_inc_bytes(), 0.0);
  const double before = n.cwnd_exact();
  n.on_ack(ack(t++, 4096, 0));
  EXPECT_TRUE(fired(n, NsccRule::kFastIncrease));
  EXPECT_FALSE(fired(n, NsccRule::kProportionalIncrease));
  EXPECT_NEAR(n.cwnd_exact() - before, 0.25 * 4096, 1e-6);

  // A delay above the 1 us tolerance ends it; proportional increase takes over.
  n.on_ack(ack(t++, 4096, 2'000));
  EXPECT_FALSE(n.in_fast_increase());
  EXPECT_TRUE(fired(n, NsccRule::kProportionalIncrease));
}

TEST(NsccController, FulfillByPeriodAddsEta) {
  Nscc n(params());
  n.on_loss(0, 125'000);  // opens the adjustment period at t = 0
  n.on_ack(ack(1'000, 4096, 15'000));
  EXPECT_FALSE(fired(n, NsccRule::kFulfillPeriod));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 100'000.0);
  n.on_ack(ack(12'000, 4096, 15'000));  // one base RTT later; only 8 KiB acked
  EXPECT_TRUE(fired(n, NsccRule::kFulfillPeriod));
  EXPECT_FALSE(fired(n, NsccRule::kFulfillBytes));
  EXPECT_NEAR(n.cwnd_exact(), 100'000.0 + 2 * 4096.0 * 20480.0 / 100'000.0 + 0.15 * 4096, 1e-6);

  // Bytes-triggered batches add no eta.
  Nscc m(params());
  m.on_loss(0, 125'000);
  for (int i = 0; i < 9; ++i) m.on_ack(ack(100 + i, 4096, 15'000));
  EXPECT_TRUE(fired(m, NsccRule::kFulfillBytes));
  EXPECT_FALSE(fired(m, NsccRule::kFulfillPeriod));
  EXPECT_NEAR(m.cwnd_exact(), 100'000.0 + 9 * 4096.0 * 20480.0 / 100'000.0, 1e-6);
}

// One marked ACK 1.2 ms late: avg = 0.0125 x 1.2 ms = 15 us > 12 us target;
// factor = 1 - gamma x 3/15.
TEST(NsccController, MultiplicativeDecreaseUsesGamma) {
  Nscc n(params());
  n.on_ack(ack(1'000, 4096, 1'200'000, true));
  EXPECT_TRUE(fired(n, NsccRule::kMultiplicativeDecrease));
  EXPECT_NEAR(n.avg_delay_ns(), 15'000.0, 1e-6);
  EXPECT_NEAR(n.cwnd_exact(), 225'000.0 * (1.0 - 0.8 * 0.2), 1e-6);  // 189,000

  Nscc g(params([](NsccConfig& c) { c.gamma = 0.4f; }));
  g.on_ack(ack(1'000, 4096, 1'200'000, true));
  EXPECT_NEAR(g.cwnd_exact(), 225'000.0 * (1.0 - 0.4 * 0.2), 1e-3);  // 207,000
}

TEST(NsccController, MultiplicativeDecreaseNeedsAverageAboveTarget) {
  Nscc n(params());
  n.on_ack(ack(1'000, 4096, 100'000, true));  // avg = 1,250 ns: one late ACK is not congestion
  EXPECT_TRUE(fired(n, NsccRule::kMdAvgBelowTarget));
  EXPECT_FALSE(fired(n, NsccRule::kMultiplicativeDecrease));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 225'000.0);
}

// Sustained delay drives the raw factor below max_md_jump; the floor holds.
TEST(NsccController, MultiplicativeDecreaseFloorIsMaxMdJump) {
  auto run = [](const NsccParams& p) {
    Nscc n(p);
    for (int i = 0; i < 20; ++i) n.on_ack(ack(100 + i, 0, 1'200'000));  // samples, no bytes
    n.on_ack(ack(3'000, 4096, 1'200'000, true));
    EXPECT_TRUE(fired(n, NsccRule::kMultiplicativeDecrease));
    const double avg = 1'200'000.0 * (1.0 - std::pow(1.0 - 0.0125, 21));
    EXPECT_NEAR(n.avg_delay_ns(), avg, 1e-3);
    EXPECT_LT(1.0 - 0.8 * (avg - 12'000.0) / avg, 0.3);  // the raw factor is below both floors
    return n.cwnd_exact();
  };
  EXPECT_NEAR(run(params()), 225'000.0 * 0.5, 1e-6);
  EXPECT_NEAR(run(params([](NsccConfig& c) { c.max_md_jump = 0.3f; })), 225'000.0 * 0.3, 1e-2);
}

TEST(NsccController, MultiplicativeDecreaseAtMostOncePerBaseRtt) {
  // A long adjustment period keeps eta out of the picture.
  Nscc n(params([](NsccConfig& c) { c.adjust_period_threshold = 1'000'000; }));
  n.on_ack(ack(1'000, 4096, 1'200'000, true));
  ASSERT_TRUE(fired(n, NsccRule::kMultiplicativeDecrease));
  const double after_first = n.cwnd_exact();
  n.on_ack(ack(1'000 + kBase, 4096, 1'200'000, true));  // exactly one base RTT later: too soon
  EXPECT_TRUE(fired(n, NsccRule::kMdHeldOff));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), after_first);
  n.on_ack(ack(1'001 + kBase, 4096, 1'200'000, true));
  EXPECT_TRUE(fired(n, NsccRule::kMultiplicativeDecrease));
  EXPECT_LT(n.cwnd_exact(), after_first);
  EXPECT_EQ(n.fired_count(NsccRule::kMultiplicativeDecrease), 2u);
  EXPECT_EQ(n.fired_count(NsccRule::kMdHeldOff), 1u);
}

TEST(NsccController, MarkBelowTargetLeavesCwnd) {
  Nscc n(params());
  n.on_ack(ack(100, 0, 1'200'000));  // avg 15 us > target: a decrease would be allowed
  const double inc = n.pending_inc_bytes();
  n.on_ack(ack(200, 4096, 5'000, true));
  EXPECT_TRUE(fired(n, NsccRule::kMarkBelowTarget));
  EXPECT_FALSE(fired(n, NsccRule::kMultiplicativeDecrease));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 225'000.0);
  EXPECT_DOUBLE_EQ(n.pending_inc_bytes(), inc);  // and no increase either
}

// ---------------------------------------------------------------------------------------------
// QuickAdapt (epoch = base RTT + target = 24 us; gate = MaxWnd >> 3 = 28,125 bytes)
// ---------------------------------------------------------------------------------------------

NsccParams qa_params() {
  return params([](NsccConfig& c) { c.disable_qa = 0; });
}

TEST(NsccQuickAdapt, TrimThenLowAchievedSetsCwndToAchieved) {
  Nscc n(qa_params());
  n.on_ack(ack(0, 4096, 0));
  n.on_trim(5'000, 1'024);  // mid-epoch: an ordinary trim shrink, QA armed
  EXPECT_TRUE(fired(n, NsccRule::kTrimShrink));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 225'000.0 - 1'024);
  AckSample s = ack(25'000, 4096, 0);
  s.inflight_bytes = 50'000;
  n.on_ack(s);  // epoch over: 8,192 achieved < 28,125
  EXPECT_TRUE(fired(n, NsccRule::kQuickAdapt));
  EXPECT_EQ(n.cwnd(), 8'192u);
  EXPECT_EQ(n.pending_inc_bytes(), 0.0);

  // Marks on the 50,000 bytes in flight at QA are ignored: 12 x 4096 < 50,000 <= 13 x 4096.
  for (int i = 0; i < 12; ++i) {
    n.on_ack(ack(26'000 + i, 4096, 30'000, true));
    EXPECT_TRUE(fired(n, NsccRule::kQaIgnoredMark)) << i;
    EXPECT_EQ(n.cwnd(), 8'192u);
  }
  n.on_trim(26'500, 512);  // a trim of those bytes is already paid for
  EXPECT_TRUE(fired(n, NsccRule::kQaIgnoredMark));
  EXPECT_EQ(n.cwnd(), 8'192u);
  n.on_ack(ack(27'000, 4096, 30'000, true));
  EXPECT_FALSE(fired(n, NsccRule::kQaIgnoredMark));
  EXPECT_EQ(n.fired_count(NsccRule::kQaIgnoredMark), 13u);
}

TEST(NsccQuickAdapt, GateKeepsCwndWhenEnoughWasAchieved) {
  auto run = [](const NsccParams& p) {
    Nscc n(p);
    for (int i = 0; i < 7; ++i) n.on_ack(ack(100 * i, 4096, 0));  // 28,672 bytes
    n.on_trim(5'000, 1'024);
    n.on_ack(ack(25'000, 4096, 0));  // 32,768 achieved this epoch
    return n;
  };
  const Nscc gated = run(qa_params());  // 32,768 >= 225,000 >> 3
  EXPECT_EQ(gated.fired_count(NsccRule::kQuickAdapt), 0u);
  EXPECT_GE(gated.cwnd_exact(), 225'000.0 - 1'024);

  const Nscc wide = run(params([](NsccConfig& c) {  // 32,768 < 225,000 >> 1
    c.disable_qa = 0;
    c.qa_gate = 1;
  }));
  EXPECT_EQ(wide.fired_count(NsccRule::kQuickAdapt), 1u);
  EXPECT_EQ(wide.cwnd(), 32'768u);
}

TEST(NsccQuickAdapt, DelayAboveThresholdTriggers) {
  auto run = [](const NsccParams& p, std::uint32_t delay) {
    Nscc n(p);
    n.on_ack(ack(0, 4096, 0));
    n.on_ack(ack(25'000, 4096, delay));
    return n;
  };
  const Nscc over = run(qa_params(), 48'001);  // qa_threshold = 4 x 12 us
  EXPECT_TRUE(over.last_decision().fired(NsccRule::kQuickAdapt));
  EXPECT_EQ(over.cwnd(), 8'192u);
  const Nscc at = run(qa_params(), 48'000);
  EXPECT_EQ(at.fired_count(NsccRule::kQuickAdapt), 0u);

  // With trimming the delay trigger is off by default.
  const Nscc trims = run(params([](NsccConfig& c) {
                           c.disable_qa = 0;
                           c.fabric_trims = true;
                         }),
                         1'000'000);
  EXPECT_EQ(trims.fired_count(NsccRule::kQuickAdapt), 0u);
}

TEST(NsccQuickAdapt, NotBeforeTheEpochEnds) {
  Nscc n(qa_params());
  n.on_ack(ack(0, 4096, 0));
  n.on_ack(ack(24'000, 4096, 100'000));  // epoch ends after 24 us, not at it
  EXPECT_EQ(n.fired_count(NsccRule::kQuickAdapt), 0u);
  n.on_ack(ack(24'001, 4096, 100'000));
  EXPECT_EQ(n.fired_count(NsccRule::kQuickAdapt), 1u);
}

TEST(NsccQuickAdapt, AchievedBytesFromReceiverCounterWithWrap) {
  auto run = [](bool with_counter) {
    Nscc n(qa_params());
    AckSample a = ack(10, 4096, 0);
    AckSample b = ack(25'000, 4096, 0);
    if (with_counter) {
      a.rcvd_bytes = 0xFFFF'F000u;
      b.rcvd_bytes = 0x0001'0000u;  // +69,632 across the 2^32 wrap
    }
    n.on_trim(0, 256);
    n.on_ack(a);
    n.on_ack(b);
    return n.fired_count(NsccRule::kQuickAdapt);
  };
  EXPECT_EQ(run(false), 1u);  // 8,192 acked < gate
  EXPECT_EQ(run(true), 0u);   // the receiver got 4,096 + 69,632 >= gate
}

TEST(NsccQuickAdapt, DisableQaTurnsItOff) {
  Nscc n(params());  // disable_qa = 1
  n.on_ack(ack(0, 4096, 0));
  n.on_trim(5'000, 1'024);
  n.on_ack(ack(25'000, 4096, 100'000));
  EXPECT_EQ(n.fired_count(NsccRule::kQuickAdapt), 0u);
  EXPECT_GE(n.cwnd_exact(), 225'000.0 - 1'024);
}

// ---------------------------------------------------------------------------------------------
// Trims, losses, clamping, can_send
// ---------------------------------------------------------------------------------------------

TEST(NsccController, TrimShrinksByTrimmedBytesAndCountsAsDelay) {
  Nscc n(params());
  n.on_trim(100, 4096);
  EXPECT_TRUE(fired(n, NsccRule::kTrimShrink));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 225'000.0 - 4096);
  EXPECT_NEAR(n.avg_delay_ns(), 0.0125 * kBase, 1e-9);
}

TEST(NsccController, LossShrinksByLostBytes) {
  Nscc n(params());
  n.on_loss(100, 8192);
  EXPECT_TRUE(fired(n, NsccRule::kLossShrink));
  EXPECT_DOUBLE_EQ(n.cwnd_exact(), 225'000.0 - 8192);
  EXPECT_DOUBLE_EQ(n.avg_delay_ns(), 0.0);  // a loss says nothing about queueing delay
}

TEST(NsccController, ClampsToOneMtuAndMaxCwnd) {
  Nscc n(params());
  n.on_loss(100, 1'000'000);
  EXPECT_TRUE(fired(n, NsccRule::kClampMin));
  EXPECT_EQ(n.cwnd(), kMtu);

  Nscc m(params());
  for (int i = 0; i < 9; ++i) m.on_ack(ack(100 + i, 4096, 15'000));
  EXPECT_TRUE(fired(m, NsccRule::kFulfillBytes));
  EXPECT_TRUE(fired(m, NsccRule::kClampMax));
  EXPECT_EQ(m.cwnd(), 225'000u);
}

TEST(NsccController, CanSend) {
  Nscc n(params());
  EXPECT_TRUE(n.can_send(220'904, 4096));
  EXPECT_FALSE(n.can_send(220'905, 4096));
  n.on_loss(100, 1'000'000);  // cwnd = 1 MTU
  EXPECT_TRUE(n.can_send(0, 4096));
  EXPECT_FALSE(n.can_send(4096, 1));
  EXPECT_TRUE(n.can_send(0, 9000));  // nothing in flight: never stall
}

// ---------------------------------------------------------------------------------------------
// never_decrease quirk (the endpoint's `nscc-no-decrease` defect)
// ---------------------------------------------------------------------------------------------

TEST(NsccController, NeverDecreaseQuirkSkipsEveryDecrease) {
  auto run = [](bool quirk) {
    Nscc n(qa_params(), quirk);
    n.on_loss(0, 20'000);
    n.on_trim(10, 20'000);
    n.on_ack(ack(1'000, 4096, 1'200'000, true));  // MD
    n.on_ack(ack(25'000, 4096, 100'000));         // QA after the trim
    return n;
  };
  const Nscc good = run(false);
  EXPECT_EQ(good.fired_count(NsccRule::kLossShrink), 1u);
  EXPECT_EQ(good.fired_count(NsccRule::kTrimShrink), 1u);
  EXPECT_EQ(good.fired_count(NsccRule::kMultiplicativeDecrease), 1u);
  EXPECT_EQ(good.fired_count(NsccRule::kQuickAdapt), 1u);
  EXPECT_LT(good.cwnd(), 20'000u);

  const Nscc bad = run(true);
  EXPECT_TRUE(bad.never_decrease());
  EXPECT_EQ(bad.fired_count(NsccRule::kSuppressedByQuirk), 4u);
  EXPECT_EQ(bad.cwnd(), 225'000u);

  // Increases still run with the quirk.
  Nscc inc(params(), true);
  inc.on_ack(ack(100, 4096, 15'000));
  EXPECT_TRUE(inc.last_decision().fired(NsccRule::kFairIncrease));
}

// ---------------------------------------------------------------------------------------------
// Determinism and bounds under a seeded random event stream
// ---------------------------------------------------------------------------------------------

TEST(NsccController, DeterministicAndBounded) {
  const NsccParams p = qa_params();
  Nscc a(p);
  Nscc b(p);
  std::mt19937_64 rng(0x5eed'0001ull);
  std::uint64_t t = 0;
  std::uint32_t rcvd = 0;
  std::uint64_t min_seen = p.max_cwnd;
  for (int i = 0; i < 20'000; ++i) {
    t += 50 + rng() % 2'000;
    const unsigned kind = static_cast<unsigned>(rng() % 20);
    if (kind == 0) {
      const auto bytes = static_cast<std::uint32_t>(rng() % 8192);
      a.on_trim(t, bytes);
      b.on_trim(t, bytes);
    } else if (kind == 1) {
      const auto bytes = static_cast<std::uint32_t>(rng() % 8192);
      a.on_loss(t, bytes);
      b.on_loss(t, bytes);
    } else {
      AckSample s;
      s.now_ns = t;
      s.acked_bytes = static_cast<std::uint32_t>(rng() % 16'384);
      s.rtt_ns = static_cast<std::uint32_t>(8'000 + rng() % 60'000);
      s.ecn_marked = rng() % 3 == 0;
      rcvd += s.acked_bytes;
      s.rcvd_bytes = rcvd;
      a.on_ack(s);
      b.on_ack(s);
    }
    ASSERT_EQ(a.cwnd_exact(), b.cwnd_exact()) << i;
    ASSERT_GE(a.cwnd(), p.mtu_bytes) << i;
    ASSERT_LE(a.cwnd(), p.max_cwnd) << i;
    min_seen = std::min<std::uint64_t>(min_seen, a.cwnd());
  }
  EXPECT_LT(min_seen, p.max_cwnd);  // the stream did exercise decreases
  EXPECT_LE(a.live_base_rtt_ns(), 8'000u + 60'000u);
  EXPECT_GE(a.live_base_rtt_ns(), 8'000u);
}

}  // namespace
}  // namespace mrc::cc
