// The raw-frame port: a frame injected on one end of a veth arrives whole on the other, with a
// nanosecond timestamp, in a harness::Capture with honest integrity counters; inbound-only ports
// never see their own injections; a frame over the MTU is refused with a clear message.
#include <gtest/gtest.h>
#include <poll.h>

#include <filesystem>

#include "harness/capture/pcapng.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

using namespace std::chrono_literals;

std::vector<std::uint8_t> test_frame(std::size_t len, std::uint8_t tag) {
  std::vector<std::uint8_t> f(len, 0);
  for (int i = 0; i < 6; ++i) f[static_cast<std::size_t>(i)] = 0xFF;  // broadcast
  f[6] = 0x02;
  f[11] = tag;
  f[12] = 0x88;  // local experimental EtherType: no stack takes it
  f[13] = 0xB5;
  for (std::size_t i = 14; i < len; ++i) f[i] = static_cast<std::uint8_t>(i * 31 + tag);
  return f;
}

// Receives into `cap` until it holds `n` frames or `timeout` passes.
void receive_until(hw::PcapPort& p, harness::Capture& cap, std::size_t n, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (cap.size() < n && std::chrono::steady_clock::now() < end) {
    pollfd pf{p.fd(), POLLIN, 0};
    poll(&pf, 1, 10);
    ASSERT_GE(p.receive_into(cap, 64), 0) << p.last_error();
  }
}

TEST(WirePcapPort, FramesCrossTheVethWithNanosecondTimestamps) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 9000}, &err);
  ASSERT_NE(ns, nullptr) << err;
  const auto& plane = ns->planes()[0];
  auto host = hw::PcapPort::open(plane.host_if, {}, &err);
  ASSERT_NE(host, nullptr) << err;
  auto inner = open_port_in(ns->name(), plane.ns_if, {}, &err);
  ASSERT_NE(inner, nullptr) << err;
  EXPECT_TRUE(host->ns_timestamps());
  EXPECT_EQ(host->timestamp_source(), "kernel (host)");  // a veth has no NIC clock
  EXPECT_FALSE(host->timestamp_types().empty());

  std::vector<std::vector<std::uint8_t>> sent;
  for (std::size_t len : {60u, 1514u, 9014u}) sent.push_back(test_frame(len, static_cast<std::uint8_t>(len)));
  const std::uint64_t before = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                              std::chrono::system_clock::now().time_since_epoch())
                                                              .count());
  for (const auto& f : sent) ASSERT_EQ(host->inject(f), "");
  harness::Capture cap("ns.p1.rx");
  receive_until(*inner, cap, sent.size(), 2000ms);
  ASSERT_EQ(cap.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto b = cap.bytes(i);
    EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()), sent[i]) << i;
    // pcap timestamps are wall-clock: within a few seconds of "now", and in ns (not a us multiple
    // every time).
    EXPECT_GE(cap.packet(i).ts_ns + 1'000'000'000ull, before);
    if (i > 0) {
      EXPECT_GE(cap.packet(i).ts_ns, cap.packet(i - 1).ts_ns);
    }
  }
  inner->update_drops(cap);
  EXPECT_TRUE(cap.integrity().complete()) << cap.integrity().describe();
  EXPECT_EQ(cap.integrity().offered, 3u);

  // Inbound only: the injecting side saw none of its own frames.
  harness::Capture own;
  host->receive_into(own, 64);
  EXPECT_EQ(own.size(), 0u);

  // The capture writes as pcapng that libpcap reads back.
  const auto path = std::filesystem::temp_directory_path() / ("mrcc-wirelab-" + std::to_string(getpid()) + ".pcapng");
  ASSERT_EQ(harness::write_pcapng(path, cap), "");
  harness::Capture back;
  ASSERT_EQ(harness::read_capture(path, back), "");
  EXPECT_EQ(back.size(), 3u);
  EXPECT_EQ(back.packet(2).ts_ns, cap.packet(2).ts_ns);
  std::filesystem::remove(path);
}

TEST(WirePcapPort, OversizeFrameIsRefusedClearly) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({1, 1500}, &err);
  ASSERT_NE(ns, nullptr) << err;
  auto host = hw::PcapPort::open(ns->planes()[0].host_if, {}, &err);
  ASSERT_NE(host, nullptr) << err;
  const std::string e = host->inject(test_frame(3000, 1));
  EXPECT_NE(e.find(ns->planes()[0].host_if), std::string::npos) << e;
  EXPECT_NE(e.find("pcap_inject"), std::string::npos) << e;
}

TEST(WirePcapPort, MissingInterfaceIsNamed) {
  std::string err;
  EXPECT_EQ(hw::PcapPort::open("mrcc-nope", {}, &err), nullptr);
  EXPECT_NE(err.find("mrcc-nope"), std::string::npos) << err;
}

}  // namespace
}  // namespace mrc::wirelab::testing
