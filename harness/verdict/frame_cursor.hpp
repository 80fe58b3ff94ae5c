// Walking a tap's capture frame by frame, decoded, without allocating.
//
// A FrameCursor owns one DecodedFrame and re-decodes into it on every next(): the frame views
// point into the capture's arena, so nothing is copied. Frames that are not RoCEv2 at all (ARP,
// neighbour discovery, other UDP) are skipped and counted as foreign; frames that look like RoCEv2
// but do not decode (a bad length, an unknown opcode) are skipped and counted as
// malformed, and the first few are remembered with their packet index so a check can show them
// as evidence. A malformed packet is evidence, never a crash.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "harness/verdict/check_context.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {

// What a frame is, by BTH opcode.
enum class FrameClass : std::uint8_t {
  kData,      // a request: RC SEND/WRITE/READ/atomic opcodes (an MRC DUT sends only WRITEs)
  kFeedback,  // SACK 0xDC, NACK 0xDD, Transport ACK 0xD1 (W5-W8); RC ACKNOWLEDGE / atomic ACK
  kEndpoint,  // endpoint request 0xD8 / response 0xD9 (W10)
  kProbe,     // reliability probe 0xDE (W9)
  kOther,     // CNP and anything else that decoded
};
FrameClass classify(std::uint8_t opcode);
// MRC WRITE FIRST/MIDDLE/LAST/ONLY with or without immediate (0xC6..0xCB, W3).
bool is_write(std::uint8_t opcode);
bool is_write_first(std::uint8_t opcode);  // FIRST or ONLY (a message starts)
bool is_write_last(std::uint8_t opcode);   // LAST or ONLY, with or without immediate (it ends)
bool carries_imm(std::uint8_t opcode);     // WRITE LAST/ONLY with immediate
// Not RoCEv2 at all (the frame belongs to another protocol), as opposed to a broken RoCEv2 frame.
bool is_foreign(wire::WireError e);

struct DecodeIssue {
  std::size_t index = 0;  // packet index in the capture
  std::uint64_t ts_ns = 0;
  wire::WireError error = wire::WireError::kOk;
  std::size_t offset = 0;  // byte offset where decoding stopped
};

class FrameCursor {
 public:
  static constexpr std::size_t kKeptIssues = 4;

  // `dscp`: the run's configured traffic classes, whose TRIMMED / TRIMMED_LASTHOP values mark a
  // trimmed data packet (W13).
  explicit FrameCursor(const TapCapture& tap, bool verify_icrc = true, const wire::DscpConfig& dscp = {});

  // Advances to the next RoCEv2 frame that decodes. Returns false at the end of the capture.
  bool next();

  std::size_t index() const { return index_; }
  std::uint64_t ts_ns() const { return tap_.capture.packet(index_).ts_ns; }
  const CapturedPacket& packet() const { return tap_.capture.packet(index_); }
  std::span<const std::uint8_t> bytes() const { return tap_.capture.bytes(index_); }
  const wire::DecodedFrame& frame() const { return frame_; }
  const TapCapture& tap() const { return tap_; }

  std::size_t malformed() const { return malformed_; }
  std::size_t malformed(wire::WireError e) const { return by_error_[static_cast<std::size_t>(e) % by_error_.size()]; }
  std::size_t foreign() const { return foreign_; }
  // The first kKeptIssues malformed frames.
  std::span<const DecodeIssue> issues() const { return {issues_.data(), kept_}; }

 private:
  const TapCapture& tap_;
  wire::DecodeOptions opt_;
  wire::DecodedFrame frame_;
  std::size_t index_ = 0;
  std::size_t pos_ = 0;  // next packet to decode
  std::size_t malformed_ = 0;
  std::array<std::size_t, 32> by_error_{};
  std::size_t foreign_ = 0;
  std::array<DecodeIssue, kKeptIssues> issues_{};
  std::size_t kept_ = 0;
};

}  // namespace mrc::harness
