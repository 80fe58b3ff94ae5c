// The responder's feedback (W6-W8): the SACK window and bitmap, SACKs, NACKs and Transport
// ACK / NAKs, and its two timers (a SACK and a Transport ACK owed but held back).
// responder.cpp holds the receive path that decides when each is due.
#include <algorithm>

#include "reference/transport/responder.hpp"

namespace mrc::transport {

// ---- feedback ------------------------------------------------------------------------------------

void Responder::sack_window(std::uint32_t trigger, bool has_trigger, std::int16_t& offset, std::uint64_t& bitmap) {
  const std::uint32_t epsn = window_.epsn();
  std::uint32_t base = epsn;  // W6: sack_offset 1 while everything held fits the first 64 PSNs
  const std::uint32_t highest = window_.highest_received();
  const std::uint32_t span = (highest - epsn) & kPsnMask;
  const std::uint32_t trig_off = (trigger - epsn) & kPsnMask;
  if (cfg_.sack_window_at_trigger && has_trigger && trig_off < window_.capacity()) {
    // Variant sack-window-at-trigger: the 64-PSN block (counted from epsn) holding the trigger.
    base = (epsn + (trig_off / 64u) * 64u) & kPsnMask;
  } else if (window_.has_holes() && span >= 64 && span < (1u << 23)) {
    // S1: W6 (UET) the window walks upward across successive SACKs from the lowest PSN not yet
    // reported, never starting past the highest PSN held minus 63.
    if (!psn_reached(next_sack_base_, epsn) || !psn_reached(highest, next_sack_base_)) next_sack_base_ = epsn;
    const std::uint32_t last_start = (highest - 63) & kPsnMask;
    base = psn_reached(last_start, next_sack_base_) ? next_sack_base_ : last_start;
    next_sack_base_ = (base + 64) & kPsnMask;
  }
  offset = static_cast<std::int16_t>(static_cast<std::uint16_t>((base - window_.cumulative_ack_psn()) & 0xFFFFu));
  bitmap = window_.bitmap64(base);
  if (quirks_.sack_no_wrap) {
    // Defect sack-no-wrap: a PSN numerically below cack (one past the 2^24 wrap) counts as not
    // received, as if PSNs were compared without the 24-bit wrap.
    for (unsigned k = 0; k < 64; ++k) {
      if (((base + k) & kPsnMask) < epsn) bitmap &= ~wire::Seth::sack_mask(k);
    }
  }
  if (quirks_.sack_off_by_one) bitmap <<= 1;  // defect: every bit one PSN later
  if (quirks_.sack_no_last_bit) bitmap &= ~wire::Seth::sack_mask(63);  // defect: base + 63 never named
}

void Responder::send_sack(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink) {
  wire::Seth s;
  const std::uint32_t cack = window_.cumulative_ack_psn();
  s.cack_psn = cack;
  s.pr = t.probe;
  s.ack_psn_offset = t.probe ? static_cast<std::int16_t>(t.probe_id)
                             : static_cast<std::int16_t>(static_cast<std::uint16_t>((t.psn - cack) & 0xFFFFu));
  s.entropy = quirks_.wrong_ev_echo && !t.probe ? prev_entropy_ : t.entropy;
  s.m = t.ce && !quirks_.no_ce_sack ? wire::MpVerdict::kSkipOnce : wire::MpVerdict::kNone;  // W6
  s.cc_type = 0;
  // S1: W12 the current mpr_dest while this QP runs Dynamic MPR, 0 otherwise (the requester
  // adopts it only when it enabled Dynamic MPR too).
  s.mpr = (cfg_.cap & qp_cap::kDynamicMpr) != 0 ? mpr_dest_ : 0;
  sack_window(t.psn, t.valid && !t.probe, s.sack_offset, s.sack_bitmap);
  wire::CcState c;
  if (t.has_ts && !quirks_.no_ts_reflect) {
    c.tx_timestamp = t.ts.tx_timestamp;
    if (cfg_.report_svc_time && now > t.arrival_ns) {
      // MODEL: W14 the service time rides in the reflected timestamp, 128 ns units.
      c.tx_timestamp = static_cast<std::uint16_t>(c.tx_timestamp + (now - t.arrival_ns) / wire::kTimestampUnitNs);
    }
  }
  c.ooo_count = static_cast<std::uint16_t>(std::min<std::uint32_t>(window_.held(), wire::kOooCountMax));
  c.rcvd_bytes = static_cast<std::uint32_t>(((rcvd_bytes_ + wire::kRcvdBytesUnit - 1) / wire::kRcvdBytesUnit) & 0xFFFFFFu);
  TxPacket pkt;
  build_sack(s, c, t.rtx, address(), pkt);
  FeedbackEgress egress{t.valid, t.port, t.entropy};
  sink.send_feedback(pkt, egress);
  ++stats_.sacks;
  sack_bytes_ = 0;
  sack_deadline_ = kNever;
}

void Responder::send_nack(const FeedbackTrigger& t, std::uint8_t reason, FeedbackSink& sink) {
  FeedbackTrigger n = t;
  if (quirks_.wrong_ev_echo) n.entropy = prev_entropy_;
  TxPacket pkt;
  build_nack(n, reason, address(), pkt);
  FeedbackEgress egress{t.valid, t.port, t.entropy};
  sink.send_feedback(pkt, egress);
  ++stats_.nacks;
  if (reason == wire::nack::kTrimmed || reason == wire::nack::kTrimmedLastHop) ++stats_.trim_nacks;
}

void Responder::send_ack(std::uint8_t syndrome, std::uint32_t psn, const FeedbackTrigger& t, FeedbackSink& sink) {
  TxPacket pkt;
  build_transport_ack(syndrome, psn, msn_, address(), pkt);
  FeedbackEgress egress{t.valid, t.port, t.entropy};
  sink.send_feedback(pkt, egress);
  if (syndrome == wire::syndrome::kAck) {
    ++stats_.acks;
    ack_wanted_ = false;
    ack_deadline_ = kNever;
    last_acked_cack_ = window_.cumulative_ack_psn();
  } else {
    ++stats_.error_naks;
  }
}

std::uint64_t Responder::next_deadline() const {
  if (error_) return kNever;
  return std::min(sack_deadline_, ack_deadline_);
}

void Responder::advance(std::uint64_t now, FeedbackSink& sink) {
  if (error_) return;
  if (sack_deadline_ != kNever && now >= sack_deadline_) send_sack(last_trigger_, now, sink);
  if (ack_deadline_ != kNever && now >= ack_deadline_) {
    send_ack(wire::syndrome::kAck, window_.cumulative_ack_psn(), FeedbackTrigger{}, sink);
  }
}

}  // namespace mrc::transport
