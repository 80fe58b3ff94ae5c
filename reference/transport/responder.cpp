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
  // SRv6 (W1): a switch marks the outer header; a decapsulated packet carries the inner one.
  return f.ip6.ecn == wire::kEcnCe || (f.encapsulated && f.inner_ip6.ecn == wire::kEcnCe);
}

// A trimmed packet (W13): an MRC data packet carrying a trimmed DSCP, as decode_frame() found it.
// A whole packet with a bad ICRC is corruption, not a trim, and is dropped silently.
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
  pending_.reserve(cfg_.max_wimm_dest);
  next_sack_base_ = window_.epsn();
  last_acked_cack_ = window_.cumulative_ack_psn();
}

// IBA P_Key match: the low 15 bits; the membership bit (bit 15) takes no part (defect
// pkey-full-compare compares it too).
bool Responder::pkey_matches(std::uint16_t pkey) const {
  const std::uint16_t mask = quirks_.pkey_full_compare ? 0xFFFF : 0x7FFF;
  return (pkey & mask) == (cfg_.pkey & mask);
}

FeedbackAddress Responder::address() const {
  const std::uint8_t dscp = quirks_.feedback_in_data_class ? cfg_.data_dscp : cfg_.control_dscp;
  return FeedbackAddress{cfg_.qpn, cfg_.remote_qpn, cfg_.pkey, dscp, cfg_.pdcid_data_direction, quirks_.pdcid_zero};
}

// ---- receive path ------------------------------------------------------------------------------

FeedbackTrigger Responder::trigger_of(const wire::DecodedFrame& f, std::uint8_t port,
                                      std::uint64_t now) const {
  FeedbackTrigger t;
  t.valid = true;
  t.psn = f.bth.psn & kPsnMask24;
  t.entropy = wire::ev_echo_value(f, cfg_.ev_fmt);  // W2
  t.port = port;
  t.ce = frame_ce(f);
  t.rtx = f.bth.rtx;
  if (f.has_tseth) {
    t.has_ts = true;
    t.ts = f.tseth;
  } else if (f.has_peth) {
    t.has_ts = f.peth.ts.ftype == wire::kFtypeTimestamp;
    t.ts = f.peth.ts;
  }
  t.arrival_ns = now;
  return t;
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

RxOutcome Responder::on_data(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now,
                             FeedbackSink& sink) {
  ++stats_.rx_frames;
  // Defect trim-by-length: a receiver that expects trims to leave a short stub takes a longer one
  // (its ICRC cut off) for a corrupt full packet.
  constexpr std::size_t kShortStub = 512;
  const bool stub = looks_trimmed(f) && !(quirks_.trim_by_length && f.payload.size() > kShortStub);
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
  const bool low16_match = (f.bth.dest_qp & 0xFFFFu) == (cfg_.qpn & 0xFFFFu) && quirks_.qpn_low16;
  if ((f.bth.dest_qp & kPsnMask24) != cfg_.qpn && !quirks_.accept_wrong_qpn && !low16_match) {
    ++stats_.wrong_qp;
    return RxOutcome::kDroppedWrongQp;
  }
  if (!pkey_matches(f.bth.pkey) && !quirks_.accept_wrong_pkey) {
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
    out = fatal(wire::syndrome::kNakInvalidRequest, FatalReason::kInvalidRequest, t, now, sink);
  } else {
    switch (window_.classify(t.psn)) {  // W12
      case SackTracker::Class::kDuplicate: out = on_duplicate(f, t, now, sink); break;
      case SackTracker::Class::kBeyondWindow: out = on_beyond_window(f, t, now, sink); break;
      case SackTracker::Class::kNew: out = on_new(f, t, now, sink); break;
      default: out = RxOutcome::kDroppedNotRequest; break;
    }
  }
  prev_entropy_ = t.entropy;
  return out;
}

RxOutcome Responder::on_probe(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now,
                              FeedbackSink& sink) {
  ++stats_.rx_frames;
  if (!f.icrc_ok || error_ || !f.has_peth) {
    ++stats_.dropped_in_error;
    return RxOutcome::kDroppedQpError;
  }
  if (!pkey_matches(f.bth.pkey) && !quirks_.accept_wrong_pkey) {
    ++stats_.bad_pkey;
    return RxOutcome::kDroppedBadPkey;
  }
  // W9: one SACK, pr = 1, the probe_id in the ack_psn_offset slot, the probe's EV and timestamp,
  // the current cumulative state. A probe consumes no PSN.
  FeedbackTrigger t = trigger_of(f, port, now);
  t.probe = true;
  t.probe_id = f.peth.probe_id;
  t.rtx = false;
  ++stats_.probes;
  send_sack(t, now, sink);
  return RxOutcome::kProbeAnswered;
}

RxOutcome Responder::on_stub(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                             std::uint64_t now, FeedbackSink& sink) {  // W13, W7
  ++stats_.trimmed_stubs;
  switch (window_.classify(t.psn)) {
    case SackTracker::Class::kDuplicate:
      ++stats_.duplicates;
      send_sack(t, now, sink);  // S1: W6 a duplicate draws a SACK
      return RxOutcome::kDuplicate;
    case SackTracker::Class::kBeyondWindow:
      if (quirks_.accept_out_of_window) {
        ++stats_.trimmed_dropped;
        return RxOutcome::kTrimDropped;
      }
      ++stats_.out_of_window;
      if (cfg_.oor_nack) send_nack(t, wire::nack::kPsnOorWindow, sink);
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
  send_nack(t, f.trim_lasthop ? wire::nack::kTrimmedLastHop : wire::nack::kTrimmed, sink);
  return RxOutcome::kTrimNacked;
}

RxOutcome Responder::on_duplicate(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                                  std::uint64_t now, FeedbackSink& sink) {
  ++stats_.duplicates;
  const bool behind = !window_.received(t.psn);  // behind cack: its message completed already
  if (quirks_.double_completion && is_write_imm(f.bth.opcode) && behind) {
    std::uint64_t wr_id = 0;
    if (recv_.pop(wr_id)) {
      push_completion(Completion{wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
                                 f.reth.dma_length, f.immdt, cfg_.qpn, false});
    }
  }
  // S1: W8 a duplicate behind cack_psn is acknowledged again; S1: W6 every duplicate gets a SACK.
  if (behind) send_ack(wire::syndrome::kAck, window_.cumulative_ack_psn(), t, sink);
  send_sack(t, now, sink);
  return RxOutcome::kDuplicate;
}

RxOutcome Responder::on_beyond_window(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                                      std::uint64_t now, FeedbackSink& sink) {  // W12
  if (!quirks_.accept_out_of_window) {
    ++stats_.out_of_window;
    // MODEL: W12 silent drop by default (§6.3.1); PSN_OOR_WINDOW (Table 7-3) with oor_nack.
    if (cfg_.oor_nack) send_nack(t, wire::nack::kPsnOorWindow, sink);
    return RxOutcome::kOutOfWindow;
  }
  // Defect: place it anyway (the window state cannot hold it) and answer with a SACK.
  if (memory_.remote_write(f.reth.rkey, f.reth.va, f.payload) != MemStatus::kOk) {
    ++stats_.out_of_window;
    return RxOutcome::kOutOfWindow;
  }
  ++stats_.placed;
  stats_.placed_bytes += f.payload.size();
  send_sack(t, now, sink);
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
    return fatal(wire::syndrome::kNakRemoteAccess, FatalReason::kRemoteAccess, t, now, sink);
  }
  const bool imm = is_write_imm(o);
  if (imm && !quirks_.early_completion) {  // W16 a receive is reserved on arrival
    if (pending_.size() >= cfg_.max_wimm_dest) {
      return fatal(wire::syndrome::kNakRemoteOpError, FatalReason::kWimmOverflow, t, now, sink);
    }
    if (pending_.size() >= recv_.size()) {
      return fatal(wire::syndrome::kNakRemoteOpError, FatalReason::kNoReceive, t, now, sink);
    }
  }
  if (imm && quirks_.early_completion && recv_.empty()) {
    return fatal(wire::syndrome::kNakRemoteOpError, FatalReason::kNoReceive, t, now, sink);
  }

  wire::Bytes placed = f.payload;
  if (quirks_.tail_bytes_unplaced) placed = placed.first(placed.size() & ~std::size_t{63});  // defect
  if (memory_.remote_write(f.reth.rkey, f.reth.va, placed) != MemStatus::kOk) {
    memory_.remote_write(f.reth.rkey, f.reth.va, placed.first(std::min(checked, placed.size())));  // region-end-off-by-one: what fits
  }
  ++stats_.placed;
  stats_.placed_bytes += f.payload.size();
  rcvd_bytes_ += std::uint64_t{f.udp.length} + 40u;  // MODEL: W5 nominal size (W14)

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
  window_.mark(t.psn, rec);
  std::uint32_t advanced = 0;
  bool message_ended = false;
  drain_in_order(advanced, message_ended);
  after_accept(f, t, message_ended, now, sink);
  return RxOutcome::kPlaced;
}

void Responder::after_accept(const wire::DecodedFrame& f, const FeedbackTrigger& t, bool message_ended,
                             std::uint64_t now, FeedbackSink& sink) {
  // W6: the SACK triggers; S1: W6 the byte counter.
  sack_bytes_ += std::max<std::uint32_t>(static_cast<std::uint32_t>(f.payload.size()), 1024u);
  const bool ce = t.ce && !quirks_.no_ce_sack;  // defect no-ce-sack: a mark waits like any packet
  if (f.bth.ack_req || ce || f.bth.rtx || sack_bytes_ >= cfg_.sack_gen_threshold) {
    send_sack(t, now, sink);
  } else {
    last_trigger_ = t;
    if (sack_deadline_ == kNever) sack_deadline_ = now + cfg_.ack_delay_ns;  // MODEL: W6
  }
  // Defect nack-trimmed-on-ce: the mark also reads as a trim, so a packet that arrived whole and
  // was placed is NACKed TRIMMED as well (the requester resends it and skips its EV for nothing).
  if (t.ce && quirks_.nack_on_ce) send_nack(t, wire::nack::kTrimmed, sink);
  // W8: the Transport ACK once cack_psn covers a packet that asked (A).
  const std::uint32_t cack = window_.cumulative_ack_psn();
  if (f.bth.ack_req) {
    if (quirks_.ack_before_cack && !psn_reached(cack, t.psn)) {
      send_ack(wire::syndrome::kAck, t.psn, t, sink);  // defect ack-before-cack
      return;
    }
    if (!ack_wanted_ || psn_reached(t.psn, ack_wanted_psn_)) ack_wanted_psn_ = t.psn;
    ack_wanted_ = true;
  }
  if (ack_wanted_ && psn_reached(cack, ack_wanted_psn_)) {
    send_ack(wire::syndrome::kAck, cack, t, sink);
  } else if (message_ended && ack_deadline_ == kNever) {
    ack_deadline_ = now + cfg_.ack_delay_ns;  // MODEL: W8 a message end no ACK covered yet
  }
}

// Defects answer_read / accept_bad_rkey: the request is taken as a complete message that placed
// nothing, so its PSN is received, cack_psn and MSN move on, and an ACK answers it at once.
RxOutcome Responder::accept_unplaced(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink) {
  if (window_.classify(t.psn) == SackTracker::Class::kNew) {
    PsnRecord rec;
    rec.bits = PsnRecord::kFirst | PsnRecord::kLast;
    window_.mark(t.psn, rec);
    std::uint32_t advanced = 0;
    bool message_ended = false;
    drain_in_order(advanced, message_ended);
  }
  send_sack(t, now, sink);
  send_ack(wire::syndrome::kAck, window_.cumulative_ack_psn(), t, sink);
  return RxOutcome::kPlaced;
}

void Responder::drain_in_order(std::uint32_t& advanced, bool& message_ended) {
  std::uint32_t psn = 0;
  PsnRecord rec;
  while (window_.pop_in_order(psn, rec)) {
    ++advanced;
    if (rec.first()) msg_bytes_ = 0;
    msg_bytes_ += rec.length();
    if (rec.last()) {
      msn_ = (msn_ + 1) & kPsnMask24;
      message_ended = true;
      if (rec.imm()) complete_imm(psn);
    }
  }
}

void Responder::complete_imm(std::uint32_t last_psn) {  // W16
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

RxOutcome Responder::fatal(std::uint8_t syndrome, FatalReason reason, const FeedbackTrigger& t,
                           std::uint64_t now, FeedbackSink& sink) {
  (void)now;
  // MODEL: W8 a Transport NAK names the PSN of the packet it refuses.
  send_ack(syndrome, t.psn, t, sink);
  enter_error(reason);
  switch (syndrome) {
    case wire::syndrome::kNakInvalidRequest: return RxOutcome::kNakInvalidRequest;
    case wire::syndrome::kNakRemoteAccess: return RxOutcome::kNakRemoteAccess;
    default: return RxOutcome::kNakRemoteOpError;
  }
}

void Responder::enter_error(FatalReason reason) {
  if (!error_) fatal_ = reason;
  error_ = true;
  pending_.clear();
  sack_deadline_ = kNever;
  ack_deadline_ = kNever;
  std::uint64_t wr_id = 0;
  while (recv_.pop(wr_id)) {
    push_completion(Completion{wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, cfg_.qpn, false});
  }
}

void Responder::set_error() { enter_error(FatalReason::kLocal); }

// ---- receives and completions ---------------------------------------------------------------------

int Responder::post_recv(std::uint64_t wr_id) {
  if (error_) {
    push_completion(Completion{wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, cfg_.qpn, false});
    return 0;
  }
  return recv_.push(wr_id) ? 0 : ENOMEM;
}

bool Responder::poll_completion(Completion& out) { return cq_.pop(out); }

bool Responder::set_mpr_dest(std::uint8_t mpr_dest) {  // W12 Dynamic MPR
  if ((cfg_.cap & qp_cap::kDynamicMpr) == 0 || mpr_dest == 0) return false;
  mpr_dest_ = mpr_dest;
  window_.set_window(std::uint32_t{mpr_dest} * kMprUnitPsns);
  return true;
}

}  // namespace mrc::transport
