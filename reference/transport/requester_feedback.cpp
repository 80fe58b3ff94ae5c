// Requester: what one feedback packet does (W6-W8 feedback, W11 EV states, W12 Dynamic MPR, W14
// NSCC inputs).
//
// - SACK (W6): every PSN <= cack_psn, every PSN a bit names and the triggering PSN are
//   reliability-acknowledged: their timers stop and they are never sent again. This completes no
//   WR (W8). m names the trigger's EV: SKIP_ONCE -> SKIP, ALWAYS_SKIP -> ASSUMED_BAD (W11). The RTT
//   sample comes from the reflected TSETH (W14), and rcvd_bytes clocks NSCC.
// - Loss inference (infer_losses): a PSN still unacknowledged is lost once a SACK bitmap showed it
//   missing, `reorder_tolerance` transmissions sent after its own have been acknowledged (no
//   source specifies it; UET's default of 3), and it is older than the time the newest-sent
//   acknowledged packet took plus a quarter of the smallest RTT (TCP RACK's rule) and than two of
//   the smallest RTTs.
//   Timeouts stay the backstop (W15).
// - NACK (W7): TRIMMED -> the EV to SKIP and the PSN resent first; TRIMMED_LASTHOP, NO_BITMAP,
//   NO_PKT_BUFFER, NO_RESOURCE -> resent; PSN_OOR_WINDOW -> resent once the window allows;
//   UNEXP_EVENT or a reason no source lists -> the QP errs (remote operational error; MODEL: W7
//   for the unknown ones).
// - Transport ACK (W8): WRs complete once a Transport ACK covers their last PSN (S1: W8); a
//   Transport NAK fails the WR its PSN belongs to.
#include <algorithm>

#include "reference/transport/requester.hpp"

namespace mrc::transport {
namespace {

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
  fb_now_ = now;
  switch (fb.kind) {
    case FeedbackInfo::Kind::kSack: on_sack(fb, now); break;
    case FeedbackInfo::Kind::kNack: on_nack(fb, now); break;
    case FeedbackInfo::Kind::kAck: on_transport_ack(fb, now); break;
  }
}

void Requester::on_sack(const FeedbackInfo& fb, std::uint64_t now) {
  ++stats_.sacks;
  const wire::Seth& s = fb.seth;
  // A cack_psn past every PSN sent is forged or stale, and so is the rest of the SACK: its bitmap
  // and trigger are not believed either (INVALID-GHOST-ACK).
  const std::uint32_t claimed = psn_diff(psn_add(s.cack_psn, 1), una_psn_);
  if (claimed > outstanding_ && claimed < (1u << 23) && !believes_ghost(claimed)) return;
  // The trigger, looked up before the cumulative ACK retires its slot.
  const bool has_trigger = !s.pr;
  const std::uint32_t trig = s.ack_psn();
  PsnSlot* ts = has_trigger && tracked(trig) ? &slot(trig) : nullptr;
  const std::uint16_t trig_ev = ts ? ts->ev : 0;
  std::uint32_t rtt_ns = 0;
  if (ts && !(ts->flags & kLost)) {
    // W14 with the UET rule: a sample only from a packet sent once whose echo says RTX = 0, or
    // sent twice whose echo says RTX = 1.
    const bool valid = (ts->retries == 0 && !fb.rtx) || (ts->retries == 1 && fb.rtx);
    if (valid && cfg_.tseth) {
      const auto now16 = static_cast<std::uint16_t>(now / wire::kTimestampUnitNs);
      const auto units = static_cast<std::uint16_t>(now16 - fb.cc.tx_timestamp);
      rtt_ns = static_cast<std::uint32_t>(std::uint64_t{units} * wire::kTimestampUnitNs);
    } else if (valid && ts->retries == 0) {
      rtt_ns = static_cast<std::uint32_t>(std::min<std::uint64_t>(now - ts->send_ts, UINT32_MAX));  // S1: W4 local table
    }
  }
  if (has_trigger && cfg_.tseth && fb.cc.tx_timestamp != 0 && cfg_.quirks.rtt_any_sack) {
    // Defect rtt-any-sack: the reflected timestamp is taken whatever copy it answers.
    const auto now16 = static_cast<std::uint16_t>(now / wire::kTimestampUnitNs);
    rtt_ns = static_cast<std::uint32_t>(std::uint64_t{static_cast<std::uint16_t>(now16 - fb.cc.tx_timestamp)} *
                                        wire::kTimestampUnitNs);
  }

  // W12 Dynamic MPR: the responder's current mpr, honoured only when both sides enabled it.
  if (s.mpr != 0 && (cfg_.dynamic_mpr || cfg_.quirks.always_dynamic_mpr)) {
    mpr_units_ = std::min(cfg_.mpr, s.mpr);
  }

  // MODEL: W11 an inferred loss counts against its EV only when the retransmission, not the first
  // copy, is what arrived: the first news of the PSN is the SACK its RTX copy draws (the
  // responder answers RTX at once, W6). News from a bitmap or cack_psn first means the first copy
  // was only late (queueing on its path), not lost.
  if (ts && ts->inferred && fb.rtx) health_->on_loss(ts->inferred_ev, now, ts->inferred_deadline);
  std::uint32_t acked_bytes = 0;
  ack_through(s.cack_psn, acked_bytes);
  arm_tack_timer(now);
  apply_sack(s, acked_bytes);
  if (has_trigger) sack_one(trig, acked_bytes);

  // W11: the verdict on the trigger's EV.
  if (ts && s.m == wire::MpVerdict::kSkipOnce) health_->on_skip(trig_ev, now);
  if (ts && s.m == wire::MpVerdict::kAlwaysSkip) health_->on_always_skip(trig_ev, now);
  if (s.m == wire::MpVerdict::kSkipOnce) ++stats_.ecn_marks;

  if (rtt_ns != 0) min_rtt_ns_ = std::min(min_rtt_ns_, std::uint64_t{rtt_ns});
  infer_losses(now);

  // W14: the ACK clock in 256-byte units of rcvd_bytes (only forward steps under 2^23 count).
  const std::uint32_t step = (fb.cc.rcvd_bytes - last_rcvd_units_) & 0xFFFFFFu;
  if (have_rcvd_units_ && step != 0 && step < (1u << 23)) rcvd_total_ += std::uint64_t{step} * wire::kRcvdBytesUnit;
  last_rcvd_units_ = fb.cc.rcvd_bytes;
  have_rcvd_units_ = true;

  if (nscc_) {
    cc::AckSample a;  // W14
    a.now_ns = now;
    a.acked_bytes = acked_bytes;
    a.rtt_ns = rtt_ns;
    a.ecn_marked = s.m == wire::MpVerdict::kSkipOnce;
    a.rcvd_bytes = static_cast<std::uint32_t>(rcvd_total_);
    a.inflight_bytes = inflight_bytes_;
    nscc_->on_ack(a);
  }
}

void Requester::on_nack(const FeedbackInfo& fb, std::uint64_t now) {
  ++stats_.nacks;
  const std::uint32_t psn = fb.neth.nack_psn & kPsnMask;
  PsnSlot* ts = tracked(psn) ? &slot(psn) : nullptr;
  const bool open = ts && !(ts->flags & kSacked);
  switch (fb.neth.nack_reason) {
    case wire::nack::kTrimmed:
    case wire::nack::kTrimmedLastHop:
      ++stats_.trim_nacks;
      if (cfg_.quirks.ignore_trim_nack) break;
      // W7: resend at once on another EV; TRIMMED also puts the EV in SKIP (W11).
      if (open) {
        if (fb.neth.nack_reason == wire::nack::kTrimmed) {
          if (cfg_.quirks.trim_marks_bad) {
            health_->on_always_skip(ts->ev, now);
          } else {
            health_->on_skip(ts->ev, now);
          }
        }
        const std::uint16_t len = ts->len;
        declare_lost(psn, true);
        if (nscc_) nscc_->on_trim(now, len, inflight_bytes_);
        if (cfg_.quirks.go_back_n) go_back_from(psn);
      }
      break;
    case wire::nack::kNoBitmap:
    case wire::nack::kNoPktBuffer:
    case wire::nack::kNoResource:
      if (open) declare_lost(psn, false);  // S1: W7 resent, the EV unchanged
      break;
    case wire::nack::kPsnOorWindow:
      ++stats_.out_of_range;
      if (open) declare_lost(psn, false);  // S1: W7 resent once the window moved
      break;
    default:
      // W7 UNEXP_EVENT (S1), and MODEL: W7 any reason no source lists: the QP errs.
      fail(ts ? ts->wr : wr_of(psn), IBV_WC_REM_OP_ERR);
      break;
  }
}

// An acknowledgement of `ahead` PSNs from una when only outstanding_ were sent is forged or stale
// (INVALID-GHOST-ACK). Defects honour-ghost-ack and ghost-ack-boundary (ahead exactly one past the
// last PSN sent) believe it, as acknowledging everything outstanding.
bool Requester::believes_ghost(std::uint32_t ahead) const {
  return cfg_.quirks.honour_ghost_ack || (cfg_.quirks.ghost_ack_boundary && ahead == outstanding_ + 1);
}

void Requester::on_transport_ack(const FeedbackInfo& fb, std::uint64_t now) {
  ++stats_.acks;
  std::uint32_t acked_bytes = 0;
  enum ibv_wc_status fatal_status = IBV_WC_SUCCESS;
  if (fatal_nak(fb.syndrome, fatal_status)) {
    // W8 Transport NAK: the responder refused the packet (bad R_Key, invalid request). MODEL: W8
    // its PSN names the packet; the WR it belongs to fails, the QP errs.
    complete_wrs();
    fail(wr_of(fb.psn), fatal_status);
    return;
  }
  if (fb.syndrome != wire::syndrome::kAck) return;  // RNR and reserved codes: MRC has none
  // W8: cumulative through its PSN, for reliability and for completion.
  std::uint32_t through = fb.psn;
  const std::uint32_t ahead = psn_diff(psn_add(through, 1), una_psn_);
  if (ahead > outstanding_ && ahead < (1u << 23)) {
    // An ACK past everything sent: ignored, unless the honour-ghost-ack defect takes it as
    // acknowledging all that is outstanding.
    if (!believes_ghost(ahead)) return;
    through = psn_add(next_psn_, kPsnMask);
  }
  ack_through(through, acked_bytes);
  if (psn_diff(psn_add(through, 1), tacked_psn_) < (1u << 23)) {
    tacked_psn_ = psn_add(through, 1);
    tack_retries_ = 0;
    tack_deadline_ = UINT64_MAX;
  }
  complete_wrs();
  arm_tack_timer(now);
}

void Requester::ack_through(std::uint32_t cum_psn, std::uint32_t& acked_bytes) {
  // Cumulative: every PSN up to and including cum_psn arrived.
  std::uint32_t n = psn_diff(psn_add(cum_psn, 1), una_psn_);
  if (n > outstanding_ && n < (1u << 23) && believes_ghost(n)) n = outstanding_;  // defect
  if (n == 0 || n > outstanding_) return;  // nothing new, or an old / bogus PSN
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t psn = psn_add(una_psn_, i);
    PsnSlot& s = slot(psn);
    timer_remove(psn);
    if (!(s.flags & (kSacked | kLost))) inflight_bytes_ -= s.len;
    if (!(s.flags & kSacked)) acked_bytes += s.len;
    if (s.flags & kBlame) health_->on_timeout_resolved(s.blame_ev);  // arrived after all: unreported
    health_->on_delivered(s.ev);
    note_acked_tx(s);
    s.flags = 0;
    s.inferred = false;
  }
  una_psn_ = psn_add(una_psn_, n);
  outstanding_ -= n;
}

void Requester::sack_one(std::uint32_t psn, std::uint32_t& acked_bytes) {
  if (!tracked(psn)) return;
  PsnSlot& s = slot(psn);
  if (s.flags & kSacked) return;
  s.flags |= kSacked;
  s.inferred = false;
  health_->on_delivered(s.ev);
  timer_remove(psn);
  if (!(s.flags & kLost)) inflight_bytes_ -= s.len;
  acked_bytes += s.len;
  ++stats_.sacked_psns;
  note_acked_tx(s);
}

void Requester::apply_sack(const wire::Seth& s, std::uint32_t& acked_bytes) {
  s.for_each_sacked_psn([&](std::uint32_t psn) { sack_one(psn, acked_bytes); });
  // The holes the responder reports are the only PSNs that may be inferred lost. A PSN no bitmap
  // has covered yet is unknown, not missing.
  s.for_each_hole_psn([&](std::uint32_t psn) {
    if (tracked(psn)) slot(psn).flags |= kHole;
  });
  // And the PSN after cack_psn, which by definition has not arrived.
  if (const std::uint32_t next = psn_add(s.cack_psn, 1); tracked(next)) slot(next).flags |= kHole;
}

void Requester::note_acked_tx(const PsnSlot& s) {
  if (s.tx_seq > rack_tx_seq_) {
    rack_tx_seq_ = s.tx_seq;
    rack_rtt_ns_ = fb_now_ > s.send_ts ? fb_now_ - s.send_ts : 0;
  }
  // The `reorder_tolerance` highest transmission sequence numbers acknowledged so far.
  std::uint32_t tx_seq = s.tx_seq;
  for (std::uint32_t& top : acked_tx_top_) {
    if (tx_seq > top) std::swap(tx_seq, top);
  }
}

void Requester::infer_losses(std::uint64_t now) {
  // MODEL: W6 a PSN is lost once `reorder_tolerance` transmissions sent after its own last one are
  // acknowledged: below the lowest of the top acked_tx_top_ entries. First transmissions go out
  // in PSN order, so the scan from una stops at the first first-transmission not below the mark.
  const std::uint32_t mark = acked_tx_top_.back();
  // No RTT sample yet: nothing tells reordering from loss; the timer decides.
  if (mark == 0 || (mark <= loss_mark_ && !loss_deferred_) || min_rtt_ns_ == UINT64_MAX) return;
  loss_mark_ = std::max(loss_mark_, mark);
  loss_deferred_ = false;
  for (std::uint32_t i = 0; i < outstanding_; ++i) {
    const std::uint32_t psn = psn_add(una_psn_, i);
    PsnSlot& s = slot(psn);
    if (s.tx_seq >= mark) {
      if (s.retries == 0) break;
      continue;
    }
    if (s.flags & (kSacked | kLost | kQueued) || !(s.flags & kHole)) continue;
    // Sprayed packets overtake each other by the queueing differences of their paths: a copy is
    // given the time the newest-sent acknowledged packet took, plus a quarter of the smallest RTT
    // (TCP RACK's reordering window), and never less than two of the smallest RTTs.
    if (now - s.send_ts < std::max(2 * min_rtt_ns_, rack_rtt_ns_ + min_rtt_ns_ / 4)) {
      loss_deferred_ = true;
      continue;
    }
    infer_lost(psn, now);
    if (cfg_.quirks.go_back_n) go_back_from(psn);
  }
}

void Requester::infer_lost(std::uint32_t psn, std::uint64_t now) {
  PsnSlot& s = slot(psn);
  ++stats_.inferred_losses;
  s.inferred = true;
  s.inferred_ev = s.ev;
  s.inferred_deadline = s.deadline;  // the lost copy's timer, before the resend re-arms it
  const std::uint16_t len = s.len;
  declare_lost(psn, false);
  if (nscc_) nscc_->on_loss(now, len, inflight_bytes_);
}

void Requester::on_probe_evidence(std::uint16_t ev, std::uint64_t probe_sent_ns, std::uint64_t now) {
  if (error_) return;
  for (std::uint32_t i = 0; i < outstanding_; ++i) {
    const std::uint32_t psn = psn_add(una_psn_, i);
    PsnSlot& s = slot(psn);
    if (s.send_ts >= probe_sent_ns) {
      if (s.retries == 0) break;  // first transmissions go out in PSN order
      continue;
    }
    // A PSN already resent after a timeout or an inference is left to its timer: a peer that
    // answers probes but never gets the data would otherwise draw a resend every probe period for
    // as long as the QP lives.
    if (s.ev != ev || s.retries != 0 || s.inferred || s.flags & (kSacked | kLost | kQueued)) continue;
    infer_lost(psn, now);
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

std::uint32_t Requester::wr_of(std::uint32_t psn) const {
  // The posted WR whose PSNs hold `psn`, else the oldest one.
  const auto n = static_cast<std::uint32_t>(sq_.size());
  for (std::uint32_t i = 0; i < sq_count_ && i < sq_cursor_ + 1; ++i) {
    const std::uint32_t idx = (sq_head_ + i) % n;
    const WrSlot& w = sq_[idx];
    if (w.sent_pkts != 0 && psn_diff(psn, w.first_psn) < w.npkts) return idx;
  }
  return sq_head_;
}

void Requester::complete_wrs() {
  // W8: send completions in posting order once a Transport ACK covered every PSN of the WR.
  while (sq_count_ != 0 && sq_cursor_ != 0) {
    WrSlot& w = sq_[sq_head_];
    if (w.sent_pkts != w.npkts) break;
    if (psn_diff(tacked_psn_, w.first_psn) < w.npkts || psn_diff(tacked_psn_, w.first_psn) >= (1u << 23)) break;
    if (w.imm) --wimm_outstanding_;  // W16 acknowledged through its LAST PSN
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
