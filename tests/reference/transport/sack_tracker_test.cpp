// The responder's receive window (W12): classification, in-order advance, held PSNs,
// bitmaps, PSN wrap-around.
#include <gtest/gtest.h>

#include "reference/transport/sack_tracker.hpp"

namespace mrc::transport {
namespace {

using C = SackTracker::Class;

std::uint32_t drain(SackTracker& t) {
  std::uint32_t n = 0;
  std::uint32_t psn = 0;
  PsnRecord r;
  while (t.pop_in_order(psn, r)) ++n;
  return n;
}

TEST(SackTracker, ClassifiesAgainstTheWindow) {
  SackTracker t(1000, 128, 128);
  EXPECT_EQ(t.classify(1000), C::kNew);
  EXPECT_EQ(t.classify(1127), C::kNew);
  EXPECT_EQ(t.classify(1128), C::kBeyondWindow);
  EXPECT_EQ(t.classify(1000 + (1u << 23) - 1), C::kBeyondWindow);
  EXPECT_EQ(t.classify(1000 + (1u << 23)), C::kDuplicate);  // 2^23 behind counts as old
  EXPECT_EQ(t.classify(999), C::kDuplicate);
  t.mark(1005, {});
  EXPECT_EQ(t.classify(1005), C::kDuplicate);
}

TEST(SackTracker, AdvancesOverInOrderPsnsAndCountsHeld) {
  SackTracker t(0, 256, 256);
  t.mark(1, PsnRecord{10});
  t.mark(3, PsnRecord{30});
  EXPECT_EQ(drain(t), 0u);
  EXPECT_TRUE(t.has_holes());
  EXPECT_EQ(t.held(), 2u);
  EXPECT_EQ(t.highest_received(), 3u);
  t.mark(0, PsnRecord{static_cast<std::uint16_t>(PsnRecord::kFirst | 5)});
  std::uint32_t psn = 99;
  PsnRecord r;
  ASSERT_TRUE(t.pop_in_order(psn, r));
  EXPECT_EQ(psn, 0u);
  EXPECT_TRUE(r.first());
  EXPECT_EQ(r.length(), 5u);
  ASSERT_TRUE(t.pop_in_order(psn, r));
  EXPECT_EQ(r.length(), 10u);
  EXPECT_FALSE(t.pop_in_order(psn, r));
  EXPECT_EQ(t.epsn(), 2u);
  EXPECT_EQ(t.cumulative_ack_psn(), 1u);
  EXPECT_EQ(t.held(), 1u);
  t.mark(2, {});
  EXPECT_EQ(drain(t), 2u);
  EXPECT_FALSE(t.has_holes());
  EXPECT_EQ(t.highest_received(), 3u);
}

TEST(SackTracker, BitmapBitKIsBasePlusK) {  // S1: W5
  SackTracker t(10, 1024, 1024);
  t.mark(11, {});
  t.mark(74, {});  // base 11 + 63
  t.mark(75, {});  // outside a bitmap based at 11
  EXPECT_EQ(t.bitmap64(11), (std::uint64_t{1} << 63) | 1u);
  EXPECT_EQ(t.bitmap64(10), std::uint64_t{1} << 1);  // 74 is base + 64: outside
  EXPECT_EQ(t.bitmap64(75), std::uint64_t{1});
  EXPECT_EQ(t.bitmap64(12), std::uint64_t{1} << 62 | std::uint64_t{1} << 63);
}

TEST(SackTracker, WrapsAroundThePsnSpace) {
  SackTracker t(0xFFFFFD, 128, 128);
  t.mark(0x000002, {});
  EXPECT_EQ(t.classify(0xFFFFFE), C::kNew);
  EXPECT_EQ(t.bitmap64(0xFFFFFE), std::uint64_t{1} << 4);
  t.mark(0xFFFFFD, {});
  t.mark(0xFFFFFE, {});
  t.mark(0xFFFFFF, {});
  t.mark(0x000000, {});
  t.mark(0x000001, {});
  EXPECT_EQ(drain(t), 6u);
  EXPECT_EQ(t.epsn(), 3u);
  EXPECT_EQ(t.cumulative_ack_psn(), 2u);
  EXPECT_EQ(t.classify(0xFFFFFF), C::kDuplicate);
  // The window moved with ePSN: 3 + 127 is the last new PSN.
  EXPECT_EQ(t.classify(130), C::kNew);
  EXPECT_EQ(t.classify(131), C::kBeyondWindow);
}

TEST(SackTracker, SlotsAreReusedCleanlyAcrossManyWindows) {
  SackTracker t(0, 64, 64);
  for (std::uint32_t base = 0; base < 64 * 50; base += 64) {
    for (std::uint32_t i = 64; i-- > 0;) {  // each window in reverse order
      ASSERT_EQ(t.classify(base + i), C::kNew) << base + i;
      t.mark(base + i, {});
    }
    ASSERT_EQ(drain(t), 64u);
    ASSERT_FALSE(t.has_holes());
  }
}

TEST(SackTracker, TrimmedMarkClearsWhenEpsnPasses) {
  SackTracker t(0, 128, 128);
  t.mark_trimmed(0);
  EXPECT_TRUE(t.trimmed(0));
  t.mark(0, {});
  drain(t);
  EXPECT_FALSE(t.trimmed(128));  // the same ring slot, next lap
}

TEST(SackTracker, WindowCanShrinkAndGrowWithinCapacity) {
  SackTracker t(0, 128, SackTracker::kMaxWindow);
  EXPECT_EQ(t.capacity(), 32768u);
  t.mark(100, {});
  t.set_window(64);
  EXPECT_EQ(t.classify(100), C::kDuplicate);  // still held
  EXPECT_EQ(t.classify(64), C::kBeyondWindow);
  t.set_window(SackTracker::kMaxWindow);
  EXPECT_EQ(t.classify(32639), C::kNew);
  EXPECT_EQ(t.classify(32640), C::kBeyondWindow);
}

}  // namespace
}  // namespace mrc::transport
