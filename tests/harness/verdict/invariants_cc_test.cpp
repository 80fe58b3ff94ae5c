// The NSCC window invariants (inflight_bounds, no_md_below_target, md_bounded, quick_adapt) on traces of a
// window-limited sender: a toy flow where each 256-byte packet is acknowledged `rtt` after it
// left and the sender refills up to window(now) packets on every ACK (first flight paced).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>

#include "harness/verdict/checks.hpp"
#include "harness/verdict/inflight.hpp"
#include "harness/verdict/trace.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::Scenario;

constexpr std::uint64_t kUs = 1000;

struct Flow {
  std::uint64_t rtt = 2 * kUs;
  std::uint64_t until = 200 * kUs;
  std::function<std::size_t(std::uint64_t)> window = [](std::uint64_t) { return 8; };
  std::function<bool(std::uint64_t)> ce = [](std::uint64_t) { return false; };
  std::uint64_t trim_at = 0;  // > 0: the first ACK due after this is a TRIM NACK instead
};

void run_flow(Scenario& s, const Flow& f) {
  std::deque<std::pair<std::uint64_t, std::uint32_t>> due;  // ACK time, PSN (constant RTT: FIFO)
  std::uint32_t psn = 0;
  std::size_t inflight = 0;
  bool trimmed = false;
  auto send = [&](std::uint64_t t) {
    Data d;
    d.psn = psn;
    s.dut_sends(t, d, psn % 8);
    due.emplace_back(t + f.rtt, psn++);
    ++inflight;
  };
  // The first flight is paced over one RTT, so ACKs come back evenly spaced.
  const std::uint64_t gap = std::max<std::uint64_t>(f.rtt / f.window(0), 1);
  for (std::uint64_t t = 0; inflight < f.window(0); t += gap) send(t);
  while (!due.empty() && due.front().first < f.until) {
    const auto [t, p] = due.front();
    due.pop_front();
    --inflight;
    Feedback fb = testing::sack(p, 0, p);
    fb.ce = f.ce(t);
    if (f.trim_at != 0 && !trimmed && t >= f.trim_at) {
      trimmed = true;
      fb = testing::nack(p);  // W7 NACK TRIMMED
    }
    s.dut_receives(t, fb);
    for (std::uint64_t k = 1; inflight < f.window(t); ++k) send(t + k);
  }
}

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params) {
  return InvariantCheck{std::move(name), std::move(params)};
}

// A flow of `before` packets in flight, trimmed at 100 us, then `after` packets in flight.
Scenario trimmed_at_100us(std::uint64_t rtt, std::size_t before, std::size_t after) {
  Scenario s(4, 8);
  Flow f;
  f.rtt = rtt;
  f.until = 400 * kUs;
  f.trim_at = 100 * kUs;
  f.window = [before, after](std::uint64_t t) -> std::size_t { return t > 100 * kUs ? after : before; };
  run_flow(s, f);
  s.finish();
  return s;
}

TEST(InflightTimeline, CountsPayloadUntilAckedSackedOrNacked) {
  Scenario s(4, 8);
  for (std::uint32_t p = 0; p < 4; ++p) {
    Data d;
    d.psn = p;
    s.dut_sends(p * 10, d, p);
  }
  // cumulative 0, SACK of PSN 2 (base = 0 + 1, bit 1)
  s.dut_receives(100, testing::sack(0, std::uint64_t{1} << 1, 2));
  s.dut_receives(200, testing::nack(1));  // NACK TRIMMED of PSN 1
  Data again;  // the retransmission of PSN 1 is in flight again
  again.psn = 1;
  s.dut_sends(300, again, 5);
  s.finish();
  const Trace t = build_trace(s.ctx, select_taps(s.ctx, TapSide::kAll));
  const auto ev = inflight_timeline(t);
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[3].inflight, 4u * 256);
  EXPECT_EQ(ev[4].inflight, 2u * 256);  // PSN 0 cumulatively, PSN 2 by SACK
  EXPECT_EQ(ev[4].acked, 2u * 256);
  EXPECT_EQ(ev[4].rtt_ns, 100u - 20);  // trigger PSN 2 left at 20 ns
  EXPECT_EQ(ev[5].inflight, 1u * 256);
  EXPECT_TRUE(ev[5].loss_signal);
  EXPECT_EQ(ev[6].inflight, 2u * 256);
  EXPECT_FALSE(ev[6].first_tx);
  EXPECT_TRUE(ev[3].first_tx);
}

TEST(InflightBounds, PassesUnderAndFailsOverMaxBytes) {
  Scenario s(4, 8);
  run_flow(s, Flow{});
  s.finish();
  const auto ok = run_invariant(inv("inflight_bounds", {{"max_bytes", "2048"}}), s.ctx);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.message;
  EXPECT_EQ(ok.metrics.at("peak_inflight_bytes"), 2048);
  const auto bad = run_invariant(inv("inflight_bounds", {{"max_bytes", "1536"}}), s.ctx);
  EXPECT_EQ(bad.verdict, Verdict::kFail);
  EXPECT_EQ(bad.evidence.at(0).field, "inflight");
  EXPECT_EQ(run_invariant(inv("inflight_bounds", {{"max_bytes", "1536"}, {"slack_bytes", "512"}}), s.ctx).verdict,
            Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("inflight_bounds", {}), s.ctx).verdict, Verdict::kError);
}

TEST(NoMdBelowTarget, KeptWindowPassesCollapsedWindowFails) {
  for (bool collapse : {false, true}) {
    Scenario s(4, 8);
    Flow f;
    f.ce = [](std::uint64_t t) { return t >= 20 * kUs; };
    if (collapse) f.window = [](std::uint64_t t) -> std::size_t { return t >= 20 * kUs ? 2 : 8; };
    run_flow(s, f);
    s.finish();
    const auto r = run_invariant(inv("no_md_below_target", {{"target_ns", "10000"}, {"window_ns", "10000"}}), s.ctx);
    EXPECT_EQ(r.verdict, collapse ? Verdict::kFail : Verdict::kPass) << r.message;
    EXPECT_EQ(r.metrics.at("baseline_inflight_bytes"), 2048);
  }
}

// One packet in flight when the first mark comes back (a real-time bridge's round trip is shorter
// than the first flight takes at its rate): no window can be told from its floor, kept or cut.
TEST(NoMdBelowTarget, OnePacketInFlightBeforeTheMarksIsInconclusive) {
  for (bool collapse : {false, true}) {
    Scenario s(4, 8);
    Flow f;
    f.ce = [](std::uint64_t t) { return t >= 1; };  // the first flight's first ACK is marked
    f.window = [collapse](std::uint64_t t) -> std::size_t { return t == 0 ? 1 : (collapse ? 1 : 8); };
    run_flow(s, f);
    s.finish();
    const auto r = run_invariant(inv("no_md_below_target", {{"target_ns", "10000"}, {"window_ns", "10000"}}), s.ctx);
    EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
    EXPECT_NE(r.message.find("the DUT had 256 bytes in flight before the first ECN-marked feedback, less than two of "
                             "its largest packets (2 x 256 bytes)"),
              std::string::npos)
        << r.message;
  }
}

// from_ns: judged from that moment against the window just before it, so an earlier (legal)
// shrink is not taken for a decrease below target.
TEST(NoMdBelowTarget, FromNsJudgesAgainstTheWindowBeforeIt) {
  for (bool collapse : {false, true}) {
    Scenario s(4, 8);
    Flow f;
    f.ce = [](std::uint64_t t) { return t >= 20 * kUs; };
    f.window = [collapse](std::uint64_t t) -> std::size_t {
      if (t < 20 * kUs) return 8;
      return collapse && t >= 100 * kUs ? 1 : 4;  // halved at 20 us (say, after losses)
    };
    run_flow(s, f);
    s.finish();
    const auto from = run_invariant(
        inv("no_md_below_target", {{"target_ns", "10000"}, {"window_ns", "10000"}, {"from_ns", "60000"}}), s.ctx);
    EXPECT_EQ(from.verdict, collapse ? Verdict::kFail : Verdict::kPass) << from.message;
    EXPECT_EQ(from.metrics.at("baseline_inflight_bytes"), 1024);
    // Judged from the first mark instead, the halving at 20 us is itself a failure.
    EXPECT_EQ(run_invariant(inv("no_md_below_target", {{"target_ns", "10000"}, {"window_ns", "10000"}}), s.ctx).verdict,
              Verdict::kFail);
  }
}

// W14 (UET): a PSN sent twice gives an RTT sample only when the answer echoes RTX = 1; the late
// first copy's answer (RTX = 0) is ambiguous and measures nothing.
TEST(InflightTimeline, TakesRttSamplesByTheUetRule) {
  Scenario s(4, 8);
  Data d;
  d.psn = 0;
  s.dut_sends(0, d, 0);
  d.rtx = true;
  s.dut_sends(1000, d, 1);  // the retransmission
  Feedback late = testing::sack(0, 0, 0);  // answers the first copy: RTX = 0 in its BTH
  s.dut_receives(5000, late);
  s.finish();
  const Trace t = build_trace(s.ctx, select_taps(s.ctx, TapSide::kAll));
  const auto ev = inflight_timeline(t);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[2].rtt_ns, 0u);
  Scenario once(4, 8);
  d.rtx = false;
  once.dut_sends(0, d, 0);
  once.dut_receives(5000, late);
  once.finish();
  const auto one = inflight_timeline(build_trace(once.ctx, select_taps(once.ctx, TapSide::kAll)));
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[1].rtt_ns, 5000u);  // sent once, answered with RTX = 0: a sample
}

TEST(NoMdBelowTarget, MarksAboveTargetOrNoMarksAreInconclusive) {
  Scenario none(4, 8);
  run_flow(none, Flow{});
  none.finish();
  EXPECT_EQ(run_invariant(inv("no_md_below_target", {{"target_ns", "10000"}}), none.ctx).verdict, Verdict::kInconclusive);
  Scenario slow(4, 8);
  Flow f;
  f.ce = [](std::uint64_t) { return true; };
  run_flow(slow, f);
  Data late;  // one packet whose marked ACK comes 50 us later: a delay far above target
  late.psn = 5000;
  slow.dut_sends(1000, late, 1);
  Feedback fb = testing::sack(4999, 0, 5000);
  fb.ce = true;
  slow.dut_receives(51 * kUs, fb);
  slow.finish();
  const auto r = run_invariant(inv("no_md_below_target", {{"target_ns", "10000"}}), slow.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_NE(r.message.find("at or above target"), std::string::npos) << r.message;
}

// md_bounded: eight marked ACKs within 2 us (under the 5 us base RTT). One halving keeps four
// packets in flight; a window cut per mark (to one packet) drains below half less one MTU.
TEST(MdBounded, OneHalvingPassesACutPerMarkFails) {
  for (bool per_mark : {false, true}) {
    Scenario s(4, 8);
    Flow f;
    f.ce = [](std::uint64_t t) { return t >= 20 * kUs && t < 22 * kUs; };
    f.window = [per_mark](std::uint64_t t) -> std::size_t { return t < 20 * kUs ? 8 : per_mark ? 1 : 4; };
    run_flow(s, f);
    s.finish();
    const auto r = run_invariant(inv("md_bounded", {{"base_rtt_ns", "5000"}, {"mtu", "256"}}), s.ctx);
    EXPECT_EQ(r.verdict, per_mark ? Verdict::kFail : Verdict::kPass) << r.message;
    EXPECT_EQ(r.metrics.at("baseline_inflight_bytes"), 2048);
    EXPECT_EQ(r.metrics.at("marks"), 8);
    if (per_mark) {
      EXPECT_NE(r.message.find(">= 768 bytes in flight"), std::string::npos) << r.message;
    }
  }
}

// Marks spread over a base RTT or more may legally take two decreases; none is no trial at all.
TEST(MdBounded, MarksOverABaseRttOrNoMarksAreInconclusive) {
  Scenario spread(4, 8);
  Flow f;
  f.ce = [](std::uint64_t t) { return t >= 20 * kUs && t < 30 * kUs; };
  run_flow(spread, f);
  spread.finish();
  const auto r = run_invariant(inv("md_bounded", {{"base_rtt_ns", "5000"}, {"mtu", "256"}}), spread.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_NE(r.message.find("more than one decrease would be legal"), std::string::npos) << r.message;
  Scenario none(4, 8);
  run_flow(none, Flow{});
  none.finish();
  EXPECT_EQ(run_invariant(inv("md_bounded", {{"base_rtt_ns", "5000"}}), none.ctx).verdict, Verdict::kInconclusive);
  EXPECT_EQ(run_invariant(inv("md_bounded", {}), none.ctx).verdict, Verdict::kError);
}

TEST(QuickAdapt, StarvedTrimMustBringTheFlightDown) {
  for (bool adapts : {true, false}) {
    Scenario s(4, 8);
    Flow f;
    f.rtt = 20 * kUs;  // 16 packets per 20 us, one ACK per 1.25 us: ~200 bytes per 1 us epoch
    f.until = 400 * kUs;
    f.trim_at = 100 * kUs;
    if (adapts) f.window = [](std::uint64_t t) -> std::size_t { return t > 100 * kUs ? 2 : 16; };
    else f.window = [](std::uint64_t) -> std::size_t { return 16; };
    run_flow(s, f);
    s.finish();
    const auto r = run_invariant(
        inv("quick_adapt", {{"max_cwnd", "65536"}, {"epoch_ns", "1000"}, {"mtu", "256"}, {"within_ns", "50000"}}), s.ctx);
    EXPECT_EQ(r.verdict, adapts ? Verdict::kPass : Verdict::kFail) << r.message;
  }
}

// Across a real-time bridge the DUT's epoch may hold the acknowledgements the taps saw up to the
// budget either side: the flow that FAILs above (about 200 bytes acknowledged per 1 us epoch)
// achieved some 20 KiB within 50 us of the trim, over the gate, so the trim is not judged there.
TEST(QuickAdapt, AcrossABridgeTheEpochWidensByTheBudget) {
  Scenario s(4, 8);
  Flow f;
  f.rtt = 20 * kUs;
  f.until = 400 * kUs;
  f.trim_at = 100 * kUs;
  f.window = [](std::uint64_t) -> std::size_t { return 16; };
  run_flow(s, f);
  s.finish();
  const auto check = inv("quick_adapt", {{"max_cwnd", "65536"}, {"epoch_ns", "1000"}, {"mtu", "256"}, {"within_ns", "50000"}});
  EXPECT_EQ(run_invariant(check, s.ctx).verdict, Verdict::kFail);
  s.ctx.timing_budget = TimingBudget{50 * kUs, "real-time bridge (testbed netns)"};
  const auto r = run_invariant(check, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_EQ(r.metrics.at("signals_not_starved"), 1);
}

TEST(QuickAdapt, ATrimInAFullEpochIsNotJudged) {
  Scenario s(4, 8);
  Flow f;
  f.rtt = 2 * kUs;
  f.window = [](std::uint64_t) -> std::size_t { return 64; };  // 16 KiB per 2 us
  f.trim_at = 50 * kUs;
  run_flow(s, f);
  s.finish();
  // Gate 65536 >> 3 = 8 KiB, and more than that was achieved around the trim.
  const auto r = run_invariant(inv("quick_adapt", {{"max_cwnd", "65536"}, {"epoch_ns", "2000"}, {"mtu", "256"}}), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_EQ(r.metrics.at("signals_not_starved"), 1);
}

// The lower side (min_epoch_ns): 16 packets of 256 bytes per 20 us RTT acknowledge about 2 KiB in
// every 10 us, so after the trim the window may come down to 8 packets, not to 5 or to 1.
TEST(QuickAdapt, WithMinEpochTheWindowMustNotFallBelowTheAchievedBytes) {
  for (std::size_t after : {8, 5, 1}) {
    Scenario s = trimmed_at_100us(20 * kUs, 16, after);
    const auto r = run_invariant(inv("quick_adapt", {{"max_cwnd", "131072"}, {"epoch_ns", "11000"}, {"mtu", "256"},
                                                     {"within_ns", "50000"}, {"min_epoch_ns", "10000"},
                                                     {"react_ns", "20000"}}),
                                 s.ctx);
    EXPECT_EQ(r.verdict, after == 8 ? Verdict::kPass : Verdict::kFail) << after << ": " << r.message;
    EXPECT_EQ(r.metrics.at("signals_lower_side_judged"), 1);
    if (after == 1) {
      EXPECT_NE(r.message.find("observed at most 256 bytes"), std::string::npos) << r.message;
    }
  }
}

// With min_epoch_ns a trim in a full epoch is judged too: 64 packets of 256 bytes per 8 us RTT
// acknowledge 4 KiB in every 2 us epoch, over MaxWnd / 2^3 = 2 KiB, so the window may lose a
// packet, but QuickAdapt may not take it down to the 16 packets one epoch achieved.
TEST(QuickAdapt, WithMinEpochAFullEpochKeepsTheWindow) {
  for (std::size_t after : {63, 16}) {
    Scenario s = trimmed_at_100us(8 * kUs, 64, after);
    const auto r = run_invariant(inv("quick_adapt", {{"max_cwnd", "16384"}, {"epoch_ns", "2100"}, {"mtu", "256"},
                                                     {"within_ns", "50000"}, {"min_epoch_ns", "2000"},
                                                     {"react_ns", "20000"}}),
                                 s.ctx);
    EXPECT_EQ(r.verdict, after == 63 ? Verdict::kPass : Verdict::kFail) << after << ": " << r.message;
    EXPECT_EQ(r.metrics.at("signals_full_epoch_judged"), 1);
    EXPECT_EQ(r.metrics.at("signals_not_starved"), 1);
  }
}

// Without min_epoch_ns only the upper side is judged: the one-packet window passes.
TEST(QuickAdapt, WithoutMinEpochOnlyTheUpperSideIsJudged) {
  Scenario s = trimmed_at_100us(40 * kUs, 32, 1);
  const auto r = run_invariant(
      inv("quick_adapt", {{"max_cwnd", "131072"}, {"epoch_ns", "5000"}, {"mtu", "256"}, {"within_ns", "50000"}}), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.count("signals_lower_side_judged"), 0u);
}

// A starved trim at 100 us; the DUT cuts its window only at 120 us, so its flight is down to the
// bound about 58 us after the trim. The budget widens within_ns 50 us and also the span whose
// acknowledgements the DUT's epoch may hold (so the achieved bytes and the bound grow): 7 us of
// it is short, 8 us enough. MaxWnd 256 KiB keeps the epoch starved (gate 32 KiB) throughout.
Scenario cut_at_120us() {
  Scenario s(4, 8);
  Flow f;
  f.rtt = 40 * kUs;
  f.until = 400 * kUs;
  f.trim_at = 100 * kUs;
  f.window = [](std::uint64_t t) -> std::size_t { return t > 120 * kUs ? 2 : 32; };
  run_flow(s, f);
  s.finish();
  return s;
}

TEST(QuickAdapt, WithinGrowsByTheTimingBudget) {
  Scenario s = cut_at_120us();
  const auto check = inv("quick_adapt", {{"max_cwnd", "262144"}, {"epoch_ns", "1000"}, {"mtu", "256"}, {"within_ns", "50000"}});
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(check, c); }, 7 * kUs, 8 * kUs);
}

// Judged only where a window kept as it was would break the bound. With a budget of 16 us the
// span whose acknowledgements the DUT's epoch may hold is 35 us of a 40 us round trip: the achieved
// bytes allow the flight before the trim, so a DUT whose QuickAdapt never fired would pass too.
TEST(QuickAdapt, ABoundThatACutCannotBeToldFromNoneJudgesNothing) {
  Scenario s = cut_at_120us();
  const auto check = inv("quick_adapt", {{"max_cwnd", "262144"}, {"epoch_ns", "1000"}, {"mtu", "256"}, {"within_ns", "50000"}});
  s.ctx.timing_budget = TimingBudget{16 * kUs, "real-time bridge (testbed netns)"};
  const auto r = run_invariant(check, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_NE(r.message.find("never cut would meet the bound too"), std::string::npos) << r.message;
  // A DUT that never cuts: a long epoch hides it, a short one FAILs it.
  const Scenario flat = trimmed_at_100us(20 * kUs, 16, 16);
  EXPECT_EQ(run_invariant(inv("quick_adapt", {{"max_cwnd", "131072"}, {"epoch_ns", "11000"}, {"mtu", "256"},
                                              {"within_ns", "50000"}}), flat.ctx).verdict, Verdict::kInconclusive);
  EXPECT_EQ(run_invariant(inv("quick_adapt", {{"max_cwnd", "131072"}, {"epoch_ns", "1000"}, {"mtu", "256"},
                                              {"within_ns", "50000"}}), flat.ctx).verdict, Verdict::kFail);
}

}  // namespace
}  // namespace mrc::harness
