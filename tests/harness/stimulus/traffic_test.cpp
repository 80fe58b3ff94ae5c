#include <gtest/gtest.h>

#include "harness/stimulus/traffic.hpp"

namespace mrc::harness::stim {
namespace {

TrafficStep closed(std::uint32_t writes, std::uint64_t size, std::uint32_t window) {
  TrafficStep s;
  s.writes = writes;
  s.size = size;
  s.window = window;
  return s;
}

TEST(Traffic, ClosedLoopKeepsAtMostWindowWritesInFlight) {
  const TrafficStep s = closed(10, 4096, 3);
  std::vector<TrafficLayout> l;
  layout_traffic({&s}, 1 << 20, l);
  TrafficProgram p(s, 0, l[0]);
  std::vector<PlannedWrite> posted;
  while (auto w = p.next(0)) {
    p.posted(*w, 0);
    posted.push_back(*w);
  }
  ASSERT_EQ(posted.size(), 3u);
  EXPECT_EQ(p.wake_time(0), UINT64_MAX);  // waits for a completion
  EXPECT_TRUE(p.completed(posted[0].wr_id, true));
  EXPECT_FALSE(p.completed(posted[0].wr_id, true));  // a second completion of the same write
  auto w = p.next(0);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->index, 3u);
  EXPECT_NE(w->wr_id, 0u);
  EXPECT_EQ(TrafficProgram::index_of(w->wr_id), 3u);
  EXPECT_EQ(TrafficProgram::program_of(w->wr_id), 0u);
}

// planned(i) is write i as next() gives it when its time comes: what the runner makes before the
// clock starts (run/case_traffic.cpp) is what it posts.
TEST(Traffic, APlannedWriteIsTheOneNextGivesLater) {
  const TrafficStep s = closed(10, 4096, 3);
  std::vector<TrafficLayout> l;
  layout_traffic({&s}, 1 << 20, l);
  TrafficProgram p(s, 2, l[0]);
  EXPECT_EQ(p.slots(), 6u);  // 2 x window
  EXPECT_EQ(p.writes(), 10u);
  for (std::uint64_t i = 0; i < 10; ++i) {
    const PlannedWrite want = p.planned(i);
    auto w = p.next(0);
    while (!w) {  // complete the oldest write in flight until write i may go
      ASSERT_TRUE(p.completed((std::uint64_t{2} << 32) | (i - 2), true));
      w = p.next(0);
    }
    EXPECT_EQ(w->index, want.index);
    EXPECT_EQ(w->wr_id, want.wr_id);
    EXPECT_EQ(w->src_offset, want.src_offset);
    EXPECT_EQ(w->dst_offset, want.dst_offset);
    EXPECT_EQ(w->length, want.length);
    p.posted(*w, 0);
  }
}

TEST(Traffic, SlotsAreReusedOnlyAfterTheirWriteCompleted) {
  const TrafficStep s = closed(6, 1000, 4);
  TrafficLayout l;
  l.slots = 2;  // fewer slots than the window
  l.dst_offset = 10'000;
  TrafficProgram p(s, 1, l);
  auto a = p.next(0);
  ASSERT_TRUE(a);
  p.posted(*a, 0);
  auto b = p.next(0);
  ASSERT_TRUE(b);
  p.posted(*b, 0);
  EXPECT_EQ(b->src_offset, 1000u);
  EXPECT_EQ(b->dst_offset, 11'000u);
  EXPECT_FALSE(p.next(0).has_value());  // write 2 would reuse write 0's slot
  EXPECT_TRUE(p.completed(a->wr_id, true));
  auto c = p.next(0);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->src_offset, a->src_offset);
}

TEST(Traffic, OpenLoopPostsOnTheRateSchedule) {
  TrafficStep s;
  s.writes = 4;
  s.size = 1250;  // 10,000 bits: 100 ns at 100 Gb/s
  s.rate_gbps = 100;
  s.start_ns = 1000;
  std::vector<TrafficLayout> l;
  layout_traffic({&s}, 1 << 20, l);
  TrafficProgram p(s, 0, l[0]);
  EXPECT_FALSE(p.next(999).has_value());
  EXPECT_EQ(p.wake_time(0), 1000u);
  auto w = p.next(1000);
  ASSERT_TRUE(w);
  p.posted(*w, 1000);
  EXPECT_FALSE(p.next(1099).has_value());
  EXPECT_EQ(p.wake_time(1000), 1100u);
  ASSERT_TRUE(p.next(1100).has_value());
}

TEST(Traffic, RefusedWritesFinishAsFailed) {
  const TrafficStep s = closed(2, 64, 1);
  std::vector<TrafficLayout> l;
  layout_traffic({&s}, 1 << 20, l);
  TrafficProgram p(s, 0, l[0]);
  auto a = p.next(0);
  p.refused(*a);
  auto b = p.next(0);
  ASSERT_TRUE(b);
  p.posted(*b, 0);
  EXPECT_FALSE(p.done());
  p.completed(b->wr_id, true);
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.failed(), 1u);
}

TEST(Traffic, LayoutStaysInsideTheBudgetAndSeparatesRegions) {
  const TrafficStep a = closed(1000, 1 << 20, 8);
  const TrafficStep b = closed(10, 4096, 2);
  std::vector<TrafficLayout> l;
  const std::uint64_t size = layout_traffic({&a, &b}, 64ull << 20, l);
  EXPECT_LE(size, 64ull << 20);
  EXPECT_GE(l[0].slots, 1u);
  EXPECT_LE(l[0].slots, 16u);
  EXPECT_EQ(l[1].slots, 4u);  // 2 x window
  // Source regions first, then destinations; no overlap.
  EXPECT_EQ(l[0].src_offset, 0u);
  EXPECT_EQ(l[1].src_offset, l[0].slots * (1ull << 20));
  EXPECT_EQ(l[0].dst_offset, l[1].src_offset + l[1].slots * 4096ull);
}

}  // namespace
}  // namespace mrc::harness::stim
