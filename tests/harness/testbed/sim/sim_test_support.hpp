// Test support for the simulator suites: external hosts that record what reaches them, frames
// built for an EV, and small decoding helpers. Test-only code (it allocates per frame).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/sim/path_query.hpp"
#include "harness/testbed/sim/simulator.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::sim::testing {

struct Received {
  std::uint64_t t = 0;
  std::uint32_t host = 0;
  std::uint8_t port = 0;
  std::vector<std::uint8_t> bytes;
};

// Makes every listed host external; what reaches them lands in `log`.
inline void make_external(Simulator& sim, std::initializer_list<std::uint32_t> hosts,
                          std::shared_ptr<std::vector<Received>> log) {
  for (const std::uint32_t h : hosts) {
    ASSERT_EQ(sim.set_external(h, [log](const RxFrame& f) {
      log->push_back(Received{f.now, f.host, f.port, {f.bytes.begin(), f.bytes.end()}});
    }), SimError::kOk);
  }
}

inline std::vector<std::uint8_t> frame_for(std::uint32_t src, std::uint32_t dst, const EvSpec& ev, bool ipv4 = false,
                                           std::uint32_t payload_bytes = 16) {
  std::array<std::uint8_t, wire::kMaxFrameLen> buf{};
  const std::size_t n = ev_frame(src, dst, ev, ipv4, buf, payload_bytes);
  return {buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)};
}

inline bool decode(const std::vector<std::uint8_t>& b, wire::DecodedFrame& f) {
  return wire::decode_frame(wire::Bytes(b.data(), b.size()), f).ok();
}

// The identity a receiver echoes for this frame (STEV V, UDP sport, SRv6 tag; W2).
inline std::uint32_t echo_of(const std::vector<std::uint8_t>& b, wire::EvFmtMode mode) {
  wire::DecodedFrame f;
  if (!decode(b, f)) return 0xFFFFFFFFu;
  return wire::ev_echo_value(f, mode);
}

inline TopologyConfig mini() { return *preset("mini"); }
inline TopologyConfig rack() { return *preset("rack"); }

}  // namespace mrc::sim::testing
