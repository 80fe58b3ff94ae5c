// The bridge's host side (testbed/wire/bridge_port.cpp): frames enter the fabric in the order of
// their kernel capture times across ports, whichever port the bridge happens to read first, each
// with the delay from its capture (or, after a pause of the fabric's clock, its read) to its entry.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "harness/testbed/wire_host.hpp"
#include "reference/transport/qp_types.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

std::vector<std::uint8_t> tagged_frame(std::uint8_t tag) {
  std::vector<std::uint8_t> f(128, 0);
  for (int i = 0; i < 6; ++i) f[static_cast<std::size_t>(i)] = 0xFF;
  f[6] = 0x02;
  f[11] = tag;
  f[12] = 0x88;  // local experimental EtherType: no stack takes it
  f[13] = 0xB5;
  f[14] = tag;
  return f;
}

// Reads until `want` frames waited in the bridge (within half a second); how many, or -1 on error.
int receive_frames(harness::WireHost& bridge, int want) {
  int got = 0;
  for (int i = 0; i < 100 && got < want; ++i) {
    const int n = bridge.receive();
    if (n < 0) return -1;
    got += n;
    if (got < want) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return got;
}

// A frame captured on plane 2 before one on plane 1 reaches the fabric first, though the bridge
// reads plane 1 first: a late read must not make the older frame look younger.
TEST(WireBridgePort, FramesEnterInCaptureOrderAcrossPorts) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({2, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  const std::vector<harness::WirePortBinding> bind{{1, ns->planes()[0].host_if}, {2, ns->planes()[1].host_if}};
  auto bridge = harness::open_wire_host(bind, {}, &err);
  ASSERT_NE(bridge, nullptr) << err;
  auto p1 = open_port_in(ns->name(), ns->planes()[0].ns_if, {}, &err);
  ASSERT_NE(p1, nullptr) << err;
  auto p2 = open_port_in(ns->name(), ns->planes()[1].ns_if, {}, &err);
  ASSERT_NE(p2, nullptr) << err;

  harness::PacedClock clock;  // testbed time = CLOCK_MONOTONIC
  bridge->start(clock);
  ASSERT_EQ(p2->inject(tagged_frame(2)), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(p1->inject(tagged_frame(1)), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // both wait in the kernel
  ASSERT_EQ(receive_frames(*bridge, 2), 2) << bridge->error();
  bridge->advance(clock.now() + 1'000'000'000ull);
  transport::TxFrame first;
  transport::TxFrame second;
  ASSERT_TRUE(bridge->poll_frame(first));
  // Taken a second after its capture: its port time says so (entry_ns), and so do the figures.
  EXPECT_TRUE(bridge->port_time().known());
  EXPECT_EQ(bridge->port_time().span_ns, 0u);
  EXPECT_GE(bridge->port_time().entry_ns, 1'020'000'000u);  // captured >= 22 ms before the read
  EXPECT_LT(bridge->port_time().entry_ns, 2'000'000'000u);
  EXPECT_EQ(bridge->running_figures().rx_entry.max(), bridge->port_time().entry_ns);
  ASSERT_TRUE(bridge->poll_frame(second));
  EXPECT_EQ(first.port, 2) << "the frame captured first (on plane 2) must enter first";
  EXPECT_EQ(second.port, 1);
  EXPECT_EQ(first.bytes[14], 2);
}

// After a pause of the fabric's clock a capture time maps onto it up to that pause too early, so
// a frame read after one departs no earlier than the read: its entry delay is counted from there.
TEST(WireBridgePort, AfterAPauseAFramesEntryDelayCountsFromItsRead) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  const std::vector<harness::WirePortBinding> bind{{1, ns->planes()[0].host_if}};
  auto bridge = harness::open_wire_host(bind, {}, &err);
  ASSERT_NE(bridge, nullptr) << err;
  auto p1 = open_port_in(ns->name(), ns->planes()[0].ns_if, {}, &err);
  ASSERT_NE(p1, nullptr) << err;
  harness::PacedClock clock;
  bridge->start(clock);
  ASSERT_EQ(p1->inject(tagged_frame(1)), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  clock.pauses = 1;  // the fabric paused while the frame waited
  ASSERT_EQ(receive_frames(*bridge, 1), 1) << bridge->error();
  const std::uint64_t read_at = clock.now();
  bridge->advance(read_at + 1'000'000'000ull);
  transport::TxFrame f;
  ASSERT_TRUE(bridge->poll_frame(f));
  EXPECT_GE(bridge->port_time().entry_ns, 1'000'000'000u);
  EXPECT_LT(bridge->port_time().entry_ns, 1'020'000'000u) << "counted from its capture 30 ms before the read";
}

}  // namespace
}  // namespace mrc::wirelab::testing
