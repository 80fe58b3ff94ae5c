// Endpoint operations (W10): ep_send batches from the controller API, the endpoint responder
// (probe answers, peer port status), and the reliability probes (W9) of ASSUMED_BAD EVs (W11).
#include <algorithm>
#include <cerrno>

#include "reference/endpoint.hpp"
#include "reference/endpoint_internal.hpp"

namespace mrc::ref {
namespace {
constexpr std::size_t kMaxEpPending = 1024;  // outstanding EP requests (tracker holds 2048 ids)

// The up ports a port-status update reports (bit N-1 = port N; the ERTH numbering is applied in
// build_ep_request). Defect port-status-down-port-up: every configured port, down ones too.
std::uint32_t reported_ports(std::uint32_t ports_up, std::uint8_t num_ports, const DefectReads& d) {
  if (!d.has(Defect::kPortStatusDownPortUp)) return ports_up;
  return num_ports >= 32 ? 0xFFFFFFFFu : ((1u << num_ports) - 1u);
}
}  // namespace

std::optional<std::uint16_t> Endpoint::next_ep_req_id() {
  // Defect reqid-reuse: the previous id again, even while its request is still outstanding.
  if (defects_.has(Defect::kReqidReuse) && ep_tracker_.stats().started > 0) return ep_tracker_.last_issued_id();
  return ep_tracker_.next_free_id();
}

int Endpoint::ep_send(std::uint8_t req_tc, wire::EpOp op, std::span<const EpRequest> reqs,
                      std::uint64_t rsp_timeout_ns) {
  if (reqs.empty() || req_tc > 63) return EINVAL;
  if (op != wire::EpOp::kEvProbe && op != wire::EpOp::kPortStatusUpdate) return EINVAL;
  if (op == wire::EpOp::kEvProbe && !(cfg_.limits.caps & ev::cap::kEpOpEvProbe)) return EOPNOTSUPP;
  const bool reuse = defects_.has(Defect::kReqidReuse);  // defect: no req_id uniqueness rule
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].req_port < 1 || reqs[i].req_port > cfg_.num_ports) return EINVAL;
    // req_id: unique among outstanding requests, including the rest of this batch (§1.7).
    if (!reuse && ep_tracker_.busy(reqs[i].req_id)) return EBUSY;
    for (std::size_t j = 0; j < i; ++j) {
      if (!reuse && reqs[j].req_id == reqs[i].req_id) return EBUSY;
    }
  }
  // Bounded: outstanding requests plus answers not yet polled.
  if (ep_pending_.size() + (ep_results_.size() - ep_results_head_) + reqs.size() > kMaxEpPending) {
    return ENOSPC;
  }
  for (const EpRequest& r : reqs) {
    const bool reused = reuse && ep_tracker_.busy(r.req_id);  // the defect sends it, tracked once
    if (!reused && ep_tracker_.begin(r.req_id, op, now_, rsp_timeout_ns) != transport::EpRequestTracker::Status::kOk) {
      return ENOSPC;
    }
    transport::EpRequestSpec spec;
    spec.op = op;
    spec.req_id = r.req_id;
    spec.tx_timestamp_ns = now_;
    spec.mask_from_bit0 = cfg_.variants.has(Variant::kPortMaskBit0);
    spec.port_status = r.port_status != 0 ? r.port_status : reported_ports(local_ports_up(), cfg_.num_ports, defects_);
    spec.path.kind = transport::TxPath::Kind::kExplicitEv;
    spec.path.fmt = r.ev_fmt_mode;
    spec.path.ev = r.req_ev;
    spec.path.port = r.req_port;
    spec.path.srv6_ev_index = r.srv6_ev_index;
    spec.dgid = r.dgid;
    spec.dmac = r.dmac;
    // req_tc is the DSCP of the request (defect probe-ignores-tc: the Control class for probes).
    spec.req_tc = op == wire::EpOp::kEvProbe && defects_.has(Defect::kProbeIgnoresTc) ? cfg_.dscp.control : req_tc;
    transport::TxPacket pkt;
    transport::build_ep_request(spec, pkt);
    push_control(pkt);
    ep_pending_.push_back(EpPending{r.req_id, op, now_ + rsp_timeout_ns});
  }
  return 0;
}

bool Endpoint::poll_ep_response(EpResponse& out) {
  if (ep_results_head_ >= ep_results_.size()) return false;
  out = ep_results_[ep_results_head_++];
  if (ep_results_head_ == ep_results_.size()) {
    ep_results_.clear();
    ep_results_head_ = 0;
  }
  return true;
}

namespace {

// W9: a reliability probe (0xDE) on `ev`, in the Data class (`dscp`), consuming no PSN.
transport::TxPacket reliability_probe(std::uint32_t qpn, std::uint32_t dest_qpn, std::uint16_t probe_id,
                                      std::uint16_t ev, std::uint8_t dscp, std::uint64_t now) {
  transport::TxPacket pkt;
  pkt.qpn = qpn;
  pkt.path.kind = transport::TxPath::Kind::kQpEv;
  pkt.path.ev_index = ev;
  pkt.dscp = dscp;
  pkt.ecn = wire::kEcnEct0;
  pkt.bth.opcode = wire::opcode::kMrcProbe;
  pkt.bth.pkey = 0xFFFF;  // the QPs' P_Key (the reference uses the default partition)
  pkt.bth.dest_qp = dest_qpn & 0xFFFFFFu;
  pkt.bth.psn = 0;  // W9 reserved: a probe consumes no PSN
  pkt.has_peth = true;
  pkt.peth.probe_id = probe_id;
  pkt.peth.spdcid = transport::pdcid_of(qpn);  // MODEL: W5 sender orientation
  pkt.peth.dpdcid = transport::pdcid_of(dest_qpn);
  pkt.peth.ts = wire::Timestamp{static_cast<std::uint16_t>(now / wire::kTimestampUnitNs), false, wire::kFtypeTimestamp};
  return pkt;
}


}  // namespace

// The probe-anytime variant (W9: probes "refresh acknowledgement state when SACKs may have been
// lost", at any time): while the QP has PSNs outstanding and is sending, a probe every
// kRefreshProbeNs on each EV of the array in turn, ASSUMED_BAD and SKIP ones included, DENIED ones
// (the host's) skipped. Its pr = 1 answer refreshes the requester's acknowledgement state like any
// SACK; it tests no EV. The probe-loss variant keeps the schedule but probes the EV of the oldest
// unacknowledged PSN (W9 use 3: probes speed up loss detection).
void Endpoint::send_refresh_probe(Qp& qp) {
  if (!cfg_.variants.has(Variant::kProbeAnytime) && !cfg_.variants.has(Variant::kProbeLoss)) return;
  if (qp.req->outstanding_psns() == 0 || now_ > qp.last_data_tx_ns + kRefreshQuietNs) {
    qp.refresh_probe_at = UINT64_MAX;
    return;
  }
  if (qp.refresh_probe_at == UINT64_MAX) qp.refresh_probe_at = now_ + kRefreshProbeNs;
  if (now_ < qp.refresh_probe_at) return;
  qp.refresh_probe_at = now_ + kRefreshProbeNs;
  const ev::EvHealth& h = qp.req->health();
  if (cfg_.variants.has(Variant::kProbeLoss)) {
    // probe-loss probes the path of the oldest unacknowledged PSN, once per copy of it: the
    // answer is the evidence.
    const std::uint32_t una = qp.req->una_psn();
    const auto ev = qp.req->ev_of(una);
    if (!ev || *ev >= h.size() || h.denied(*ev) || (una == qp.refresh_psn && *ev == qp.refresh_psn_ev)) return;
    qp.refresh_psn = una;
    qp.refresh_psn_ev = *ev;
    qp.refresh_sent[qp.refresh_next] = Qp::RefreshProbe{qp.next_probe_id, *ev, now_, true};
    qp.refresh_next = static_cast<std::uint8_t>((qp.refresh_next + 1) % qp.refresh_sent.size());
    push_control(reliability_probe(qp.qpn, qp.attr.dest_qp_num, qp.next_probe_id++, *ev, cfg_.dscp.trimmable, now_));
    ++stats_.probes_sent;
    return;
  }
  for (std::size_t tried = 0; tried < h.size(); ++tried) {
    const auto ev = static_cast<std::uint16_t>(qp.refresh_cursor++ % h.size());
    if (h.denied(ev)) continue;
    push_control(reliability_probe(qp.qpn, qp.attr.dest_qp_num, qp.next_probe_id++, ev, cfg_.dscp.trimmable, now_));
    ++stats_.probes_sent;
    return;
  }
}

// The probe-loss variant: a refresh probe's answer, applied as a SACK already, declares lost what
// was sent before it on its EV and is still unacknowledged (W9 use 3).
void Endpoint::on_refresh_answer(Qp& qp, const wire::Seth& seth) {
  for (Qp::RefreshProbe& p : qp.refresh_sent) {
    if (!p.live || p.probe_id != seth.probe_id()) continue;
    p.live = false;
    qp.req->on_probe_evidence(p.ev, p.sent_ns, now_);
    return;
  }
}

void Endpoint::send_health_probes(Qp& qp) {
  ev::EvHealth& h = qp.req->health();
  // Every due EV is taken off the due list (EvHealth records it as probed now), even when no probe
  // can go out: a full probe table then only delays that EV's probe by one interval, and the
  // health deadline never stays in the past.
  while (const auto ev = h.next_probe(now_)) {  // W11 an ASSUMED_BAD EV due for a probe
    if (health_probes_.size() >= kMaxEpPending) {
      ++stats_.probes_skipped;
      continue;
    }
    // defect probe-wrong-ev: the probe leaves on the next EV, not the one it tests.
    const auto path_ev = defects_.has(Defect::kProbeWrongEv) ? static_cast<std::uint16_t>((*ev + 1u) % h.size()) : *ev;
    const transport::TxPacket pkt = reliability_probe(qp.qpn, qp.attr.dest_qp_num, qp.next_probe_id++, path_ev, cfg_.dscp.trimmable, now_);
    push_control(pkt);
    ++stats_.probes_sent;
    // Unanswered after the probe timeout, or twice the round trip the QP last measured if that is
    // longer: an answer cannot come sooner than a round trip, and a path longer than the timeout
    // (a real-time bridge adds tens of microseconds, a congested one more) would otherwise fail
    // every probe and never bring an EV back, probing it forever.
    const std::uint64_t wait = std::max(qp.probe_timeout_ns, 2 * qp.req->recent_rtt_ns());
    health_probes_.push_back(HealthProbe{qp.qpn, pkt.peth.probe_id, *ev, now_ + wait});
    h.await_probe(*ev, now_ + wait);
  }
}

void Endpoint::on_probe_answer(Qp& qp, const wire::Seth& seth) {
  for (std::size_t i = 0; i < health_probes_.size(); ++i) {
    const HealthProbe p = health_probes_[i];
    if (p.qpn != qp.qpn || p.probe_id != seth.probe_id()) continue;
    health_probes_[i] = health_probes_.back();
    health_probes_.pop_back();
    ++stats_.probes_ok;
    qp.req->health().on_probe_result(p.ev, true, seth.m, now_);  // W9, W11
    pump_health(qp);
    return;
  }
}

void Endpoint::expire_ep(std::uint64_t now) {
  ep_tracker_.advance(now);
  for (std::size_t i = 0; i < ep_pending_.size();) {
    const EpPending p = ep_pending_[i];
    if (p.deadline > now) {
      ++i;
      continue;
    }
    ep_pending_[i] = ep_pending_.back();
    ep_pending_.pop_back();
    EpResponse r;
    r.status = ETIMEDOUT;
    r.req_id = p.req_id;
    r.op = p.op;
    ep_results_.push_back(r);
  }
  for (std::size_t i = 0; i < health_probes_.size();) {
    const HealthProbe p = health_probes_[i];
    if (p.deadline > now) {
      ++i;
      continue;
    }
    health_probes_[i] = health_probes_.back();
    health_probes_.pop_back();
    ++stats_.probes_failed;
    Qp* qp = find_qp(p.qpn);
    if (qp && qp->req) {
      qp->req->health().on_probe_result(p.ev, false, wire::MpVerdict::kNone, now);  // W9: no answer
      pump_health(*qp);
    }
  }
}

void Endpoint::rx_ep_request(const wire::DecodedFrame& f, std::uint8_t port) {
  wire::EpOp op{};
  const bool known_op = f.has_erth && wire::ep_op_from_wire(f.erth.op, op);
  const bool probe = known_op && op == wire::EpOp::kEvProbe;
  if (probe && defects_.has(Defect::kProbeNeedsQp)) {
    // Defect probe-needs-qp: probes are answered only for a peer this endpoint has a QP with,
    // although endpoint operations are connectionless (W10).
    const wire::Ipv6Addr src = transport::source_gid(f);
    const bool has_qp = std::any_of(qps_.begin(), qps_.end(), [&](const auto& q) { return q && q->attr.ah.dgid == src; });
    if (!has_qp) return;
  }
  transport::TxPacket pkt;
  const auto outcome = ep_responder_.on_request(f, port, now_, pkt);
  if (outcome != transport::EpRxOutcome::kResponded && outcome != transport::EpRxOutcome::kPeerTableFull) {
    return;
  }
  if (defects_.has(Defect::kProbeReqidMangled)) {  // defect: the next id echoed, on every response
    pkt.bth.psn = (transport::ep_request_id(pkt.bth) + 1u) & 0xFFFFu;
  }
  push_control(pkt);
  if (known_op && op == wire::EpOp::kPortStatusUpdate) {
    // The peer's up ports: EVs of QPs towards it on a plane whose far end is down are not
    // eligible until it comes back.
    const wire::Ipv6Addr src = transport::source_gid(f);
    if (defects_.has(Defect::kPeerPortStatusIgnored)) return;  // defect: the update changes nothing
    const std::uint32_t peer_ports =
        wire::up_ports_of_mask(f.erth.port_status_mask, cfg_.variants.has(Variant::kPortMaskBit0));
    for (auto& q : qps_) {
      if (!q || !q->req || q->attr.ah.dgid != src) continue;
      for (std::uint8_t p = 1; p <= 32; ++p) {
        const bool peer_up = (peer_ports >> (p - 1)) & 1u;
        q->req->health().set_port_up(p, port_up(p) && peer_up);
      }
    }
  }
}

void Endpoint::rx_ep_response(const wire::DecodedFrame& f, std::uint8_t port) {
  if (!f.icrc_ok || !f.has_eeth) {
    ++stats_.rx_bad_icrc;
    return;
  }
  const auto res = ep_tracker_.on_response(transport::ep_request_id(f.bth), f.eeth, port, now_);
  if (!res) return;
  for (std::size_t i = 0; i < ep_pending_.size(); ++i) {
    if (ep_pending_[i].req_id != res->req_id) continue;
    ep_pending_[i] = ep_pending_.back();
    ep_pending_.pop_back();
    EpResponse r;
    r.req_id = res->req_id;
    r.op = res->op;
    r.port = res->port;
    r.rtt_ns = res->rtt_ns;
    ep_results_.push_back(r);
    return;
  }
}

}  // namespace mrc::ref
