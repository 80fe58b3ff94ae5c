// What a tap saw: packets with nanosecond timestamps, and how complete the capture is.
//
// Packets live in one contiguous arena so that analysis (decode, diff, checks) walks them without
// allocating per packet. Integrity counters feed the capture-integrity gate: a capture that lost
// packets makes the checks that depend on it INCONCLUSIVE, never PASS or FAIL.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mrc::harness {

struct CapturedPacket {
  std::uint64_t ts_ns = 0;
  std::uint32_t offset = 0;   // into Capture::arena
  std::uint32_t caplen = 0;   // bytes stored
  std::uint32_t origlen = 0;  // bytes on the wire (> caplen when the tap truncated)
};

struct CaptureIntegrity {
  std::uint64_t offered = 0;      // packets that crossed the tapped link
  std::uint64_t captured = 0;     // packets stored
  std::uint64_t tap_dropped = 0;  // lost by the tap itself (ring overflow, kernel drops)
  std::uint64_t truncated = 0;    // stored shorter than on the wire by the tap's snaplen
  bool ns_timestamps = true;      // timestamps are nanosecond-accurate (virtual clock or HW)

  // Everything that crossed the link is in the capture, whole, with usable timestamps.
  bool complete() const { return tap_dropped == 0 && truncated == 0 && captured == offered && ns_timestamps; }
  std::string describe() const;  // "offered 10, captured 9, tap dropped 1, ..."
};

class Capture {
 public:
  Capture() = default;
  explicit Capture(std::string tap) : tap_(std::move(tap)) {}

  const std::string& tap() const { return tap_; }
  void set_tap(std::string tap) { tap_ = std::move(tap); }

  // Reserve room so that add() does not reallocate during a run.
  void reserve(std::size_t packets, std::size_t bytes);
  void add(std::uint64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t origlen = 0);
  void clear();

  std::size_t size() const { return packets_.size(); }
  bool empty() const { return packets_.empty(); }
  const CapturedPacket& packet(std::size_t i) const { return packets_[i]; }
  std::span<const std::uint8_t> bytes(std::size_t i) const {
    const auto& p = packets_[i];
    return {arena_.data() + p.offset, p.caplen};
  }
  std::span<const CapturedPacket> packets() const { return packets_; }

  CaptureIntegrity& integrity() { return integrity_; }
  const CaptureIntegrity& integrity() const { return integrity_; }

 private:
  std::string tap_;
  std::vector<std::uint8_t> arena_;
  std::vector<CapturedPacket> packets_;
  CaptureIntegrity integrity_;
};

}  // namespace mrc::harness
