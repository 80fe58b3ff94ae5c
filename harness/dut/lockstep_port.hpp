// The harness's side of a lockstep agent (agent-protocol.md §9): the FramePort the simulated
// fabric drives for a DUT whose frames and time travel over the agent's control connection.
//
// The in-process order of operations is the contract. Frames in and advances are buffered and
// sent in the next STEP, which goes out when the fabric needs an answer: poll_frame() (one frame
// per STEP, because the DUT may build a frame at the moment it is taken, and the fabric takes
// frames only while its NIC queue has room) and next_deadline() (a STEP that takes none). The
// binding sends what is buffered before any control request (flush()), and marks the cached
// deadline stale after one (touch()), since a control call can start timers. A drained DUT (its
// last STEP said it had no further frame) is not asked again until something happens to it.
//
// A STEP that fails (the agent gone, a reply over a limit, an ERROR) breaks the port: it takes
// and gives nothing more, and failure() says why, which the binding reports at its next call.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "harness/agentproto/messages.hpp"
#include "harness/testbed/frame_port.hpp"

namespace mrc::harness {

class LockstepPort final : public FramePort {
 public:
  // One request and its reply: "" and the reply in `reply`, or why the call failed. An ERROR
  // reply is the caller's to turn into a failure text (`call` does: AgentBinding::request).
  using Call = std::function<std::string(agentproto::Body request, agentproto::Body& reply)>;
  // `port_admin` is the binding's PORT_ADMIN: 0 or the DUT's errno.
  using PortAdmin = std::function<int(std::uint8_t port, bool up)>;
  LockstepPort(Call call, PortAdmin port_admin) : call_(std::move(call)), port_admin_(std::move(port_admin)) {}

  void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) override;
  void advance(std::uint64_t now_ns) override;
  bool poll_frame(transport::TxFrame& out) override;
  std::uint64_t next_deadline() const override;
  int set_port_up(std::uint8_t port, bool up) override;

  // Sends the buffered ops (a STEP taking no frame); false when the port is broken.
  bool flush();
  // A control request went to the DUT: its deadline and whether it has frames are unknown again.
  void touch() {
    deadline_known_ = false;
    drained_ = false;
  }
  const std::string& failure() const { return failure_; }
  std::uint64_t steps() const { return steps_; }

 private:
  // One STEP with the buffered ops, taking up to `max_frames`; false when the port is broken.
  bool step(std::uint32_t max_frames);
  void push(agentproto::StepOpKind kind, std::uint64_t at_ns, std::uint8_t port, std::span<const std::uint8_t> frame);

  Call call_;
  PortAdmin port_admin_;
  agentproto::Step pending_;                   // ops not sent yet
  std::deque<agentproto::StepFrame> frames_;  // taken from the DUT, not yet by the fabric
  bool drained_ = false;
  bool deadline_known_ = false;
  std::uint64_t deadline_ = UINT64_MAX;
  std::uint64_t steps_ = 0;
  std::string failure_;
};

}  // namespace mrc::harness
