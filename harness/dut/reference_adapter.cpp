#include "harness/dut/reference_adapter.hpp"

#include <cerrno>

namespace mrc::harness {
namespace {

namespace qa = transport::qp_attr;

// Path MTU in bytes -> the verbs enum; anything else is not a path MTU and modify_qp refuses it.
enum ibv_mtu ibv_mtu_of(std::uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return static_cast<enum ibv_mtu>(0);
  }
}

// The reference's bits for a capability config.device may turn off; both 0 = it cannot.
struct CapBits {
  std::uint32_t ev_caps = 0;   // ev::cap bits (controller options)
  std::uint32_t dev_caps = 0;  // ref::dev_cap bits (QP-level device caps)
};
CapBits bits_of(const std::string& cap) {
  if (cap == "modify_online") return {ev::cap::kEvProfileModifyOnline, 0};
  if (cap == "cc_modify_online") return {ev::cap::kCcProfileModifyOnline, 0};
  if (cap == "precise_drop_count") return {ev::cap::kPreciseDropCnt, 0};
  if (cap == "ev_probe") return {ev::cap::kEpOpEvProbe, 0};
  if (cap == "trim_nack") return {0, ref::dev_cap::kTrimNack};
  if (cap == "dynamic_mpr") return {0, ref::dev_cap::kDynamicMpr};
  if (cap == "svc_time") return {0, ref::dev_cap::kSvcTime};
  return {};
}

}  // namespace

std::string restriction_refused(const DeviceRestriction& d) {
  for (const std::string& c : d.caps_off) {
    const CapBits b = bits_of(c);
    if (b.ev_caps == 0 && b.dev_caps == 0) return "the reference cannot turn off capability '" + c + "'";
  }
  return "";
}

std::string ReferencePolicy::to_string() const {
  std::string d = defects.to_string();
  const std::string v = variants.to_string();
  if (!d.empty() && !v.empty()) d += ',';
  return d + v;
}

std::optional<ReferencePolicy> parse_reference_policy(std::string_view csv, std::string* error) {
  ReferencePolicy p;
  std::string defect_csv;
  // Every caller passes what follows "reference:", so an empty list or an empty name between
  // commas is a typo, never "no defect" (that spelling is plain `reference`).
  bool more = true;
  while (more) {
    const auto comma = csv.find(',');
    const std::string_view name = csv.substr(0, comma);
    more = comma != std::string_view::npos;
    csv = more ? csv.substr(comma + 1) : std::string_view{};
    if (name.empty()) {
      if (error) *error = "an empty defect or variant name (write plain 'reference' for none)";
      return std::nullopt;
    }
    if (const auto v = ref::variant_by_name(name)) {
      if (!p.variants.add(*v)) {
        if (error) *error = "variant '" + std::string(name) + "' makes a choice another variant in the list already makes";
        return std::nullopt;
      }
      continue;
    }
    if (!defect_csv.empty()) defect_csv += ',';
    defect_csv += name;
  }
  if (!defect_csv.empty()) {
    std::string bad;
    const auto set = ref::DefectSet::parse(defect_csv, &bad);
    if (!set) {
      if (error) *error = "unknown defect or variant '" + bad + "'";
      return std::nullopt;
    }
    p.defects = *set;
  }
  return p;
}

ref::EndpointConfig reference_endpoint_config(const ReferenceHost& host, const ReferencePolicy& policy,
                                              const DutSetup& s, const DeviceRestriction& restriction) {
  ref::EndpointConfig cfg;
  cfg.seed = s.seed;
  cfg.defects = policy.defects;
  cfg.variants = policy.variants;
  cfg.num_ports = host.num_ports;
  cfg.mac = host.mac;
  cfg.gid = host.gid;
  cfg.ipv4 = s.ipv4;
  cfg.ipv4_addr = host.ipv4_addr;
  cfg.dscp = wire_dscp(s.dscp);  // W13 the case's traffic-class values
  cfg.limits.ev_count_align = 1;  // case EV arrays have any length
  cfg.limits.phy_port_mask = host.port_mask;
  // Feedback / EP frames waiting for the driver to pull them. Both drivers (the simulator, the
  // agent's service loop) pull after every event, so a few hundred is plenty; the endpoint's
  // default (4096 frame-sized slots, ~18 MB zero-filled) would dominate a case's cost. Overflows
  // show in the counters.
  cfg.control_queue_depth = 512;
  for (const std::string& c : restriction.caps_off) {
    const CapBits b = bits_of(c);
    cfg.limits.caps &= ~b.ev_caps;
    cfg.device.caps &= ~b.dev_caps;
  }
  if (restriction.event_queue_depth != 0) cfg.limits.event_queue_depth = restriction.event_queue_depth;
  return cfg;
}

DutStatus configure_reference(ref::Endpoint& ep, const DutSetup& s, std::vector<std::uint32_t>& qpns) {
  if (DutStatus st = configure_profiles(ep.controller(), s); !st.ok()) return st;
  for (std::uint32_t idx : s.denied) {
    if (DutStatus st = set_reference_ev_denied(ep, idx, true); !st.ok()) return st;
  }
  qpns.clear();
  for (std::uint32_t i = 0; i < s.qp.count; ++i) {
    transport::QpInitAttr init;
    init.protocol_version = transport::kProtocolVersion1;  // W18 negotiated out of band
    std::uint32_t qpn = 0;
    if (int rc = ep.create_qp(init, qpn)) return api_error("create_qp", rc);
    transport::QpAttr at;
    at.qp_state = transport::QpState::kInit;
    at.ev_profile_id = 0;
    at.cc_profile_id = 0;
    if (int rc = ep.modify_qp(qpn, at, qa::kState | qa::kEvProfile | qa::kCcProfile)) {
      return api_error("modify_qp INIT", rc);
    }
    qpns.push_back(qpn);
  }
  return DutStatus::success();
}

DutStatus set_reference_ev_denied(ref::Endpoint& ep, std::uint32_t ev_index, bool denied) {
  const auto arr = ep.controller().ev_array(0);
  if (ev_index >= arr.size()) {
    return api_error((denied ? "deny EV " : "allow EV ") + std::to_string(ev_index), ENOENT, "no such EV index");
  }
  ev::EvOpEntry op;
  op.ev = arr[ev_index].ref();
  op.state = denied ? ev::EvState::kDenied : ev::EvState::kGood;
  std::string why;
  if (int rc = ep.controller().modify_ev_state(0, std::span<const ev::EvOpEntry>(&op, 1), nullptr, &why)) {
    return api_error(denied ? "deny_ev" : "allow_ev", rc, why);
  }
  return DutStatus::success();
}

DutStatus register_reference_buffer(ref::Endpoint& ep, std::uint64_t va, std::uint64_t bytes,
                                    transport::MemoryRegion& mr) {
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  if (int rc = ep.reg_mr(va, static_cast<std::size_t>(bytes), access, mr)) return api_error("reg_mr", rc);
  return DutStatus::success();
}

wire::Ipv6Addr peer_gid(const DutLocal& r) {
  if (r.ipv4 == 0) return r.gid;
  wire::Ipv6Addr g{};
  g[10] = 0xFF;
  g[11] = 0xFF;
  for (int b = 0; b < 4; ++b) g[static_cast<std::size_t>(12 + b)] = static_cast<std::uint8_t>(r.ipv4 >> (24 - 8 * b));
  return g;
}

DutStatus connect_reference(ref::Endpoint& ep, std::span<const std::uint32_t> qpns, const ap::QpParams& q,
                            const DutLocal& remote) {
  if (remote.qpns.size() < qpns.size()) {
    return DutStatus::failed("peer has " + std::to_string(remote.qpns.size()) + " QPs, need " +
                             std::to_string(qpns.size()));
  }
  for (std::size_t i = 0; i < qpns.size(); ++i) {
    transport::QpAttr at;
    at.qp_state = transport::QpState::kRtr;
    at.ah.dgid = peer_gid(remote);
    at.ah.dmac = remote.mac;
    at.dest_qp_num = remote.qpns[i];
    at.rq_psn = remote.first_psn;
    at.path_mtu = ibv_mtu_of(q.mtu);
    at.mpr_dest = q.mpr_dest;
    at.max_wimm_dest = q.max_wimm_dest;
    at.cap = q.caps;
    if (int rc = ep.modify_qp(qpns[i], at, qa::kRtrRequired | qa::kMprDest | qa::kMaxWimmDest | qa::kCap)) {
      return api_error("modify_qp RTR", rc);
    }
    at.qp_state = transport::QpState::kRts;
    at.sq_psn = q.first_psn;
    at.mpr = q.mpr;
    at.max_wimm = q.max_wimm;
    at.retry = transport::RetryAttr{q.retry_linear, q.retry_exp};
    at.timeout = q.timeout;
    at.peer.mpr_dest = remote.mpr_dest;          // W12 the peer's window, learned out of band
    at.peer.max_wimm_dest = remote.max_wimm_dest;  // W16
    at.peer.cap = remote.qp_caps;
    if (int rc = ep.modify_qp(qpns[i], at, qa::kRtsRequired | qa::kMpr | qa::kMaxWimm | qa::kRetry | qa::kTimeout | qa::kPeer)) {
      return api_error("modify_qp RTS", rc);
    }
  }
  return DutStatus::success();
}

}  // namespace mrc::harness
