#include "harness/capture/pcapng.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "tests/harness/capture/capture_test_support.hpp"

namespace mrc::harness {
namespace {

std::filesystem::path scratch(const std::string& name) { return testing::scratch_file("capture", name); }

Capture random_capture(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  Capture cap("tap-h0-p3");
  std::uint64_t ts = 1'700'000'000'123'456'789ull;
  std::vector<std::uint8_t> buf;
  for (std::size_t i = 0; i < n; ++i) {
    buf.resize(14 + rng() % 1500);
    for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    ts += 1 + rng() % 5000;  // distinct ns, so precision loss would show
    cap.add(ts, buf);
  }
  return cap;
}

TEST(Pcapng, LibpcapReadsBackEveryPacketWithNanosecondTimestamps) {
  const auto cap = random_capture(7, 500);
  const auto path = scratch("roundtrip.pcapng");
  ASSERT_EQ(write_pcapng(path, cap), "");
  Capture back;
  ASSERT_EQ(read_capture(path, back), "");
  ASSERT_EQ(back.size(), cap.size());
  for (std::size_t i = 0; i < cap.size(); ++i) {
    EXPECT_EQ(back.packet(i).ts_ns, cap.packet(i).ts_ns) << "packet " << i;
    ASSERT_EQ(back.bytes(i).size(), cap.bytes(i).size()) << "packet " << i;
    EXPECT_TRUE(std::equal(back.bytes(i).begin(), back.bytes(i).end(), cap.bytes(i).begin())) << "packet " << i;
  }
  EXPECT_TRUE(back.integrity().complete());
}

TEST(Pcapng, SameCaptureGivesIdenticalBytes) {
  EXPECT_EQ(pcapng_bytes(random_capture(3, 50)), pcapng_bytes(random_capture(3, 50)));
  EXPECT_NE(pcapng_bytes(random_capture(3, 50)), pcapng_bytes(random_capture(4, 50)));
}

TEST(Pcapng, TruncatedRecordNamesFileAndPacketIndex) {
  const auto path = scratch("truncated.pcapng");
  auto bytes = pcapng_bytes(random_capture(9, 20));
  bytes.resize(bytes.size() - 100);  // cut into the last packet block
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  Capture back;
  const auto err = read_capture(path, back);
  EXPECT_NE(err.find("truncated.pcapng"), std::string::npos) << err;
  EXPECT_NE(err.find("packet 19"), std::string::npos) << err;
  EXPECT_EQ(back.size(), 19u);  // everything before the damage is kept
}

TEST(Pcapng, MissingOrGarbageFileIsAClearError) {
  Capture back;
  EXPECT_NE(read_capture(scratch("does-not-exist.pcapng"), back).find("does-not-exist.pcapng"), std::string::npos);
  const auto path = scratch("garbage.pcapng");
  std::ofstream(path, std::ios::binary) << "this is not a capture file at all";
  const auto err = read_capture(path, back);
  EXPECT_NE(err.find("garbage.pcapng"), std::string::npos) << err;
}

TEST(CaptureIntegrity, TapDropsOrTruncationMakeTheCaptureIncomplete) {
  Capture cap("t");
  const std::uint8_t b[60] = {};
  cap.add(1, b);
  cap.integrity().offered = 1;
  EXPECT_TRUE(cap.integrity().complete());
  cap.integrity().offered = 2;  // one crossed the link but never reached the capture
  EXPECT_FALSE(cap.integrity().complete());
  cap.integrity().offered = 2;
  cap.add(2, std::span(b, 30), 60);  // stored shorter than on the wire
  EXPECT_EQ(cap.integrity().truncated, 1u);
  EXPECT_FALSE(cap.integrity().complete());
}

}  // namespace
}  // namespace mrc::harness
