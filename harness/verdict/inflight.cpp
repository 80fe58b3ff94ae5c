#include "harness/verdict/inflight.hpp"

#include <algorithm>

#include "harness/verdict/psn_space.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness {
namespace {

bool dut_send(const PacketRec& p) { return p.from_dut && p.is_write_data(); }
bool to_dut_feedback(const PacketRec& p) { return !p.from_dut && p.is_feedback(); }

enum : std::uint8_t { kNone = 0, kInFlight = 1, kAcked = 2, kLost = 3 };

class Tracker {
 public:
  explicit Tracker(const Trace& t) : space_(t, dut_send) {
    len_.assign(space_.size(), 0);
    state_.assign(space_.size(), kNone);
    sent_at_.assign(space_.size(), 0);
    sends_.assign(space_.size(), 0);
  }

  // Returns true when this is the PSN's first transmission.
  bool send(const PacketRec& p) {
    const std::int64_t off = space_.offset(p.psn);
    if (off < 0) return false;
    const auto o = static_cast<std::size_t>(off);
    const bool first = sent_at_[o] == 0 && state_[o] == kNone;
    sent_at_[o] = p.ts_ns + 1;  // +1: 0 means never sent
    if (sends_[o] < 0xFF) ++sends_[o];
    if (state_[o] == kAcked || off <= cum_) return first;  // a resend of acknowledged data
    if (state_[o] == kInFlight) bytes_ -= len_[o];
    len_[o] = p.payload_len;
    bytes_ += len_[o];
    state_[o] = kInFlight;
    return first;
  }

  void feedback(const PacketRec& fb, InflightEvent& e) {
    if (space_.empty()) return;
    // RTT sample of the PSN a SACK answers (W5 ack_psn), before this feedback changes anything,
    // under the rule a DUT samples by (W14, UET): a PSN sent once answered with RTX = 0, or sent
    // twice answered with RTX = 1 (the echo says which copy arrived). Any other answer is
    // ambiguous, and a DUT may not take an RTT from it.
    if (fb.is_sack() && !fb.seth_pr) {
      const std::int64_t t = space_.offset(fb.trig_psn);
      if (t >= 0 && sent_at_[static_cast<std::size_t>(t)] != 0) {
        const std::uint8_t n = sends_[static_cast<std::size_t>(t)];
        if ((n == 1 && !fb.rtx) || (n == 2 && fb.rtx)) {
          e.rtt_ns = fb.ts_ns - (sent_at_[static_cast<std::size_t>(t)] - 1);
        }
      }
      e.ce = fb.skip_once();  // W14: marked = SKIP_ONCE
    }
    if (fb.carries_cack()) {
      const std::int64_t a = std::min<std::int64_t>(psn_diff(fb.psn, space_.start()),
                                                    static_cast<std::int64_t>(space_.size()) - 1);
      for (std::int64_t o = cum_ + 1; o <= a; ++o) ack(static_cast<std::size_t>(o), e);
      cum_ = std::max(cum_, a);
    }
    if (fb.is_sack()) {
      for (unsigned k = 0; k < 64; ++k) {
        if (!fb.sack_bit(k)) continue;
        const std::int64_t off = space_.offset(psn_add(fb.sack_base, k));
        if (off >= 0) ack(static_cast<std::size_t>(off), e);
      }
    }
    // A NACK of any reason names a packet the responder does not hold (W7); a trim is a loss
    // signal to NSCC (W14), the resource NACKs are not.
    if (fb.is_nack()) {
      e.loss_signal = fb.is_trim_nack();
      const std::int64_t off = space_.offset(fb.trig_psn);
      if (off > cum_ && state_[static_cast<std::size_t>(off)] == kInFlight) {
        bytes_ -= len_[static_cast<std::size_t>(off)];
        state_[static_cast<std::size_t>(off)] = kLost;
      }
    }
  }

  std::uint64_t bytes() const { return bytes_; }

 private:
  void ack(std::size_t o, InflightEvent& e) {
    if (state_[o] == kAcked) return;
    if (state_[o] == kInFlight) bytes_ -= len_[o];
    if (state_[o] != kNone) e.acked += len_[o];
    state_[o] = kAcked;
  }

  PsnSpace space_;
  std::vector<std::uint32_t> len_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint64_t> sent_at_;  // last send time + 1 (0 = never sent)
  std::vector<std::uint8_t> sends_;     // transmissions of each PSN (saturating)
  std::int64_t cum_ = -1;
  std::uint64_t bytes_ = 0;
};

}  // namespace

std::vector<InflightEvent> inflight_timeline(const Trace& t) {
  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (dut_send(p) || to_dut_feedback(p)) order.push_back(static_cast<std::uint32_t>(i));
  }
  // Same nanosecond: feedback first (the trace is already in time order).
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const PacketRec& x = t.packets[a];
    const PacketRec& y = t.packets[b];
    if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
    return !x.from_dut && y.from_dut;
  });
  Tracker k(t);
  std::vector<InflightEvent> out;
  out.reserve(order.size());
  for (const std::uint32_t i : order) {
    const PacketRec& p = t.packets[i];
    InflightEvent e;
    e.ts_ns = p.ts_ns;
    e.packet = i;
    if (dut_send(p)) {
      e.send = true;
      e.first_tx = k.send(p);
    } else {
      k.feedback(p, e);
    }
    e.inflight = k.bytes();
    out.push_back(e);
  }
  return out;
}

}  // namespace mrc::harness
