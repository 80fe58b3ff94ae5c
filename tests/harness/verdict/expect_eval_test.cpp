// The scripted timeline's expect steps matched against the DUT's frames (evaluate_expects),
// here under the timing budget (timing_budget.hpp): the delay from the anchor is the measured
// time, so an expected frame's window grows by the budget and an absent frame's shrinks by it,
// never ending before it starts; the description and the expect check's message name it.
#include <gtest/gtest.h>

#include <memory>

#include "harness/verdict/checks.hpp"
#include "harness/verdict/expect_eval.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::bridge;
using testing::Data;
using testing::Scenario;

constexpr std::uint64_t kUs = 1000;

struct ExpectRun {
  Scenario s{4, 8};
  ExpectStep step;
  stim::Timeline plan;
  ExpectRun(bool absent, std::uint64_t frame_at) {
    Data d;
    d.psn = 7;
    s.dut_sends(frame_at, d, 0);
    s.finish();
    step.within_ns = 2 * kUs;
    step.absent = absent;
    step.match = {FieldMatch{"bth.psn", std::uint64_t{7}, {}}};
    plan.expects.push_back(stim::ExpectPlan{0, &step, false, 0, 10 * kUs});  // anchor t = 10 us
  }
  // Matches and judges the expects under the budget s.ctx carries.
  CheckResult judge() {
    s.ctx.expects = evaluate_expects(plan, s.ctx);
    return run_expectations(s.ctx);
  }
  CheckResult judge(const TimingBudget& b) {
    s.ctx.timing_budget = b;
    return judge();
  }
};

TEST(ExpectEval, AnExpectedFramesWindowGrowsByTheTimingBudget) {
  ExpectRun e(false, 15 * kUs);  // 5 us after the anchor, within 2 us: X = 3 us
  testing::expect_budget_rules(e.s.ctx, [&](const CheckContext&) { return e.judge(); }, 2 * kUs, 3 * kUs);
  e.judge(bridge(1 * kUs));
  EXPECT_NE(e.s.ctx.expects[0].description.find("within 2000 ns + 1.000 us timing budget"), std::string::npos)
      << e.s.ctx.expects[0].description;
  EXPECT_EQ(e.s.ctx.expects[0].window_end_ns, 13 * kUs);
}

TEST(ExpectEval, AControlCallThatTakesTimeWidensTheWindowOfTheExpectAnchoredOnIt) {
  // The frame comes 5 us after the control at t = 10 us, the expect allows 2 us: FAIL, unless the
  // call itself (an agent's request over a real wire) only returned at 14 us.
  ExpectRun late(false, 15 * kUs);
  EXPECT_EQ(late.judge().verdict, Verdict::kFail);
  ExpectRun e(false, 15 * kUs);
  e.s.ctx.late_steps = {{10 * kUs, 14 * kUs}};
  EXPECT_EQ(e.judge().verdict, Verdict::kPass);
  EXPECT_EQ(e.s.ctx.expects[0].window_end_ns, 16 * kUs);
  EXPECT_NE(e.s.ctx.expects[0].description.find("(+ 4000 ns: the step at t=10000 ns took effect that much later"),
            std::string::npos)
      << e.s.ctx.expects[0].description;
  // A call at another time is not this expect's anchor.
  ExpectRun other(false, 15 * kUs);
  other.s.ctx.late_steps = {{9 * kUs, 14 * kUs}};
  EXPECT_EQ(other.judge().verdict, Verdict::kFail);
}

TEST(ExpectEval, AnAnswerToAnInjectionGetsTheBudgetOncePerCrossing) {
  // 3.5 us past the 2 us window after an injection at 10 us, with a 2 us budget: one crossing's
  // budget (window end 14 us) is not enough, the injected frame's and the answer's (16 us) is.
  ExpectRun once(false, 15'500);
  EXPECT_EQ(once.judge(bridge(1 * kUs)).verdict, Verdict::kFail);
  ExpectRun twice(false, 15'500);
  twice.plan.expects[0].anchored_on_inject = true;
  EXPECT_EQ(twice.judge(bridge(2 * kUs)).verdict, Verdict::kPass);
  EXPECT_EQ(twice.s.ctx.expects[0].window_end_ns, 16 * kUs);
  EXPECT_NE(twice.s.ctx.expects[0].description.find("the budget twice: the injected frame crosses to the DUT"),
            std::string::npos)
      << twice.s.ctx.expects[0].description;
  // On the simulated fabric (no budget) nothing changes.
  ExpectRun fabric(false, 15'500);
  fabric.plan.expects[0].anchored_on_inject = true;
  EXPECT_EQ(fabric.judge().verdict, Verdict::kFail);
}

TEST(ExpectEval, AnAbsentFramesWindowShrinksByTheTimingBudgetNeverBeforeItsStart) {
  ExpectRun e(true, 11'500);  // 1.5 us after the anchor, absent within 2 us: past it by 501 ns
  testing::expect_budget_rules(e.s.ctx, [&](const CheckContext&) { return e.judge(); }, 400, 501);
  e.judge(bridge(1 * kUs));
  EXPECT_NE(e.s.ctx.expects[0].description.find("within 2000 ns - 1.000 us timing budget"), std::string::npos)
      << e.s.ctx.expects[0].description;
  e.judge(bridge(1'000 * kUs));
  EXPECT_EQ(e.s.ctx.expects[0].window_start_ns, 10 * kUs);
  EXPECT_EQ(e.s.ctx.expects[0].window_end_ns, 10 * kUs);
}

TEST(ExpectEval, AnAbsentFramesGraceLetsQueuedFramesLeaveAndNothingLater) {
  // A frame 45 ns after the step (already on the wire when a port went down): FAIL without a
  // grace, PASS with 100 ns; the same frame 1.5 us later still FAILs with the grace.
  ExpectRun strict(true, 10'045);
  EXPECT_EQ(strict.judge().verdict, Verdict::kFail);
  ExpectRun graced(true, 10'045);
  graced.step.grace_ns = 100;
  EXPECT_EQ(graced.judge().verdict, Verdict::kPass);
  EXPECT_EQ(graced.s.ctx.expects[0].window_start_ns, 10'100u);
  EXPECT_NE(graced.s.ctx.expects[0].description.find("after a grace of 100 ns for frames already queued"),
            std::string::npos)
      << graced.s.ctx.expects[0].description;
  ExpectRun late(true, 11'500);
  late.step.grace_ns = 100;
  EXPECT_EQ(late.judge().verdict, Verdict::kFail);
}

// Across a bridge an absent frame's window opens once the step it is anchored on surely took
// effect (its call returned) and the frames queued before it had their grace and the budget to
// cross: a frame seen at the tap left the DUT up to the budget earlier.
TEST(ExpectEval, AnAbsentFramesWindowOpensOnceTheCallReturnedAndItsFramesCrossed) {
  auto run = [](std::uint64_t frame_at) {
    auto e = std::make_unique<ExpectRun>(true, frame_at);
    e->step.within_ns = 10 * kUs;
    e->step.grace_ns = 100;
    return e;
  };
  EXPECT_EQ(run(13 * kUs)->judge().verdict, Verdict::kFail);  // the fabric: 3 us after the step
  auto wire = run(13 * kUs);
  wire->s.ctx.late_steps = {{10 * kUs, 12 * kUs}};
  EXPECT_EQ(wire->judge(bridge(1 * kUs)).verdict, Verdict::kPass);
  EXPECT_EQ(wire->s.ctx.expects[0].window_start_ns, 13'100u);  // 10 + 2 (call) + 0.1 (grace) + 1 (budget)
  EXPECT_NE(wire->s.ctx.expects[0].description.find("(its window opens 2000 ns later: the step at t=10000 ns took"),
            std::string::npos)
      << wire->s.ctx.expects[0].description;
  EXPECT_NE(wire->s.ctx.expects[0].description.find("after a grace of 100 ns + 1.000 us timing budget"),
            std::string::npos)
      << wire->s.ctx.expects[0].description;
  auto later = run(15 * kUs);  // 5 us after the step: past the call, the grace and the budget
  later->s.ctx.late_steps = {{10 * kUs, 12 * kUs}};
  EXPECT_EQ(later->judge(bridge(1 * kUs)).verdict, Verdict::kFail);
}

// A budget longer than an absent frame's window leaves nothing to watch: the expect was not
// judged (INCONCLUSIVE, naming it), never a PASS for frames nobody looked for, nor a FAIL for a
// frame that may have left the DUT before the step reached it.
TEST(ExpectEval, AnAbsentWindowTheBudgetLeavesEmptyIsNotJudged) {
  ExpectRun fabric(true, 10'500);  // 0.5 us after the anchor, absent within 2 us
  EXPECT_EQ(fabric.judge().verdict, Verdict::kFail);
  for (const std::uint64_t at : {std::uint64_t{10'500}, std::uint64_t{50 * kUs}}) {
    ExpectRun wire(true, at);
    const CheckResult r = wire.judge(bridge(1'000 * kUs));
    EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
    EXPECT_FALSE(wire.s.ctx.expects[0].judged);
    EXPECT_NE(r.message.find("1 of 1 expectations not judged on this testbed"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("within 2000 ns is shorter than the testbed's crossings"), std::string::npos) << r.message;
  }
  ExpectRun wide(true, 50 * kUs);  // a window longer than the budget's two ends is judged
  wide.step.within_ns = 3'000 * kUs;
  EXPECT_EQ(wide.judge(bridge(1'000 * kUs)).verdict, Verdict::kPass);
  EXPECT_TRUE(wide.s.ctx.expects[0].judged);
}

// Anchored on an injection, an absent frame's window opens after what this run's bridge measured
// (the inject's way to the DUT, the answer's way into the fabric) instead of the whole budget, so
// an answer the DUT gives at once to a frame it must ignore is seen (accept-truncated on the wire:
// its feedback 130 us after the inject, before a 500 us budget had passed).
TEST(ExpectEval, AnAbsentWindowAfterAnInjectOpensAfterTheMeasuredLag) {
  auto run = [](std::uint64_t frame_at, bool on_inject, bool measured) {
    auto e = std::make_unique<ExpectRun>(true, frame_at);
    e->step.within_ns = 1'100 * kUs;
    e->plan.expects[0].anchored_on_inject = on_inject;
    if (measured) e->s.ctx.bridge_lag = {true, 57 * kUs, 1 * kUs};
    return e;
  };
  auto answer = run(140 * kUs, true, true);  // 130 us after the inject at 10 us
  const CheckResult r = answer->judge(bridge(500 * kUs));
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(answer->s.ctx.expects[0].window_start_ns, 68 * kUs);  // 10 + 57 + 1
  EXPECT_EQ(answer->s.ctx.expects[0].window_end_ns, 610 * kUs);   // 10 + 1100 - 500
  EXPECT_NE(answer->s.ctx.expects[0].description.find(
                "(it opens 58.000 us after, not a budget after: this run's bridge took frames to the DUT within 57.000 us"),
            std::string::npos)
      << answer->s.ctx.expects[0].description;
  // A frame seen before the measured crossings may have left the DUT before the inject got there.
  EXPECT_EQ(run(60 * kUs, true, true)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  // Unmeasured, or anchored on something else: the whole budget, as before.
  EXPECT_EQ(run(140 * kUs, true, false)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  EXPECT_EQ(run(140 * kUs, false, true)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  // A measured lag past the budget: the budget caps it.
  auto slow = run(600 * kUs, true, false);
  slow->s.ctx.bridge_lag = {true, 900 * kUs, 1 * kUs};
  EXPECT_EQ(slow->judge(bridge(500 * kUs)).verdict, Verdict::kFail);
  EXPECT_EQ(slow->s.ctx.expects[0].window_start_ns, 510 * kUs);
}

// Where the bridge timed each frame's crossing of the DUT's port (port_ns), an absent window is
// judged in the DUT's own time: a frame that left the DUT's port within the window after the
// injected frame reached it FAILs, whatever the bridge's lag (accept-truncated on a noisy VM: its
// answer seen at the tap before a 500 us budget, or the run's largest crossings, had passed), and
// one that left before the inject reached the DUT is not the DUT's answer to it.
TEST(ExpectEval, AnAbsentWindowJudgesEachFrameByItsOwnCrossingOfTheDutsPort) {
  constexpr std::uint64_t kWall = 1'764'680'000'000'000'000ull;  // CLOCK_REALTIME, ns
  auto run = [&](std::uint64_t seen_at, std::int64_t left_after, bool inject_timed, std::uint64_t sent_at = 10 * kUs,
                 std::uint32_t send_span = 0) {
    auto e = std::make_unique<ExpectRun>(true, 0);  // its frame replaced below
    e->s.tx(1).capture = Capture("dut.p1.tx");
    Data answer;
    answer.psn = 7;
    answer.ev = testing::ev_value(0);
    // The inject left the fabric at 10 us and reached the DUT's port 300 us later (a lagging
    // bridge); the DUT's frame is seen at the tap at `seen_at`, having left its port
    // `left_after` after the inject reached it (negative: before).
    e->s.rx(1).capture.add(sent_at, testing::encode(Data{}), 0,
                           inject_timed ? PortTime{kWall + 300 * kUs - send_span, send_span} : PortTime{});
    if (sent_at != 10 * kUs) e->s.ctx.late_steps.emplace_back(10 * kUs, sent_at);  // it followed late traffic
    e->s.tx(1).capture.add(seen_at, testing::encode(answer), 0,
                           PortTime{static_cast<std::uint64_t>(static_cast<std::int64_t>(kWall + 300 * kUs) + left_after), 0});
    e->s.finish();
    e->step.within_ns = 1'100 * kUs;
    e->plan.expects[0].anchored_on_inject = true;
    e->plan.expects[0].inject_port = 1;
    e->s.ctx.bridge_lag = {true, 400 * kUs, 400 * kUs};  // the run's largest: past the budget
    return e;
  };
  auto answered = run(450 * kUs, 90'000, true);
  const CheckResult r = answered->judge(bridge(500 * kUs));
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(answered->s.ctx.expects[0].mismatch.find("(it left the DUT's port 90.000 us after the send of the injected frame to it returned)"),
            std::string::npos)
      << answered->s.ctx.expects[0].mismatch;
  EXPECT_NE(answered->s.ctx.expects[0].description.find("judged on each frame's own crossing of the DUT's port, from 0 ns "
                                                        "to 1.100 ms after the send of the injected frame to it returned"),
            std::string::npos)
      << answered->s.ctx.expects[0].description;
  // Left the DUT before the inject reached it, or after the window: not an answer in it.
  EXPECT_EQ(run(300 * kUs, -20'000, true)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  EXPECT_EQ(run(1'500 * kUs, 1'200'000, true)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  // The inject untimed: the window of the budget and the measured lags, which this frame misses.
  EXPECT_EQ(run(450 * kUs, 90'000, false)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  // An injection sent late is found where it went, and its port time holds the delay: the window
  // opens when it reached the DUT, not that delay again after.
  EXPECT_EQ(run(450 * kUs, 90'000, true, 200 * kUs)->judge(bridge(500 * kUs)).verdict, Verdict::kFail);
  // Frames to the DUT bound the window where they reached it: the next injection, sent after the
  // window (1.2 ms, past 10 us + 1.1 ms), reached the DUT's port 500 us after this one, and what
  // the DUT sent after that may be its answer; a frame sent before the inject (at 5 us) reached
  // the port 50 us after it, and what the DUT sent before that may be an answer to it.
  auto bounded = [&](std::int64_t left_after) {
    auto e = run(1'300 * kUs, left_after, true);
    e->s.rx(2).capture.add(1'200 * kUs, testing::encode(Data{}), 0, PortTime{kWall + 800 * kUs, 0});  // +500 us
    e->s.rx(3).capture.add(5 * kUs, testing::encode(Data{}), 0, PortTime{kWall + 330 * kUs, 20'000});  // by +50 us
    e->s.finish();
    return e->judge(bridge(500 * kUs)).verdict;
  };
  EXPECT_EQ(bounded(600'000), Verdict::kPass);
  EXPECT_EQ(bounded(400'000), Verdict::kFail);
  EXPECT_EQ(bounded(30'000), Verdict::kPass);
  EXPECT_EQ(bounded(60'000), Verdict::kFail);
  // The inject's send took 100 us, and the DUT may have had it any time in it (over a veth the
  // kernel hands the frame over inside the call): what left the DUT before the send returned may
  // precede it, and the window ends within_ns after the send began.
  EXPECT_EQ(run(450 * kUs, -50'000, true, 10 * kUs, 100'000)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  EXPECT_EQ(run(450 * kUs, 10'000, true, 10 * kUs, 100'000)->judge(bridge(500 * kUs)).verdict, Verdict::kFail);
  EXPECT_EQ(run(1'400 * kUs, 1'050'000, true, 10 * kUs, 100'000)->judge(bridge(500 * kUs)).verdict, Verdict::kPass);
  // The simulator (no budget) never looks at port times.
  EXPECT_EQ(run(1'500 * kUs, 90'000, true)->judge().verdict, Verdict::kPass);
}

// An expected frame is judged when it left the DUT (its capture at the DUT's port), not when a
// loaded bridge took it into the fabric: reliab-v-007's second retry left on time at 2.0 ms and
// was seen at the tap at 4.3 ms, the bridge having read it late; one that left late still FAILs,
// and so does a late one the bridge did not time.
TEST(ExpectEval, AnExpectedFrameIsJudgedWhenItLeftTheDutNotWhenTheBridgeTookIt) {
  constexpr std::uint64_t kWall = 1'764'680'000'000'000'000ull;
  auto run = [](std::uint32_t entry_ns, std::uint64_t seen_at = 3'000 * kUs) {
    auto e = std::make_unique<ExpectRun>(false, 0);  // its frame replaced below
    e->s.tx(1).capture = Capture("dut.p1.tx");
    Data d;
    d.psn = 7;
    d.ev = testing::ev_value(0);
    e->s.tx(1).capture.add(seen_at, testing::encode(d), 0, PortTime{kWall, 0, entry_ns});
    e->s.finish();
    return e;
  };
  auto on_time = run(2'989'000);  // left at 11 us: inside [10, 13] us
  EXPECT_EQ(on_time->judge(bridge(1 * kUs)).verdict, Verdict::kPass) << on_time->s.ctx.expects[0].mismatch;
  EXPECT_NE(on_time->s.ctx.expects[0].description.find(
                "(a frame of the DUT's at the time it left the DUT's port: the bridge took one into the fabric up to "
                "2.989 ms after, its entry_ns in the evidence)"),
            std::string::npos)
      << on_time->s.ctx.expects[0].description;
  EXPECT_EQ(run(2'980'000)->judge(bridge(1 * kUs)).verdict, Verdict::kFail);  // left at 20 us
  EXPECT_EQ(run(0)->judge(bridge(1 * kUs)).verdict, Verdict::kFail);          // untimed: seen at 3 ms
  // The window's start stays at the tap: a frame seen in it whose capture maps before the anchor
  // (a pause of the fabric's clock) is in it, not before it.
  EXPECT_EQ(run(5'000, 12 * kUs)->judge(bridge(1 * kUs)).verdict, Verdict::kPass);
}

}  // namespace
}  // namespace mrc::harness

namespace mrc::harness {
namespace {

// A frame an expect consumed does not break an absent expect anchored on that match: the pair
// "absent within lo, then expected within hi" bounds an interval from both sides.
TEST(ExpectEval, AnAbsentExpectAnchoredOnAMatchJudgesOnlyWhatFollowsIt) {
  Scenario s(4, 8);
  Data d;
  d.psn = 7;
  s.dut_sends(10 * kUs, d, 0);  // the first send
  s.dut_sends(26 * kUs, d, 1);  // its retransmission 16 us later
  s.finish();
  ExpectStep first;
  first.within_ns = 11 * kUs;
  first.match = {FieldMatch{"bth.psn", std::uint64_t{7}, {}}};
  ExpectStep quiet = first;
  quiet.absent = true;
  quiet.within_ns = 14 * kUs;  // nothing new for 14 us after the first send ...
  ExpectStep retx = first;
  retx.within_ns = 18 * kUs;   // ... and the retransmission by 18 us
  stim::Timeline plan;
  plan.expects.push_back(stim::ExpectPlan{0, &first, false, 0, 0});
  stim::ExpectPlan p1{1, &quiet, true, 0, 0};
  plan.expects.push_back(p1);
  stim::ExpectPlan p2{2, &retx, true, 1, 0};
  plan.expects.push_back(p2);
  const auto records = evaluate_expects(plan, s.ctx);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[0].matched);
  EXPECT_EQ(records[0].matched_at_ns, 10 * kUs);
  EXPECT_TRUE(records[1].matched) << records[1].mismatch;  // the first send itself does not count
  EXPECT_TRUE(records[2].matched) << records[2].mismatch;
  EXPECT_EQ(records[2].matched_at_ns, 26 * kUs);
  quiet.within_ns = 17 * kUs;  // a retransmission inside the silence breaks it
  EXPECT_FALSE(evaluate_expects(plan, s.ctx)[1].matched);
  // Across a bridge the silence opens after the entry delay it measured, not after the budget:
  // the DUT's frames before the match entered the fabric within 1 us of their capture, so the
  // retransmission 16 us after it breaks a 1.1 ms silence (0.6 ms once the budget's end is off).
  quiet.within_ns = 1'100 * kUs;
  s.ctx.timing_budget = testing::bridge(500 * kUs);
  EXPECT_TRUE(evaluate_expects(plan, s.ctx)[1].matched);  // [510, 610] us: nothing to see
  s.ctx.bridge_lag = {true, 57 * kUs, 1 * kUs};
  const auto measured = evaluate_expects(plan, s.ctx);
  EXPECT_FALSE(measured[1].matched);
  EXPECT_EQ(measured[1].window_start_ns, 11 * kUs);
  EXPECT_NE(measured[1].description.find("(it opens 1.000 us after, not a budget after: this run's bridge took the DUT's "
                                         "into the fabric within 1.000 us)"),
            std::string::npos)
      << measured[1].description;
}

// An unmatched expect points at its closest candidate like every other check's evidence: the
// tap's evidence key and index (the runner makes them the evidence file's Wireshark frame), a
// display filter, and the same reference in the message, never a tap-local "frame #".
TEST(ExpectEval, AnUnmatchedExpectsEvidenceRowPointsAtItsClosestCandidate) {
  ExpectRun e(false, 11 * kUs);
  e.step.match = {FieldMatch{"bth.psn", std::uint64_t{8}, {}}};  // the DUT sent PSN 7 instead
  const CheckResult r = e.judge();
  ASSERT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.evidence.size(), 1u);
  const TapCapture& tap = e.s.tx(1);
  EXPECT_EQ(r.evidence[0].pcap, tap.pcap);
  EXPECT_EQ(r.evidence[0].packet_index, 0);
  EXPECT_EQ(r.evidence[0].display_filter, "frame.number == 1");
  EXPECT_EQ(r.evidence[0].note, "closest candidate");
  EXPECT_NE(r.message.find("closest: " + tap.pcap + " packet 0 (" + tap.name + ") at 11000 ns"), std::string::npos)
      << r.message;
  EXPECT_EQ(r.message.find("frame #"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace mrc::harness
