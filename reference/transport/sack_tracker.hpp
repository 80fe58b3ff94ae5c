// Per-QP receive window of a responder (W12): the expected PSN (ePSN, one past the
// cumulative ACK point), which PSNs in [ePSN, ePSN + window - 1] have arrived, and a small
// per-PSN record the responder needs once ePSN moves past a PSN in order (payload length and the
// message-boundary bits that drive MSN and WRITE-with-IMM completion).
//
// Storage is three rings indexed by PSN modulo a power-of-two capacity >= the largest window the
// QP may advertise (mpr_dest x 128, at most 255 x 128 = 32,640 PSNs): a received bitmap, a
// "trimmed stub seen" bitmap and a 16-bit record per PSN. Everything is allocated in the
// constructor; marking, advancing and SACK extraction allocate nothing. Slots behind ePSN are
// always clear (advance clears them), so a ring slot never aliases an older PSN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mrc::transport {

// Per-PSN record kept until ePSN passes the PSN.
struct PsnRecord {
  static constexpr std::uint16_t kLenMask = 0x1FFF;  // payload bytes (path MTU <= 4096)
  static constexpr std::uint16_t kFirst = 1u << 13;  // FIRST or ONLY: a message starts here
  static constexpr std::uint16_t kLast = 1u << 14;   // LAST or ONLY: a message ends here
  static constexpr std::uint16_t kImm = 1u << 15;    // ...and it carries an immediate (WIMM)
  std::uint16_t bits = 0;

  std::uint32_t length() const { return bits & kLenMask; }
  bool first() const { return (bits & kFirst) != 0; }
  bool last() const { return (bits & kLast) != 0; }
  bool imm() const { return (bits & kImm) != 0; }
};

class SackTracker {
 public:
  static constexpr std::uint32_t kMaxWindow = 255u * 128u;  // largest mpr_dest x 128

  // `window` PSNs starting at `epsn` are accepted; the rings are sized for `max_window` (use
  // kMaxWindow when the window may grow, e.g. dynamic MPR). Windows are clamped to [1, kMaxWindow].
  SackTracker(std::uint32_t epsn, std::uint32_t window, std::uint32_t max_window);

  enum class Class : std::uint8_t {
    kNew,           // inside [ePSN, ePSN + window - 1] and not yet received
    kDuplicate,     // already received: inside the window with its bit set, or behind ePSN
                    // (IBA: up to 2^23 behind counts as an old duplicate)
    kBeyondWindow,  // ahead of the window (within 2^23 ahead of ePSN)
  };
  Class classify(std::uint32_t psn) const;

  // Records a kNew PSN. Precondition: classify(psn) == kNew.
  void mark(std::uint32_t psn, PsnRecord rec);
  // If ePSN has arrived: clears its slot, moves ePSN on by one and returns true with the PSN and
  // its record. The responder calls this until it returns false after every mark().
  bool pop_in_order(std::uint32_t& psn, PsnRecord& rec);

  // A trimmed stub for a not-yet-received PSN was answered with a TRIM NACK (W7): the loss
  // timer must not also call that PSN lost. Cleared when ePSN passes the PSN.
  void mark_trimmed(std::uint32_t psn);
  bool trimmed(std::uint32_t psn) const;

  bool received(std::uint32_t psn) const;  // inside the window and marked
  std::uint32_t epsn() const { return epsn_; }
  std::uint32_t cumulative_ack_psn() const { return (epsn_ - 1) & kPsnMask; }
  std::uint32_t window() const { return window_; }
  std::uint32_t capacity() const { return capacity_; }
  // Received PSNs not yet passed by ePSN. Once pop_in_order() has drained, these are the PSNs
  // held out of order, and non-zero means ePSN is a hole.
  std::uint32_t held() const { return held_; }
  bool has_holes() const { return held_ != 0; }
  // Highest PSN received so far (cumulative ACK PSN when nothing is held out of order).
  std::uint32_t highest_received() const { return has_holes() ? highest_ : cumulative_ack_psn(); }

  // 64 received bits starting at `base` in the SETH order (wire::Seth::sack_mask): bit k
  // of the result is PSN base + k. PSNs outside the window read as 0; PSNs behind ePSN read as 0
  // too (the reference never starts a bitmap at or below cack_psn).
  std::uint64_t bitmap64(std::uint32_t base) const;

  // Dynamic MPR (W12): a new window size, clamped to [1, capacity]. Shrinking below PSNs already
  // held keeps them (they are still placed and acknowledged) but refuses new PSNs past the window.
  void set_window(std::uint32_t window);

 private:
  static constexpr std::uint32_t kPsnMask = 0xFFFFFF;
  std::uint32_t slot(std::uint32_t psn) const { return psn & (capacity_ - 1); }
  bool bit(const std::vector<std::uint64_t>& ring, std::uint32_t psn) const {
    const std::uint32_t s = slot(psn);
    return (ring[s >> 6] >> (s & 63)) & 1u;
  }
  void set_bit(std::vector<std::uint64_t>& ring, std::uint32_t psn) {
    const std::uint32_t s = slot(psn);
    ring[s >> 6] |= std::uint64_t{1} << (s & 63);
  }
  void clear_bit(std::vector<std::uint64_t>& ring, std::uint32_t psn) {
    const std::uint32_t s = slot(psn);
    ring[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
  }

  std::uint32_t epsn_;
  std::uint32_t window_;
  std::uint32_t capacity_;
  std::uint32_t held_ = 0;     // set bits in received_ (all at or beyond ePSN)
  std::uint32_t highest_ = 0;  // highest marked PSN; valid while held_ > 0
  std::vector<std::uint64_t> received_;
  std::vector<std::uint64_t> trimmed_;
  std::vector<PsnRecord> records_;
};

}  // namespace mrc::transport
