// The transmit ring (testbed/wire/tx_ring.hpp) and the bridge's batched sending: nothing leaves
// before flush(), everything leaves after it, in the order queued, past the ring's size too. And a
// burst from the DUT's side through either receive ring the bridge offers, unlost.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "harness/testbed/wire_host.hpp"
#include "reference/transport/qp_types.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

// Every frame waiting on `port` (up to `want`, within about a second), by number.
std::vector<std::uint32_t> drain(hw::PcapPort& port, std::size_t want) {
  std::vector<std::uint32_t> got;
  for (int i = 0; i < 200 && got.size() < want; ++i) {
    port.receive(
        [&](std::uint64_t, std::span<const std::uint8_t> b, std::uint32_t) {
          std::uint32_t n = 0;
          if (b.size() >= 18) std::memcpy(&n, b.data() + 14, sizeof n);
          got.push_back(n);
        },
        1 << 16);
    if (got.size() < want) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return got;
}

TEST(WireTxRing, NothingLeavesBeforeFlushAndEverythingAfterInOrder) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  hw::PcapPortOptions small;
  small.snaplen = 256;  // ring slots sized to these frames: the 640 below fit in the capture ring
  auto peer = open_port_in(ns->name(), ns->planes()[0].ns_if, small, &err);
  ASSERT_NE(peer, nullptr) << err;
  auto ring = hw::TxRing::open(ns->planes()[0].host_if, 64, 2048, &err);
  ASSERT_NE(ring, nullptr) << err;

  for (std::uint32_t i = 0; i < 10; ++i) ASSERT_EQ(ring->queue(numbered(i)), "");
  EXPECT_EQ(ring->pending(), 10u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(drain(*peer, 1).empty()) << "a queued frame left before flush()";
  ASSERT_EQ(ring->flush(), "");
  EXPECT_EQ(ring->pending(), 0u);
  std::vector<std::uint32_t> want(10);
  for (std::uint32_t i = 0; i < 10; ++i) want[i] = i;
  EXPECT_EQ(drain(*peer, 10), want);

  // Ten times the ring's 64 slots, flushed every 100: the ring wraps and nothing is lost or reordered.
  want.clear();
  for (std::uint32_t i = 100; i < 740; ++i) {
    ASSERT_EQ(ring->queue(numbered(i)), "");
    want.push_back(i);
    if (i % 100 == 99) {
      ASSERT_EQ(ring->flush(), "");
    }
  }
  ASSERT_EQ(ring->flush(), "");
  const std::vector<std::uint32_t> got = drain(*peer, want.size());
  ASSERT_EQ(got.size(), want.size()) << "busy " << ring->figures().slot_busy << " drops " << peer->kernel_drops();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "at " << i;
  EXPECT_EQ(ring->figures().frames, 650u);
  EXPECT_GE(ring->figures().flushes, 8u);
}

TEST(WireTxRing, AFrameLongerThanASlotIsRefusedWithItsSize) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 9000}, &err);
  ASSERT_NE(ns, nullptr) << err;
  auto ring = hw::TxRing::open(ns->planes()[0].host_if, 8, 1024, &err);
  ASSERT_NE(ring, nullptr) << err;
  const std::string e = ring->queue(numbered(1, 4000));
  EXPECT_NE(e.find("a frame of 4000 bytes does not fit"), std::string::npos) << e;
  EXPECT_EQ(ring->pending(), 0u);
  EXPECT_EQ(ring->figures().rejected, 1u);
}

TEST(WireTxRing, AnInterfaceThatDoesNotExistIsNamed) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  EXPECT_EQ(hw::TxRing::open("mrc-no-such-if", 8, 1024, &err), nullptr);
  EXPECT_NE(err.find("mrc-no-such-if: transmit ring: no such interface"), std::string::npos) << err;
}

// With a transmit ring, the bridge queues what the fabric hands a host and sends it at the fabric
// turn's flush().
TEST(WireBridgePort, FramesToAnInterfaceLeaveAtFlush) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  const std::vector<harness::WirePortBinding> bind{{1, ns->planes()[0].host_if}};
  harness::WireHostOptions opt;
  opt.tx_ring_frames = 64;
  auto bridge = harness::open_wire_host(bind, opt, &err);
  ASSERT_NE(bridge, nullptr) << err;
  auto peer = open_port_in(ns->name(), ns->planes()[0].ns_if, {}, &err);
  ASSERT_NE(peer, nullptr) << err;
  harness::PacedClock clock;
  bridge->start(clock);
  // A fabric that keeps time: frames due now (here: a second ahead, however slowly this runs).
  const std::uint64_t on_time = clock.now() + 1'000'000'000;
  for (std::uint32_t i = 0; i < 3; ++i) bridge->on_frame(1, numbered(i), on_time);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(drain(*peer, 1).empty()) << "the bridge sent before its flush()";
  EXPECT_EQ(bridge->flush(), 0);
  EXPECT_EQ(drain(*peer, 3), (std::vector<std::uint32_t>{0, 1, 2}));
  const harness::BridgeFigures& f = bridge->figures();
  EXPECT_EQ(f.tx_frames, 3u);
  EXPECT_EQ(f.tx_lag.count(), 3u);  // taken at the flush
  EXPECT_EQ(f.tx_errors, 0u);

  // A fabric running late (a frame whose time passed a millisecond ago) does not hold it back.
  bridge->on_frame(1, numbered(7), clock.now() - 1'000'000);
  EXPECT_EQ(drain(*peer, 1), (std::vector<std::uint32_t>{7})) << "a late frame waited for the flush";
}

// A burst of 4000-byte frames from the DUT's side, all waiting before the bridge reads, unlost in
// either reception the bridge offers: capture rings sized for 2048 frames hold 1500 (libpcap's
// defaults hold 128), the TPACKET_V3 ring (rx_ring_v3: 64 blocks of 64 KiB) holds 500.
TEST(WireBridgePort, ABurstOfLargeFramesWaitsInTheReceiveRingUnlost) {
  MRC_SKIP_UNLESS_NETNS();
  struct Reception {
    const char* what;
    harness::WireHostOptions opt;
    std::uint32_t burst;
  };
  harness::WireHostOptions sized;
  sized.capture_burst_frames = 2048;
  harness::WireHostOptions v3;
  v3.rx_ring_v3 = true;
  for (const Reception& r : {Reception{"capture ring sized for 2048 frames", sized, 1500},
                             Reception{"TPACKET_V3 ring", v3, 500}}) {
    SCOPED_TRACE(r.what);
    std::string err;
    auto ns = hw::Netns::create({1, 9000}, &err);
    ASSERT_NE(ns, nullptr) << err;
    const std::vector<harness::WirePortBinding> bind{{1, ns->planes()[0].host_if}};
    auto bridge = harness::open_wire_host(bind, r.opt, &err);
    ASSERT_NE(bridge, nullptr) << err;
    auto dut = tx_ring_in(*ns, &err);
    ASSERT_NE(dut, nullptr) << err;
    harness::PacedClock clock;
    bridge->start(clock);
    for (std::uint32_t i = 0; i < r.burst; ++i) ASSERT_EQ(dut->queue(numbered(i, 4000)), "");
    ASSERT_EQ(dut->flush(), "");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // all of it waits in the kernel
    std::uint32_t got = 0;
    for (int i = 0; i < 100 && got < r.burst; ++i) {
      const int n = bridge->receive();
      ASSERT_GE(n, 0) << bridge->error();
      got += static_cast<std::uint32_t>(n);
      if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(got, r.burst);
    EXPECT_EQ(bridge->figures().kernel_drops, 0u);
    EXPECT_EQ(bridge->figures().rx_overflow, 0u);
  }
}

}  // namespace
}  // namespace mrc::wirelab::testing
