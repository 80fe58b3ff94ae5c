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

// Encodes `s` (throws std::runtime_error naming e["_kind"] when the encoder refuses) and records
// bth.padcnt. A whole frame also gets payload_len, icrc, icrc_ok = 1 and trimmed = 0.
//
// trim_keep != 0 plays a trimming switch (MODEL: W13): the frame keeps the BTH and `trim_keep`
// bytes after it, the IP length(s) are fixed to what is left (with the IPv4 header checksum), the
// UDP length and the ICRC stay stale. It records trimmed = 1, udp.length (the stale UDP length)
// and _udp_bytes (bytes the IP packet holds from the UDP header on); the caller records what
// survived of the headers and payload_len.
GeneratedFrame finish(const wire::FrameSpec& s, nlohmann::json e, std::size_t trim_keep = 0);

}  // namespace mrc::cross
