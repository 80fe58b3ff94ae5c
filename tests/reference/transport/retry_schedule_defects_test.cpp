// The retry-schedule defects of reference/defects.hpp (W15), each at the edge where it shows
// and, as a control, in the middle where it does not: backoff-adds-t (from the second exponential
// retry), no-backoff-cap (only past 2^24 x 1.024 us), timeout-cap-20 (only for timeout > 20),
// retry-one-extra (the last retry) and exp25-finite (only exp_cnt 25).
#include <gtest/gtest.h>

#include "reference/transport/retry_schedule.hpp"

namespace mrc::transport::testing {
namespace {

constexpr std::uint64_t kT4 = 16'384;  // 1.024 us x 2^4

RetrySchedule with(std::uint8_t timeout, RetryAttr retry, RetryQuirks q) { return RetrySchedule(timeout, retry, false, 0, q); }

TEST(RetryScheduleDefects, BackoffAddsT) {
  RetryQuirks q;
  q.linear_backoff = true;
  const RetrySchedule good(4, RetryAttr{2, 25});
  const RetrySchedule bad = with(4, RetryAttr{2, 25}, q);
  for (std::uint32_t r : {0u, 1u, 2u, 3u}) EXPECT_EQ(bad.wait_ns(r), good.wait_ns(r)) << r;  // T, T, T, 2T
  EXPECT_EQ(good.wait_ns(4), 4 * kT4);
  EXPECT_EQ(bad.wait_ns(4), 3 * kT4);
  EXPECT_EQ(good.wait_ns(5), 8 * kT4);
  EXPECT_EQ(bad.wait_ns(5), 4 * kT4);
}

TEST(RetryScheduleDefects, NoBackoffCap) {
  RetryQuirks q;
  q.no_cap = true;
  const std::uint64_t cap = std::uint64_t{1024} << 24;
  EXPECT_EQ(with(4, RetryAttr{0, 25}, q).wait_ns(5), 32 * kT4);  // far below the cap: the same
  const RetrySchedule good(23, RetryAttr{0, 25});
  const RetrySchedule bad = with(23, RetryAttr{0, 25}, q);
  EXPECT_EQ(good.wait_ns(1), cap);  // 2T = the cap exactly
  EXPECT_EQ(bad.wait_ns(1), cap);
  EXPECT_EQ(good.wait_ns(2), cap);
  EXPECT_EQ(bad.wait_ns(2), 2 * cap);
}

TEST(RetryScheduleDefects, TimeoutCap20) {
  RetryQuirks q;
  q.timeout_cap_20 = true;
  EXPECT_EQ(with(20, RetryAttr{}, q).base_ns(), RetrySchedule(20, RetryAttr{}).base_ns());
  EXPECT_EQ(RetrySchedule(22, RetryAttr{}).base_ns(), std::uint64_t{1024} << 22);
  EXPECT_EQ(with(22, RetryAttr{}, q).base_ns(), std::uint64_t{1024} << 20);
}

TEST(RetryScheduleDefects, RetryOneExtra) {
  RetryQuirks q;
  q.one_extra = true;
  const RetrySchedule good(4, RetryAttr{1, 2});
  const RetrySchedule bad = with(4, RetryAttr{1, 2}, q);
  EXPECT_TRUE(good.may_retry_after(2));
  EXPECT_TRUE(bad.may_retry_after(2));
  EXPECT_FALSE(good.may_retry_after(3));  // 1 + 2 retries used up
  EXPECT_TRUE(bad.may_retry_after(3));
  EXPECT_FALSE(bad.may_retry_after(4));
}

TEST(RetryScheduleDefects, Exp25Finite) {
  RetryQuirks q;
  q.exp25_finite = true;
  EXPECT_FALSE(with(4, RetryAttr{1, 24}, q).may_retry_after(25));  // exp 24: finite either way
  EXPECT_TRUE(RetrySchedule(4, RetryAttr{0, 25}).may_retry_after(25));
  const RetrySchedule bad = with(4, RetryAttr{0, 25}, q);
  EXPECT_FALSE(bad.infinite());
  EXPECT_TRUE(bad.may_retry_after(24));
  EXPECT_FALSE(bad.may_retry_after(25));
}

}  // namespace
}  // namespace mrc::transport::testing
