// The DUT requester's bytes in flight as its own taps show them: the congestion-control checks
// (invariants_cc.cpp) judge the NSCC window through it (W14).
//
// What counts: the payload bytes of the DUT's WRITE data PSNs sent and not yet acknowledged by
// the feedback arriving at the DUT, as NSCC counts them. A cumulative ACK (cack_psn) or a SACK bit
// (W5) acknowledges a PSN; a NACK (W7) names its PSN lost, taking it out of flight until the DUT
// sends it again. The taps sit at the DUT's own ports,
// so a frame's timestamp is when the DUT sent or received it; feedback and sends stamped with the
// same nanosecond are applied feedback first, as a DUT reacting to that feedback would see them.
//
// What the capture cannot show: a PSN the DUT declares lost by its own retransmission timer
// stays "in flight" here until its retransmission, so after a timeout the count can overstate the
// DUT's by that PSN's bytes (the checks document this where it matters).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/verdict/trace.hpp"

namespace mrc::harness {

// One frame on the DUT's timeline with the bytes in flight right after it.
struct InflightEvent {
  std::uint64_t ts_ns = 0;
  std::uint32_t packet = 0;     // index into Trace::packets
  std::uint64_t inflight = 0;   // payload bytes in flight after this frame
  bool send = false;            // a WRITE data packet from the DUT (else feedback to the DUT)
  bool first_tx = false;        // send: the first transmission of its PSN
  std::uint32_t acked = 0;      // feedback: payload bytes it newly acknowledged
  std::uint64_t rtt_ns = 0;     // feedback: now - last send of its trigger PSN (0 = no sample, or
                                //   one the UET rule forbids: W14, inflight.cpp)
  bool ce = false;              // feedback: SETH m = SKIP_ONCE (W6)
  bool loss_signal = false;     // feedback: a NACK (W7)
};

// The DUT's data and the feedback to it, in the order the DUT saw them.
std::vector<InflightEvent> inflight_timeline(const Trace& t);

}  // namespace mrc::harness
