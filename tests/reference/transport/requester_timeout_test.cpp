// Requester ACK timeout and retries (W15): T = 1.024 us x 2^timeout, linear retries wait T,
// exponential ones T x 2^j capped at 2^24 x 1.024 us, exp_cnt 25 never gives up, each
// retransmission on a different GOOD EV, IBV_WC_RETRY_EXC_ERR and a flushed send queue when
// retries run out; the timed-out EV goes ASSUMED_BAD (W11).
#include <gtest/gtest.h>

#include "reference/transport/retry_schedule.hpp"
#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

TEST(RetrySchedule, Units) {
  RetrySchedule s(8, RetryAttr{3, 4});
  EXPECT_EQ(s.base_ns(), 262'144u);  // 1.024 us x 2^8
  EXPECT_EQ(s.wait_ns(0), 262'144u);
  EXPECT_EQ(s.wait_ns(3), 262'144u);      // linear retries wait T
  EXPECT_EQ(s.wait_ns(4), 2 * 262'144u);  // j = 1
  EXPECT_EQ(s.wait_ns(7), 16 * 262'144u); // j = 4
  EXPECT_TRUE(s.may_retry_after(6));
  EXPECT_FALSE(s.may_retry_after(7));     // 3 + 4 retries, then give up
  RetrySchedule cap(24, RetryAttr{0, 25});
  EXPECT_EQ(cap.wait_ns(0), std::uint64_t{1024} << 24);
  EXPECT_EQ(cap.wait_ns(10), std::uint64_t{1024} << 24);  // capped at 2^24 x 1.024 us
  EXPECT_TRUE(cap.infinite());
  EXPECT_TRUE(cap.may_retry_after(1'000'000));
  EXPECT_EQ(RetrySchedule(8, RetryAttr{}, true).wait_ns(0), 2 * 262'144u);  // slow-timeout defect
}

TEST(RequesterTimeout, FirstRetransmissionAfterExactlyT) {
  Harness h;
  ASSERT_EQ(h.write(1, 100), 0);
  auto p = h.drain(1000);
  ASSERT_EQ(p.size(), 1u);
  const std::uint64_t T = 262'144;
  EXPECT_EQ(h.r->next_deadline(), 1000 + T);
  h.r->advance(1000 + T - 1);
  EXPECT_TRUE(h.drain(1000 + T - 1).empty());
  h.r->advance(1000 + T);
  auto r = h.drain(1000 + T);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, p[0].bth.psn);
  EXPECT_NE(r[0].path.ev_index, p[0].path.ev_index);  // W15: a different EV
  EXPECT_EQ(h.r->stats().timeouts, 1u);
  EXPECT_EQ(h.r->stats().retransmits, 1u);
  // W11: the EV that timed out is ASSUMED_BAD once the PSN went out elsewhere.
  EXPECT_EQ(h.r->health().state(static_cast<std::uint16_t>(p[0].path.ev_index)), ev::EvState::kAssumedBad);
  EXPECT_EQ(h.r->health().state(static_cast<std::uint16_t>(r[0].path.ev_index)), ev::EvState::kGood);
}

TEST(RequesterTimeout, RetransmissionAvoidsTheTimedOutEvEvenWhenRoundRobinPointsAtIt) {
  Harness h(default_config(), 2, 2);  // EV 0 on port 1, EV 1 on port 2
  ASSERT_EQ(h.write(1, 2048), 0);
  const auto p = h.drain(0);
  ASSERT_EQ(p.size(), 2u);
  ASSERT_EQ(p[0].path.ev_index, 0u);  // round robin: PSN 0 on EV 0, PSN 1 on EV 1, next is EV 0
  h.r->on_feedback(sack(psn(0x1000, 0) - 1, psn(0x1000, 1), psn(0x1000, 0), {psn(0x1000, 1)}), 100);
  const std::uint64_t t = h.r->next_deadline();
  h.r->advance(t);
  const auto r = h.drain(t);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, psn(0x1000, 0));
  EXPECT_EQ(r[0].path.ev_index, 1u);  // W15: not EV 0, which timed out
}

TEST(RequesterTimeout, LinearThenExponentialBackoffThenRetryExceeded) {
  RequesterConfig c = default_config();
  c.timeout = 4;  // T = 16,384 ns
  c.retry = {2, 3};
  Harness h(c, 64, 8);
  ASSERT_EQ(h.write(1, 100), 0);
  ASSERT_EQ(h.write(2, 100), 0);
  std::uint64_t now = 0;
  auto first = h.drain(now);
  ASSERT_EQ(first.size(), 2u);
  h.r->on_feedback(ack(psn(0x1000, 0) - 1, 0), 10);  // nothing acked (cum = sq_psn - 1)
  const std::uint64_t T = 16'384;
  // Expected waits: first transmission T, retries 1..2 wait T, retries 3..5 wait 2T, 4T, 8T.
  const std::uint64_t waits[] = {T, T, T, 2 * T, 4 * T, 8 * T};
  std::uint32_t last_ev = first[0].path.ev_index;
  for (int k = 0; k < 6; ++k) {
    SCOPED_TRACE(k);
    const std::uint64_t due = h.r->next_deadline();
    EXPECT_EQ(due, now + waits[k]);
    now = due;
    h.r->advance(now);
    if (k == 5) break;
    auto r = h.drain(now);
    ASSERT_EQ(r.size(), 2u);  // both PSNs time out together
    for (const auto& pk : r) {
      if (pk.bth.psn == first[0].bth.psn) {
        EXPECT_NE(pk.path.ev_index, last_ev);
        last_ev = pk.path.ev_index;
      }
    }
  }
  // After 2 + 3 retries the 6th timeout exhausts the budget.
  EXPECT_TRUE(h.r->in_error());
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].status, IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(cs[0].wr_id, 1u);
  EXPECT_EQ(cs[1].status, IBV_WC_WR_FLUSH_ERR);
  EXPECT_EQ(cs[1].wr_id, 2u);
  EXPECT_EQ(h.r->next_deadline(), UINT64_MAX);
  EXPECT_TRUE(h.drain(now).empty());
}

TEST(RequesterTimeout, ExpCount25NeverGivesUp) {
  RequesterConfig c = default_config();
  c.timeout = 0;
  c.retry = {0, 25};
  Harness h(c, 64, 8);
  ASSERT_EQ(h.write(1, 100), 0);
  h.drain(0);
  std::uint64_t now = 0;
  std::uint64_t prev_wait = 0;
  for (int k = 0; k < 60; ++k) {
    const std::uint64_t due = h.r->next_deadline();
    ASSERT_NE(due, UINT64_MAX);
    const std::uint64_t wait = due - now;
    EXPECT_GE(wait, prev_wait);
    EXPECT_LE(wait, std::uint64_t{1024} << 24);
    prev_wait = wait;
    now = due;
    h.r->advance(now);
    h.drain(now);
    ASSERT_FALSE(h.r->in_error()) << k;
  }
  EXPECT_EQ(prev_wait, std::uint64_t{1024} << 24);  // reached the cap
}

TEST(RequesterTimeout, QueuedRetransmissionWithNoEvStillCountsRetries) {
  RequesterConfig c = default_config();
  c.timeout = 2;
  c.retry = {1, 1};
  Harness h(c, 2, 2);
  ASSERT_EQ(h.write(1, 100), 0);
  h.drain(0);
  h.r->health().set_denied(0, true);
  h.r->health().set_denied(1, true);
  std::uint64_t now = 0;
  for (int k = 0; k < 10 && !h.r->in_error(); ++k) {
    now = h.r->next_deadline();
    h.r->advance(now);
    EXPECT_TRUE(h.drain(now).empty());
  }
  EXPECT_TRUE(h.r->in_error());  // bounded: the QP errs instead of waiting forever
}

TEST(RequesterTimeout, AckBeforeDeadlineCancelsTimer) {
  Harness h;
  ASSERT_EQ(h.write(1, 3000), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(0x1000, 2), psn(0x1000, 2)), 5000);
  h.r->on_feedback(tack(psn(0x1000, 2)), 5000);
  EXPECT_EQ(h.r->next_deadline(), UINT64_MAX);
  h.r->advance(10'000'000);
  EXPECT_EQ(h.r->stats().timeouts, 0u);
}

TEST(RequesterDefects, SlowTimeoutWaitsTwoT) {
  RequesterConfig c = default_config();
  c.quirks.slow_timeout = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 100), 0);
  h.drain(0);
  EXPECT_EQ(h.r->next_deadline(), 2 * 262'144u);
}

TEST(RequesterDefects, RetransmitSameEvReusesTheTimedOutEv) {
  RequesterConfig c = default_config();
  c.quirks.retransmit_same_ev = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 100), 0);
  const auto p = h.drain(0);
  h.r->advance(h.r->next_deadline());
  const auto r = h.drain(h.r->next_deadline());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].path.ev_index, p[0].path.ev_index);
}

}  // namespace
}  // namespace mrc::transport::testing
