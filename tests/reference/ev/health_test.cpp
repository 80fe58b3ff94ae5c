// EV health machine (W11): timeouts, inferred losses and their timers, SKIP, ALWAYS_SKIP, hold-down, two probes,
// the ev_min_active floor, DENIED, quirks, deadlines and event overflow.
#include "reference/ev/health.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mrc::ev {
namespace {

constexpr std::uint64_t kUs = 1000;

std::vector<EvSlotInit> slots(std::size_t n, std::size_t ports = 8) {
  std::vector<EvSlotInit> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i].port = static_cast<std::uint8_t>(1 + i % ports);
  return v;
}

TEST(EvHealth, TimeoutMarksAssumedBadWithEvent) {
  EvHealth h(slots(8), HealthParams{});
  EXPECT_TRUE(h.eligible(3, 0));
  h.on_timeout(3, 10 * kUs);
  EXPECT_EQ(h.state(3), EvState::kAssumedBad);
  EXPECT_FALSE(h.eligible(3, 10 * kUs));
  ASSERT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.events()[0].ev, 3);
  EXPECT_EQ(h.events()[0].state, EvState::kAssumedBad);
  EXPECT_EQ(h.events()[0].drop_count, 0u);
  h.on_timeout(3, 11 * kUs);  // already bad: no second event
  EXPECT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.good_count(), 7u);
}

constexpr std::uint64_t kTimerEnd = 1000 * kUs;  // the lost copies' ACK timeout, far ahead

TEST(EvHealth, InferredLossesInARowMarkAssumedBad) {
  EvHealth h(slots(8), HealthParams{});
  h.on_loss(1, 0, kTimerEnd);
  EXPECT_EQ(h.state(1), EvState::kGood);
  h.on_delivered(1);  // a delivery in between: the run starts over
  h.on_loss(1, 10, kTimerEnd);
  EXPECT_EQ(h.state(1), EvState::kGood);
  h.on_loss(1, 20, kTimerEnd);  // two in a row (MODEL: W11 losses_to_fail 2)
  EXPECT_EQ(h.state(1), EvState::kAssumedBad);
  ASSERT_EQ(h.events().size(), 1u);
  // Losses on different EVs do not add up.
  h.on_loss(2, 0, kTimerEnd);
  h.on_loss(4, 1, kTimerEnd);
  EXPECT_EQ(h.state(2), EvState::kGood);
  EXPECT_EQ(h.state(4), EvState::kGood);
}

// A single inferred loss on an EV that delivers nothing more marks it when the lost copy's ACK
// timeout ends, as a DUT waiting for its timer would: across a slow path the rotation may not
// come back to the EV for a second loss until many timeouts later.
TEST(EvHealth, OneInferredLossMarksWhenItsTimerEndsWithNoDelivery) {
  EvHealth h(slots(8), HealthParams{});
  h.on_loss(1, 10 * kUs, 200 * kUs);
  EXPECT_EQ(h.state(1), EvState::kGood);
  ASSERT_TRUE(h.next_deadline().has_value());
  EXPECT_EQ(*h.next_deadline(), 200 * kUs);  // the driver wakes for it
  h.expire_losses(199 * kUs);
  EXPECT_EQ(h.state(1), EvState::kGood);
  h.expire_losses(200 * kUs);
  EXPECT_EQ(h.state(1), EvState::kAssumedBad);
  ASSERT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.events()[0].ev, 1);
}

TEST(EvHealth, DeliveryBeforeTheLostCopysTimerEndKeepsTheEv) {
  EvHealth h(slots(8), HealthParams{});
  h.on_loss(1, 10 * kUs, 200 * kUs);
  h.on_delivered(1);  // a later packet on it arrived: a random drop, the path works
  EXPECT_FALSE(h.next_deadline().has_value());
  h.expire_losses(500 * kUs);
  EXPECT_EQ(h.state(1), EvState::kGood);
  EXPECT_TRUE(h.events().empty());
}

TEST(EvHealth, LossLearntAfterItsTimerEndMarksAtOnce) {
  EvHealth h(slots(8), HealthParams{});
  h.on_loss(3, 300 * kUs, 200 * kUs);  // the timer would have fired 100 us ago
  EXPECT_EQ(h.state(3), EvState::kAssumedBad);
  ASSERT_EQ(h.events().size(), 1u);
}

TEST(EvHealth, ExpiredLossRespectsTheMinActiveFloor) {
  HealthParams p;
  p.ev_min_active = 2;
  EvHealth h(slots(2), p);
  h.on_loss(0, 0, 100 * kUs);
  h.expire_losses(100 * kUs);
  EXPECT_EQ(h.state(0), EvState::kGood);  // forced active: the floor holds
  EXPECT_TRUE(h.forced_active(0));
  EXPECT_FALSE(h.next_deadline().has_value());  // the deadline is spent, not re-armed
}

TEST(EvHealth, AlwaysSkipMarksAssumedBadFromGoodOrSkip) {
  EvHealth h(slots(8), HealthParams{});
  h.on_always_skip(3, 5);
  EXPECT_EQ(h.state(3), EvState::kAssumedBad);
  h.on_skip(4, 5);
  h.on_always_skip(4, 6);  // from SKIP too
  EXPECT_EQ(h.state(4), EvState::kAssumedBad);
  EXPECT_FALSE(h.skipped(4, 6));
  EXPECT_EQ(h.events().size(), 2u);
}

TEST(EvHealth, HoldDownThenTwoConsecutiveProbes) {
  EvHealth h(slots(8), HealthParams{});
  const std::uint64_t t0 = 1'000 * kUs;
  h.on_timeout(5, t0);
  h.clear_events();
  EXPECT_EQ(h.next_deadline(), t0 + 100 * kUs);
  EXPECT_FALSE(h.next_probe(t0 + 99 * kUs).has_value());  // hold-down
  h.on_probe_result(5, true, wire::MpVerdict::kNone, t0 + 99 * kUs);               // no probe issued: ignored
  ASSERT_EQ(h.next_probe(t0 + 100 * kUs), std::optional<std::uint16_t>(5));
  h.on_probe_result(5, true, wire::MpVerdict::kNone, t0 + 110 * kUs);
  EXPECT_EQ(h.state(5), EvState::kAssumedBad);  // one is not enough
  EXPECT_EQ(h.next_deadline(), t0 + 150 * kUs);
  EXPECT_FALSE(h.next_probe(t0 + 149 * kUs).has_value());  // one probe per 50 us
  ASSERT_EQ(h.next_probe(t0 + 150 * kUs), std::optional<std::uint16_t>(5));
  h.on_probe_result(5, true, wire::MpVerdict::kNone, t0 + 160 * kUs);
  EXPECT_EQ(h.state(5), EvState::kGood);
  EXPECT_TRUE(h.eligible(5, t0 + 160 * kUs));
  ASSERT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.events()[0].state, EvState::kGood);
  EXPECT_FALSE(h.next_deadline().has_value());
}

// A probe awaited longer than the probe interval (a path slower than 50 us: a real-time bridge)
// holds the EV's next probe until it is answered or its wait ends, so an EV has one probe in
// flight, not one per interval; a wait no longer than the interval changes nothing.
TEST(EvHealth, AnAwaitedProbeHoldsTheNextOneUntilItsAnswerOrItsWaitEnds) {
  EvHealth h(slots(8), HealthParams{});
  const std::uint64_t t0 = 1'000 * kUs;
  h.on_timeout(5, t0);
  ASSERT_EQ(h.next_probe(t0 + 100 * kUs), std::optional<std::uint16_t>(5));
  h.await_probe(5, t0 + 320 * kUs);  // two round trips of 110 us
  EXPECT_EQ(h.next_deadline(), t0 + 320 * kUs);
  EXPECT_FALSE(h.next_probe(t0 + 150 * kUs).has_value()) << "a second probe while the first is awaited";
  h.on_probe_result(5, true, wire::MpVerdict::kNone, t0 + 210 * kUs);  // answered: the wait ends
  ASSERT_EQ(h.next_probe(t0 + 210 * kUs), std::optional<std::uint16_t>(5));  // the interval had passed
  h.await_probe(5, t0 + 430 * kUs);
  h.on_probe_result(5, false, wire::MpVerdict::kNone, t0 + 430 * kUs);  // unanswered: the wait ends too
  EXPECT_EQ(h.next_deadline(), t0 + 260 * kUs);
  ASSERT_EQ(h.next_probe(t0 + 430 * kUs), std::optional<std::uint16_t>(5));
  h.await_probe(5, t0 + 480 * kUs);  // a wait of one interval: due when the interval says
  EXPECT_EQ(h.next_deadline(), t0 + 480 * kUs);
  ASSERT_EQ(h.next_probe(t0 + 480 * kUs), std::optional<std::uint16_t>(5));
}

TEST(EvHealth, FailedProbeResetsTheRun) {
  EvHealth h(slots(4), HealthParams{});
  h.on_timeout(0, 0);
  ASSERT_TRUE(h.next_probe(100 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 101 * kUs);
  ASSERT_TRUE(h.next_probe(150 * kUs));
  h.on_probe_result(0, false, wire::MpVerdict::kNone, 151 * kUs);
  ASSERT_TRUE(h.next_probe(200 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 201 * kUs);
  EXPECT_EQ(h.state(0), EvState::kAssumedBad);
  ASSERT_TRUE(h.next_probe(250 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 251 * kUs);
  EXPECT_EQ(h.state(0), EvState::kGood);
}

TEST(EvHealth, MinActiveFloorForcesOldestFailureActive) {
  HealthParams p;
  p.ev_min_active = 2;
  EvHealth h(slots(4), p);
  h.on_timeout(0, 10);
  h.on_timeout(1, 20);
  EXPECT_EQ(h.good_count(), 2u);
  h.on_timeout(2, 30);  // would leave 1 GOOD: stays GOOD, forced, no event
  h.on_timeout(3, 40);
  EXPECT_EQ(h.state(2), EvState::kGood);
  EXPECT_EQ(h.state(3), EvState::kGood);
  EXPECT_TRUE(h.forced_active(2));
  EXPECT_TRUE(h.forced_active(3));
  EXPECT_EQ(h.events().size(), 2u);  // only 0 and 1
  h.clear_events();
  // EV 0 recovers: the floor now allows one forced EV to go; the newest failure (3) is marked,
  // the oldest (2) stays GOOD.
  ASSERT_EQ(h.next_probe(200 * kUs), std::optional<std::uint16_t>(0));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 200 * kUs);
  ASSERT_EQ(h.next_probe(250 * kUs), std::optional<std::uint16_t>(1));  // never probed: earlier
  h.on_probe_result(1, false, wire::MpVerdict::kNone, 250 * kUs);
  ASSERT_EQ(h.next_probe(250 * kUs), std::optional<std::uint16_t>(0));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 250 * kUs);
  EXPECT_EQ(h.state(0), EvState::kGood);
  EXPECT_EQ(h.state(3), EvState::kAssumedBad);
  EXPECT_EQ(h.state(2), EvState::kGood);
  EXPECT_TRUE(h.forced_active(2));
  ASSERT_EQ(h.events().size(), 2u);
  EXPECT_EQ(h.events()[0].ev, 0);
  EXPECT_EQ(h.events()[0].state, EvState::kGood);
  EXPECT_EQ(h.events()[1].ev, 3);
  EXPECT_EQ(h.events()[1].state, EvState::kAssumedBad);
  EXPECT_EQ(h.good_count(), 2u);
}

TEST(EvHealth, SkipIsNotAHostStateAndEndsWhenRestored) {
  EvHealth h(slots(8), HealthParams{});
  h.on_skip(2, 100 * kUs);
  EXPECT_FALSE(h.eligible(2, 100 * kUs));
  EXPECT_TRUE(h.skipped(2, 100 * kUs));
  EXPECT_EQ(h.state(2), EvState::kGood);  // SKIP is invisible to the host API (W11)
  EXPECT_TRUE(h.events().empty());
  EXPECT_FALSE(h.next_deadline().has_value());  // no timer: the rotation ends it
  EXPECT_TRUE(h.restore_skip(2));
  EXPECT_TRUE(h.eligible(2, 100 * kUs));
  EXPECT_FALSE(h.restore_skip(2));  // not in SKIP any more
}

TEST(EvHealth, SkipIsNeitherReArmedNorEnteredFromAssumedBad) {
  HealthParams p;
  p.skip_ns = 10 * kUs;  // the skip-timer variant
  EvHealth h(slots(8), p);
  h.on_skip(2, 100 * kUs);
  EXPECT_EQ(h.next_deadline(), 110 * kUs);
  h.on_skip(2, 105 * kUs);  // already in SKIP: not extended (MODEL: W11)
  EXPECT_FALSE(h.eligible(2, 110 * kUs - 1));
  EXPECT_TRUE(h.eligible(2, 110 * kUs));
  h.on_timeout(5, 0);
  h.on_skip(5, 1);  // ASSUMED_BAD stays ASSUMED_BAD
  EXPECT_FALSE(h.skipped(5, 1));
  EXPECT_EQ(h.state(5), EvState::kAssumedBad);
}

TEST(EvHealth, ProbeAnswerWithSkipOnceEndsInSkipAndAlwaysSkipRestarts) {
  EvHealth h(slots(4), HealthParams{});
  h.on_timeout(0, 0);
  ASSERT_TRUE(h.next_probe(100 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 101 * kUs);
  ASSERT_TRUE(h.next_probe(150 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kAlwaysSkip, 151 * kUs);  // the run starts over
  ASSERT_TRUE(h.next_probe(200 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 201 * kUs);
  EXPECT_EQ(h.state(0), EvState::kAssumedBad);
  ASSERT_TRUE(h.next_probe(250 * kUs));
  h.on_probe_result(0, true, wire::MpVerdict::kSkipOnce, 251 * kUs);  // S1: W11 -> SKIP
  EXPECT_EQ(h.state(0), EvState::kGood);
  EXPECT_TRUE(h.skipped(0, 251 * kUs));
}

TEST(EvHealth, DeniedNeverEligibleUnlessQuirk) {
  std::vector<EvSlotInit> s = slots(4);
  s[1].denied = true;
  EvHealth h(s, HealthParams{});
  EXPECT_EQ(h.state(1), EvState::kDenied);
  EXPECT_FALSE(h.eligible(1, 0));
  EXPECT_EQ(h.good_count(), 3u);
  h.set_denied(1, false);
  EXPECT_TRUE(h.eligible(1, 0));
  h.set_denied(2, true);
  EXPECT_FALSE(h.eligible(2, 0));
  HealthQuirks q;
  q.use_denied = true;
  EvHealth hq(s, HealthParams{}, q);
  EXPECT_TRUE(hq.eligible(1, 0));
  // A DENIED EV that is also ASSUMED_BAD is not probed.
  h.on_timeout(2, 0);
  EXPECT_FALSE(h.next_probe(1'000 * kUs).has_value());
}

TEST(EvHealth, PortDownMakesEvsIneligible) {
  EvHealth h(slots(16), HealthParams{});
  h.set_port_up(3, false);
  EXPECT_FALSE(h.eligible(2, 0));   // port 3
  EXPECT_FALSE(h.eligible(10, 0));  // port 3
  EXPECT_TRUE(h.eligible(3, 0));
  EXPECT_EQ(h.state(2), EvState::kGood);
  h.set_port_up(3, true);
  EXPECT_TRUE(h.eligible(2, 0));
}

TEST(EvHealth, QuirkKeepFailed) {
  HealthQuirks q;
  q.keep_failed = true;
  EvHealth h(slots(4), HealthParams{}, q);
  h.on_timeout(0, 0);
  h.on_loss(1, 0, kTimerEnd);
  h.on_loss(1, 1, kTimerEnd);
  h.on_always_skip(2, 2);
  h.on_loss(3, 3, 10);
  h.expire_losses(kTimerEnd);
  EXPECT_EQ(h.state(0), EvState::kGood);
  EXPECT_EQ(h.state(1), EvState::kGood);
  EXPECT_EQ(h.state(2), EvState::kGood);
  EXPECT_EQ(h.state(3), EvState::kGood);
  EXPECT_TRUE(h.events().empty());
}

TEST(EvHealth, QuirkEarlyProbeReuse) {
  HealthQuirks q;
  q.early_probe_reuse = true;
  EvHealth h(slots(4), HealthParams{}, q);
  h.on_timeout(0, 5 * kUs);
  ASSERT_EQ(h.next_probe(5 * kUs), std::optional<std::uint16_t>(0));  // no hold-down
  h.on_probe_result(0, true, wire::MpVerdict::kNone, 6 * kUs);
  EXPECT_EQ(h.state(0), EvState::kGood);  // one probe was enough
}

TEST(EvHealth, QuirkIgnoreMinActive) {
  HealthParams p;
  p.ev_min_active = 4;
  HealthQuirks q;
  q.ignore_min_active = true;
  EvHealth h(slots(4), p, q);
  h.on_timeout(0, 0);
  EXPECT_EQ(h.state(0), EvState::kAssumedBad);
  EvHealth strict(slots(4), p);
  strict.on_timeout(0, 0);
  EXPECT_EQ(strict.state(0), EvState::kGood);
  EXPECT_TRUE(strict.forced_active(0));
}

TEST(EvHealth, QuirkIgnoreSkip) {
  HealthQuirks q;
  q.ignore_skip = true;
  EvHealth h(slots(4), HealthParams{}, q);
  h.on_skip(2, 0);
  EXPECT_TRUE(h.eligible(2, 1));  // the defect skip-ignored: SKIP_ONCE and NACK TRIMMED change nothing
  EvHealth strict(slots(4), HealthParams{});
  strict.on_skip(2, 0);
  EXPECT_FALSE(strict.eligible(2, 1));
}

TEST(EvHealth, EventOverflowCountsDrops) {
  EvHealth h(slots(80), HealthParams{});
  for (std::uint16_t i = 0; i < 70; ++i) h.on_timeout(i, 0);
  EXPECT_EQ(h.events().size(), EvHealth::kEventCapacity);
  h.clear_events();
  h.on_timeout(75, 0);
  ASSERT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.events()[0].drop_count, 6u);
  h.on_timeout(76, 0);
  EXPECT_EQ(h.events()[1].drop_count, 0u);
}

TEST(EvHealth, ProbesPickEarliestDueAndOutOfRangeIsIgnored) {
  EvHealth h(slots(4), HealthParams{});
  h.on_timeout(2, 10);
  h.on_timeout(1, 20);
  EXPECT_EQ(h.next_probe(1'000 * kUs), std::optional<std::uint16_t>(2));
  EXPECT_EQ(h.next_probe(1'000 * kUs), std::optional<std::uint16_t>(1));
  EXPECT_FALSE(h.next_probe(1'000 * kUs).has_value());
  h.on_timeout(900, 0);
  h.on_probe_result(900, true, wire::MpVerdict::kNone, 0);
  EXPECT_FALSE(h.eligible(900, 0));
  EXPECT_EQ(h.state(900), EvState::kUnknown);
}

}  // namespace
}  // namespace mrc::ev
