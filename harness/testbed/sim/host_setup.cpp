// Endpoint bring-up over the simulated fabric (host_setup.hpp).
#include "harness/testbed/sim/host_setup.hpp"

#include <algorithm>
#include <bit>

#include "harness/testbed/sim/address_plan.hpp"
#include "reference/ev/expansion.hpp"

namespace mrc::sim {
namespace {

// The format and EV-profile fields that carry these EVs explicitly: every bit of the wire form is
// an EV bit except the fixed top half of the SRv6 locator block (fc00), which comes from init_val.
void layout_for(wire::EvFmtMode mode, bool srh, std::vector<std::uint32_t>& widths,
                std::vector<ev::EvField>& fields) {
  widths.clear();
  fields.clear();
  const ev::EvField full16{16, 0, 0, 0xFFFF, 0xFFFF};
  switch (mode) {
    case wire::EvFmtMode::kStev:
      widths = {16, 16};  // W2 flow label bits, then the UDP sport
      fields = {full16, full16};
      return;
    case wire::EvFmtMode::kUdp:
      widths = {16};
      fields = {full16};
      return;
    case wire::EvFmtMode::kSrv6:
      for (int c = 0; c < (srh ? 2 : 1); ++c) {
        widths.push_back(32);
        fields.push_back(ev::EvField{32, addr::kBlockPrefix, 0, 0xFFFF, 0x0000FFFF});  // fc00:00pp
        for (int u = 0; u < 6; ++u) {
          widths.push_back(16);
          fields.push_back(full16);
        }
      }
      return;
  }
}

// The controller-side EV (compact bits) whose expansion is `wire`: the inverse of §1.5.
wire::EvBytes compact_of(std::span<const std::uint32_t> widths, std::span<const ev::EvField> fields,
                         const wire::EvBytes& wire_bytes) {
  wire::EvBytes out{};
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto v = static_cast<std::uint32_t>(ev::read_bits(wire_bytes, dst, widths[i]));
    const auto n = static_cast<std::uint32_t>(std::popcount(fields[i].mask));
    ev::write_bits(out, src, n, ev::gather_bits(v, fields[i].mask));
    src += n;
    dst += widths[i];
  }
  return out;
}

std::string errno_text(const char* what, int rc, const std::string& why) {
  return std::string(what) + ": " + std::string(ev::errno_name(rc)) + (why.empty() ? "" : " (" + why + ")");
}

std::string find_or_make_fmt(ev::Controller& c, wire::EvFmtMode mode, const std::vector<std::uint32_t>& widths,
                             ev::ProfileId& out) {
  std::string why;
  for (ev::ProfileId id = 0; id < c.limits().ev_max_fmt_profiles; ++id) {
    ev::FmtProfileAttr q;
    if (c.query_fmt_profile(id, &q, ev::fmt_attr::kFields) != 0) continue;
    if (q.state == ev::ProfileState::kOnline && q.mode == mode && q.widths == widths) {
      out = id;
      return {};
    }
    if (q.state != ev::ProfileState::kInit) continue;
    ev::FmtProfileAttr f;
    f.mode = mode;
    f.widths = widths;
    f.state = ev::ProfileState::kOffline;
    if (int rc = c.modify_fmt_profile(id, f, ev::fmt_attr::kState | ev::fmt_attr::kMode, &why)) {
      return errno_text("EV format profile to OFFLINE", rc, why);
    }
    f.state = ev::ProfileState::kOnline;
    if (int rc = c.modify_fmt_profile(id, f, ev::fmt_attr::kState | ev::fmt_attr::kFields, &why)) {
      return errno_text("EV format profile to ONLINE", rc, why);
    }
    out = id;
    return {};
  }
  return "no free EV format profile";
}

}  // namespace

std::vector<EvSpec> route_evs(const Simulator& sim, std::uint32_t src, std::uint32_t dst, const ConnectOptions& o) {
  const Topology& t = sim.topology();
  const std::uint32_t count = o.ev_count != 0 ? o.ev_count : 2 * t.planes() * t.spines();
  switch (o.mode) {
    case wire::EvFmtMode::kSrv6: return srv6_evs(t, src, dst, o.srh);
    case wire::EvFmtMode::kStev: return stev_evs_covering_all_spines(sim, src, dst, count);
    case wire::EvFmtMode::kUdp: return udp_evs_covering_all_spines(sim, src, dst, count, o.ipv4);
  }
  return {};
}

std::string install_ev_profile(ref::Endpoint& ep, std::span<const EvSpec> evs, wire::EvFmtMode mode, bool srh,
                               std::uint32_t ev_min_active, ev::ProfileId& out_id) {
  if (evs.empty()) return "no EVs to install";
  ev::Controller& c = ep.controller();
  std::vector<std::uint32_t> widths;
  std::vector<ev::EvField> fields;
  layout_for(mode, srh, widths, fields);
  ev::ProfileId fmt_id = 0;
  if (std::string e = find_or_make_fmt(c, mode, widths, fmt_id); !e.empty()) return e;

  ev::ProfileId id = 0;
  for (; id < c.limits().ev_max_profiles; ++id) {
    if (c.ev_profile_state(id) == ev::ProfileState::kInit) break;
  }
  if (id >= c.limits().ev_max_profiles) return "no free EV profile";
  const std::uint32_t align = std::max<std::uint32_t>(c.limits().ev_count_align, 1);
  const auto count = static_cast<std::uint32_t>((evs.size() + align - 1) / align * align);

  std::string why;
  ev::EvProfileAttr a;
  a.state = ev::ProfileState::kOffline;
  a.mode = ev::EvMode::kExp;
  a.fmt_id = fmt_id;
  a.ev_count = count;
  a.fields = fields;
  a.ev_min_active = std::min(ev_min_active, count);
  a.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
  if (int rc = c.modify_ev_profile(id, a, ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kFmtId |
                                              ev::ev_attr::kCount | ev::ev_attr::kFields, &why)) {
    return errno_text("EV profile to OFFLINE", rc, why);
  }
  const ev::FormatProfile fmt{mode, widths};
  std::vector<ev::EvOpEntry> ops(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const EvSpec& e = evs[i % evs.size()];  // padding repeats EVs (duplicates are allowed)
    ops[i].ev_new.val = compact_of(widths, fields, e.wire);
    ops[i].ev_new.port = e.port;
    wire::EvBytes check{};
    if (ev::expand(fmt, fields, ops[i].ev_new.val, check, &why) != 0 || check != e.wire) {
      return "EV " + std::to_string(i) + " cannot be expressed in the " + std::to_string(widths.size()) +
             "-field format" + (why.empty() ? "" : ": " + why);
    }
  }
  std::size_t done = 0;
  if (int rc = c.replace_ev(id, ops, &done, &why)) return errno_text("REPLACE_EV", rc, why);
  a.state = ev::ProfileState::kOnline;
  if (int rc = c.modify_ev_profile(id, a, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask,
                                   &why)) {
    return errno_text("EV profile to ONLINE", rc, why);
  }
  out_id = id;
  return {};
}

std::string install_cc_profile(ref::Endpoint& ep, const std::string& algorithm, const std::string& config,
                               ev::ProfileId& out_id) {
  ev::Controller& c = ep.controller();
  const std::vector<std::uint8_t> bytes(config.begin(), config.end());
  std::string why;
  for (ev::ProfileId id = 0; id < c.limits().cc_max_profiles; ++id) {
    ev::CcProfileAttr q;
    if (c.query_cc_profile(id, &q) != 0) continue;
    if (q.state == ev::ProfileState::kOnline && q.algorithm == algorithm && q.config == bytes) {
      out_id = id;
      return {};
    }
    if (q.state != ev::ProfileState::kInit) continue;
    ev::CcProfileAttr a;
    a.state = ev::ProfileState::kOffline;
    a.algorithm = algorithm;
    a.config = bytes;
    std::uint32_t mask = ev::cc_attr::kState | ev::cc_attr::kAlgorithm;
    if (!algorithm.empty()) mask |= ev::cc_attr::kConfig;
    if (int rc = c.modify_cc_profile(id, a, mask, &why)) return errno_text("CC profile to OFFLINE", rc, why);
    a.state = ev::ProfileState::kOnline;
    if (int rc = c.modify_cc_profile(id, a, ev::cc_attr::kState, &why)) {
      return errno_text("CC profile to ONLINE", rc, why);
    }
    out_id = id;
    return {};
  }
  return "no free CC profile";
}

std::uint64_t base_rtt_ns(const Simulator& sim, std::uint32_t src, std::uint32_t dst, std::uint32_t mtu_bytes) {
  const Topology& t = sim.topology();
  const TopologyConfig& c = t.config();
  const bool same_leaf = t.leaf_of_host(src) == t.leaf_of_host(dst);
  // Data frame: the payload plus the largest header stack (SRv6 + SRH); ACK: about 128 bytes.
  const std::uint64_t data = mtu_bytes + 160 + c.wire_overhead_bytes;
  const std::uint64_t ack = 128 + c.wire_overhead_bytes;
  auto hop = [](const LinkParams& p, std::uint64_t bytes) { return bytes * 8000 / p.rate_mbps + p.prop_ns; };
  std::uint64_t one_way_data = 2 * hop(c.host_link, data);
  std::uint64_t one_way_ack = 2 * hop(c.host_link, ack);
  if (!same_leaf) {
    one_way_data += 2 * hop(c.fabric_link, data);
    one_way_ack += 2 * hop(c.fabric_link, ack);
  }
  return one_way_data + one_way_ack;
}

std::string connect_hosts(Simulator& sim, std::uint32_t a, std::uint32_t b, const ConnectOptions& o,
                          Connection& out) {
  const Topology& t = sim.topology();
  if (a >= t.hosts() || b >= t.hosts() || a == b) return "connect_hosts: bad host pair";
  for (const std::uint32_t h : {a, b}) {
    if (sim.host_kind(h) == HostKind::kNone) {
      ref::EndpointConfig cfg = o.endpoint;
      cfg.ipv4 = cfg.ipv4 || o.ipv4;
      sim.make_endpoint(h, cfg);
    }
    if (sim.endpoint(h) == nullptr) return "host " + std::to_string(h) + " is not an Endpoint";
  }
  out = Connection{};
  out.host_a = a;
  out.host_b = b;
  out.a = sim.endpoint(a);
  out.b = sim.endpoint(b);
  out.evs_a = route_evs(sim, a, b, o);
  out.evs_b = route_evs(sim, b, a, o);
  if (out.evs_a.empty() || out.evs_b.empty()) return "no EV routes between the hosts";

  const std::uint32_t mtu = transport::mtu_bytes(o.mtu);
  // A QP sprays over every plane: its congestion window covers the NIC's aggregate rate.
  const std::uint64_t line_bps = t.config().host_link.rate_mbps * 1'000'000ull * t.planes();
  std::string cc_cfg;
  if (o.nscc) {
    cc_cfg = "base_rtt=" + std::to_string(base_rtt_ns(sim, a, b, mtu)) + " line_rate_bps=" +
             std::to_string(line_bps) + " fabric_trims=" + (t.config().sw.trim ? "1" : "0");
    if (!o.nscc_extra.empty()) cc_cfg += " " + o.nscc_extra;
  }
  const std::string algo = o.nscc ? ev::kCcAlgoNscc : "";

  ref::Endpoint* eps[2] = {out.a, out.b};
  const std::vector<EvSpec>* evs[2] = {&out.evs_a, &out.evs_b};
  ev::ProfileId evp[2] = {0, 0};
  ev::ProfileId ccp[2] = {0, 0};
  std::uint32_t qpn[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    if (std::string e = install_ev_profile(*eps[s], *evs[s], o.mode, o.srh, o.ev_min_active, evp[s]); !e.empty()) {
      return std::string(s == 0 ? "A" : "B") + ": " + e;
    }
    if (std::string e = install_cc_profile(*eps[s], algo, cc_cfg, ccp[s]); !e.empty()) {
      return std::string(s == 0 ? "A" : "B") + ": " + e;
    }
    transport::QpInitAttr init;
    init.ev_profile_id = static_cast<std::uint32_t>(evp[s]);
    init.cc_profile_id = static_cast<std::uint32_t>(ccp[s]);
    if (int rc = eps[s]->create_qp(init, qpn[s])) return "create_qp rc=" + std::to_string(rc);
  }
  const std::uint32_t sq_psn[2] = {0x100, 0x1100};
  const std::uint32_t caps[2] = {o.cap_a, o.cap_b};
  const std::uint32_t hosts[2] = {a, b};
  namespace qa = transport::qp_attr;
  for (int s = 0; s < 2; ++s) {
    const int peer = 1 - s;
    transport::QpAttr at;
    at.qp_state = transport::QpState::kInit;
    at.ev_profile_id = static_cast<std::uint32_t>(evp[s]);
    at.cc_profile_id = static_cast<std::uint32_t>(ccp[s]);
    if (int rc = eps[s]->modify_qp(qpn[s], at, qa::kState | qa::kEvProfile | qa::kCcProfile)) {
      return "INIT rc=" + std::to_string(rc);
    }
    at.qp_state = transport::QpState::kRtr;
    at.ah.dgid = o.ipv4 ? addr::host_ipv4_mapped_gid(hosts[peer]) : addr::host_gid(hosts[peer]);
    at.ah.dmac = addr::host_mac(hosts[peer]);
    at.dest_qp_num = qpn[peer];
    at.rq_psn = sq_psn[peer];
    at.path_mtu = o.mtu;
    at.mpr_dest = s == 0 ? o.mpr : o.mpr_dest;
    at.max_wimm_dest = o.max_wimm_dest;
    at.cap = caps[s];
    if (int rc = eps[s]->modify_qp(qpn[s], at, qa::kState | qa::kAv | qa::kDestQpn | qa::kRqPsn | qa::kPathMtu |
                                                   qa::kMprDest | qa::kMaxWimmDest | qa::kCap)) {
      return "RTR rc=" + std::to_string(rc);
    }
    at.qp_state = transport::QpState::kRts;
    at.sq_psn = sq_psn[s];
    at.mpr = o.mpr;
    at.max_wimm = o.max_wimm;
    at.retry = o.retry;
    at.timeout = o.timeout;
    at.peer.mpr_dest = s == 0 ? o.mpr_dest : o.mpr;
    at.peer.max_wimm_dest = o.max_wimm_dest;
    at.peer.cap = caps[peer];
    if (int rc = eps[s]->modify_qp(qpn[s], at, qa::kState | qa::kSqPsn | qa::kMpr | qa::kMaxWimm | qa::kRetry |
                                                   qa::kTimeout | qa::kPeer)) {
      return "RTS rc=" + std::to_string(rc);
    }
  }
  out.qpn_a = qpn[0];
  out.qpn_b = qpn[1];
  out.sq_psn_a = sq_psn[0];
  out.sq_psn_b = sq_psn[1];
  out.ev_profile_a = evp[0];
  out.ev_profile_b = evp[1];
  sim.notify(a);
  sim.notify(b);
  return {};
}

}  // namespace mrc::sim
