// The lockstep requests' part of the bad-message catalog (bad_messages.hpp): ATTACH and STEP
// malformed every way the codec can see, and both sent to an agent on real interfaces.
//
// Header-only test support (the test globs pick up *_test.cpp only).
#pragma once

#include <string>
#include <vector>

#include "harness/agentproto/codec.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::testing {

// `BadMessage`, raw_frame(), body_of(), u32be() and cat() come from bad_messages.hpp, which
// includes this header after defining them.
inline void add_lockstep_entries(std::vector<BadMessage>& c) {
  using T = MsgType;
  auto add = [&c](std::string name, T type, const std::vector<std::uint8_t>& body, ErrorCode code) {
    c.push_back({std::move(name), raw_frame(static_cast<std::uint16_t>(type), 0, 5, body), code, true, false, true, 5});
  };
  const std::vector<std::uint8_t> attach = body_of(Message{0, 5, Attach{{2, 0, 0, 0, 0, 9}, {0xfd}, 0, 8}});
  auto with_planes = [&attach](std::uint8_t planes) {
    std::vector<std::uint8_t> b = attach;
    b.back() = planes;
    return b;
  };
  add("attach_planes_0", T::kAttach, with_planes(0), ErrorCode::kBadValue);
  add("attach_planes_33", T::kAttach, with_planes(33), ErrorCode::kBadValue);
  add("attach_truncated", T::kAttach, std::vector<std::uint8_t>(attach.begin(), attach.end() - 1), ErrorCode::kTruncatedBody);
  add("attach_trailing_byte", T::kAttach, cat(attach, {0}), ErrorCode::kTrailingBytes);

  // One op: kind, at_ns (8), port, frame (bytes32), then max_frames.
  auto op = [](std::uint8_t kind, std::uint8_t port, std::uint32_t frame_len, std::size_t frame_present) {
    return cat(cat(cat({kind}, std::vector<std::uint8_t>(8, 0)), cat({port}, u32be(frame_len))),
               std::vector<std::uint8_t>(frame_present, 0xEE));
  };
  auto step = [](std::uint32_t count, const std::vector<std::uint8_t>& ops, std::uint32_t max_frames) {
    return cat(cat(u32be(count), ops), u32be(max_frames));
  };
  add("step_ops_over_limit", T::kStep, step(65, {}, 1), ErrorCode::kFieldTooLong);
  add("step_ops_count_past_body", T::kStep, step(3, op(1, 0, 0, 0), 1), ErrorCode::kTruncatedBody);
  add("step_bad_kind", T::kStep, step(1, op(2, 0, 0, 0), 1), ErrorCode::kBadValue);
  add("step_advance_with_frame", T::kStep, step(1, op(1, 0, 4, 4), 1), ErrorCode::kBadValue);
  add("step_advance_on_port", T::kStep, step(1, op(1, 3, 0, 0), 1), ErrorCode::kBadValue);
  add("step_frame_on_port_0", T::kStep, step(1, op(0, 0, 60, 60), 1), ErrorCode::kBadValue);
  add("step_frame_over_limit", T::kStep, step(1, op(0, 1, 9217, 9217), 1), ErrorCode::kFieldTooLong);
  add("step_frame_length_lies", T::kStep, step(1, op(0, 1, 1000, 10), 1), ErrorCode::kTruncatedBody);
  add("step_max_frames_over_limit", T::kStep, step(0, {}, 65), ErrorCode::kFieldTooLong);
  add("step_trailing_byte", T::kStep, cat(step(0, {}, 1), {0}), ErrorCode::kTrailingBytes);
  add("frames_sent_to_agent", T::kFrames, body_of(Message{0, 5, Frames{}}), ErrorCode::kUnexpectedReply);
  c.back().codec_visible = false;  // the session refuses a reply type before reading its body

  // Well formed, but the agent drives real interfaces: lockstep is not what it offers.
  auto on_real = [&c](std::string name, Body b) {
    c.push_back({std::move(name), encode(Message{0, 7, std::move(b)}), ErrorCode::kUnsupported, true, false, false, 7});
  };
  on_real("attach_on_real_agent", Attach{{2, 0, 0, 0, 0, 9}, {0xfd}, 0, 2});
  on_real("step_on_real_agent", Step{{StepOp{StepOpKind::kAdvance, 1000, 0, {}}}, 1});
}

}  // namespace mrc::agentproto::testing
