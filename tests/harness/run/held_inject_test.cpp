// Injections held on a real-time testbed follow the traffic they are timed after: when the DUT's
// first write returns late (a post over an agent takes real time), an injection the case put that
// long after the traffic began goes out that much later (a ghost ACK while a PSN is outstanding,
// a port-status update mid-transfer), once, and the queue stays in time order.
#include <gtest/gtest.h>

#include "harness/run/session_state.hpp"

namespace mrc::run {
namespace {

SessionState::HeldInject held(std::uint64_t at_ns, std::size_t step) {
  SessionState::HeldInject h;
  h.at_ns = at_ns;
  h.scheduled_ns = at_ns;
  h.step = step;
  return h;
}

TEST(HeldInjects, ThoseAfterLateTrafficMoveWithItOnce) {
  // Traffic at 0 and at 100 us; injections at 0 (with the traffic), 50 us, 150 us.
  std::vector<SessionState::HeldInject> q = {held(0, 0), held(50'000, 1), held(150'000, 2)};
  EXPECT_EQ(follow_late_traffic(q, 0, 0, 700'000), 2u);  // the first write returned 700 us late
  EXPECT_EQ(q[0].at_ns, 0u);                              // at the traffic's own start: not after it
  EXPECT_EQ(q[1].at_ns, 750'000u);
  EXPECT_EQ(q[2].at_ns, 850'000u);
  EXPECT_EQ(q[2].scheduled_ns, 150'000u);                 // expects anchored on it count from the case's time
  EXPECT_EQ(follow_late_traffic(q, 0, 100'000, 300'000), 0u) << "each injection follows once";
  EXPECT_EQ(q[2].at_ns, 850'000u);
}

TEST(HeldInjects, SentOnesStayAndTheRestStaysInTimeOrder) {
  // The first is sent. The third (the case's 60 us) already followed the traffic at 0, to 400 us.
  // The traffic at 100 us now leaves 500 us late: the second (150 us) moves past the third.
  std::vector<SessionState::HeldInject> q = {held(20'000, 0), held(150'000, 1), held(400'000, 2)};
  q[2].scheduled_ns = 60'000;
  q[2].followed = true;
  EXPECT_EQ(follow_late_traffic(q, 1, 100'000, 500'000), 1u);
  EXPECT_EQ(q[0].at_ns, 20'000u);  // already sent: untouched
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[1].step, 2u);
  EXPECT_EQ(q[1].at_ns, 400'000u);
  EXPECT_EQ(q[2].step, 1u);
  EXPECT_EQ(q[2].at_ns, 650'000u);
}

}  // namespace
}  // namespace mrc::run
