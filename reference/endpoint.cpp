// Endpoint data plane: receive routing, the send loop, timers, completions and events.
// Control plane (QPs, MRs, ports) is in endpoint_qp.cpp, frame building in endpoint_tx.cpp,
// EP operations and health probes in endpoint_ep.cpp.
#include "reference/endpoint.hpp"

#include <algorithm>

#include "reference/endpoint_internal.hpp"

namespace mrc::ref {

transport::RequesterQuirks requester_quirks(const DefectReads& d) {
  transport::RequesterQuirks q;
  q.exceed_mpr_window = d.flag(Defect::kExceedMprWindow);
  q.ignore_wimm = d.flag(Defect::kIgnoreWimm);
  q.retransmit_same_ev = d.flag(Defect::kRetransmitSameEv);
  q.go_back_n = d.flag(Defect::kGoBackN);
  q.no_reth_middle = d.flag(Defect::kNoRethOnMiddle);
  q.wrong_icrc = d.flag(Defect::kWrongIcrc);
  q.slow_timeout = d.flag(Defect::kSlowTimeout);
  q.honour_ghost_ack = d.flag(Defect::kHonourGhostAck);
  q.ghost_ack_boundary = d.flag(Defect::kGhostAckBoundary);
  q.retry.never_give_up = d.flag(Defect::kNeverGiveUp);
  q.last_reth_len_mtu = d.flag(Defect::kLastRethLenMtu);
  q.msn_per_packet = d.flag(Defect::kMethMsnPerPacket);
  q.retry.linear_backoff = d.flag(Defect::kBackoffAddsT);
  q.retry.no_cap = d.flag(Defect::kNoBackoffCap);
  q.retry.timeout_cap_20 = d.flag(Defect::kTimeoutCap20);
  q.retry.one_extra = d.flag(Defect::kRetryOneExtra);
  q.retry.exp25_finite = d.flag(Defect::kExp25Finite);
  q.always_dynamic_mpr = d.flag(Defect::kMprAlwaysDynamic);
  q.ignore_trim_nack = d.flag(Defect::kTrimNackIgnored);
  q.trim_marks_bad = d.flag(Defect::kTrimMarksBad);
  q.data_not_ect = d.flag(Defect::kDataNotEct);
  q.rtt_any_sack = d.flag(Defect::kRttAnySack);
  return q;
}

transport::ResponderQuirks responder_quirks(const DefectReads& d) {
  transport::ResponderQuirks q;
  q.sack_off_by_one = d.flag(Defect::kSackOffByOne);
  q.wrong_ev_echo = d.flag(Defect::kWrongEvEcho);
  q.no_trim_nack = d.flag(Defect::kNoTrimNack);
  q.place_trimmed_stub = d.flag(Defect::kPlaceTrimmedStub);
  q.early_completion = d.flag(Defect::kEarlyCompletion);
  q.double_completion = d.flag(Defect::kDoubleCompletion);
  q.no_ce_sack = d.flag(Defect::kNoCeSack);
  q.nack_on_ce = d.flag(Defect::kNackTrimmedOnCe);
  q.accept_out_of_window = d.flag(Defect::kAcceptOutOfWindow);
  q.no_ts_reflect = d.flag(Defect::kNoTsReflect);
  q.answer_read = d.flag(Defect::kAnswerRead);
  q.accept_bad_rkey = d.flag(Defect::kAcceptBadRkey);
  q.accept_wrong_pkey = d.flag(Defect::kAcceptWrongPkey);
  q.pkey_full_compare = d.flag(Defect::kPkeyFullCompare);
  q.accept_bad_icrc = d.flag(Defect::kAcceptBadIcrc);
  q.accept_wrong_qpn = d.flag(Defect::kAcceptWrongQpn);
  q.accept_truncated = d.flag(Defect::kAcceptTruncated);
  q.ack_before_cack = d.flag(Defect::kAckBeforeCack);
  q.tail_bytes_unplaced = d.flag(Defect::kTailBytesUnplaced);
  q.region_end_off_by_one = d.flag(Defect::kRegionEndOffByOne);
  q.region_end_exclusive = d.flag(Defect::kRegionEndExclusive);
  q.sack_no_wrap = d.flag(Defect::kSackNoWrap);
  q.sack_no_last_bit = d.flag(Defect::kSackNoLastBit);
  q.feedback_in_data_class = d.flag(Defect::kFeedbackInDataClass);
  q.trim_by_length = d.flag(Defect::kTrimByLength);
  q.pdcid_zero = d.flag(Defect::kPdcidZero);
  q.qpn_low16 = d.flag(Defect::kQpnLow16);
  return q;
}

cc::NsccQuirks nscc_quirks(const DefectReads& d) {
  cc::NsccQuirks q;
  q.never_decrease = d.flag(Defect::kNsccNoDecrease);
  q.md_below_target = d.flag(Defect::kNsccMdBelowTarget);
  q.md_every_mark = d.flag(Defect::kNsccMdEveryMark);
  q.no_quick_adapt = d.flag(Defect::kNsccNoQuickAdapt);
  q.qa_one_mtu = d.flag(Defect::kNsccQaOneMtu);
  q.qa_ungated = d.flag(Defect::kNsccQaUngated);
  q.exceed_max_cwnd = d.flag(Defect::kNsccExceedMaxCwnd);
  return q;
}

ev::HealthQuirks health_quirks(const DefectReads& d) {
  ev::HealthQuirks q;
  q.keep_failed = d.flag(Defect::kKeepFailedEv);
  q.early_probe_reuse = d.flag(Defect::kEarlyProbeReuse);
  q.ignore_min_active = d.flag(Defect::kIgnoreMinActive);
  q.use_denied = d.flag(Defect::kUseDeniedEv);
  q.ignore_skip = d.flag(Defect::kSkipIgnored);
  return q;
}

ev::ControllerQuirks controller_quirks(const DefectReads& d) {
  ev::ControllerQuirks q;
  q.no_events = d.flag(Defect::kNoEvEvents);
  q.ignore_event_mask = d.flag(Defect::kEventsIgnoreMask);
  q.imprecise_drop_count = d.flag(Defect::kImpreciseDropCount);
  q.any_transition = d.flag(Defect::kBadProfileTransition);
  q.skip_field_rules = d.flag(Defect::kAcceptInvalidProfile);
  q.ignore_count_limits = d.flag(Defect::kIgnoreCountLimits);
  q.online_unpopulated = d.flag(Defect::kOnlineUnpopulated);
  q.modify_online_without_cap = d.flag(Defect::kModifyOnlineWithoutCap);
  q.scatter16 = d.flag(Defect::kEvScatter16);
  return q;
}

ev::SelectorQuirks selector_quirks(const DefectReads& d) {
  ev::SelectorQuirks q;
  q.spray_single_ev = d.flag(Defect::kSpraySingleEv);
  q.use_denied = d.flag(Defect::kUseDeniedEv);
  return q;
}

namespace {

transport::EpResponderConfig ep_responder_config(std::uint8_t control_dscp, bool mask_from_bit0) {
  transport::EpResponderConfig c;
  c.control_dscp = control_dscp;
  c.mask_from_bit0 = mask_from_bit0;
  // MODEL: W17 the responder's reverse EV set is one path: the UDP-mode EV 0xC000 on the port the
  // request came in on (port 0 = arrival port, see ep_ops.hpp).
  c.default_path.kind = transport::TxPath::Kind::kExplicitEv;
  c.default_path.fmt = wire::EvFmtMode::kUdp;
  c.default_path.port = 0;
  c.default_path.ev[0] = 0xC0;
  return c;
}

// W13 the DSCP values the endpoint sends and recognises trims by: the configured ones, or W13's
// defaults with the dscp-hardcoded defect. Its switch is read only when the configuration differs
// from the defaults, where alone it can change anything (the read log, quirk/quirk_flag.hpp).
wire::DscpConfig configured_dscp(const wire::DscpConfig& d, const DefectReads& defects) {
  const wire::DscpConfig w;
  const bool defaults = d.trimmable == w.trimmable && d.trimmable_retx == w.trimmable_retx && d.no_trim == w.no_trim &&
                        d.trimmed == w.trimmed && d.trimmed_lasthop == w.trimmed_lasthop && d.control == w.control;
  return !defaults && defects.has(Defect::kDscpHardcoded) ? w : d;
}

}  // namespace

Endpoint::Endpoint(const EndpointConfig& cfg)
    : cfg_(cfg),
      reads_(std::make_unique<quirk::ReadLog>()),
      defects_(cfg.defects, reads_.get()),
      controller_(cfg.limits),
      memory_(transport::MemoryTableConfig{}),
      port_up_(std::size_t{cfg.num_ports} + 1, true),
      control_(std::make_unique<ControlQueue>(cfg.control_queue_depth)),
      ep_responder_(ep_responder_config(configured_dscp(cfg.dscp, defects_).control,
                                        cfg.variants.has(Variant::kPortMaskBit0))),
      ep_tracker_(transport::EpRequestTracker::Config{2048, 0}) {
  cfg_.num_ports = std::clamp<std::uint8_t>(cfg_.num_ports, 1, 32);
  cfg_.dscp = configured_dscp(cfg_.dscp, defects_);
  memory_.set_ignore_key_byte(defects_.flag(Defect::kRkeyIndexOnly));
  controller_.set_quirks(controller_quirks(defects_));
  port_up_.assign(std::size_t{cfg_.num_ports} + 1, true);
  port_up_[0] = false;
  // QPNs differ between endpoints with different seeds, so a frame routed to the wrong peer is
  // dropped rather than accepted by coincidence.
  qpn_base_ = 0x100u + static_cast<std::uint32_t>((cfg_.seed * 0x9E3779B9u) & 0xFFFu) * 0x100u;
  ep_pending_.reserve(1024);
  ep_results_.reserve(1024);
  cq_.reserve(64);
}

Endpoint::~Endpoint() = default;

// ---- receive --------------------------------------------------------------------------------------

void Endpoint::on_frame(std::uint8_t port, wire::Bytes frame, std::uint64_t now_ns) {
  now_ = std::max(now_, now_ns);
  if (!port_up(port)) {
    ++stats_.rx_port_down;
    return;
  }
  ++stats_.frames_rx;
  ++stats_.rx_per_port[port];
  wire::DecodeOptions opt;
  opt.verify_icrc = true;
  opt.trimmed_dscps = cfg_.dscp.trimmed_mask();  // W13: the DSCPs this fabric marks trims with
  opt.trimmed_lasthop_dscp = cfg_.dscp.trimmed_lasthop;
  const wire::DecodeResult dr = wire::decode_frame(frame, rx_, opt);
  if (!dr.ok()) {
    ++stats_.rx_decode_error;
    if (dr.error == wire::WireError::kTruncated) rx_truncated(port);
    return;
  }
  // Addressed to us? (the inner header of an SRv6-encapsulated frame, W1)
  bool ours = false;
  if (rx_.l3 == wire::L3Kind::kIpv4) {
    ours = cfg_.ipv4 && rx_.ip4.dst == cfg_.ipv4_addr;
  } else {
    ours = (rx_.encapsulated ? rx_.inner_ip6.dst : rx_.ip6.dst) == cfg_.gid;
  }
  if (!ours) {
    ++stats_.rx_not_for_us;
    return;
  }
  switch (rx_.bth.opcode) {
    case wire::opcode::kMrcSack:  // W5-W8
    case wire::opcode::kMrcNack:
    case wire::opcode::kMrcAck:
      rx_feedback(rx_, port);
      break;
    case wire::opcode::kMrcProbe:  // W9
      rx_probe(rx_, port);
      break;
    case wire::opcode::kMrcEndpointReq:  // W10
      rx_ep_request(rx_, port);
      break;
    case wire::opcode::kMrcEndpointRsp:  // W10
      rx_ep_response(rx_, port);
      break;
    default:
      rx_data(rx_, port);
      break;
  }
}

void Endpoint::rx_data(const wire::DecodedFrame& f, std::uint8_t port) {
  // defect drop-encapsulated: W1 lets the receiver get either form; this one knows only the
  // inner packet a decapsulating leaf delivers.
  if (f.encapsulated && defects_.has(Defect::kDropEncapsulated)) {
    ++stats_.rx_decode_error;
    return;
  }
  Qp* qp = find_qp(f.bth.dest_qp);
  if (qp == nullptr) {
    // Defect qpn-low-16: the QP is looked up by DestQP's low 16 bits, as wide as a PDC id (W5).
    for (auto& q : qps_) {
      if (q && q->rsp && (q->qpn & 0xFFFFu) == (f.bth.dest_qp & 0xFFFFu) && q->rsp->quirks().qpn_low16) qp = q.get();
    }
  }
  if (qp == nullptr || !qp->rsp) {
    ++stats_.rx_unknown_qp;
    // A responder with the accept_wrong_qpn quirk takes frames no QP is named by.
    qp = nullptr;
    for (auto& q : qps_) {
      if (q && q->rsp && q->rsp->quirks().accept_wrong_qpn) {
        qp = q.get();
        break;
      }
    }
    if (qp == nullptr) return;
  }
  Sink sink(*this);
  qp->rsp->on_data(f, port, now_, sink);
  check_qp_error(*qp);
}

// A frame cut inside its headers names no QP: dropped (counted as a decode error), unless a
// responder has the accept_truncated quirk, which answers it.
void Endpoint::rx_truncated(std::uint8_t port) {
  Sink sink(*this);
  for (auto& q : qps_) {
    if (q && q->rsp && q->rsp->quirks().accept_truncated) {
      q->rsp->on_truncated(port, now_, sink);
      break;
    }
  }
}

void Endpoint::rx_feedback(const wire::DecodedFrame& f, std::uint8_t port) {
  if (!f.icrc_ok) {
    ++stats_.rx_bad_icrc;
    return;
  }
  Qp* qp = find_qp(f.bth.dest_qp);
  transport::FeedbackInfo fb;
  if (qp == nullptr || !qp->req || !transport::feedback_from(f, port, fb)) {
    ++stats_.rx_unknown_qp;
    return;
  }
  if (fb.kind == transport::FeedbackInfo::Kind::kSack && fb.seth.pr) on_probe_answer(*qp, fb.seth);
  qp->req->on_feedback(fb, now_);
  if (fb.kind == transport::FeedbackInfo::Kind::kSack && fb.seth.pr && cfg_.variants.has(Variant::kProbeLoss)) {
    on_refresh_answer(*qp, fb.seth);
  }
  pump_health(*qp);
  check_qp_error(*qp);
}

// W9: a reliability probe for one of our QPs is answered by its responder with a pr = 1 SACK;
// MODEL: W9 a probe for a QP we do not have is not answered.
void Endpoint::rx_probe(const wire::DecodedFrame& f, std::uint8_t port) {
  Qp* qp = find_qp(f.bth.dest_qp);
  if (qp == nullptr || !qp->rsp) {
    ++stats_.rx_unknown_qp;
    return;
  }
  Sink sink(*this);
  qp->rsp->on_probe(f, port, now_, sink);
}

void Endpoint::Sink::send_feedback(const transport::TxPacket& pkt,
                                   const transport::FeedbackEgress& egress) {
  ep_.push_control(pkt);
  if (egress.has_trigger && ep_.control_->size != 0) {
    // Feedback leaves on the plane its trigger arrived on (when that port is up).
    transport::TxPacket& last =
        ep_.control_->buf[(ep_.control_->head + ep_.control_->size - 1) % ep_.control_->buf.size()];
    if (last.path.kind == transport::TxPath::Kind::kAnyQpEv) last.path.port = egress.arrival_port;
  }
}

void Endpoint::push_control(const transport::TxPacket& pkt) {
  if (!control_->push(pkt)) ++stats_.control_queue_full;
}

// ---- send ---------------------------------------------------------------------------------------

bool Endpoint::poll_frame(transport::TxFrame& out) {
  while (control_->size != 0) {
    const bool sent = emit(control_->front(), out);
    control_->pop();
    if (sent) return true;
  }
  const auto n = static_cast<std::uint32_t>(qps_.size());
  transport::TxPacket pkt;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t idx = (rr_qp_ + k) % n;
    Qp* qp = qps_[idx].get();
    if (qp == nullptr || qp->state != transport::QpState::kRts || !qp->req) continue;
    sync_profile(*qp);
    while (qp->req->next_packet(now_, pkt)) {
      const bool sent = emit(pkt, out);
      pump_health(*qp);  // a retransmission may have reported a timed-out EV
      if (sent) {
        if (pkt.path.ev_index < qp->tx_per_ev.size()) ++qp->tx_per_ev[pkt.path.ev_index];
        qp->last_data_tx_ns = now_;
        // probe-loss's schedule starts with the data (next_deadline then wakes the QP for its
        // probe even when nothing else is due).
        if (cfg_.variants.has(Variant::kProbeLoss) && qp->refresh_probe_at == UINT64_MAX) {
          qp->refresh_probe_at = now_ + kRefreshProbeNs;
        }
        ++stats_.data_tx;
        rr_qp_ = (idx + 1) % n;
        return true;
      }
      // Not emitted (port went down under the EV): the packet is lost, the ACK timer recovers.
    }
  }
  return false;
}

// ---- time -----------------------------------------------------------------------------------------

std::uint64_t Endpoint::next_deadline() const {
  std::uint64_t t = UINT64_MAX;
  for (const auto& q : qps_) {
    if (!q) continue;
    if (q->req && q->state == transport::QpState::kRts) {
      t = std::min(t, q->req->next_deadline());
      if (const auto h = q->req->health().next_deadline()) t = std::min(t, *h);
      t = std::min(t, q->refresh_probe_at);
    }
    if (q->rsp && q->state != transport::QpState::kErr) t = std::min(t, q->rsp->next_deadline());
  }
  for (const EpPending& p : ep_pending_) t = std::min(t, p.deadline);
  for (const HealthProbe& p : health_probes_) t = std::min(t, p.deadline);
  t = std::min(t, ep_tracker_.next_deadline());
  return t;
}

void Endpoint::advance(std::uint64_t now_ns) {
  now_ = std::max(now_, now_ns);
  Sink sink(*this);
  for (auto& q : qps_) {
    if (!q) continue;
    if (q->req && q->state == transport::QpState::kRts) {
      q->req->advance(now_);
      send_health_probes(*q);
      send_refresh_probe(*q);
      pump_health(*q);
    }
    if (q->rsp && q->state != transport::QpState::kErr) q->rsp->advance(now_, sink);
    check_qp_error(*q);
  }
  expire_ep(now_);
}

// ---- completions and events ------------------------------------------------------------------------

bool Endpoint::poll_completion(transport::Completion& out) {
  if (cq_head_ < cq_.size()) {
    out = cq_[cq_head_++];
    if (cq_head_ == cq_.size()) {
      cq_.clear();
      cq_head_ = 0;
    }
    return true;
  }
  for (auto& q : qps_) {
    if (!q) continue;
    if (q->req && q->req->poll_completion(out)) return true;
    if (q->rsp && q->rsp->poll_completion(out)) return true;
  }
  return false;
}

bool Endpoint::poll_ev_event(ev::EvEvent& out) {
  return controller_.poll_events(std::span<ev::EvEvent>(&out, 1)) == 1;
}

void forward_health_events(ev::EvHealth& h, ev::Controller& c, ev::ProfileId profile) {
  if (h.events().empty()) return;
  bool lost = h.dropped_pending() != 0;
  for (const ev::HealthEvent& e : h.events()) {
    // State changes the QP's health buffer could not hold are lost events too: the next event
    // the controller delivers carries them in its drop_count.
    if (e.drop_count != 0) c.note_dropped_events(e.drop_count);
    lost |= e.drop_count != 0;
    c.report_ev_state(profile, e.ev, e.state);  // W11 EV events
  }
  h.clear_events();
  if (!lost) return;
  // The lost changes never reached the profile: its EV table is brought back in line with the
  // QP's view without events (their loss is what drop_count reports), so a controller that
  // re-reads the table after a drop sees the truth.
  for (std::size_t i = 0; i < h.size(); ++i) {
    const ev::EvState s = h.state(static_cast<std::uint16_t>(i));
    if (s == ev::EvState::kGood || s == ev::EvState::kAssumedBad) c.sync_ev_state(profile, i, s);
  }
}

void Endpoint::pump_health(Qp& qp) {
  if (!qp.req) return;
  forward_health_events(qp.req->health(), controller_, qp.ev_profile);
}

void Endpoint::check_qp_error(Qp& qp) {
  if (qp.state == transport::QpState::kErr) return;
  if ((qp.req && qp.req->in_error()) || (qp.rsp && qp.rsp->in_error())) to_error(qp);
}

}  // namespace mrc::ref
