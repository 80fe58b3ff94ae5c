// Requester: what one feedback packet does (MODEL: M5 feedback, M7 EV health, M9 dynamic MPR,
// M12 NSCC inputs).
#include "reference/transport/requester.hpp"

#include <algorithm>
#include <bit>

namespace mrc::transport {
namespace {

// The feedback kind: the MFEH type when present, else the AETH syndrome alone.
wire::FeedbackType kind_of(const FeedbackInfo& fb) {
  if (fb.has_mfeh) return fb.type;
  if (fb.syndrome == wire::syndrome::kNakPsnSeqError) return wire::FeedbackType::kNackLoss;
  if (fb.syndrome == wire::syndrome::kNakTrim) return wire::FeedbackType::kTrimNack;
  return wire::FeedbackType::kAck;
}

// Fatal NAKs (IBA codes 1..3) and the completion status each maps to.
bool fatal_nak(std::uint8_t syndrome, enum ibv_wc_status& status) {
  switch (syndrome) {
    case wire::syndrome::kNakInvalidRequest: status = IBV_WC_REM_INV_REQ_ERR; return true;
    case wire::syndrome::kNakRemoteAccess: status = IBV_WC_REM_ACCESS_ERR; return true;
    case wire::syndrome::kNakRemoteOpError: status = IBV_WC_REM_OP_ERR; return true;
    default: return false;
  }
}

}  // namespace

void Requester::on_feedback(const FeedbackInfo& fb, std::uint64_t now) {
  if (error_) return;
  ++stats_.feedback;
  const wire::FeedbackType kind = kind_of(fb);

  // What the triggering packet was, looked up before the cumulative ACK retires its slot.
  const std::uint32_t trig = fb.has_mfeh ? fb.trig_psn : psn_add(fb.cum_psn, 1);
  const bool trig_known = tracked(trig);
  PsnSlot* ts = trig_known ? &slot(trig) : nullptr;
  const std::uint16_t trig_ev = ts ? ts->ev : 0;
  const bool trig_sacked = ts && (ts->flags & kSacked);
  std::uint32_t rtt_ns = 0;
  if (ts && ts->retries == 0 && !(ts->flags & kLost) && kind <= wire::FeedbackType::kSack) {
    // MODEL: M12 RTT = now - send_ts(trig_psn) - svc_time (service time in 8 ns units, M5).
    // Karn: a retransmitted PSN gives no sample.
    std::uint64_t rtt = now - ts->send_ts;
    const std::uint64_t svc = (cfg_.peer_svc_time && fb.svc_valid) ? fb.svc_time_ns : 0;
    rtt = rtt > svc ? rtt - svc : 0;
    rtt_ns = static_cast<std::uint32_t>(std::min<std::uint64_t>(rtt, UINT32_MAX));
  }

  // Dynamic MPR: honoured only when both sides enabled it (M9).
  if (fb.mpr_valid && fb.mpr != 0 && (cfg_.dynamic_mpr || cfg_.quirks.always_dynamic_mpr)) {  // MODEL: M9
    mpr_units_ = std::min(cfg_.mpr, fb.mpr);
  }

  std::uint32_t acked_bytes = 0;
  ack_through(fb.cum_psn, now, acked_bytes);
  if (fb.sack_valid) apply_sack(fb, acked_bytes);

  enum ibv_wc_status fatal_status = IBV_WC_SUCCESS;
  if (fatal_nak(fb.syndrome, fatal_status)) {
    // The responder refused the packet (bad R_Key, invalid request): the WR fails, the QP errs.
    const std::uint32_t failed = fb.has_mfeh ? fb.trig_psn : psn_add(fb.cum_psn, 1);
    complete_wrs();  // what the NAK acknowledges cumulatively completes first
    fail(tracked(failed) ? slot(failed).wr : sq_head_, fatal_status);
    return;
  }

  if (fb.ce) {
    // MODEL: M7 ECN-CE on an EV: cooldown (not a state change).
    ++stats_.ecn_marks;
    if (ts) health_->on_congestion(trig_ev, now);
  }

  switch (kind) {
    case wire::FeedbackType::kNackLoss:
      ++stats_.nack_loss;
      // MODEL: M5 the named PSN is missing at the responder: resend it now. A NACK for a PSN whose
      // last transmission is younger than the smallest RTT seen cannot be about that copy.
      if (ts && !trig_sacked && !(ts->flags & kQueued) &&
          now - ts->send_ts >= (min_rtt_ns_ == UINT64_MAX ? 0 : min_rtt_ns_)) {
        health_->on_nack_loss(trig_ev, now);  // MODEL: M7 blames the EV the PSN went out on
        const std::uint16_t len = ts->len;
        declare_lost(trig, false);
        if (nscc_) nscc_->on_loss(now, len, inflight_bytes_);
        if (cfg_.quirks.go_back_n) go_back_from(trig);
      }
      break;
    case wire::FeedbackType::kTrimNack:
      ++stats_.trim_nacks;
      // MODEL: M5/M11 a trimmed copy: resend at once, on another EV, and cool that EV (M7).
      if (ts && !trig_sacked) {
        health_->on_congestion(trig_ev, now);
        const std::uint16_t len = ts->len;
        declare_lost(trig, true);
        if (nscc_) nscc_->on_trim(now, len, inflight_bytes_);
        if (cfg_.quirks.go_back_n) go_back_from(trig);
      }
      break;
    case wire::FeedbackType::kPsnOutOfRange:
      ++stats_.out_of_range;
      // MODEL: M9 the responder dropped a PSN past its window: resend once the window moved.
      if (ts && !trig_sacked) declare_lost(trig, false);
      break;
    case wire::FeedbackType::kAck:
    case wire::FeedbackType::kSack:
      break;
  }

  if (rtt_ns != 0) min_rtt_ns_ = std::min(min_rtt_ns_, std::uint64_t{rtt_ns});
  if (nscc_ && (kind <= wire::FeedbackType::kSack || acked_bytes != 0)) {
    cc::AckSample a;  // MODEL: M12
    a.now_ns = now;
    a.acked_bytes = acked_bytes;
    a.rtt_ns = rtt_ns;
    a.ecn_marked = fb.ce;
    if (fb.has_mfeh) a.rcvd_bytes = fb.rcvd_bytes;
    a.inflight_bytes = inflight_bytes_;
    nscc_->on_ack(a);
  }
  complete_wrs();
}

void Requester::ack_through(std::uint32_t cum_psn, std::uint64_t now, std::uint32_t& acked_bytes) {
  (void)now;
  // Cumulative ACK: every PSN up to and including cum_psn arrived (M5: BTH.PSN).
  std::uint32_t n = psn_diff(psn_add(cum_psn, 1), una_psn_);
  // The honour-ghost-ack defect: an ACK ahead of everything sent (not a stale one behind una)
  // counts as acknowledging all that is outstanding.
  if (n > outstanding_ && n < (1u << 23) && cfg_.quirks.honour_ghost_ack) n = outstanding_;
  if (n == 0 || n > outstanding_) return;  // nothing new, or an old / bogus PSN
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t psn = psn_add(una_psn_, i);
    PsnSlot& s = slot(psn);
    timer_remove(psn);
    if (!(s.flags & (kSacked | kLost))) inflight_bytes_ -= s.len;
    if (!(s.flags & kSacked)) acked_bytes += s.len;
    if (s.flags & kBlame) health_->on_timeout_resolved(s.blame_ev);  // arrived after all: unreported
    s.flags = 0;
  }
  una_psn_ = psn_add(una_psn_, n);
  outstanding_ -= n;
}

void Requester::apply_sack(const FeedbackInfo& fb, std::uint32_t& acked_bytes) {
  // MODEL: M5 bit i (MSB first) set => PSN sack_base + i arrived.
  std::uint64_t bits = fb.sack_bitmap;
  while (bits != 0) {
    const auto i = static_cast<std::uint32_t>(std::countl_zero(bits));
    bits &= ~(std::uint64_t{1} << (63 - i));
    const std::uint32_t psn = psn_add(fb.sack_base, i);
    if (!tracked(psn)) continue;
    PsnSlot& s = slot(psn);
    if (s.flags & kSacked) continue;
    s.flags |= kSacked;
    timer_remove(psn);
    if (!(s.flags & kLost)) inflight_bytes_ -= s.len;
    acked_bytes += s.len;
    ++stats_.sacked_psns;
  }
}

void Requester::declare_lost(std::uint32_t psn, bool front) {
  PsnSlot& s = slot(psn);
  if (!(s.flags & kLost)) {
    s.flags |= kLost;
    inflight_bytes_ -= s.len;
  }
  queue_retx(psn, front);
}

void Requester::queue_retx(std::uint32_t psn, bool front) {
  PsnSlot& s = slot(psn);
  if (s.flags & kQueued) return;
  s.flags |= kQueued;
  if (front) {
    rq_head_ = (rq_head_ + ring_mask_) & ring_mask_;
    rq_[rq_head_] = psn;
  } else {
    rq_[(rq_head_ + rq_count_) & ring_mask_] = psn;
  }
  ++rq_count_;
}

void Requester::go_back_from(std::uint32_t psn) {
  // defect go-back-n: every PSN after the hole goes again, SACKed or not.
  const std::uint32_t from = psn_diff(psn, una_psn_);
  for (std::uint32_t i = from + 1; i < outstanding_; ++i) {
    const std::uint32_t p = psn_add(una_psn_, i);
    PsnSlot& s = slot(p);
    if (!(s.flags & kSacked)) {
      declare_lost(p, false);
    } else {
      queue_retx(p, false);
    }
  }
}

void Requester::complete_wrs() {
  // Send completions are delivered in posting order once every PSN of the WR is acknowledged.
  while (sq_count_ != 0 && sq_cursor_ != 0) {
    WrSlot& w = sq_[sq_head_];
    if (w.sent_pkts != w.npkts) break;
    if (psn_diff(una_psn_, w.first_psn) < w.npkts) break;
    if (w.imm) --wimm_outstanding_;  // MODEL: M10 ACKed through its LAST PSN
    if (w.wr.send_flags & IBV_SEND_SIGNALED) {
      Completion c;
      c.wr_id = w.wr.wr_id;
      c.status = IBV_WC_SUCCESS;
      c.opcode = IBV_WC_RDMA_WRITE;
      c.byte_len = w.wr.length;
      c.qp_num = cfg_.qpn;
      c.is_send = true;
      push_completion(c);
    }
    ++stats_.completions;
    w.payload = {};
    sq_head_ = (sq_head_ + 1) % static_cast<std::uint32_t>(sq_.size());
    --sq_count_;
    --sq_cursor_;
  }
}

}  // namespace mrc::transport
