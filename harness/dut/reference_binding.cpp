#include "harness/dut/reference_binding.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "harness/dut/profile_setup.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/endpoint.hpp"
#include "reference/endpoint_counters.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness {
namespace {

// The GID the DUT addresses the peer by: over IPv4 the IPv4-mapped form (::ffff:a.b.c.d), whose
// last four bytes the endpoint puts into the IPv4 destination.
wire::Ipv6Addr peer_gid(const DutLocal& r) {
  if (r.ipv4 == 0) return r.gid;
  wire::Ipv6Addr g{};
  g[10] = 0xFF;
  g[11] = 0xFF;
  for (int b = 0; b < 4; ++b) g[static_cast<std::size_t>(12 + b)] = static_cast<std::uint8_t>(r.ipv4 >> (24 - 8 * b));
  return g;
}

namespace qa = transport::qp_attr;

enum ibv_mtu ibv_mtu_of(std::uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
  }
}

std::uint32_t qp_cap_bits(const std::vector<QpCap>& caps) {
  std::uint32_t bits = 0;
  for (QpCap c : caps) {
    switch (c) {
      case QpCap::kDynamicMpr: bits |= transport::qp_cap::kDynamicMpr; break;
      case QpCap::kTrimNackDestUnsupported: bits |= transport::qp_cap::kTrimNackDestUnsupported; break;
      case QpCap::kSvcTimeDestUnsupported: bits |= transport::qp_cap::kSvcTimeDestUnsupported; break;
    }
  }
  return bits;
}



}  // namespace

ReferenceBinding::ReferenceBinding(ref::DefectSet defects, std::string role_name)
    : defects_(defects), role_name_(std::move(role_name)) {}

ReferenceBinding::~ReferenceBinding() = default;

DutIdentity ReferenceBinding::identity() const {
  DutIdentity id;
  id.binding = "reference";
  const std::string base = random_spray_ ? "reference-random" : "reference";
  id.name = defects_.empty() ? base : base + ":" + defects_.to_string();
  id.version = "reference endpoint (sans-I/O), wire model M1-M13";
  id.details = defects_.empty() ? "no defects" : "defects: " + defects_.to_string();
  return id;
}

std::vector<std::string> ReferenceBinding::capabilities() const {
  // Everything the reference endpoint implements (reference/endpoint.hpp DeviceAttr and
  // ev::DeviceLimits defaults). EXPLICIT_RANGE is not among its default caps.
  return {"trim_nack",     "dynamic_mpr",      "svc_time",           "ev_probe",     "port_status",
          "srv6",          "stev",             "udp_mode",           "modify_online", "cc_modify_online",
          "precise_drop_count", "ev_generated", "ev_auto",           "ipv4"};
}

DutStatus ReferenceBinding::attach(Testbed& testbed, int host) {
  if (host < 0 || static_cast<std::uint32_t>(host) >= testbed.hosts()) {
    return DutStatus::failed("host " + std::to_string(host) + " is not in testbed " + testbed.name());
  }
  testbed_ = &testbed;
  host_ = host;
  planes_ = testbed.planes();
  return DutStatus::success();
}

std::vector<PortRef> ReferenceBinding::data_ports() const {
  std::vector<PortRef> out;
  for (std::uint32_t p = 1; p <= planes_; ++p) out.push_back(PortRef{host_, static_cast<int>(p)});
  return out;
}

DutStatus ReferenceBinding::apply(const DutSetup& s, DutLocal& local) {
  if (testbed_ == nullptr) return DutStatus::failed("apply() before attach()");
  setup_ = s;
  const HostAddress addr = testbed_->host_address(host_);
  ref::EndpointConfig cfg;
  cfg.seed = s.seed;
  cfg.defects = defects_;
  cfg.random_spray = random_spray_;
  cfg.num_ports = static_cast<std::uint8_t>(planes_);
  cfg.mac = addr.mac;
  cfg.gid = addr.gid;
  cfg.ipv4 = s.ipv4;
  cfg.ipv4_addr = addr.ipv4;
  cfg.limits.ev_count_align = 1;  // case EV arrays have any length
  // Feedback / EP frames waiting for the testbed to pull them. The testbed pulls after every
  // event, so a few hundred is plenty; the endpoint's default (4096 frame-sized slots, ~18 MB
  // zero-filled) would dominate the harness's per-case cost. Overflows show in the counters.
  cfg.control_queue_depth = 512;
  cfg.limits.phy_port_mask = planes_ >= 32 ? 0xFFFFFFFFu : ((1u << planes_) - 1u);
  restrict_limits(restrict_, cfg);  // config.device (reference_profile_ops.cpp)
  ep_ = std::make_unique<ref::Endpoint>(cfg);
  if (std::string why = testbed_->attach_endpoint(host_, *ep_); !why.empty()) {
    return DutStatus::failed("testbed refused the endpoint: " + why);
  }
  if (DutStatus st = setup_profiles(s); !st.ok()) return st;
  if (DutStatus st = setup_qps(s, local); !st.ok()) return st;
  local_ = local;
  return DutStatus::success();
}

DutStatus ReferenceBinding::setup_profiles(const DutSetup& s) {
  if (DutStatus st = configure_profiles(ep_->controller(), s); !st.ok()) return st;
  for (std::uint32_t idx : s.denied) {
    if (DutStatus st = set_ev_denied(idx, true); !st.ok()) return st;
  }
  return DutStatus::success();
}

DutStatus ReferenceBinding::setup_qps(const DutSetup& s, DutLocal& local) {
  const HostAddress addr = testbed_->host_address(host_);
  local = DutLocal{};
  local.gid = addr.gid;
  local.mac = addr.mac;
  local.ipv4 = s.ipv4 ? addr.ipv4 : 0;
  for (std::uint32_t i = 0; i < s.qp.count; ++i) {
    transport::QpInitAttr init;
    init.protocol_version = transport::kProtocolVersion1;  // MODEL: M4
    std::uint32_t qpn = 0;
    if (int rc = ep_->create_qp(init, qpn)) return api_error("create_qp", rc);
    transport::QpAttr at;
    at.qp_state = transport::QpState::kInit;
    at.ev_profile_id = 0;
    at.cc_profile_id = 0;
    if (int rc = ep_->modify_qp(qpn, at, qa::kState | qa::kEvProfile | qa::kCcProfile)) {
      return api_error("modify_qp INIT", rc);
    }
    local.qpns.push_back(qpn);
  }
  transport::MemoryRegion mr;
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  if (int rc = ep_->reg_mr(s.buffer_va, static_cast<std::size_t>(s.buffer_bytes), access, mr)) {
    return api_error("reg_mr", rc);
  }
  lkey_ = mr.lkey;
  local.buffer_va = mr.addr;
  local.rkey = mr.rkey;
  local.mpr_dest = s.qp.mpr_dest;
  local.max_wimm_dest = s.qp.max_wimm_dest;
  local.qp_caps = qp_cap_bits(s.qp.caps);
  local.first_psn = s.first_psn;
  return DutStatus::success();
}

DutStatus ReferenceBinding::connect(const DutLocal& remote) {
  if (!ep_) return DutStatus::failed("connect() before apply()");
  if (remote.qpns.size() < local_.qpns.size()) {
    return DutStatus::failed("peer has " + std::to_string(remote.qpns.size()) + " QPs, need " +
                             std::to_string(local_.qpns.size()));
  }
  remote_ = remote;
  const QpConfig& q = setup_.qp;
  for (std::size_t i = 0; i < local_.qpns.size(); ++i) {
    transport::QpAttr at;
    at.qp_state = transport::QpState::kRtr;
    at.ah.dgid = peer_gid(remote);
    at.ah.dmac = remote.mac;
    at.dest_qp_num = remote.qpns[i];
    at.rq_psn = remote.first_psn;
    at.path_mtu = ibv_mtu_of(q.mtu);
    at.mpr_dest = q.mpr_dest;
    at.max_wimm_dest = q.max_wimm_dest;
    at.cap = local_.qp_caps;
    if (int rc = ep_->modify_qp(local_.qpns[i], at,
                                qa::kState | qa::kAv | qa::kDestQpn | qa::kRqPsn | qa::kPathMtu | qa::kMprDest |
                                    qa::kMaxWimmDest | qa::kCap)) {
      return api_error("modify_qp RTR", rc);
    }
    at.qp_state = transport::QpState::kRts;
    at.sq_psn = setup_.first_psn;
    at.mpr = q.mpr;
    at.max_wimm = q.max_wimm;
    at.retry = transport::RetryAttr{q.retry.linear, q.retry.exp};
    at.timeout = q.timeout;
    at.peer.mpr_dest = remote.mpr_dest;
    at.peer.max_wimm_dest = remote.max_wimm_dest;
    at.peer.cap = remote.qp_caps;
    if (int rc = ep_->modify_qp(local_.qpns[i], at,
                                qa::kState | qa::kSqPsn | qa::kMpr | qa::kMaxWimm | qa::kRetry | qa::kTimeout |
                                    qa::kPeer)) {
      return api_error("modify_qp RTS", rc);
    }
  }
  return DutStatus::success();
}

DutStatus ReferenceBinding::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (!ep_) return DutStatus::failed("fill_local() before apply()");
  auto mem = ep_->mr_bytes(lkey_);
  if (offset > mem.size() || bytes.size() > mem.size() - offset) return DutStatus::failed("fill_local past the buffer");
  std::memcpy(mem.data() + offset, bytes.data(), bytes.size());
  return DutStatus::success();
}

DutStatus ReferenceBinding::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  if (!ep_) return DutStatus::failed("read_local() before apply()");
  auto mem = ep_->mr_bytes(lkey_);
  if (offset > mem.size() || out.size() > mem.size() - offset) return DutStatus::failed("read_local past the buffer");
  std::memcpy(out.data(), mem.data() + offset, out.size());
  return DutStatus::success();
}

DutStatus ReferenceBinding::post_write(const WriteRequest& w, std::uint64_t) {
  if (!ep_ || w.qp >= local_.qpns.size()) return DutStatus::failed("post_write on an unknown QP");
  transport::SendWr wr;
  wr.wr_id = w.wr_id;
  wr.opcode = w.with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.local_addr = local_.buffer_va + w.local_offset;
  wr.length = w.length;
  wr.lkey = lkey_;
  wr.remote_addr = w.remote_addr;
  wr.rkey = w.rkey;
  wr.imm_data = w.imm;
  if (int rc = ep_->post_send(local_.qpns[w.qp], wr)) return api_error("post_send", rc);
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::post_recv(std::uint32_t qp, std::uint64_t wr_id) {
  if (!ep_ || qp >= local_.qpns.size()) return DutStatus::failed("post_recv on an unknown QP");
  if (int rc = ep_->post_recv(local_.qpns[qp], wr_id)) return api_error("post_recv", rc);
  return DutStatus::success();
}

std::size_t ReferenceBinding::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
  if (!ep_) return 0;
  std::size_t n = 0;
  transport::Completion c;
  while (ep_->poll_completion(c)) {
    CompletionRecord r;
    r.at_ns = now_ns;
    r.wr_id = c.wr_id;
    r.status = static_cast<int>(c.status);
    r.is_send = c.is_send;
    r.has_imm = c.opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    r.imm = c.imm_data;
    r.byte_len = c.byte_len;
    out.push_back(r);
    ++n;
  }
  return n;
}

std::size_t ReferenceBinding::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
  if (!ep_) return 0;
  std::size_t n = 0;
  ev::EvEvent e;
  const auto arr = ep_->controller().ev_array(0);
  while (ep_->poll_ev_event(e)) {
    EvEventRecord r;
    r.at_ns = now_ns;
    r.port = e.ev.port;
    r.state = ev::bits(e.state);
    r.drop_count = e.drop_count;
    r.ev_index = UINT32_MAX;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (arr[i].ref() == e.ev) {
        r.ev_index = static_cast<std::uint32_t>(i);
        break;
      }
    }
    out.push_back(r);
    ++n;
  }
  return n;
}

DutStatus ReferenceBinding::set_ev_denied(std::uint32_t ev_index, bool denied) {
  if (!ep_) return DutStatus::failed("set_ev_denied() before apply()");
  const auto arr = ep_->controller().ev_array(0);
  if (ev_index >= arr.size()) return api_error("deny EV " + std::to_string(ev_index), ENOENT, "no such EV index");
  ev::EvOpEntry op;
  op.ev = arr[ev_index].ref();
  op.state = denied ? ev::EvState::kDenied : ev::EvState::kGood;
  std::string why;
  if (int rc = ep_->controller().modify_ev_state(0, std::span<const ev::EvOpEntry>(&op, 1), nullptr, &why)) {
    return api_error(denied ? "deny_ev" : "allow_ev", rc, why);
  }
  if (denied) ever_denied_.insert(ev_index);
  return DutStatus::success();
}

DutStatus ReferenceBinding::port_admin(std::uint8_t port, bool up) {
  if (!ep_) return DutStatus::failed("port_admin() before apply()");
  if (int rc = ep_->modify_port(port, up)) return api_error(up ? "port_admin_up" : "port_admin_down", rc);
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t) {
  if (!ep_) return DutStatus::failed("probe_ev() before apply()");
  const auto arr = ep_->controller().ev_array(0);
  if (ev_index >= arr.size()) return api_error("probe_ev " + std::to_string(ev_index), ENOENT, "no such EV index");
  // The endpoint picks the req_id, as a NIC's library would: one no request that may still draw a
  // response uses (§1.7).
  const auto id = ep_->next_ep_req_id();
  if (!id) return api_error("probe_ev", ENOSPC, "no free request id");
  ref::EpRequest r;
  r.req_id = *id;
  r.dgid = peer_gid(remote_);
  r.dmac = remote_.mac;
  r.ev_fmt_mode = wire_mode(setup_.format_mode);
  r.req_ev = arr[ev_index].wire;
  r.req_port = arr[ev_index].port;
  r.srv6_ev_index = arr[ev_index].index;
  if (int rc = ep_->ep_send(tc, wire::EpOp::kEvProbe, std::span<const ref::EpRequest>(&r, 1),
                            ep_->config().probe_timeout_ns)) {
    return api_error("probe_ev", rc);
  }
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::port_status_update(std::uint64_t) {
  if (!ep_) return DutStatus::failed("port_status_update() before apply()");
  const auto arr = ep_->controller().ev_array(0);
  if (arr.empty()) return api_error("port_status_update", EINVAL, "no EV to send it on");
  const auto id = ep_->next_ep_req_id();
  if (!id) return api_error("port_status_update", ENOSPC, "no free request id");
  ref::EpRequest r;
  r.req_id = *id;
  r.dgid = peer_gid(remote_);
  r.dmac = remote_.mac;
  r.ev_fmt_mode = wire_mode(setup_.format_mode);
  r.req_ev = arr[0].wire;
  r.req_port = arr[0].port;
  r.srv6_ev_index = arr[0].index;
  if (int rc = ep_->ep_send(wire::kDscpControl, wire::EpOp::kPortStatusUpdate,
                            std::span<const ref::EpRequest>(&r, 1), ep_->config().probe_timeout_ns)) {
    return api_error("port_status_update", rc);
  }
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::set_profile_online(bool online) {
  if (!ep_) return DutStatus::failed("set_profile_online() before apply()");
  ev::EvProfileAttr e;
  e.state = online ? ev::ProfileState::kOnline : ev::ProfileState::kOffline;
  std::string why;
  if (int rc = ep_->controller().modify_ev_profile(0, e, ev::ev_attr::kState, &why)) {
    return api_error(online ? "profile_online" : "profile_offline", rc, why);
  }
  return DutStatus::success();
}

std::vector<EvRecord> ReferenceBinding::ev_table() const {
  std::vector<EvRecord> out;
  if (!ep_) return out;
  const auto arr = ep_->controller().ev_array(0);
  const ev::FormatProfile* fmt = ep_->controller().format_of(0);
  const wire::EvFmtMode mode = fmt != nullptr ? fmt->mode : wire::EvFmtMode::kUdp;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    EvRecord r;
    r.index = static_cast<std::uint32_t>(i);
    r.port = arr[i].port;
    switch (mode) {  // the identity a receiver echoes (ev_echo_value(), MODEL: M2/M5)
      case wire::EvFmtMode::kStev: r.echo = wire::stev_value(arr[i].wire); break;
      case wire::EvFmtMode::kUdp: r.echo = wire::udp_mode_sport(arr[i].wire); break;
      case wire::EvFmtMode::kSrv6: r.echo = arr[i].index; break;
    }
    r.state = ev::bits(arr[i].state);
    r.denied = arr[i].denied || ever_denied_.count(r.index) != 0;
    out.push_back(r);
  }
  return out;
}

std::vector<std::pair<std::string, double>> ReferenceBinding::counters() const {
  std::vector<std::pair<std::string, double>> out;
  if (!ep_) return out;
  for (const auto& [name, v] : ref::endpoint_counters(*ep_, local_.qpns)) {
    out.emplace_back(std::string(name), static_cast<double>(v));
  }
  return out;
}

DutStatus ReferenceBinding::reset() {
  ep_.reset();
  testbed_ = nullptr;
  host_ = -1;
  lkey_ = 0;
  ever_denied_.clear();
  restrict_ = DeviceConfig{};
  return DutStatus::success();
}

// ---------------------------------------------------------------- factory

namespace {
std::string binding_help() {
  std::string m =
      "valid DUT bindings: reference, reference-random (random EV choice), reference[-random]:<defect>[,<defect>...]; "
      "defects:";
  for (const auto& d : ref::defect_catalog()) {
    m += ' ';
    m += d.name;
  }
  return m;
}
}  // namespace

std::unique_ptr<DutBinding> make_binding(const std::string& spec, std::string* error) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (kind != "reference" && kind != "reference-random") {
    if (error) *error = "unknown DUT binding '" + kind + "'; " + binding_help();
    return nullptr;
  }
  ref::DefectSet defects;
  if (colon != std::string::npos) {
    std::string bad;
    const auto parsed = ref::DefectSet::parse(std::string_view(spec).substr(colon + 1), &bad);
    if (!parsed) {
      if (error) *error = "unknown defect '" + bad + "' in --dut " + spec + "; " + binding_help();
      return nullptr;
    }
    defects = *parsed;
  }
  auto b = std::make_unique<ReferenceBinding>(defects);
  if (kind == "reference-random") b->use_random_spray();
  return b;
}

bool valid_binding_spec(const std::string& spec, std::string* error) { return make_binding(spec, error) != nullptr; }

}  // namespace mrc::harness
