// capture_pool: a recycled capture comes back cleared (no packet, no count, no name) with its
// storage, and one too large to keep is freed.
#include <gtest/gtest.h>

#include <vector>

#include "harness/observe/capture_pool.hpp"

namespace mrc::harness {
namespace {

// Empties the pool so each test sees only what it recycles.
void drain() {
  while (capture_pool::kept() > 0) (void)capture_pool::take();
}

TEST(CapturePool, RecycledCaptureComesBackClearedWithItsStorage) {
  drain();
  Capture c = capture_pool::take();
  c.set_tap("dut.p1.tx");
  const std::vector<std::uint8_t> frame(1500, 0xAB);
  for (int i = 0; i < 100; ++i) c.add(static_cast<std::uint64_t>(i), frame);
  c.integrity().offered = 101;
  const std::uint8_t* storage = c.bytes(0).data();

  capture_pool::recycle(std::move(c));
  EXPECT_TRUE(c.empty());  // NOLINT(bugprone-use-after-move): recycle() leaves it empty
  EXPECT_EQ(capture_pool::kept(), 1u);

  Capture again = capture_pool::take();
  EXPECT_EQ(capture_pool::kept(), 0u);
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(again.tap(), "");
  EXPECT_EQ(again.integrity().offered, 0u);
  EXPECT_EQ(again.integrity().captured, 0u);
  again.add(7, frame);
  EXPECT_EQ(again.bytes(0).data(), storage);  // the same arena, not a new one
  EXPECT_EQ(again.packet(0).offset, 0u);
  EXPECT_EQ(again.packet(0).ts_ns, 7u);
}

TEST(CapturePool, KeepsABoundedNumberAndNothingHuge) {
  drain();
  Capture huge;
  const std::vector<std::uint8_t> block(1 << 20, 1);
  for (std::size_t i = 0; i <= capture_pool::kMaxKeptBytes / block.size(); ++i) huge.add(i, block);
  capture_pool::recycle(std::move(huge));
  EXPECT_EQ(capture_pool::kept(), 0u);

  for (std::size_t i = 0; i < capture_pool::kMaxKept + 5; ++i) capture_pool::recycle(Capture("t"));
  EXPECT_EQ(capture_pool::kept(), capture_pool::kMaxKept);
  drain();
}

}  // namespace
}  // namespace mrc::harness
