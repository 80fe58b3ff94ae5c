// Times in a case file written as what the case configures (cases/README.md "Times in units of
// the case's timers"): a plain integer is nanoseconds, as before; an expression sums terms of a
// number and a unit, `3 T + 20 us`, `2.5 T`, `T - 10 us`, `1.5 ms`.
//
// Units: ns, us, ms, s; T, the case's ACK timeout (1.024 us x 2^config.qp.timeout, W15); and F,
// the frame time: one of the case's data frames (its path MTU of payload and kFrameHeaderBytes of
// headers) at the rate its QP sprays at: the testbed's, or the case's open-loop traffic rate
// (`rate_gbps`) when that is lower. A bound written in T follows the timer it was derived
// from: when the runner raises the timeout exponent on a slow wire (a case with `timing: scales`),
// every time written in T grows with it, and the times written in absolute units stay. A time
// written in F follows the testbed's rate: a window of `24 F` holds about 24 of the DUT's packets
// at 800 Gb/s in the simulator and at 1 Gb/s across a real-time bridge alike, so an impairment
// meant for a share of the traffic gets as many packets (and a statistical case as many samples)
// on a slow testbed, where it runs longer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrc::harness {

// What the units of an expression stand for in one case.
// Headers around a data frame's payload, bytes: Ethernet, IPv6, UDP, BTH, METH, RETH, ICRC (about).
inline constexpr double kFrameHeaderBytes = 100;
// The rate a QP sprays at as a case is loaded: the built-in fabric's host, 8 planes of 100 Gb/s
// (harness/testbed/sim/topology.hpp; a test holds the two equal). The runner loads a case that
// writes F again at its testbed's own rate when that differs (LoadOptions::spray_bps).
inline constexpr std::uint64_t kDefaultSprayBps = 800'000'000'000ull;

struct TimeUnits {
  std::uint8_t timeout = 8;  // config.qp.timeout: T = 1024 ns << timeout
  std::uint32_t mtu = 4096;  // config.qp.mtu: F's payload
  std::uint64_t spray_bps = kDefaultSprayBps;
  std::uint64_t traffic_bps = 0;  // the lowest open-loop rate_gbps of the case's traffic (0: none)
  std::uint64_t t_ns() const { return std::uint64_t{1024} << timeout; }
  std::uint64_t rate_bps() const { return traffic_bps != 0 ? std::min(spray_bps, traffic_bps) : spray_bps; }
  double f_ns() const { return (static_cast<double>(mtu) + kFrameHeaderBytes) * 8e9 / static_cast<double>(rate_bps()); }
};

struct TimeValue {
  std::optional<std::uint64_t> ns;  // the value, rounded to the nearest ns
  bool uses_t = false;              // a term in T
  bool uses_f = false;              // a term in F
  std::string error;                // why not, when ns is empty: "unknown unit 'uS' (...)"
};

// A plain integer (ns) or an expression, evaluated with `u`. Negative or past 2^62 ns is an error.
TimeValue parse_time(std::string_view text, const TimeUnits& u);

}  // namespace mrc::harness
