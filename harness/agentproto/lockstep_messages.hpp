// The lockstep messages of the DUT-agent protocol (version 5, harness/dut/agent-protocol.md §9):
// a DUT with no interfaces and no clock of its own (a NIC's software model, the reference, a
// plugin) is one host of the harness's simulated fabric, driven across the control connection by
// the five frame-port operations (harness/testbed/frame_port.hpp). Kept apart from messages.hpp,
// which includes this header before it defines the message variant.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mrc::agentproto {

namespace limit {
inline constexpr std::size_t kStepOps = 64;       // frames and advances in one STEP
inline constexpr std::size_t kStepFrames = 64;    // frames asked for / returned by one STEP
inline constexpr std::size_t kFrameBytes = 9216;  // one frame either way (a jumbo frame's room)
inline constexpr std::uint8_t kMaxPlanes = 32;    // ATTACH.planes: one port per plane, 1..32
}  // namespace limit

// HELLO_OK.clock: where the DUT's frames and time come from.
enum class Clock : std::uint8_t {
  kReal = 0,     // real interfaces and the wall clock (the real-time bridge)
  kVirtual = 1,  // lockstep: frames and virtual time over this connection
};

// The addresses the fabric gives the DUT's host and how many planes (ports 1..planes) it has.
struct Attach {
  std::array<std::uint8_t, 6> mac{};
  std::array<std::uint8_t, 16> gid{};
  std::uint32_t ipv4 = 0;  // host order; 0 = none
  std::uint8_t planes = 1;
  bool operator==(const Attach&) const = default;
};

enum class StepOpKind : std::uint8_t {
  kFrame = 0,    // `frame` arrived on `port` at `at_ns`
  kAdvance = 1,  // run what is due at or before `at_ns` (port 0, no frame)
};

struct StepOp {
  StepOpKind kind = StepOpKind::kAdvance;
  std::uint64_t at_ns = 0;  // virtual ns since the case's fabric started
  std::uint8_t port = 0;
  std::vector<std::uint8_t> frame;  // <= limit::kFrameBytes
  bool operator==(const StepOp&) const = default;
};

// The ops in fabric order, then up to `max_frames` frames the DUT transmits.
struct Step {
  std::vector<StepOp> ops;      // <= limit::kStepOps
  std::uint32_t max_frames = 1; // <= limit::kStepFrames
  bool operator==(const Step&) const = default;
};

struct StepFrame {
  std::uint8_t port = 1;  // the egress port the DUT chose
  std::vector<std::uint8_t> frame;
  bool operator==(const StepFrame&) const = default;
};

// STEP's reply.
struct Frames {
  std::vector<StepFrame> frames;  // <= limit::kStepFrames, in transmit order
  bool drained = false;           // the DUT had no further frame (false: it stopped at max_frames)
  std::uint64_t next_deadline_ns = UINT64_MAX;  // the DUT's next timer work; UINT64_MAX none
  bool operator==(const Frames&) const = default;
};

}  // namespace mrc::agentproto
