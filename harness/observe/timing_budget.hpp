// Plain data shared by the testbed (which declares it), the verdict layer (which applies it) and
// the reports (which show it); kept apart from observations.hpp so the verdict model includes no
// capture code.
#pragma once

#include <cstdint>
#include <string>

namespace mrc::harness {

// How far a time measured on the run's testbed may be off from the DUT's own timing (pacing,
// capture and injection latency of a real-time bridge). The testbed declares it
// (Testbed::timing_budget(): zero for the simulated fabric, whose taps share the hosts' clock);
// the timing checks widen their bounds by exactly this and say so. Nothing else widens a bound.
struct TimingBudget {
  std::uint64_t ns = 0;
  std::string source;  // who declared it, e.g. "real-time bridge (testbed netns)"
  bool operator==(const TimingBudget&) const = default;
};

}  // namespace mrc::harness
