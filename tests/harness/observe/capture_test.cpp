// Capture: packets stored across many arena chunks read back whole and in place, copies are deep,
// and a finished capture's chunks go back to capture_chunks for the next one.
#include <gtest/gtest.h>

#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/observe/capture_chunks.hpp"

namespace mrc::harness {
namespace {

std::vector<std::uint8_t> frame_of(std::size_t i, std::size_t len) {
  std::vector<std::uint8_t> f(len);
  for (std::size_t b = 0; b < len; ++b) f[b] = static_cast<std::uint8_t>(i * 31 + b);
  return f;
}

// Lengths that leave chunks partly filled, plus one packet larger than a whole chunk.
std::size_t length_of(std::size_t i) {
  return i == 150 ? capture_chunks::kChunkBytes + 5 : 60 + (i * 977) % 9000;
}

TEST(Capture, PacketsAcrossManyChunksReadBackWhole) {
  Capture c("t");
  std::uint64_t stored = 0;
  for (std::size_t i = 0; i < 300; ++i) {
    c.add(i, frame_of(i, length_of(i)), static_cast<std::uint32_t>(length_of(i) + 4));
  }
  ASSERT_EQ(c.size(), 300u);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto want = frame_of(i, length_of(i));
    const auto got = c.bytes(i);
    ASSERT_EQ(std::vector<std::uint8_t>(got.begin(), got.end()), want) << "packet " << i;
    EXPECT_EQ(c.packet(i).offset, stored) << "packet " << i;  // bytes stored before it
    EXPECT_EQ(c.packet(i).origlen, length_of(i) + 4);
    stored += want.size();
  }
  EXPECT_EQ(c.stored_bytes(), stored);
  EXPECT_GT(stored, 3 * capture_chunks::kChunkBytes);  // the test really spans chunks
  EXPECT_EQ(c.integrity().truncated, 300u);

  const Capture copy = c;  // deep: its own chunks, the same packets
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.stored_bytes(), 0u);
  ASSERT_EQ(copy.size(), 300u);
  for (std::size_t i = 0; i < copy.size(); i += 37) {
    const auto got = copy.bytes(i);
    EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.end()), frame_of(i, length_of(i)));
  }
  EXPECT_EQ(copy.integrity().captured, 300u);
}

TEST(Capture, ReservedRoomAndFinishedCapturesGoBackToThePool) {
  {
    Capture warm;
    warm.reserve(10, 2 * capture_chunks::kChunkBytes);  // two chunks taken up front
  }
  const std::size_t before = capture_chunks::free_count();
  ASSERT_GE(before, 2u);
  {
    Capture c;
    c.reserve(1, capture_chunks::kChunkBytes);
    EXPECT_EQ(capture_chunks::free_count(), before - 1);  // taken from the pool, not allocated
    c.add(1, frame_of(1, 100));
    EXPECT_EQ(capture_chunks::free_count(), before - 1);  // add() used the reserved chunk
  }
  EXPECT_EQ(capture_chunks::free_count(), before);  // handed back when the capture ended
}

}  // namespace
}  // namespace mrc::harness
