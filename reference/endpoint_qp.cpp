// Endpoint control plane: the QP state machine RESET -> INIT -> RTR -> RTS (any -> ERR / RESET)
// with the attributes each transition takes (host API, mrc-wire-model.md §1.2-§1.3), capability
// negotiation, memory registration, posting, port admin state and introspection.
#include <algorithm>
#include <cerrno>

#include "reference/cc_config.hpp"
#include "reference/endpoint.hpp"
#include "reference/endpoint_internal.hpp"

namespace mrc::ref {
namespace {

using transport::QpState;
namespace qa = transport::qp_attr;
namespace qc = transport::qp_cap;

bool one_bit_or_zero(std::uint8_t v) { return (v & (v - 1)) == 0; }

bool mpr_ok(std::uint8_t v, const DeviceAttr& d) {
  const std::uint8_t res = std::max<std::uint8_t>(d.mpr_resolution, 1);
  return v >= 1 && v <= d.max_mpr && v % res == 0;
}

}  // namespace

Endpoint::Qp* Endpoint::find_qp(std::uint32_t qpn) {
  const std::uint32_t i = qpn - qpn_base_;
  return (qpn >= qpn_base_ && i < qps_.size()) ? qps_[i].get() : nullptr;
}

const Endpoint::Qp* Endpoint::find_qp(std::uint32_t qpn) const {
  const std::uint32_t i = qpn - qpn_base_;
  return (qpn >= qpn_base_ && i < qps_.size()) ? qps_[i].get() : nullptr;
}

int Endpoint::create_qp(const transport::QpInitAttr& attr, std::uint32_t& qpn_out) {
  // The QP asks for exactly one protocol version bit, or 0 (provider default), and the device
  // must support it (§1.3; W18: negotiated out of band).
  if (!one_bit_or_zero(attr.protocol_version)) return EINVAL;
  if (attr.protocol_version != 0 && (attr.protocol_version & cfg_.device.protocol_versions) == 0) {
    return EINVAL;
  }
  if (attr.max_send_wr == 0 || attr.max_send_wr > cfg_.device.max_qp_wr) return EINVAL;
  if (attr.max_recv_wr == 0 || attr.max_recv_wr > cfg_.device.max_qp_wr) return EINVAL;
  if (qps_.size() >= cfg_.device.max_qp) return ENOMEM;
  auto qp = std::make_unique<Qp>();
  qp->qpn = qpn_base_ + static_cast<std::uint32_t>(qps_.size());
  qp->init = attr;
  qpn_out = qp->qpn;
  qps_.push_back(std::move(qp));
  return 0;
}

int Endpoint::modify_qp(std::uint32_t qpn, const transport::QpAttr& a, std::uint32_t mask) {
  Qp* qp = find_qp(qpn);
  if (qp == nullptr) return EINVAL;
  if (!(mask & qa::kState) || (mask & ~qa::kAll) != 0) return EINVAL;
  if (a.qp_state == QpState::kReset) {
    if (mask != qa::kState) return EINVAL;
    to_reset(*qp);
    return 0;
  }
  if (a.qp_state == QpState::kErr) {
    if (mask != qa::kState) return EINVAL;
    to_error(*qp);
    return 0;
  }
  if (qp->state == QpState::kReset && a.qp_state == QpState::kInit) return to_init(*qp, a, mask);
  if (qp->state == QpState::kInit && a.qp_state == QpState::kRtr) return to_rtr(*qp, a, mask);
  if (qp->state == QpState::kRtr && a.qp_state == QpState::kRts) return to_rts(*qp, a, mask);
  if ((qp->state == QpState::kRtr || qp->state == QpState::kRts) && a.qp_state == qp->state &&
      mask == (qa::kState | qa::kMprDest)) {
    // Dynamic MPR (W12): a QP that enabled it may re-advertise its mpr_dest while running;
    // the new value travels in every SACK (SETH.mpr, W12).
    if (!(qp->attr.cap & qc::kDynamicMpr) || !mpr_ok(a.mpr_dest, cfg_.device)) return EINVAL;
    if (!qp->rsp || !qp->rsp->set_mpr_dest(a.mpr_dest)) return EINVAL;
    qp->attr.mpr_dest = a.mpr_dest;
    return 0;
  }
  return EINVAL;
}

int Endpoint::to_init(Qp& qp, const transport::QpAttr& a, std::uint32_t mask) {
  if ((mask & ~qa::kInitAllowed) != 0 || (mask & qa::kInitRequired) != qa::kInitRequired) return EINVAL;
  const ev::ProfileId evp = (mask & qa::kEvProfile) ? a.ev_profile_id : qp.init.ev_profile_id;
  const ev::ProfileId ccp = (mask & qa::kCcProfile) ? a.cc_profile_id : qp.init.cc_profile_id;
  const ev::CcProfileAttr* cc = controller_.cc_profile(ccp);
  std::optional<cc::NsccConfig> nscc;
  if (cc != nullptr && cc->algorithm == ev::kCcAlgoNscc) {
    cc::NsccConfig c;
    if (parse_nscc_config(cc->config, c, nullptr) != 0) return EINVAL;
    if (!cc::resolve(c).ok()) return EINVAL;
    nscc = c;
  } else if (cc != nullptr && !cc->algorithm.empty()) {
    return EINVAL;  // an algorithm this endpoint does not run
  }
  if (int rc = controller_.attach_ev_profile(evp); rc != 0) return rc;
  if (int rc = controller_.attach_cc_profile(ccp); rc != 0) {
    controller_.detach_ev_profile(evp);
    return rc;
  }
  qp.ev_attached = qp.cc_attached = true;
  qp.ev_profile = evp;
  qp.cc_profile = ccp;
  qp.nscc = nscc;
  const ev::FormatProfile* fmt = controller_.format_of(evp);
  qp.fmt = fmt != nullptr ? fmt->mode : wire::EvFmtMode::kUdp;  // AUTO sprays on UDP sport
  qp.attr.ev_profile_id = static_cast<std::uint32_t>(evp);
  qp.attr.cc_profile_id = static_cast<std::uint32_t>(ccp);
  if (mask & qa::kHint) qp.attr.hint = a.hint;
  qp.evs_by_port.assign(33, {});
  qp.port_cursor.assign(33, 0);
  const auto arr = controller_.ev_array(evp);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (arr[i].port >= 1 && arr[i].port <= 32) qp.evs_by_port[arr[i].port].push_back(static_cast<std::uint16_t>(i));
  }
  qp.ev_generation = controller_.ev_generation(evp);
  qp.state = QpState::kInit;
  return 0;
}

int Endpoint::to_rtr(Qp& qp, const transport::QpAttr& a, std::uint32_t mask) {
  if ((mask & ~qa::kRtrAllowed) != 0 || (mask & qa::kRtrRequired) != qa::kRtrRequired) return EINVAL;
  if (transport::mtu_bytes(a.path_mtu) == 0) return EINVAL;
  if (a.dest_qp_num > transport::kPsnMask || a.rq_psn > transport::kPsnMask) return EINVAL;
  if ((mask & qa::kMprDest) && !mpr_ok(a.mpr_dest, cfg_.device)) return EINVAL;
  if ((mask & qa::kMaxWimmDest) && (a.max_wimm_dest == 0 || a.max_wimm_dest > cfg_.device.max_wimm_dest)) {
    return EINVAL;
  }
  if (mask & qa::kCap) {
    if ((a.cap & ~qc::kAll) != 0) return EINVAL;
    // Dynamic MPR needs the device capability (§1.3).
    if ((a.cap & qc::kDynamicMpr) && !(cfg_.device.caps & dev_cap::kDynamicMpr)) return EINVAL;
  }
  transport::QpAttr next = qp.attr;
  next.ah = a.ah;
  next.dest_qp_num = a.dest_qp_num;
  next.rq_psn = a.rq_psn;
  next.path_mtu = a.path_mtu;
  if (mask & qa::kMprDest) next.mpr_dest = a.mpr_dest;
  if (mask & qa::kMaxWimmDest) next.max_wimm_dest = a.max_wimm_dest;
  if (mask & qa::kCap) next.cap = a.cap;

  transport::ResponderConfig rc =
      transport::responder_config(qp.qpn, next, qp.init.max_recv_wr, qp.fmt);
  // TRIM NACK generation needs the device cap and is off when the peer lacks support (§1.3).
  if (!(cfg_.device.caps & dev_cap::kTrimNack)) rc.cap |= qc::kTrimNackDestUnsupported;
  rc.report_svc_time = (cfg_.device.caps & dev_cap::kSvcTime) != 0;
  rc.control_dscp = cfg_.dscp.control;
  rc.data_dscp = cfg_.dscp.trimmable;
  apply_variants(cfg_.variants, rc);
  if (!transport::check_config(rc).empty()) return EINVAL;
  qp.attr = next;
  qp.rsp = std::make_unique<transport::Responder>(rc, memory_, responder_quirks(defects_));
  for (std::uint64_t id : qp.early_recv) qp.rsp->post_recv(id);
  qp.early_recv.clear();
  qp.state = QpState::kRtr;
  return 0;
}

int Endpoint::to_rts(Qp& qp, const transport::QpAttr& a, std::uint32_t mask) {
  if ((mask & ~qa::kRtsAllowed) != 0 || (mask & qa::kRtsRequired) != qa::kRtsRequired) return EINVAL;
  if (a.sq_psn > transport::kPsnMask) return EINVAL;
  if ((mask & qa::kMpr) && !mpr_ok(a.mpr, cfg_.device)) return EINVAL;
  if ((mask & qa::kMaxWimm) && a.max_wimm > cfg_.device.max_wimm) return EINVAL;
  if ((mask & qa::kRetry) &&
      (a.retry.linear_cnt > transport::kMaxLinearRetry || a.retry.exp_cnt > transport::kMaxExpRetry)) {
    return EINVAL;
  }
  if ((mask & qa::kTimeout) && a.timeout > transport::kMaxTimeout) return EINVAL;
  if ((mask & qa::kPeer) && (a.peer.cap & ~qc::kAll) != 0) return EINVAL;

  transport::QpAttr next = qp.attr;
  next.sq_psn = a.sq_psn;
  if (mask & qa::kMpr) next.mpr = a.mpr;
  if (mask & qa::kMaxWimm) next.max_wimm = a.max_wimm;
  if (mask & qa::kRetry) next.retry = a.retry;
  if (mask & qa::kTimeout) next.timeout = a.timeout;
  if (mask & qa::kPeer) next.peer = a.peer;

  const auto arr = controller_.ev_array(qp.ev_profile);
  if (arr.empty() || arr.size() > 0xFFFF) return EINVAL;
  std::vector<ev::EvSlotInit> evs(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) evs[i] = ev::EvSlotInit{arr[i].port, arr[i].denied};

  const std::uint32_t mtu = transport::mtu_bytes(next.path_mtu);
  ev::HealthParams hp = cfg_.health;
  hp.ev_min_active = controller_.ev_min_active(qp.ev_profile);
  std::optional<cc::NsccParams> params;
  if (qp.nscc) {
    cc::NsccConfig c = *qp.nscc;
    c.mtu_bytes = mtu;
    params = cc::resolve(c);
    if (!params->ok()) return EINVAL;
    if (defects_.has(Defect::kNsccZeroLiteral)) {  // defect: 0 taken as the value, not "the default"
      if (c.max_md_jump == 0.0f) params->max_md_jump = 0.0;
      if (c.gamma == 0.0f) params->gamma = 0.0;
      if (c.qa_gate == 0) params->qa_gate = 0;
    }
  }
  qp.probe_timeout_ns = std::max<std::uint64_t>(cfg_.probe_timeout_ns, params ? 2 * static_cast<std::uint64_t>(params->base_rtt) : 0);

  transport::RequesterConfig rc;
  rc.qpn = qp.qpn;
  rc.dest_qpn = next.dest_qp_num;
  rc.sq_psn = next.sq_psn;
  rc.mtu = mtu;
  rc.mpr = next.mpr;
  rc.peer_mpr_dest = next.peer.mpr_dest;
  rc.max_wimm = next.max_wimm;
  rc.peer_max_wimm_dest = next.peer.max_wimm_dest;
  // Dynamic MPR only when both sides set it (§1.3, W12).
  rc.dynamic_mpr = (next.cap & qc::kDynamicMpr) && (next.peer.cap & qc::kDynamicMpr);
  rc.peer_svc_time = !(next.cap & qc::kSvcTimeDestUnsupported);
  rc.timeout = next.timeout;
  rc.retry = next.retry;
  rc.max_send_wr = qp.init.max_send_wr;
  rc.quirks = requester_quirks(defects_);
  rc.data_dscp = cfg_.dscp.trimmable;  // W13 first transmissions: DSCP_TRIMMABLE
  // MODEL: W13 the reference retransmits in DSCP_TRIMMABLE too (W13 allows it or
  // DSCP_TRIMMABLE_RETX, the retx-dscp variant); RequesterConfig::retx_dscp is where it changes.
  rc.retx_dscp = cfg_.variants.has(Variant::kRetxDscp) ? cfg_.dscp.trimmable_retx : cfg_.dscp.trimmable;

  qp.attr = next;
  ev::SelectorQuirks sq = selector_quirks(defects_);
  VariantSet variants = cfg_.variants;
  if (cfg_.random_spray) variants.add(Variant::kRandomEv);
  apply_variants(variants, cfg_.seed, qp.qpn, sq, hp, rc);
  qp.req = std::make_unique<transport::Requester>(
      rc, evs, hp, health_quirks(defects_), sq,
      params ? &*params : nullptr, nscc_quirks(defects_));
  qp.tx_per_ev.assign(arr.size(), 0);
  qp.ev_generation = controller_.ev_generation(qp.ev_profile);
  const auto peer_ports = ep_responder_.peers().ports(qp.attr.ah.dgid);
  for (std::uint8_t p = 1; p <= 32; ++p) {
    const bool peer_up = !peer_ports || ((*peer_ports >> (p - 1)) & 1u);
    if (!port_up(p) || !peer_up) qp.req->health().set_port_up(p, false);
  }
  qp.state = QpState::kRts;
  return 0;
}

void Endpoint::to_reset(Qp& qp) {
  qp.req.reset();
  qp.rsp.reset();
  if (qp.ev_attached) controller_.detach_ev_profile(qp.ev_profile);
  if (qp.cc_attached) controller_.detach_cc_profile(qp.cc_profile);
  qp.ev_attached = qp.cc_attached = false;
  qp.attr = transport::QpAttr{};
  qp.tx_per_ev.clear();
  qp.early_recv.clear();
  qp.state = QpState::kReset;
}

void Endpoint::to_error(Qp& qp) {
  qp.state = QpState::kErr;
  if (qp.req) qp.req->flush();
  if (qp.rsp) qp.rsp->set_error();
  for (std::uint64_t id : qp.early_recv) {
    transport::Completion c;
    c.wr_id = id;
    c.status = IBV_WC_WR_FLUSH_ERR;
    c.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
    c.qp_num = qp.qpn;
    c.is_send = false;
    cq_.push_back(c);
  }
  qp.early_recv.clear();
}

int Endpoint::query_qp(std::uint32_t qpn, transport::QpAttr& out) const {
  const Qp* qp = find_qp(qpn);
  if (qp == nullptr) return EINVAL;
  out = qp->attr;
  out.qp_state = out.cur_qp_state = qp->state;
  return 0;
}

int Endpoint::destroy_qp(std::uint32_t qpn) {
  Qp* qp = find_qp(qpn);
  if (qp == nullptr) return EINVAL;
  to_reset(*qp);
  qps_[qpn - qpn_base_].reset();  // QPNs are never reused
  return 0;
}

// ---- memory -------------------------------------------------------------------------------------

int Endpoint::reg_mr(std::uint64_t addr, std::size_t length, int access, transport::MemoryRegion& out) {
  const auto r = memory_.register_region(length, access,
                                         addr != 0 ? std::optional<std::uint64_t>(addr) : std::nullopt);
  switch (r.status) {
    case transport::MemStatus::kOk: out = r.mr; return 0;
    case transport::MemStatus::kTableFull: return ENOMEM;
    default: return EINVAL;
  }
}

std::span<std::uint8_t> Endpoint::mr_bytes(std::uint32_t lkey) {
  const transport::MemoryRegion* mr = memory_.find(lkey);
  if (mr == nullptr) return {};
  wire::MutBytes out;
  if (memory_.local_mut(lkey, mr->addr, mr->length, out) != transport::MemStatus::kOk) return {};
  return out;
}

std::optional<std::uint64_t> Endpoint::mr_va(std::uint32_t lkey, std::uint64_t offset) const {
  const transport::MemoryRegion* mr = memory_.find(lkey);
  if (mr == nullptr || offset > mr->length) return std::nullopt;
  return mr->addr + offset;
}

std::span<const std::uint8_t> Endpoint::mr_view(std::uint32_t lkey, std::uint64_t offset, std::size_t len) const {
  const auto va = mr_va(lkey, offset);
  wire::Bytes out;
  return va && memory_.local_view(lkey, *va, len, out) == transport::MemStatus::kOk ? out : wire::Bytes{};
}

std::span<std::uint8_t> Endpoint::mr_overwrite(std::uint32_t lkey, std::uint64_t offset, std::size_t len) {
  const auto va = mr_va(lkey, offset);
  wire::MutBytes out;
  return va && memory_.local_overwrite(lkey, *va, len, out) == transport::MemStatus::kOk ? out : wire::MutBytes{};
}

// ---- posting ------------------------------------------------------------------------------------

int Endpoint::post_send(std::uint32_t qpn, const transport::SendWr& wr) {
  Qp* qp = find_qp(qpn);
  if (qp == nullptr) return EINVAL;
  switch (wr.opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      break;
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_SEND_WITH_INV:
    case IBV_WR_LOCAL_INV:
    case IBV_WR_BIND_MW:
    case IBV_WR_TSO:
      return EOPNOTSUPP;  // MRC carries WRITE and WRITE WITH IMMEDIATE only (§1.2)
    default:
      return EINVAL;
  }
  if (qp->state == QpState::kErr) {
    transport::Completion c;  // verbs: a send posted to a QP in ERR completes flushed
    c.wr_id = wr.wr_id;
    c.status = IBV_WC_WR_FLUSH_ERR;
    c.opcode = IBV_WC_RDMA_WRITE;
    c.qp_num = qpn;
    cq_.push_back(c);
    return 0;
  }
  if (qp->state != QpState::kRts || !qp->req) return EINVAL;
  wire::Bytes payload;
  if (wr.length != 0 &&
      memory_.local_view(wr.lkey, wr.local_addr, wr.length, payload) != transport::MemStatus::kOk) {
    return EINVAL;
  }
  return qp->req->post(wr, payload);
}

int Endpoint::post_recv(std::uint32_t qpn, std::uint64_t wr_id) {
  Qp* qp = find_qp(qpn);
  if (qp == nullptr || qp->state == QpState::kReset) return EINVAL;
  if (qp->rsp) return qp->rsp->post_recv(wr_id);
  if (qp->state == QpState::kErr) {
    transport::Completion c;
    c.wr_id = wr_id;
    c.status = IBV_WC_WR_FLUSH_ERR;
    c.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
    c.qp_num = qpn;
    c.is_send = false;
    cq_.push_back(c);
    return 0;
  }
  if (qp->early_recv.size() >= qp->init.max_recv_wr) return ENOMEM;
  qp->early_recv.push_back(wr_id);
  return 0;
}

// ---- ports --------------------------------------------------------------------------------------

bool Endpoint::port_up(std::uint8_t port) const {
  return port >= 1 && port <= cfg_.num_ports && port_up_[port];
}

std::uint32_t Endpoint::local_ports_up() const {
  std::uint32_t m = 0;
  for (std::uint8_t p = 1; p <= cfg_.num_ports; ++p) {
    if (port_up_[p]) m |= 1u << (p - 1);
  }
  return m;
}

int Endpoint::modify_port(std::uint8_t port, bool up) {
  if (port < 1 || port > cfg_.num_ports) return EINVAL;
  port_up_[port] = up;
  for (auto& q : qps_) {
    if (!q || !q->req) continue;
    const auto peer = ep_responder_.peers().ports(q->attr.ah.dgid);
    const bool peer_up = !peer || ((*peer >> (port - 1)) & 1u);
    q->req->health().set_port_up(port, up && peer_up);
  }
  return 0;
}

// ---- introspection ------------------------------------------------------------------------------

std::vector<std::uint32_t> Endpoint::qp_numbers() const {
  std::vector<std::uint32_t> out;
  for (const auto& q : qps_) {
    if (q) out.push_back(q->qpn);
  }
  return out;
}

transport::QpState Endpoint::qp_state(std::uint32_t qpn) const {
  const Qp* qp = find_qp(qpn);
  return qp ? qp->state : QpState::kReset;
}

const transport::Requester* Endpoint::requester(std::uint32_t qpn) const {
  const Qp* qp = find_qp(qpn);
  return qp ? qp->req.get() : nullptr;
}

const transport::Responder* Endpoint::responder(std::uint32_t qpn) const {
  const Qp* qp = find_qp(qpn);
  return qp ? qp->rsp.get() : nullptr;
}

std::span<const std::uint64_t> Endpoint::tx_per_ev(std::uint32_t qpn) const {
  const Qp* qp = find_qp(qpn);
  return qp ? std::span<const std::uint64_t>(qp->tx_per_ev) : std::span<const std::uint64_t>{};
}

std::vector<ev::EvState> Endpoint::ev_states(std::uint32_t qpn) const {
  std::vector<ev::EvState> out;
  const Qp* qp = find_qp(qpn);
  if (qp == nullptr || !qp->req) return out;
  const ev::EvHealth& h = qp->req->health();
  for (std::size_t i = 0; i < h.size(); ++i) out.push_back(h.state(static_cast<std::uint16_t>(i)));
  return out;
}

std::uint32_t Endpoint::cwnd(std::uint32_t qpn) const {
  const Qp* qp = find_qp(qpn);
  return (qp && qp->req && qp->req->nscc()) ? qp->req->nscc()->cwnd() : 0;
}

void Endpoint::sync_profile(Qp& qp) {
  // The controller may set or clear DENIED while the QP runs (§1.4): the QP's view follows.
  const std::uint64_t gen = controller_.ev_generation(qp.ev_profile);
  if (gen == qp.ev_generation || !qp.req) return;
  qp.ev_generation = gen;
  const auto arr = controller_.ev_array(qp.ev_profile);
  ev::EvHealth& h = qp.req->health();
  for (std::size_t i = 0; i < arr.size() && i < h.size(); ++i) {
    h.set_denied(static_cast<std::uint16_t>(i), arr[i].denied);
  }
}

}  // namespace mrc::ref
