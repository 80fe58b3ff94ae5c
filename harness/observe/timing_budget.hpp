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
  // What the bridge forwards, bit/s (0: not a bridge, or no rate declared). A frame crossing it
  // waits for the frames queued before it, so a burst the DUT sends at once reaches the fabric's
  // taps spread over the burst's length at this rate: a golden's packet times are paced at it
  // before they are compared (golden_check.cpp, the field class `bridged`).
  std::uint64_t rate_bps = 0;
  bool operator==(const TimingBudget&) const = default;
};

}  // namespace mrc::harness
