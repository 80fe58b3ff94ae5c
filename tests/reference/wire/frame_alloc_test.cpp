// decode_frame and encode_frame allocate nothing (hot paths, common rules): a counting global
// operator new watches a loop of encodes and decodes in every mode.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "tests/reference/wire/wire_test_support.hpp"

namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// Replaces the global allocation functions for the whole wire test binary; they only count.
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace mrc::wire::test {
namespace {

TEST(FrameAllocation, EncodeAndDecodeAllocateNothing) {
  Rng r(3);
  constexpr std::size_t kModes = std::size(kAllModes);
  std::array<FrameCase, kModes> cases;
  for (std::size_t m = 0; m < kModes; ++m) make_case(r, kAllModes[m], cases[m]);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  DecodedFrame d;
  // The payload-CRC path (the diff's per-packet digest) reads the payload a second way.
  const DecodeOptions with_crc{.verify_icrc = true, .payload_crc = true};
  // Every DSCP marks a trim, so the MRC data frames (kMrcData) take the trimmed-packet path (W13).
  const DecodeOptions every_dscp_trims{.trimmed_dscps = ~std::uint64_t{0}};
  // Warm-up: one-time initialisation (e.g. the CRC engine choice) is not per packet.
  for (auto& c : cases) {
    const EncodeResult e = encode_frame(c.spec, buf);
    ASSERT_TRUE(e.ok());
    ASSERT_TRUE(decode_frame(Bytes(buf.data(), e.length), d).ok());
  }
  const std::size_t before = g_allocations.load();
  std::size_t good = 0;
  std::size_t trimmed = 0;
  for (int i = 0; i < 2000; ++i) {
    const FrameCase& c = cases[static_cast<std::size_t>(i) % kModes];
    const EncodeResult e = encode_frame(c.spec, buf);
    // Cut captures and errors take other paths: decode the whole frame and a cut one.
    good += decode_frame(Bytes(buf.data(), e.length), d).ok();
    decode_frame(Bytes(buf.data(), e.length / 2), d);
    good += decode_frame(Bytes(buf.data(), e.length), d, with_crc).ok();
    good += decode_frame(Bytes(buf.data(), e.length), d, every_dscp_trims).ok();
    trimmed += d.trimmed;
  }
  EXPECT_EQ(g_allocations.load() - before, 0u);
  EXPECT_EQ(good, 6000u);
  EXPECT_GT(trimmed, 0u);  // the trimmed path was among the decodes counted above
  // The counter does see allocations, so the zero above means something.
  auto* probe = new int(1);
  EXPECT_GT(g_allocations.load(), before);
  delete probe;
}

}  // namespace
}  // namespace mrc::wire::test
