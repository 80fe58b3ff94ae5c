// Shared by the frame factories (cross_frames.cpp, roce_frames.cpp): the BTH expectations and
// the step that encodes a FrameSpec and records what depends on the encoded length.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "reference/wire/frame.hpp"
#include "tests/cross/cross_frames.hpp"

namespace mrc::cross {

// Writes every BTH field of `b` under its side-file name (bth.opcode, bth.dqpn, ...).
void expect_bth(const wire::Bth& b, nlohmann::json& e);

// Encodes `s` (throws std::runtime_error naming e["_kind"] when the encoder refuses), cuts the
// frame to `keep_bytes` when that is non-zero (a trimmed stub) and records payload_len,
// bth.padcnt, icrc, icrc_ok and trimmed.
GeneratedFrame finish(const wire::FrameSpec& s, nlohmann::json e, std::size_t keep_bytes = 0);

}  // namespace mrc::cross
