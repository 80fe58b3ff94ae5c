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
// (A golden check that compares packet times runs: its times are the field class `bridged`
// there, paced at the bridge's declared rate before they are compared, verdict/field_class.hpp.)
//  - timeline: a case whose scripted timeline is longer than its wall-clock bound (timeout_s)
//    cannot finish on a testbed whose clock is the wall clock;
//  - failure detection: a case that times how soon the DUT leaves a failed path (stop_using_failed,
//    first_retx_other_path, throughput_recovered, no_data_on_failed_ev) must bound it by at least
//    one packet on each of the DUT's EVs at the bridge's rate (the EV cycle): the DUT learns a
//    path failed only from a packet it sends on it, and at 1 Gb/s 128 EVs of 4 KiB take 4.3 ms,
//    where the simulated fabric's 400 Gb/s take 11 us. A `timing: scales` case is first given a T
//    of at least the cycle plus two round trips (wire_timeout()), so its bounds in T hold it;
//  - volume: the bytes the case's traffic programs write must cross at the bridge's declared rate
//    within half the real time a case gets past its stimulus (the other half for recovery and
//    feedback).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {

struct WireFacts {
  std::uint64_t base_rtt_ns = 0;    // DUT <-> peer round trip, fabric and bridge (network_facts)
  std::uint64_t rate_bps = 0;       // the slowest bridged link's forwarding rate
  std::uint64_t time_limit_ns = 0;  // what a case may run past its stimulus on this wire
  std::uint64_t budget_ns = 0;      // what the bridge declares it may add to a measured time
  // The DUT's EVs in the case (its profile's count, else the testbed's default set): a DUT learns
  // that a path failed only from packets it sends on it, one after another at the bridge's rate.
  std::uint32_t dut_evs = 0;
};

// This testbed's wire between the DUT and the peer, for case `c`: network_facts(), the declared
// budget, the DUT's EV count; `time_limit_ns` is what a case may run past its stimulus.
WireFacts wire_facts(const harness::Testbed& tb, const harness::Case& c, int dut_host, int peer_host,
                     std::uint64_t time_limit_ns);

// "" when the case fits; else one line: what in the case does not fit, the figures, where it runs.
std::string wire_misfit(const harness::Case& c, const WireFacts& w);

// The ACK timeout exponent a case that scales (Case::timing_scales: `timing: scales`, or no time
// written at all) runs with on this wire, when its own T is under two round trips or twice the
// bridge's timing budget: the smallest one whose T is at least both; in a case that times failure
// detection, also at least the EV cycle plus that (see "failure detection" above). The budget is what a time
// measured across the bridge may be off by (an agent's call, the bridge's lag): a timer of twice
// that keeps the order of the DUT's timer events and the harness's view of them, and a DUT whose
// acknowledgements wait that long behind a busy bridge does not retransmit what was delivered.
// A case that holds packets back (reorder, delay impairments) needs that hold on top: in the
// simulator its T is far longer than its holds (a reorder of 3 us against a T of 262 us), and a
// hold written in F grows on a slow wire. nullopt when the case's own T fits, its times are fixed,
// or no exponent up to kMaxQpTimeout fits.
std::optional<std::uint8_t> wire_timeout(const harness::Case& c, const WireFacts& w);
// The longest a case's impairments hold a packet back (reorder's delay_ns, default depth x 1 us;
// delay's delay_ns + jitter_ns); 0 when none does.
std::uint64_t longest_hold_ns(const harness::Case& c);

// The case as it runs on this testbed, loaded again from its file: on a real-time wire (`wire`
// not null) with wire_timeout()'s exponent, so every time written in T follows; and, when it
// writes a time in F, with F at `spray_bps`, the rate its QP sprays at here (network_facts()'s
// line rate between DUT and peer), so every time written in F follows. Nothing when neither
// changes.
struct WireRescale {
  std::optional<harness::Case> rescaled;
  std::vector<std::string> notes;  // "timing scaled to this wire: ...", "frame time F on this testbed: ..."
  std::string error;               // the file no longer loads
};
WireRescale rescale_for_testbed(const harness::Case& c, const WireFacts* wire, std::uint64_t spray_bps,
                                const std::filesystem::path& fallback_clauses);

}  // namespace mrc::run
