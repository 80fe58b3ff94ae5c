// What a tap saw: packets with nanosecond timestamps, and how complete the capture is.
//
// Packets live in an arena of large chunks (capture_chunks.hpp) so that capturing never copies
// what is stored and analysis (decode, diff, checks) walks packets without allocating per packet;
// a packet's bytes are contiguous within one chunk. Integrity counters feed the capture-integrity gate: a capture that lost
// packets makes the checks that depend on it INCONCLUSIVE, never PASS or FAIL.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/observe/capture_chunks.hpp"
#include "harness/observe/port_time.hpp"

namespace mrc::harness {

struct CapturedPacket {
  std::uint64_t ts_ns = 0;
  std::uint32_t offset = 0;   // bytes the capture stored before this packet
  std::uint32_t caplen = 0;   // bytes stored
  std::uint32_t origlen = 0;  // bytes on the wire (> caplen when the tap truncated)
  std::uint32_t chunk = 0;    // which of the capture's chunks holds the bytes
  // When the frame crossed a real interface of the DUT's (port_time.hpp; FramePort::port_time):
  // not known on the simulated fabric. Unlike ts_ns it is not the fabric's clock, which a
  // real-time bridge lags and pauses: what a bound on the DUT's own reaction judges.
  PortTime port;
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
  Capture(const Capture& o);
  Capture(Capture&& o) noexcept;
  Capture& operator=(const Capture& o);
  Capture& operator=(Capture&& o) noexcept;
  ~Capture();  // hands the chunks back (capture_chunks::recycle)

  const std::string& tap() const { return tap_; }
  void set_tap(std::string tap) { tap_ = std::move(tap); }

  // Reserve room for `packets` packets and take the chunks for `bytes` bytes up front, so that
  // add() allocates nothing until more than that arrives.
  void reserve(std::size_t packets, std::size_t bytes);
  void add(std::uint64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t origlen = 0,
           PortTime port = {});
  void clear();  // no packet, no count; the chunks go back to capture_chunks

  std::size_t size() const { return packets_.size(); }
  bool empty() const { return packets_.empty(); }
  const CapturedPacket& packet(std::size_t i) const { return packets_[i]; }
  std::span<const std::uint8_t> bytes(std::size_t i) const {
    const auto& p = packets_[i];
    const Chunk& c = chunks_[p.chunk];
    return {c.data.get() + (p.offset - c.base), p.caplen};
  }
  // Bytes stored in all (offset + caplen of the last packet).
  std::uint64_t stored_bytes() const { return stored_; }
  std::span<const CapturedPacket> packets() const { return packets_; }

  CaptureIntegrity& integrity() { return integrity_; }
  const CaptureIntegrity& integrity() const { return integrity_; }

 private:
  struct Chunk {
    capture_chunks::Bytes data;
    std::size_t capacity = 0;
    std::size_t used = 0;
    std::uint64_t base = 0;  // stored bytes before the chunk's first packet
  };
  void release_chunks();
  Chunk& room_for(std::size_t bytes);  // the chunk the next packet of `bytes` goes into

  std::string tap_;
  std::vector<Chunk> chunks_;  // chunks_[cur_] is being filled; later ones were reserved
  std::size_t cur_ = 0;
  std::uint64_t stored_ = 0;
  std::vector<CapturedPacket> packets_;
  CaptureIntegrity integrity_;
};

}  // namespace mrc::harness
