// Requester: recovering a lost Transport ACK (W8).
//
// A SACK retires PSNs for reliability: they are never resent and their timers stop. Completion
// waits for the Transport ACK, which travels on its own and may be lost. Without a timer on it
// the WR would wait for ever. MODEL: W8 once the oldest WR is fully SACKed but not ACKed, it gets
// the ACK timeout of its PSNs (with the same backoff and retry count, W15); when it expires the
// requester resends the WR's last packet (RTX, A). The responder takes it as a duplicate behind
// cack_psn and answers with a SACK and the Transport ACK again (W12, responder rule 6).
#include "reference/transport/requester.hpp"

namespace mrc::transport {

void Requester::arm_tack_timer(std::uint64_t now) {
  if (sq_count_ == 0 || sq_cursor_ == 0) {
    tack_deadline_ = UINT64_MAX;
    return;
  }
  const WrSlot& w = sq_[sq_head_];
  const std::uint32_t last = psn_add(w.first_psn, w.npkts - 1);
  // Only a WR whose every PSN the SACKs retired (una is past its last) and no ACK covered.
  const bool retired = w.sent_pkts == w.npkts && psn_diff(una_psn_, last) - 1 < (1u << 23);
  if (!retired) {
    tack_deadline_ = UINT64_MAX;
    return;
  }
  if (tack_deadline_ == UINT64_MAX) tack_deadline_ = now + schedule_.wait_ns(tack_retries_);
}

void Requester::on_tack_timeout(std::uint64_t now) {
  tack_deadline_ = UINT64_MAX;
  if (!schedule_.may_retry_after(tack_retries_)) {  // W15 retries exhausted
    fail(sq_head_, IBV_WC_RETRY_EXC_ERR);
    return;
  }
  ++tack_retries_;
  ++stats_.timeouts;
  tack_probe_due_ = true;
  tack_deadline_ = now + schedule_.wait_ns(tack_retries_);
}

bool Requester::emit_tack_probe(std::uint64_t now, TxPacket& out) {
  if (!tack_probe_due_ || sq_count_ == 0) return false;
  const WrSlot& w = sq_[sq_head_];
  const std::optional<std::uint16_t> ev = pick_ev(now, std::nullopt, true);
  if (!ev) return false;
  tack_probe_due_ = false;
  PsnSlot s;  // the WR's last packet, rebuilt: the ring no longer holds its slot
  s.wr = sq_head_;
  s.offset = (w.npkts - 1) * cfg_.mtu;
  s.len = static_cast<std::uint16_t>(w.wr.length - s.offset);
  s.flags = static_cast<std::uint8_t>(kLast | (w.npkts == 1 ? kFirst : 0));
  ++stats_.retransmits;
  count_tx(s.len);
  build(s, psn_add(w.first_psn, w.npkts - 1), *ev, true, now, out);
  out.bth.ack_req = true;
  return true;
}

}  // namespace mrc::transport
