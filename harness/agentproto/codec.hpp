// Encoding and strict decoding of agent-protocol frames (harness/dut/agent-protocol.md).
//
// Two layers: check_frame() finds frame boundaries in a byte stream (it only reads the 12-byte
// header, so a peer announcing 4 GiB is refused before anything is buffered), decode_message()
// turns exactly one frame into a Message. Both report typed problems (ErrorCode + a detail that
// names the field); nothing throws. encode_message() applies the same limits, so a message it
// produces always decodes back to itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto {

struct Problem {
  ErrorCode code = ErrorCode::kNone;
  std::string detail;  // "ApplyConfig.evs[3].value: 40 exceeds the limit of 32"
  bool ok() const { return code == ErrorCode::kNone; }
};

struct Header {
  std::uint32_t length = 0;  // bytes after the length field
  std::uint16_t type = 0;
  std::uint16_t flags = 0;
  std::uint32_t seq = 0;
};

struct FrameCheck {
  enum class Status : std::uint8_t {
    kNeedMore,  // not a whole frame yet (fewer than 12 bytes, or the body is still arriving)
    kFrame,     // buf starts with a whole frame of `frame_bytes` bytes
    kBad,       // the header is unusable (length < 8 or > kMaxLength): the stream is lost
  };
  Status status = Status::kNeedMore;
  std::size_t frame_bytes = 0;  // 4 + length, when the length is valid
  bool have_header = false;     // `header` holds the first 12 bytes
  Header header;
  Problem problem;              // kBad only
};

// Looks at the start of a received byte stream.
FrameCheck check_frame(std::span<const std::uint8_t> buf);

// Decodes exactly one frame (`frame` = length field through the end of the body). Checks the
// length field against frame.size(), the type, the flags for the type's direction and every body
// field; `out` is meaningful only when the result is ok() (its seq and flags are set as soon as
// the header is readable, so an ERROR reply can echo the seq).
Problem decode_message(std::span<const std::uint8_t> frame, Message& out);

// Appends one frame to `out`. On a problem (a field over its limit, flags not allowed for the
// type's direction) nothing is appended.
Problem encode_message(const Message& m, std::vector<std::uint8_t>& out);

// Convenience for tests and clients: the frame bytes, or an empty vector on a problem.
std::vector<std::uint8_t> encode(const Message& m);

// The flags a message of `type` may carry.
std::uint16_t allowed_flags(std::uint16_t type);

}  // namespace mrc::agentproto
