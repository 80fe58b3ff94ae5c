// When a frame crossed a real interface of the DUT's (CLOCK_REALTIME, ns), as a real-time bridge
// knows it: plain data shared by the bridge (which measures it), the fabric and its taps (which
// keep it beside each frame's time), the evidence files (which carry it) and the checks.
#pragma once

#include <cstdint>

namespace mrc::harness {

// A frame from the DUT: the kernel's capture time, exact (span 0). A frame to the DUT: it reached
// the DUT's port somewhere in [ns, ns + span_ns]; the bridge's send() started at ns and returned
// span_ns later, and the kernel hands the frame over inside that call (over a veth, the DUT may
// answer before it returns). ns 0: not known (the simulated fabric, an in-process DUT, a frame
// batched on a transmit ring). Unlike the fabric's clock, which the bridge lags and pauses, two
// port times differ by the real time between the frames at the DUT's port.
//
// entry_ns, a frame from the DUT only: how far the fabric's clock had run past the frame's capture
// (mapped onto it) when the fabric took the frame from the bridge, the bridge's entry delay for it.
// The frame left the DUT that long before the fabric saw it: on a loaded 2-core harness a retry
// the DUT sent on time entered the fabric 2.2 ms later, and must not look late for it (a positive
// expect judges its frame's end of window at that departure). After a pause of the fabric's clock
// the mapping is uncertain, and the departure is taken no earlier than the bridge read the frame.
struct PortTime {
  std::uint64_t ns = 0;
  std::uint32_t span_ns = 0;
  std::uint32_t entry_ns = 0;
  std::uint64_t earliest() const { return ns; }
  std::uint64_t latest() const { return ns + span_ns; }
  bool known() const { return ns != 0; }
  bool operator==(const PortTime&) const = default;
};

}  // namespace mrc::harness
