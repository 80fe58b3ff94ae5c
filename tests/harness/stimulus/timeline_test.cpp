#include <gtest/gtest.h>

#include "harness/stimulus/timeline.hpp"

namespace mrc::harness::stim {
namespace {

StimulusStep step(StepBody b) { return StimulusStep{SourceLoc{}, std::move(b)}; }

TEST(Timeline, ActionsAreSortedByTimeThenStepOrder) {
  Case c;
  ControlStep deny;  // member by member: ControlStep keeps growing optional payloads
  deny.at_ns = 5000;
  deny.op = ControlOp::kDenyEv;
  deny.ev = 1u;
  deny.expect = ControlResult::kOk;
  c.stimulus.push_back(step(deny));
  InjectStep a;
  a.at_ns = 1000;
  c.stimulus.push_back(step(a));
  InjectStep b;
  b.at_ns = 5000;
  c.stimulus.push_back(step(b));
  const Timeline t = plan_timeline(c);
  ASSERT_EQ(t.actions.size(), 3u);
  EXPECT_EQ(t.actions[0].step, 1u);
  EXPECT_EQ(t.actions[1].step, 0u);  // same time: step order kept
  EXPECT_EQ(t.actions[2].step, 2u);
  EXPECT_EQ(t.horizon_ns, 5000u);
}

// An inject timed by the DUT's packet (after_packet) goes out when that packet leaves: the
// timeline plans no time for it, and what follows is timed from the step before it.
TEST(Timeline, AnInjectAfterAPacketIsNotATimedAction) {
  Case c;
  InjectStep a;
  a.at_ns = 1000;
  c.stimulus.push_back(step(a));
  InjectStep after;
  after.after_packet = ImpairSelect{};
  after.delay_ns = 50'000;
  c.stimulus.push_back(step(after));
  ExpectStep e;
  e.within_ns = 10'000;
  c.stimulus.push_back(step(e));
  const Timeline t = plan_timeline(c);
  ASSERT_EQ(t.actions.size(), 1u);
  EXPECT_EQ(t.actions[0].step, 0u);
  ASSERT_EQ(t.expects.size(), 1u);
  EXPECT_EQ(t.expects[0].anchor_ns, 1000u);
  EXPECT_FALSE(t.expects[0].anchored_on_inject);
}

TEST(Timeline, ExpectWindowsAddAbsoluteAndRelativeTolerance) {
  ExpectStep e;
  e.within_ns = 10'000;
  e.tolerance_ns = 500;
  e.tolerance_pct = 10;
  EXPECT_EQ(expect_deadline(e, 1000), 1000u + 10'000 + 500 + 1000);
}

InjectStep inject_at(std::uint64_t at_ns) {
  InjectStep in;
  in.at_ns = at_ns;
  return in;
}

ExpectStep expect_within(std::uint64_t within_ns) {
  ExpectStep e;
  e.within_ns = within_ns;
  return e;
}

TEST(Timeline, ExpectsAnchorOnThePreviousStep) {
  Case c;
  c.stimulus = {step(inject_at(2000)), step(expect_within(1000)), step(expect_within(3000))};
  const Timeline t = plan_timeline(c);
  ASSERT_EQ(t.expects.size(), 2u);
  EXPECT_FALSE(t.expects[0].anchored_on_expect);
  EXPECT_EQ(t.expects[0].anchor_ns, 2000u);
  EXPECT_TRUE(t.expects[0].anchored_on_inject);  // its answer crosses a bridge twice
  EXPECT_TRUE(t.expects[1].anchored_on_expect);
  EXPECT_FALSE(t.expects[1].anchored_on_inject);
  EXPECT_EQ(t.expects[1].prev_expect, 0u);
  // The second window can end at most 3000 after the first one's latest match.
  EXPECT_EQ(t.horizon_ns, 2000u + 1000 + 3000);
}

TEST(Timeline, OnlyAnExpectRightAfterAnInjectionIsAnchoredOnIt) {
  ControlStep ctl;
  ctl.at_ns = 3000;
  Case c;
  c.stimulus = {step(inject_at(2000)), step(ctl), step(expect_within(0))};
  const Timeline t = plan_timeline(c);
  ASSERT_EQ(t.expects.size(), 1u);
  EXPECT_EQ(t.expects[0].anchor_ns, 3000u);
  EXPECT_FALSE(t.expects[0].anchored_on_inject);
  EXPECT_EQ(t.horizon_ns, 3000u);
}

}  // namespace
}  // namespace mrc::harness::stim
