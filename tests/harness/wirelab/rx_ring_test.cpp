// The TPACKET_V3 receive ring (testbed/wire/rx_ring.hpp): frames from the other end arrive whole,
// in order and stamped, a block not yet full is handed over by its retire timer, the socket never
// reads back what it sent itself, and bad options are named. The bridge reading a burst through it:
// tx_ring_test.cpp, beside the capture ring it stands in for.
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "tests/harness/wirelab/wirelab_support.hpp"
// After the support header: dut_setup.hpp (included there) names ::mrc::wire as `wire` from
// inside mrc::harness, which a harness::wire declared first would hide.
#include "harness/testbed/wire/rx_ring.hpp"

namespace mrc::wirelab::testing {
namespace {

struct Got {
  std::vector<std::uint32_t> numbers;
  std::vector<std::uint64_t> ts;
  std::vector<std::size_t> lens;
};

// Every frame the ring hands over (up to `want`, within about two seconds), by number.
Got drain(hw::RxRing& ring, std::size_t want) {
  Got g;
  for (int i = 0; i < 200 && g.numbers.size() < want; ++i) {
    pollfd p{ring.fd(), POLLIN, 0};
    (void)poll(&p, 1, 10);
    ring.receive(
        [](void* ctx, std::uint64_t ts, std::span<const std::uint8_t> b, std::uint32_t) {
          auto* out = static_cast<Got*>(ctx);
          std::uint32_t n = 0;
          if (b.size() >= 18) std::memcpy(&n, b.data() + 14, sizeof n);
          out->numbers.push_back(n);
          out->ts.push_back(ts);
          out->lens.push_back(b.size());
        },
        &g, 1 << 16);
  }
  return g;
}

TEST(WireRxRing, FramesFromTheOtherEndArriveWholeInOrderAndStamped) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 9000}, &err);
  ASSERT_NE(ns, nullptr) << err;
  // Small blocks: the 600 frames below fill many, so the reader crosses block boundaries.
  auto ring = hw::RxRing::open(ns->planes()[0].host_if, hw::RxRingOptions{8192, 256, 1}, &err);
  ASSERT_NE(ring, nullptr) << err;
  auto tx = tx_ring_in(*ns, &err);
  ASSERT_NE(tx, nullptr) << err;
  const auto before = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  std::vector<std::uint32_t> want;
  for (std::uint32_t i = 0; i < 600; ++i) {
    ASSERT_EQ(tx->queue(numbered(i, 100 + i % 900)), "");
    want.push_back(i);
    if (i % 100 == 99) {
      ASSERT_EQ(tx->flush(), "");
    }
  }
  const Got g = drain(*ring, want.size());
  ASSERT_EQ(g.numbers, want) << "drops " << ring->kernel_drops();
  for (std::size_t i = 0; i < g.lens.size(); ++i) {
    EXPECT_EQ(g.lens[i], 100 + i % 900) << "frame " << i;
  }
  EXPECT_GE(g.ts.front(), before) << "a receive timestamp not on CLOCK_REALTIME";
  for (std::size_t i = 1; i < g.ts.size(); ++i) {
    EXPECT_GE(g.ts[i], g.ts[i - 1]) << "frame " << i;
  }
  EXPECT_EQ(ring->kernel_drops(), 0u);
}

// One frame fills no block: the retire timer hands it over anyway, and what the ring's own socket
// sends reaches the other end but is never read back.
TEST(WireRxRing, ALoneFrameIsHandedOverAndTheRingsOwnSendsAreNotReadBack) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  auto ring = hw::RxRing::open(ns->planes()[0].host_if, hw::RxRingOptions{}, &err);
  ASSERT_NE(ring, nullptr) << err;
  auto peer = open_port_in(ns->name(), ns->planes()[0].ns_if, {}, &err);
  ASSERT_NE(peer, nullptr) << err;
  ASSERT_TRUE(ring->send(numbered(41))) << ring->last_error();
  auto tx = tx_ring_in(*ns, &err);
  ASSERT_NE(tx, nullptr) << err;
  ASSERT_EQ(tx->queue(numbered(42)), "");
  ASSERT_EQ(tx->flush(), "");
  EXPECT_EQ(drain(*ring, 2).numbers, (std::vector<std::uint32_t>{42}));
  std::vector<std::uint32_t> at_peer;
  for (int i = 0; i < 100 && at_peer.empty(); ++i) {
    peer->receive(
        [&](std::uint64_t, std::span<const std::uint8_t> b, std::uint32_t) {
          std::uint32_t n = 0;
          if (b.size() >= 18) std::memcpy(&n, b.data() + 14, sizeof n);
          at_peer.push_back(n);
        },
        16);
    if (at_peer.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(at_peer, (std::vector<std::uint32_t>{41}));
}

TEST(WireRxRing, BadOptionsAndAMissingInterfaceAreNamed) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  EXPECT_EQ(hw::RxRing::open("mrc-no-such-if", hw::RxRingOptions{}, &err), nullptr);
  EXPECT_NE(err.find("mrc-no-such-if: receive ring: no such interface"), std::string::npos) << err;
  EXPECT_EQ(hw::RxRing::open("lo", hw::RxRingOptions{3000, 4, 1}, &err), nullptr);
  EXPECT_NE(err.find("lo: receive ring: needs at least one block of a power of two bytes"), std::string::npos) << err;
}

}  // namespace
}  // namespace mrc::wirelab::testing
