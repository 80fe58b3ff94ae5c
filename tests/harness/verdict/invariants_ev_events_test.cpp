// ev_events, ev_event_drop_count and control_results on synthetic contexts: each passes on a
// consistent report and fails on the one inconsistency it exists to find.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"

namespace mrc::harness {
namespace {

constexpr std::uint32_t kGood = 1u << 0;
constexpr std::uint32_t kBad = 1u << 1;

// Four EVs on ports 1..4, all GOOD at the end unless a test changes one.
CheckContext table() {
  CheckContext c;
  for (std::uint32_t i = 0; i < 4; ++i) c.dut.evs.push_back(EvRecord{i, static_cast<std::uint8_t>(i + 1), 0x100 + i, kGood, false});
  c.end_ns = 1'000'000;
  return c;
}

void event(CheckContext& c, std::uint32_t ev, std::uint32_t state, std::uint32_t drops = 0) {
  EvEventRecord e;
  e.at_ns = 1000 * (c.dut.ev_events.size() + 1);
  e.ev_index = ev;
  e.port = static_cast<std::uint8_t>(ev + 1);
  e.state = state;
  e.drop_count = drops;
  c.dut.ev_events.push_back(e);
}

Verdict run(const std::string& name, const CheckContext& c, std::string* msg = nullptr) {
  const CheckResult r = run_invariant(InvariantCheck{name, {}}, c);
  if (msg) *msg = r.message;
  return r.verdict;
}

TEST(EvEvents, PassesWhenEveryChangeIsReported) {
  CheckContext c = table();
  c.dut.evs[2].state = kBad;
  event(c, 1, kBad);
  event(c, 1, kGood);
  event(c, 2, kBad);
  std::string m;
  EXPECT_EQ(run("ev_events", c, &m), Verdict::kPass) << m;
}

TEST(EvEvents, NothingChangedIsInconclusive) {
  EXPECT_EQ(run("ev_events", table()), Verdict::kInconclusive);
}

TEST(EvEvents, FailsOnAnUnreportedAssumedBad) {
  CheckContext c = table();
  c.dut.evs[2].state = kBad;
  std::string m;
  EXPECT_EQ(run("ev_events", c, &m), Verdict::kFail);
  EXPECT_NE(m.find("ASSUMED_BAD"), std::string::npos) << m;
  event(c, 0, kBad, 1);  // a reported drop may have been it
  c.dut.evs[0].state = kBad;
  EXPECT_EQ(run("ev_events", c), Verdict::kPass);
}

TEST(EvEvents, FailsOnAStateMaskedOut) {
  CheckContext c = table();
  c.ev_event_mask = kBad;
  event(c, 1, kBad);
  EXPECT_EQ(run("ev_events", c), Verdict::kPass);
  event(c, 1, kGood);
  std::string m;
  EXPECT_EQ(run("ev_events", c, &m), Verdict::kFail);
  EXPECT_NE(m.find("ev_event_mask"), std::string::npos) << m;
}

TEST(EvEvents, FailsOnAnEvNotInTheTable) {
  CheckContext c = table();
  event(c, 1, kBad);
  c.dut.ev_events.back().port = 7;  // right index, wrong port
  c.dut.evs[1].state = kBad;
  EXPECT_EQ(run("ev_events", c), Verdict::kFail);
  c.dut.ev_events.back().port = 2;
  c.dut.ev_events.back().ev_index = UINT32_MAX;
  EXPECT_EQ(run("ev_events", c), Verdict::kFail);
}

TEST(EvEvents, HarnessDeniedNotesAreNotEvents) {
  CheckContext c = table();
  event(c, 1, 1u << 2);
  c.dut.ev_events.back().controller_change = true;
  EXPECT_EQ(run("ev_events", c), Verdict::kInconclusive);
}

// EV 1 and 2 went ASSUMED_BAD and their events were lost; their GOOD events came later.
CheckContext lost_two(std::uint32_t first_drop, std::uint32_t second_drop) {
  CheckContext c = table();
  event(c, 0, kBad);
  event(c, 1, kGood, first_drop);
  event(c, 2, kGood, second_drop);
  return c;
}

TEST(EvEventDropCount, PreciseCountsMustCoverProvenLosses) {
  CheckContext c = lost_two(2, 0);
  c.ev_precise_drop_count = true;
  std::string m;
  EXPECT_EQ(run("ev_event_drop_count", c, &m), Verdict::kPass) << m;
  c = lost_two(1, 0);  // a 0/1 flag where the count must be 2
  c.ev_precise_drop_count = true;
  EXPECT_EQ(run("ev_event_drop_count", c, &m), Verdict::kFail);
  EXPECT_NE(m.find("drop_count"), std::string::npos) << m;
}

TEST(EvEventDropCount, FlagModeTakesZeroOrOne) {
  CheckContext c = lost_two(1, 0);
  EXPECT_EQ(run("ev_event_drop_count", c), Verdict::kPass);
  c = lost_two(2, 0);
  EXPECT_EQ(run("ev_event_drop_count", c), Verdict::kFail);
  c = lost_two(0, 0);  // losses and no flag at all
  EXPECT_EQ(run("ev_event_drop_count", c), Verdict::kFail);
}

TEST(EvEventDropCount, NoLossIsInconclusiveAndOneStateMaskIsError) {
  CheckContext c = table();
  event(c, 0, kBad);
  event(c, 0, kGood);
  EXPECT_EQ(run("ev_event_drop_count", c), Verdict::kInconclusive);
  c.ev_event_mask = kBad;
  EXPECT_EQ(run("ev_event_drop_count", c), Verdict::kError);
}

TEST(ControlResults, JudgesControlRecordsOnly) {
  CheckContext c;
  EXPECT_EQ(run("control_results", c), Verdict::kInconclusive);
  ExpectRecord frame;
  frame.matched = false;  // a frame expectation: not this check's business
  c.expects.push_back(frame);
  ExpectRecord ok;
  ok.control = true;
  ok.matched = true;
  c.expects.push_back(ok);
  EXPECT_EQ(run("control_results", c), Verdict::kPass);
  ExpectRecord bad = ok;
  bad.matched = false;
  bad.description = "stimulus[3] control ev_profile_set returns EINVAL";
  bad.mismatch = "returned ok";
  c.expects.push_back(bad);
  std::string m;
  EXPECT_EQ(run("control_results", c, &m), Verdict::kFail);
  EXPECT_NE(m.find("returned ok"), std::string::npos) << m;
}

}  // namespace
}  // namespace mrc::harness
