// One direction's PSNs as dense offsets from the lowest PSN seen, with per-PSN flags and the
// in-order frontier: what the delivery and feedback invariants track, without a hash per packet.
//
// The lowest PSN is found modulo 2^24 relative to the first one seen, so a stream that wraps
// past 0xFFFFFF stays contiguous. Offsets span at most 2^23 PSNs (one byte of flags each).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/verdict/trace.hpp"

namespace mrc::harness {

class PsnSpace {
 public:
  static constexpr std::uint8_t kArrived = 1;   // a frame the receiver may accept arrived
  static constexpr std::uint8_t kTainted = 2;   // a frame it must not accept arrived (stub, bad ICRC, ...)
  static constexpr std::uint8_t kReported = 4;  // a finding about this PSN was already made
  static constexpr std::uint8_t kSent = 8;
  static constexpr std::uint8_t kAcked = 16;

  // The PSNs of every packet `member` selects.
  template <typename Pred>
  PsnSpace(const Trace& t, Pred member) {
    bool first = true;
    std::uint32_t p0 = 0;
    std::int32_t lo = 0;
    std::int32_t hi = -1;
    for (const PacketRec& p : t.packets) {
      if (!member(p)) continue;
      if (first) {
        p0 = p.psn;
        lo = hi = 0;
        first = false;
        continue;
      }
      const std::int32_t d = psn_diff(p.psn, p0);
      lo = d < lo ? d : lo;
      hi = d > hi ? d : hi;
    }
    start_ = psn_add(p0, lo);
    flags_.assign(static_cast<std::size_t>(hi - lo + 1), 0);
  }

  bool empty() const { return flags_.empty(); }
  std::size_t size() const { return flags_.size(); }
  std::uint32_t start() const { return start_; }
  std::uint32_t psn_at(std::int64_t off) const { return psn_add(start_, off); }
  // Offset of a PSN, or -1 when outside the span seen.
  std::int64_t offset(std::uint32_t psn) const {
    const std::int32_t d = psn_diff(psn, start_);
    return d >= 0 && static_cast<std::size_t>(d) < flags_.size() ? d : -1;
  }
  std::uint8_t& flags(std::int64_t off) { return flags_[static_cast<std::size_t>(off)]; }
  bool has(std::int64_t off, std::uint8_t f) const { return off >= 0 && (flags_[static_cast<std::size_t>(off)] & f); }

  // Marks kArrived and advances the in-order frontier.
  void arrive(std::int64_t off) {
    if (off < 0) return;
    flags_[static_cast<std::size_t>(off)] |= kArrived;
    if (off > highest_) highest_ = off;
    while (static_cast<std::size_t>(frontier_ + 1) < flags_.size() && (flags_[static_cast<std::size_t>(frontier_ + 1)] & kArrived)) ++frontier_;
  }
  // The highest offset with every offset up to it arrived (-1: none), and its PSN.
  std::int64_t frontier() const { return frontier_; }
  std::uint32_t frontier_psn() const { return psn_add(start_, frontier_); }
  std::int64_t highest() const { return highest_; }

 private:
  std::uint32_t start_ = 0;
  std::vector<std::uint8_t> flags_;
  std::int64_t frontier_ = -1;
  std::int64_t highest_ = -1;
};

}  // namespace mrc::harness
