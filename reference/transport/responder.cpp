#include "reference/transport/responder.hpp"

#include <algorithm>
#include <cerrno>

#include "reference/wire/ev_placement.hpp"

namespace mrc::transport {
namespace {

namespace op = wire::opcode;

// MRC data packets are the RC WRITE opcodes OR 0xC0 (W3): the low six bits say where in the
// message a packet sits, as in IBA.
bool is_write(std::uint8_t o) { return wire::is_mrc_data(o); }
bool is_write_imm(std::uint8_t o) { return o == op::kMrcWriteLastImm || o == op::kMrcWriteOnlyImm; }
bool is_first(std::uint8_t o) {
  return o == op::kMrcWriteFirst || o == op::kMrcWriteOnly || o == op::kMrcWriteOnlyImm;
}
bool is_last(std::uint8_t o) {
  return o == op::kMrcWriteLast || o == op::kMrcWriteLastImm || o == op::kMrcWriteOnly ||
         o == op::kMrcWriteOnlyImm;
}
// Requests addressed to a responder: the MRC data opcodes, and the RC request opcodes (IBA RC
// range 0x00..0x1F minus responses 0x0D..0x12), which MRC does not carry (W3) and answers with
// NAK invalid request like any opcode a QP does not support (IBA). Everything else (feedback,
// endpoint operations, other manufacturer opcodes) is not for the responder.
bool is_rc_request(std::uint8_t o) {
  return wire::is_mrc_data(o) || (o <= 0x1F && !(o >= op::kRcReadRespFirst && o <= op::kRcAtomicAck));
}

bool frame_ce(const wire::DecodedFrame& f) {
  if (f.l3 == wire::L3Kind::kIpv4) return f.ip4.ecn == wire::kEcnCe;
  // SRv6 (M1): a switch marks the outer header; a decapsulated packet carries the inner one.
  return f.ip6.ecn == wire::kEcnCe || (f.encapsulated && f.inner_ip6.ecn == wire::kEcnCe);
}

// A trimmed packet (W13): an MRC data packet carrying a trimmed DSCP, as decode_frame() found it
// (DecodeOptions::trimmed_dscps). A whole packet with a bad ICRC is corruption, not a trim, and is
// dropped silently.
bool looks_trimmed(const wire::DecodedFrame& f) { return f.trimmed && wire::is_mrc_data(f.bth.opcode); }

constexpr std::uint32_t kPsnMask24 = 0xFFFFFF;

}  // namespace

// ---- configuration -----------------------------------------------------------------------------

ResponderConfig responder_config(std::uint32_t qpn, const QpAttr& attr, std::uint32_t max_recv_wr,
                                 wire::EvFmtMode ev_fmt) {
  ResponderConfig c;
  c.qpn = qpn & kPsnMask24;
  c.remote_qpn = attr.dest_qp_num & kPsnMask24;
  c.rq_psn = attr.rq_psn & kPsnMask24;
  c.path_mtu = mtu_bytes(attr.path_mtu);
  c.mpr_dest = attr.mpr_dest;
  c.max_wimm_dest = attr.max_wimm_dest;
  c.max_recv_wr = max_recv_wr;
  c.cap = attr.cap;
  c.ev_fmt = ev_fmt;
  return c;
}

std::string_view check_config(const ResponderConfig& c) {
  if (c.qpn > kPsnMask24 || c.remote_qpn > kPsnMask24) return "QPN wider than 24 bits";
  if (c.rq_psn > kPsnMask24) return "rq_psn wider than 24 bits";
  if (c.path_mtu < 256 || c.path_mtu > 4096) return "path_mtu outside 256..4096";
  if (c.mpr_dest == 0) return "mpr_dest must be at least 1 (unit 128 PSNs)";
  if (c.max_wimm_dest == 0) return "max_wimm_dest must be at least 1";
  if (c.max_recv_wr == 0) return "max_recv_wr must be at least 1";
  if ((c.cap & ~qp_cap::kAll) != 0) return "unknown qp_cap bits";
  if (c.ack_every == 0) return "ack_every must be at least 1";
  return {};
}

Responder::Responder(const ResponderConfig& cfg, MemoryTable& memory, const ResponderQuirks& quirks)
    : cfg_(cfg),
      memory_(memory),
      quirks_(quirks),
      window_(cfg.rq_psn, std::uint32_t{std::max<std::uint8_t>(cfg.mpr_dest, 1)} * kMprUnitPsns,
              (cfg.cap & qp_cap::kDynamicMpr) ? SackTracker::kMaxWindow
                                              : std::uint32_t{std::max<std::uint8_t>(cfg.mpr_dest, 1)} *
                                                    kMprUnitPsns),
      recv_(std::max<std::uint32_t>(cfg.max_recv_wr, 1)),
      cq_(cfg.cq_depth != 0 ? cfg.cq_depth : 2 * std::max<std::uint32_t>(cfg.max_recv_wr, 1)),
      mpr_dest_(std::max<std::uint8_t>(cfg.mpr_dest, 1)) {
  cfg_.qpn &= kPsnMask24;
  cfg_.remote_qpn &= kPsnMask24;
  cfg_.path_mtu = std::clamp<std::uint32_t>(cfg_.path_mtu, 256, 4096);
  cfg_.max_wimm_dest = std::max<std::uint16_t>(cfg_.max_wimm_dest, 1);
  cfg_.ack_every = std::max<std::uint32_t>(cfg_.ack_every, 1);
  pending_.reserve(cfg_.max_wimm_dest);
}

// ---- receive path ------------------------------------------------------------------------------

FeedbackTrigger Responder::trigger_of(const wire::DecodedFrame& f, std::uint8_t port,
                                      std::uint64_t now) const {
  FeedbackTrigger t;
  t.valid = true;
  t.psn = f.bth.psn & kPsnMask24;
  t.ev_valid = true;
  t.ev_echo = wire::ev_echo_value(f, cfg_.ev_fmt);  // MODEL: M5
  t.port = port;
  t.ce = frame_ce(f);
  t.arrival_ns = now;
  return t;
}

RxOutcome Responder::on_data(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now,
                             FeedbackSink& sink) {
  ++stats_.rx_frames;
  const bool stub = looks_trimmed(f);
  if (!f.icrc_ok && !stub && !quirks_.accept_bad_icrc) {
    ++stats_.bad_icrc;
    return RxOutcome::kDroppedBadIcrc;
  }
  if (error_) {
    ++stats_.dropped_in_error;
    return RxOutcome::kDroppedQpError;
  }
  const std::uint8_t o = f.bth.opcode;
  if (!is_rc_request(o)) {
    ++stats_.not_request;
    return RxOutcome::kDroppedNotRequest;
  }
  if ((f.bth.dest_qp & kPsnMask24) != cfg_.qpn && !quirks_.accept_wrong_qpn) {
    ++stats_.wrong_qp;
    return RxOutcome::kDroppedWrongQp;
  }
  if ((f.bth.pkey & 0x7FFF) != (cfg_.pkey & 0x7FFF) && !quirks_.accept_wrong_pkey) {
    ++stats_.bad_pkey;
    return RxOutcome::kDroppedBadPkey;
  }

  const FeedbackTrigger t = trigger_of(f, port, now);
  RxOutcome out;
  if (stub) {
    out = on_stub(f, t, now, sink);
  } else if (o == op::kRcReadRequest && quirks_.answer_read) {
    out = accept_unplaced(t, now, sink);  // defect: the READ counts as executed
  } else if (!well_formed_write(f)) {
    // MRC carries only RDMA WRITE (with IMM), each packet with a METH and a RETH (W3, W4).
    out = fatal(FeedbackKind::kNakInvalidRequest, FatalReason::kInvalidRequest, t, now, sink);
  } else {
    switch (window_.classify(t.psn)) {  // MODEL: M9
      case SackTracker::Class::kDuplicate: out = on_duplicate(f, t, now, sink); break;
      case SackTracker::Class::kBeyondWindow: out = on_beyond_window(f, t, now, sink); break;
      case SackTracker::Class::kNew: out = on_new(f, t, now, sink); break;
      default: out = RxOutcome::kDroppedNotRequest; break;
    }
  }
  prev_ev_echo_ = t.ev_echo;
  return out;
}

// W4's rules for one data packet: METH and RETH present (ImmDt on the IMM opcodes), the payload
// within the path MTU and within the message length RETH.DMALength gives (S1: W4, the whole
// message's length). That FIRST and MIDDLE packets carry exactly one MTU is the requester's rule
// (W4); the responder places each packet by its own RETH and does not need it.
bool Responder::well_formed_write(const wire::DecodedFrame& f) const {
  const std::uint8_t o = f.bth.opcode;
  if (!is_write(o) || !f.has_meth || !f.has_reth || (is_write_imm(o) && !f.has_immdt)) return false;
  const std::size_t n = f.payload.size();
  return n <= cfg_.path_mtu && n <= f.reth.dma_length;
}

RxOutcome Responder::on_stub(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                             std::uint64_t now, FeedbackSink& sink) {  // MODEL: M11
  ++stats_.trimmed_stubs;
  if (!is_write(f.bth.opcode)) {
    ++stats_.trimmed_dropped;
    return RxOutcome::kTrimDropped;
  }
  switch (window_.classify(t.psn)) {
    case SackTracker::Class::kDuplicate:
      ++stats_.duplicates;
      emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
      return RxOutcome::kDuplicate;
    case SackTracker::Class::kBeyondWindow:
      if (quirks_.accept_out_of_window) {
        ++stats_.trimmed_dropped;
        return RxOutcome::kTrimDropped;
      }
      ++stats_.out_of_window;
      emit(FeedbackKind::kPsnOutOfRange, t, t.psn, false, now, sink);
      return RxOutcome::kOutOfWindow;
    case SackTracker::Class::kNew: break;
  }
  if (quirks_.place_trimmed_stub && f.has_reth) {
    // Defect: write whatever payload bytes survived the trim as if they were the data.
    const std::size_t n = std::min<std::size_t>(f.payload.size(), f.reth.dma_length);
    if (n != 0 && memory_.remote_write(f.reth.rkey, f.reth.va, f.payload.first(n)) == MemStatus::kOk) {
      stats_.stub_bytes_placed += n;
    }
  }
  if ((cfg_.cap & qp_cap::kTrimNackDestUnsupported) != 0 || quirks_.no_trim_nack) {
    ++stats_.trimmed_dropped;
    return RxOutcome::kTrimDropped;
  }
  window_.mark_trimmed(t.psn);
  emit(FeedbackKind::kTrimNack, t, t.psn, /*force_ce=*/true, now, sink);  // MODEL: M5
  return RxOutcome::kTrimNacked;
}

RxOutcome Responder::on_duplicate(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                                  std::uint64_t now, FeedbackSink& sink) {
  ++stats_.duplicates;
  // Behind ePSN means the message this LAST ends has completed already.
  if (quirks_.double_completion && is_write_imm(f.bth.opcode) && !window_.received(t.psn)) {
    std::uint64_t wr_id = 0;
    if (recv_.pop(wr_id)) {
      push_completion(Completion{wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
                                 f.reth.dma_length, f.immdt, cfg_.qpn, false});
    }
  }
  emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
  return RxOutcome::kDuplicate;
}

RxOutcome Responder::on_beyond_window(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                                      std::uint64_t now, FeedbackSink& sink) {  // MODEL: M9
  if (!quirks_.accept_out_of_window) {
    ++stats_.out_of_window;
    emit(FeedbackKind::kPsnOutOfRange, t, t.psn, false, now, sink);
    return RxOutcome::kOutOfWindow;
  }
  // Defect: place it anyway (the window state cannot hold it) and answer with a plain ACK/SACK.
  if (memory_.remote_write(f.reth.rkey, f.reth.va, f.payload) != MemStatus::kOk) {
    ++stats_.out_of_window;
    return RxOutcome::kOutOfWindow;
  }
  ++stats_.placed;
  stats_.placed_bytes += f.payload.size();
  emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
  return RxOutcome::kPlacedOutOfWindow;
}

RxOutcome Responder::on_new(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                            std::uint64_t now, FeedbackSink& sink) {
  const std::uint8_t o = f.bth.opcode;
  // Defects region-end-off-by-one / region-end-exclusive: the bounds check covers one byte fewer
  // or one more than the write.
  std::size_t checked = f.payload.size();
  if (quirks_.region_end_off_by_one && checked > 1) --checked;
  if (quirks_.region_end_exclusive && checked > 0) ++checked;
  if (memory_.check_remote_write(f.reth.rkey, f.reth.va, checked) != MemStatus::kOk) {
    if (quirks_.accept_bad_rkey) return accept_unplaced(t, now, sink);  // defect: no NAK 0x62
    return fatal(FeedbackKind::kNakRemoteAccess, FatalReason::kRemoteAccess, t, now, sink);
  }
  const bool imm = is_write_imm(o);
  if (imm && !quirks_.early_completion) {  // MODEL: M10 a receive is reserved on arrival
    if (pending_.size() >= cfg_.max_wimm_dest) {
      return fatal(FeedbackKind::kNakRemoteOpError, FatalReason::kWimmOverflow, t, now, sink);
    }
    if (pending_.size() >= recv_.size()) {
      return fatal(FeedbackKind::kNakRemoteOpError, FatalReason::kNoReceive, t, now, sink);
    }
  }
  if (imm && quirks_.early_completion && recv_.empty()) {
    return fatal(FeedbackKind::kNakRemoteOpError, FatalReason::kNoReceive, t, now, sink);
  }

  wire::Bytes placed = f.payload;
  if (quirks_.tail_bytes_unplaced) placed = placed.first(placed.size() & ~std::size_t{63});  // defect
  if (memory_.remote_write(f.reth.rkey, f.reth.va, placed) != MemStatus::kOk) {
    memory_.remote_write(f.reth.rkey, f.reth.va, placed.first(std::min(checked, placed.size())));  // region-end-off-by-one: what fits
  }  // checked above  // MODEL: M3
  ++stats_.placed;
  stats_.placed_bytes += f.payload.size();
  rcvd_bytes_ += static_cast<std::uint32_t>(f.payload.size());

  if (imm) {
    if (quirks_.early_completion) {
      // Defect: complete as soon as the LAST lands, whatever is still missing before it.
      std::uint64_t wr_id = 0;
      recv_.pop(wr_id);
      push_completion(Completion{wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
                                 f.reth.dma_length, f.immdt, cfg_.qpn, false});
    } else {
      pending_.push_back(PendingImm{t.psn, f.immdt});
    }
  }

  PsnRecord rec;
  rec.bits = static_cast<std::uint16_t>(f.payload.size() & PsnRecord::kLenMask);
  if (is_first(o)) rec.bits |= PsnRecord::kFirst;
  if (is_last(o)) rec.bits |= PsnRecord::kLast;
  if (imm) rec.bits |= PsnRecord::kImm;

  const bool in_order = t.psn == window_.epsn();
  window_.mark(t.psn, rec);
  std::uint32_t advanced = 0;
  drain_in_order(now, advanced);

  // ACK policy (header comment).                                                MODEL: M5
  ++unacked_;
  last_trigger_ = t;
  const bool immediate = !in_order || window_.has_holes() || advanced > 1 || t.ce ||
                         (is_last(o) && f.bth.ack_req && cfg_.ack_last_at_once) || unacked_ >= cfg_.ack_every;
  if (immediate) {
    emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
  } else if (ack_deadline_ == kNever) {
    ack_deadline_ = now + cfg_.ack_delay_ns;
  }
  return RxOutcome::kPlaced;
}

// Defects answer_read / accept_bad_rkey: the request is taken as a complete message that placed
// nothing, so its PSN is received, ePSN and MSN move on, and an ACK answers it at once.
RxOutcome Responder::accept_unplaced(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink) {
  if (window_.classify(t.psn) != SackTracker::Class::kNew) {
    emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
    return RxOutcome::kDuplicate;
  }
  PsnRecord rec;
  rec.bits = PsnRecord::kFirst | PsnRecord::kLast;
  window_.mark(t.psn, rec);
  std::uint32_t advanced = 0;
  drain_in_order(now, advanced);
  emit(FeedbackKind::kAck, t, t.psn, false, now, sink);
  return RxOutcome::kPlaced;
}

void Responder::drain_in_order(std::uint64_t now, std::uint32_t& advanced) {
  std::uint32_t psn = 0;
  PsnRecord rec;
  while (window_.pop_in_order(psn, rec)) {
    ++advanced;
    if (rec.first()) msg_bytes_ = 0;
    msg_bytes_ += rec.length();
    if (rec.last()) {
      msn_ = (msn_ + 1) & kPsnMask24;
      if (rec.imm()) complete_imm(psn);
    }
  }
  // Loss timer: it times the hole now at ePSN.                                  MODEL: M5
  if (!window_.has_holes() && !(quirks_.nack_without_hole && advanced > 0)) {
    hole_armed_ = false;
    nack_sent_ = false;
  } else if (advanced > 0 || !hole_armed_) {
    hole_armed_ = true;
    nack_sent_ = false;
    hole_since_ = now;
  }
}

void Responder::complete_imm(std::uint32_t last_psn) {  // MODEL: M10
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const PendingImm& p) { return p.last_psn == last_psn; });
  if (it == pending_.end()) return;  // completed early (early_completion defect)
  const std::uint32_t imm = it->imm;
  *it = pending_.back();
  pending_.pop_back();
  std::uint64_t wr_id = 0;
  recv_.pop(wr_id);  // reserved when the LAST arrived
  push_completion(
      Completion{wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, msg_bytes_, imm, cfg_.qpn, false});
}

void Responder::push_completion(const Completion& c) {
  if (cq_.push(c)) {
    ++stats_.completions;
  } else {
    ++stats_.cq_overflow;
  }
}

RxOutcome Responder::fatal(FeedbackKind kind, FatalReason reason, const FeedbackTrigger& t,
                           std::uint64_t now, FeedbackSink& sink) {
  emit(kind, t, t.psn, false, now, sink);
  enter_error(reason);
  switch (kind) {
    case FeedbackKind::kNakInvalidRequest: return RxOutcome::kNakInvalidRequest;
    case FeedbackKind::kNakRemoteAccess: return RxOutcome::kNakRemoteAccess;
    default: return RxOutcome::kNakRemoteOpError;
  }
}

void Responder::enter_error(FatalReason reason) {
  if (!error_) fatal_ = reason;
  error_ = true;
  pending_.clear();
  ack_deadline_ = kNever;
  hole_armed_ = false;
  std::uint64_t wr_id = 0;
  while (recv_.pop(wr_id)) {
    push_completion(Completion{wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, cfg_.qpn, false});
  }
}

void Responder::set_error() { enter_error(FatalReason::kLocal); }

// ---- feedback ------------------------------------------------------------------------------------

void Responder::emit(FeedbackKind kind, const FeedbackTrigger& t, std::uint32_t trig_psn,
                     bool force_ce, std::uint64_t now, FeedbackSink& sink) {
  FeedbackFields ff;
  const SackBlock sack = sack_block(window_, trig_psn, quirks_.sack_no_wrap);
  if (kind == FeedbackKind::kAck && sack.valid) kind = FeedbackKind::kSack;
  ff.kind = kind;
  ff.cum_psn = window_.cumulative_ack_psn();
  ff.msn = msn_;
  ff.trig_psn = trig_psn;
  if (t.valid) {
    ff.ev_valid = true;
    ff.ev_echo = quirks_.wrong_ev_echo ? prev_ev_echo_ : t.ev_echo;  // MODEL: M5
    ff.ev_port = t.port;
    ff.ce = t.ce || force_ce;
    if (cfg_.report_svc_time && !quirks_.no_service_time) {
      ff.svc_valid = true;
      ff.svc_time = svc_time_units(now >= t.arrival_ns ? now - t.arrival_ns : 0);
    }
  } else {
    ff.ce = force_ce;
  }
  ff.mpr_valid = (cfg_.cap & qp_cap::kDynamicMpr) != 0;  // W12: 0 / absent while Dynamic MPR is off
  ff.mpr = mpr_dest_;
  ff.sack_valid = sack.valid;
  ff.sack_base_off = sack.base_off;
  // sack_off_by_one defect: every bit moves one PSN later.
  ff.sack_bitmap = quirks_.sack_off_by_one ? (sack.bitmap >> 1) : sack.bitmap;
  if (quirks_.sack_no_last_bit) ff.sack_bitmap &= ~std::uint64_t{1};  // defect: PSN base + 63 never named
  ff.rcvd_bytes = rcvd_bytes_;

  TxPacket pkt;
  build_feedback(ff, cfg_.qpn, cfg_.remote_qpn, cfg_.pkey, pkt);
  FeedbackEgress egress;
  egress.has_trigger = t.valid;
  egress.arrival_port = t.port;
  egress.arrival_ev_echo = t.ev_echo;
  sink.send_feedback(pkt, egress);

  switch (kind) {
    case FeedbackKind::kAck: ++stats_.acks; break;
    case FeedbackKind::kSack: ++stats_.sacks; break;
    case FeedbackKind::kNackLoss: ++stats_.nack_loss; break;
    case FeedbackKind::kTrimNack: ++stats_.trim_nacks; break;
    case FeedbackKind::kPsnOutOfRange: ++stats_.out_of_range; break;
    default: ++stats_.error_naks; break;
  }
  // Every feedback packet carries the cumulative ACK: coalescing starts over.
  unacked_ = 0;
  ack_deadline_ = kNever;
}

std::uint64_t Responder::loss_deadline() const {
  if (!hole_armed_ || nack_sent_ || quirks_.no_nack_loss || error_) return kNever;
  if (window_.trimmed(window_.epsn())) return kNever;  // the TRIM NACK already asked for it
  return hole_since_ + cfg_.ooo_tolerance_ns;
}

std::uint64_t Responder::next_deadline() const {
  if (error_) return kNever;
  return std::min(ack_deadline_, loss_deadline());
}

void Responder::advance(std::uint64_t now, FeedbackSink& sink) {
  if (error_) return;
  if (ack_deadline_ != kNever && now >= ack_deadline_) {
    emit(FeedbackKind::kAck, last_trigger_, last_trigger_.psn, false, now, sink);
  }
  const std::uint64_t loss = loss_deadline();
  if (loss != kNever && now >= loss) {  // MODEL: M5 NACK-loss
    nack_sent_ = true;
    emit(FeedbackKind::kNackLoss, FeedbackTrigger{}, window_.epsn(), false, now, sink);
  }
}

// ---- receives and completions ---------------------------------------------------------------------

int Responder::post_recv(std::uint64_t wr_id) {
  if (error_) {
    push_completion(Completion{wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, cfg_.qpn, false});
    return 0;
  }
  return recv_.push(wr_id) ? 0 : ENOMEM;
}

bool Responder::poll_completion(Completion& out) { return cq_.pop(out); }

bool Responder::set_mpr_dest(std::uint8_t mpr_dest) {  // MODEL: M9 dynamic MPR
  if ((cfg_.cap & qp_cap::kDynamicMpr) == 0 || mpr_dest == 0) return false;
  mpr_dest_ = mpr_dest;
  window_.set_window(std::uint32_t{mpr_dest} * kMprUnitPsns);
  return true;
}

}  // namespace mrc::transport
