// Requester MPR window (W12) and WRITE-with-IMM limit (W16).
#include <gtest/gtest.h>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

RequesterConfig small_mtu(std::uint8_t mpr, std::uint8_t peer_mpr_dest) {
  RequesterConfig c = default_config();
  c.mtu = 256;
  c.mpr = mpr;
  c.peer_mpr_dest = peer_mpr_dest;
  return c;
}

TEST(RequesterWindow, NeverMoreThanMinMprTimes128Unacked) {
  Harness h(small_mtu(4, 2));  // window = min(4, 2) x 128 = 256 PSNs
  ASSERT_EQ(h.write(1, 600 * 256), 0);
  EXPECT_EQ(h.drain(0).size(), 256u);
  EXPECT_EQ(h.r->outstanding_psns(), 256u);
  EXPECT_GT(h.r->stats().blocked_window, 0u);
  // ACK the first 10: exactly 10 more may go.
  h.r->on_feedback(ack(psn(0x1000, 9), psn(0x1000, 9)), 5000);
  EXPECT_EQ(h.drain(5000).size(), 10u);
  // A SACK does not open the window: un-ACKed counts from the cumulative point (W12).
  h.r->on_feedback(sack(psn(0x1000, 9), psn(0x1000, 20), psn(0x1000, 11), {psn(0x1000, 11), psn(0x1000, 12)}), 6000);
  EXPECT_TRUE(h.drain(6000).empty());
  EXPECT_EQ(h.r->stats().max_outstanding_psns, 256u);
}

TEST(RequesterWindow, OwnMprLimitsWhenPeerIsLarger) {
  Harness h(small_mtu(1, 8));
  ASSERT_EQ(h.write(1, 600 * 256), 0);
  EXPECT_EQ(h.drain(0).size(), 128u);
}

TEST(RequesterWindow, DynamicMprOnlyWhenBothSidesEnabled) {
  for (bool dynamic : {false, true}) {
    RequesterConfig c = small_mtu(4, 4);
    c.dynamic_mpr = dynamic;
    Harness h(c);
    ASSERT_EQ(h.write(1, 1000 * 256), 0);
    EXPECT_EQ(h.drain(0).size(), 512u);
    FeedbackInfo f = ack(psn(0x1000, 511), psn(0x1000, 511));
    f.seth.mpr = 1;  // the responder shrinks its window to 128 PSNs
    h.r->on_feedback(f, 10'000);
    EXPECT_EQ(h.drain(10'000).size(), dynamic ? 128u : 488u) << "dynamic=" << dynamic;
    EXPECT_EQ(h.r->window_psns(), dynamic ? 128u : 512u);
  }
}

TEST(RequesterWindow, DynamicMprNeverExceedsOwnMpr) {
  RequesterConfig c = small_mtu(2, 2);
  c.dynamic_mpr = true;
  Harness h(c);
  FeedbackInfo f = ack(psn(0x1000, 0xFFFFFF), 0);  // nothing outstanding: a no-op ACK
  f.seth.mpr = 200;
  h.r->on_feedback(f, 0);
  EXPECT_EQ(h.r->window_psns(), 256u);
}

TEST(RequesterDefects, ExceedMprWindowSendsPastTheWindow) {
  RequesterConfig c = small_mtu(2, 2);
  c.quirks.exceed_mpr_window = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 1000 * 256), 0);
  EXPECT_GT(h.drain(0).size(), 256u);
}

TEST(RequesterDefects, MprAlwaysDynamicFollowsAdvertisementsWithoutTheCaps) {
  for (bool defect : {false, true}) {
    RequesterConfig c = small_mtu(8, 1);  // window = min(8, 1) x 128 = 128 PSNs, no dynamic MPR
    c.quirks.always_dynamic_mpr = defect;
    Harness h(c);
    ASSERT_EQ(h.write(1, 1000 * 256), 0);
    EXPECT_EQ(h.drain(0).size(), 128u);
    FeedbackInfo f = ack(psn(0x1000, 0xFFFFFF), 0);  // acknowledges nothing new
    f.seth.mpr = 4;  // advertises a 512-PSN window
    h.r->on_feedback(f, 1000);
    EXPECT_EQ(h.drain(1000).size(), defect ? 384u : 0u) << "defect=" << defect;
  }
}

TEST(RequesterWimm, OutstandingWriteWithImmLimitedToMinOfBothSides) {
  RequesterConfig c = default_config();
  c.max_wimm = 2;
  c.peer_max_wimm_dest = 4;  // min = 2
  Harness h(c);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_EQ(h.write(i, 1500, true), 0);  // 2 packets each
  auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 4u);  // two messages, then the limit
  EXPECT_EQ(h.r->outstanding_wimm(), 2u);
  EXPECT_GT(h.r->stats().blocked_wimm, 0u);
  // Transport ACK through the FIRST packet of message 0 only: still outstanding.
  h.r->on_feedback(tack(psn(0x1000, 0)), 1000);
  EXPECT_TRUE(h.drain(1000).empty());
  // Through its LAST PSN: one more message may start (W16).
  h.r->on_feedback(tack(psn(0x1000, 1)), 2000);
  EXPECT_EQ(h.drain(2000).size(), 2u);
  EXPECT_EQ(h.r->stats().max_outstanding_wimm, 2u);
}

TEST(RequesterWimm, PeerLimitAppliesWhenSmaller) {
  RequesterConfig c = default_config();
  c.max_wimm = 8;
  c.peer_max_wimm_dest = 1;
  Harness h(c);
  for (std::uint64_t i = 0; i < 3; ++i) ASSERT_EQ(h.write(i, 100, true), 0);
  EXPECT_EQ(h.drain(0).size(), 1u);
  EXPECT_EQ(h.r->wimm_limit(), 1u);
}

TEST(RequesterWimm, PlainWritesAreNotLimited) {
  RequesterConfig c = default_config();
  c.max_wimm = 1;
  Harness h(c);
  ASSERT_EQ(h.write(0, 100, true), 0);
  for (std::uint64_t i = 1; i < 5; ++i) ASSERT_EQ(h.write(i, 100, false), 0);
  EXPECT_EQ(h.drain(0).size(), 5u);
}

TEST(RequesterDefects, IgnoreWimmExceedsTheLimit) {
  RequesterConfig c = default_config();
  c.max_wimm = 2;
  c.quirks.ignore_wimm = true;
  Harness h(c);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_EQ(h.write(i, 100, true), 0);
  EXPECT_EQ(h.drain(0).size(), 4u);
  EXPECT_EQ(h.r->stats().max_outstanding_wimm, 4u);
}

}  // namespace
}  // namespace mrc::transport::testing
