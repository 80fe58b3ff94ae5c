// Whether a run across the real-time bridge kept to what the bridge declared, in words for the
// case's message: what it added (each case's notes), whether it broke its budget (a FAIL of such
// a run is INCONCLUSIVE, case_result.cpp) and whether it stopped being real-time at all (the case
// stops as INCONCLUSIVE, case_session.cpp). Pure functions of the bridge's figures.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "harness/testbed/wire_host.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// A paced fabric, or a bridge's queue towards a host, further behind real time than this has
// stopped being a real-time bridge.
inline constexpr std::uint64_t kMaxBehindNs = 50'000'000;

// "real-time bridge: N frames to the DUT (lag p50 .., p99 .., max ..), M from it (...), ..."
std::string bridge_note(const harness::BridgeFigures& b, const std::string& who);
// The same figures as the case result keeps them (results.json "bridge").
harness::BridgeStats bridge_stats(const harness::BridgeFigures& b);

// Why the bridge did not keep to its budget ("" when it did): lost frames, or any frame's lag either
// way over the budget. Such a run changed what the DUT saw.
std::string bridge_overrun(const harness::BridgeFigures& b, std::uint64_t budget_ns, const std::string& who);
// "" when the bridge saw every frame the DUT sent; else how many it lost before the harness saw
// them (SessionResult::capture_gap).
std::string capture_gap(const harness::BridgeFigures& b);

// "the simulated fabric paused N time(s), longest ..: this machine left it that far behind ..." (""
// for no pause), for the case's notes.
std::string pause_note(const harness::LatencyHistogram& pauses);

// Why the fabric's pauses make its times untrustworthy ("" when they do not): a time measured across
// a pause is short by up to its length, and across the bridge off by up to its lag as well, so the
// longest pause plus the bridge's worst lag either way (`lag_max_ns`) must stay within the budget.
std::string pause_overrun(const harness::LatencyHistogram& pauses, std::uint64_t lag_max_ns, std::uint64_t budget_ns);

// Why the run stopped being real-time ("" while it is): the fabric `behind_ns` behind the clock,
// or a bridge queue (dut / peer: null when not bridged) deeper than kMaxBehindNs.
std::string real_time_lost(std::uint64_t behind_ns, const harness::BridgeFigures* dut, const harness::BridgeFigures* peer);

// Why a case on a real-time testbed stops short of its wall-clock bound ("" while it may go on): past
// two thirds of the time from `start` to `deadline` (the case's timeout_s), the rest is what its
// collection and checks need, and a case that got that far ran slower than real time: the
// fabric's clock stood still for most of it (pauses: the wall time used less `testbed_ns`, the
// testbed time it advanced). Without this such a case ran out of its bound while its huge
// captures were judged, and was killed as an ERROR of the harness.
std::string wall_clock_short(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point deadline,
                             std::chrono::steady_clock::time_point now, std::uint64_t testbed_ns);

}  // namespace mrc::run
