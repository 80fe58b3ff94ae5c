// Pins the default endpoint (no defect, no variant) bit for bit: a fixed lossy transfer with a
// plane outage is run and every frame either endpoint emits (sender, port, time, bytes) is hashed.
// The golden pcaps of the suite are generated from this behaviour, so an option of the endpoint
// (a defect or a conformant variant) must never change what the default puts on the wire. A change
// of the constants below is a reviewed behaviour change, like a diff in a golden pcap.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/reference/endpoint/write_workload.hpp"

namespace mrc::ref::testing {
namespace {

// FNV-1a 64 over every tapped frame.
std::uint64_t frames_hash(const Fabric& f) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&h](std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  };
  for (const TapRecord& r : f.taps) {
    mix(static_cast<std::uint64_t>(r.from), 1);
    mix(r.port, 1);
    mix(r.t, 8);
    mix(r.bytes.size(), 4);
    for (std::uint8_t b : r.bytes) mix(b, 1);
  }
  return h;
}

struct Scenario {
  Impairment imp;
  bool outage = false;  // A's port 3 sends nothing for the first 300 us
  std::uint32_t writes = 300;
};

std::uint64_t run(const Scenario& s, std::size_t& frames) {
  PairOptions o;
  o.timeout = 6;
  Pair p(o, {}, s.imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  if (s.outage) {
    p.fabric->filter = [](int side, transport::TxFrame& f, std::uint64_t now) {
      return !(side == 0 && f.port == 3 && now < 300'000);
    };
  }
  WorkloadOptions w;
  w.writes = s.writes;
  const WorkloadResult r = run_random_writes(p, w);
  EXPECT_EQ(r.failure, "");
  EXPECT_EQ(r.completed, s.writes);
  frames = p.fabric->taps.size();
  return frames_hash(*p.fabric);
}

TEST(DefaultFrames, LosslessTransferIsUnchanged) {
  std::size_t frames = 0;
  const std::uint64_t h = run(Scenario{}, frames);
  std::printf("lossless: frames=%zu hash=0x%016llx\n", frames, static_cast<unsigned long long>(h));
  // MRC 1.0 data (W3, W4) and feedback (W5-W8); A also on the packet that fills the NSCC window
  EXPECT_EQ(h, 0x2447541a0b25c535ull);
}

TEST(DefaultFrames, LossyTransferWithPlaneOutageIsUnchanged) {
  Scenario s;
  s.imp.drop = 0.005;
  s.imp.reorder = 0.1;
  s.imp.duplicate = 0.02;
  s.imp.trim = 0.02;
  s.outage = true;
  std::size_t frames = 0;
  const std::uint64_t h = run(s, frames);
  std::printf("lossy: frames=%zu hash=0x%016llx\n", frames, static_cast<unsigned long long>(h));
  // MRC 1.0 data and feedback; trims recognised by DSCP (W13); A on the packet that fills the
  // NSCC window
  EXPECT_EQ(h, 0xe3aaa3908fbc7445ull);
}

}  // namespace
}  // namespace mrc::ref::testing
