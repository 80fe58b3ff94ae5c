// The narrow interface between a testbed host and whatever sends and receives frames there: the
// reference endpoint (in-process DUT or the harness's peer), later a real interface bridged into
// the fabric. A testbed drives a host only through this: frames in with their arrival time, time
// forward, frames out with their egress port, the next timer deadline, and port admin state (the
// testbed's port-down fault). Nothing in testbed/ names a concrete endpoint type.
#pragma once

#include <cstdint>
#include <span>

#include "harness/observe/port_time.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::harness {

class FramePort {
 public:
  virtual ~FramePort() = default;

  // A frame arrived on 1-based port `port` (= plane) at `now_ns`.
  virtual void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) = 0;
  // Runs whatever is due at or before `now_ns` (timers, pacing).
  virtual void advance(std::uint64_t now_ns) = 0;
  // The next frame to transmit, written into `out` with its egress port; false when none waits.
  // `out` is the simulator's packet buffer (transport::TxFrame, a port + length + bytes array), so
  // a host writes its frame straight into the fabric's memory with no copy.
  virtual bool poll_frame(transport::TxFrame& out) = 0;
  // When advance() next has work; UINT64_MAX when nothing is scheduled.
  virtual std::uint64_t next_deadline() const = 0;
  // Admin state of a port: a down port sends and receives nothing. 0 or an errno.
  virtual int set_port_up(std::uint8_t port, bool up) = 0;
  // When the frame of the last on_frame() or poll_frame() crossed the host's real interface
  // (observe/port_time.hpp): the send that handed it to the kernel, or its kernel capture. Not
  // known for a host with no real interface (an in-process endpoint). The fabric keeps it beside
  // the frame's time on its taps (CapturedPacket::port), so a check can time the DUT against its
  // own port, not the bridge's lag.
  virtual PortTime port_time() const { return {}; }
};

}  // namespace mrc::harness
