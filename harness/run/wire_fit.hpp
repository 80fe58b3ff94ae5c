// Whether a case can run across a real-time bridge (a DUT on real interfaces), decided from the
// case and what the bridge declares before anything is sent, so a case the wire cannot carry is
// UNSUPPORTED with its reason instead of a FAIL or a hang that says nothing about the DUT.
//
// Six limits, from the case and declared figures (deterministic, never from a measurement):
//  - timers: the case's ACK timeout (config.qp.timeout, 1.024 us x 2^timeout, W15) must be at
//    least two round trips (a `timing: scales` case is first given the smallest exponent that
//    fits, wire_timeout(), and its times written in T grow with it) of the path as the bridge makes it (the fabric's base RTT plus the
//    bridge's declared RTT). A shorter timer fires on packets still crossing the bridge once a
//    queue forms; the retransmissions add load and the run collapses into a retransmission storm
//    that judges the bridge, not the DUT.
//  - impairment windows: an impairment whose time window is shorter than a round trip of the
//    wire selects packets by when they happen to arrive, which the wire decides;
//  - expects timing traffic: an expect right after a traffic step must leave the bridge the time
//    the bytes written so far take at its rate;
//  - goldens: a golden check that compares packet times pins the pacing of the simulated fabric,
//    which a DUT behind the bridge cannot show;
//  - timeline: a case whose scripted timeline is longer than its wall-clock bound (timeout_s)
//    cannot finish on a testbed whose clock is the wall clock;
//  - volume: the bytes the case's traffic programs write must cross at the bridge's declared rate
//    within half the real time a case gets past its stimulus (the other half for recovery and
//    feedback).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/case/case_model.hpp"

namespace mrc::run {

struct WireFacts {
  std::uint64_t base_rtt_ns = 0;    // DUT <-> peer round trip, fabric and bridge (network_facts)
  std::uint64_t rate_bps = 0;       // the slowest bridged link's forwarding rate
  std::uint64_t time_limit_ns = 0;  // what a case may run past its stimulus on this wire
  std::uint64_t budget_ns = 0;      // what the bridge declares it may add to a measured time
};

// "" when the case fits; else one line: what in the case does not fit, the figures, where it runs.
std::string wire_misfit(const harness::Case& c, const WireFacts& w);

// The ACK timeout exponent a case that scales (Case::timing_scales: `timing: scales`, or no time
// written at all) runs with on this wire, when its own T is under two round trips or twice the
// bridge's timing budget: the smallest one whose T is at least both. The budget is what a time
// measured across the bridge may be off by (an agent's call, the bridge's lag): a timer of twice
// that keeps the order of the DUT's timer events and the harness's view of them, and a DUT whose
// acknowledgements wait that long behind a busy bridge does not retransmit what was delivered.
// nullopt when the case's own T fits, its times are fixed, or no exponent up to kMaxQpTimeout fits.
std::optional<std::uint8_t> wire_timeout(const harness::Case& c, const WireFacts& w);

// The case as it runs on this wire: loaded again from its file with wire_timeout()'s exponent, so
// every time written in T follows (nothing when the case needs no rescaling).
struct WireRescale {
  std::optional<harness::Case> rescaled;
  std::string note;   // "timing scaled to this wire: config.qp.timeout 6 -> 9 (...)", for the report
  std::string error;  // the file no longer loads
};
WireRescale rescale_for_wire(const harness::Case& c, const WireFacts& w, const std::filesystem::path& fallback_clauses);

}  // namespace mrc::run
