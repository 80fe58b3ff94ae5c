// What an external DUT reported some time before its reply is dated back from the clock after the
// reply by that age (its own clock's difference), never past the runner's clock, never before the
// previous record (run/session_state.hpp).
#include <gtest/gtest.h>

#include "harness/run/session_state.hpp"

namespace mrc::run {
namespace {

TEST(DateReport, AgeZeroIsTheClockTheRunnerReads) {
  EXPECT_EQ(date_report(0, ReplyClock{900, 1000, true}, 0), 900u);
  EXPECT_EQ(date_report(0, ReplyClock{900, 900, false}, 0), 900u);
}

TEST(DateReport, AnAgedReportIsDatedBackFromTheWallClock) {
  // The runner held the fabric from 900 (its clock stands there); the wall clock read 1000 after
  // the reply; the agent stamped the completion 300 before its reply: at most 700.
  EXPECT_EQ(date_report(300, ReplyClock{900, 1000, true}, 0), 700u);
  // Younger than the hold: never later than what the runner reads.
  EXPECT_EQ(date_report(50, ReplyClock{900, 1000, true}, 0), 900u);
  // Older than the clock itself: its start.
  EXPECT_EQ(date_report(5000, ReplyClock{900, 1000, true}, 0), 0u);
}

TEST(DateReport, RecordsStayInOrder) {
  EXPECT_EQ(date_report(300, ReplyClock{900, 1000, true}, 800), 800u);
  EXPECT_EQ(date_report(0, ReplyClock{900, 1000, true}, 950), 950u);
}

}  // namespace
}  // namespace mrc::run
