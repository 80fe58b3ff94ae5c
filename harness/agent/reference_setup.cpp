// ReferenceBackend: APPLY_CONFIG and CONNECT (profiles, QPs, memory regions, RTR/RTS).
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "harness/agent/reference_backend.hpp"

namespace mrc::agent {
namespace {

namespace qa = transport::qp_attr;

wire::EvFmtMode fmt_mode(ap::FormatMode m) {
  switch (m) {
    case ap::FormatMode::kSrv6: return wire::EvFmtMode::kSrv6;
    case ap::FormatMode::kUdp: return wire::EvFmtMode::kUdp;
    case ap::FormatMode::kStev: break;
  }
  return wire::EvFmtMode::kStev;
}

ev::EvMode ev_mode(ap::EvMode m) {
  switch (m) {
    case ap::EvMode::kAuto: return ev::EvMode::kAuto;
    case ap::EvMode::kGenerated: return ev::EvMode::kGen;
    case ap::EvMode::kExplicit: break;
  }
  return ev::EvMode::kExp;
}

// The reference endpoint reads its NSCC configuration as "name=value" text (reference/cc_config.hpp).
std::string nscc_text(const ap::NsccParams& c) {
  std::string s;
  auto add_u = [&s](const char* k, std::uint64_t v) {
    if (v != 0) s += std::string(k) + "=" + std::to_string(v) + ",";
  };
  auto add_f = [&s](const char* k, double v) {
    if (v == 0) return;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s=%.9g,", k, v);
    s += buf;
  };
  add_u("disable_qa", c.disable_qa ? 1 : 0);
  add_u("adjust_bytes_threshold", c.adjust_bytes_threshold);
  add_u("adjust_period_threshold", c.adjust_period_threshold);
  add_u("base_rtt", c.base_rtt);
  add_f("eta", c.eta);
  add_f("fi", c.fi);
  add_f("fi_scale", c.fi_scale);
  add_f("gamma", c.gamma);
  add_f("max_md_jump", c.max_md_jump);
  add_u("max_cwnd", c.max_cwnd);
  add_u("qa_gate", c.qa_gate);
  add_u("qa_threshold", c.qa_threshold);
  add_u("target_delay", c.target_delay);
  if (!s.empty()) s.pop_back();
  return s;
}

Outcome refused(int rc, const std::string& step, const std::string& why) {
  return Outcome::rejected(rc, step + ": " + (why.empty() ? std::string(std::strerror(rc)) : why));
}

enum ibv_mtu ibv_mtu_of(std::uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return static_cast<enum ibv_mtu>(0);  // not a path MTU: modify_qp answers EINVAL
  }
}

// RoCEv2 over IPv4 names the peer by its IPv4-mapped GID (::ffff:a.b.c.d).
wire::Ipv6Addr ipv4_mapped(std::uint32_t v4) {
  wire::Ipv6Addr g{};
  g[10] = 0xFF;
  g[11] = 0xFF;
  g[12] = static_cast<std::uint8_t>(v4 >> 24);
  g[13] = static_cast<std::uint8_t>(v4 >> 16);
  g[14] = static_cast<std::uint8_t>(v4 >> 8);
  g[15] = static_cast<std::uint8_t>(v4);
  return g;
}

}  // namespace

Outcome ReferenceBackend::apply(const ap::ApplyConfig& c, ap::ApplyOk& out) {
  reset();
  if (c.ipv4 && opt_.ipv4 == 0) {
    return Outcome::rejected(EINVAL, "IPv4 asked for, but the agent has no IPv4 address (--ipv4)");
  }
  ref::EndpointConfig ec;
  ec.seed = c.seed;
  ec.defects = opt_.defects;
  ec.mac = mac_;
  ec.gid = gid_;
  ec.ipv4 = c.ipv4;
  ec.ipv4_addr = opt_.ipv4;
  std::uint8_t top = 1;
  for (const auto& p : io_->ports()) top = std::max(top, p.port);
  ec.num_ports = top;
  ec.limits.phy_port_mask = port_mask();
  ec.limits.ev_count_align = 1;  // as the in-process reference binding: case EV arrays have any length
  ep_ = std::make_unique<ref::Endpoint>(ec);
  ep_->advance(now_);

  Outcome o = setup_profiles(c);
  if (o.ok()) o = create_qps(c);
  if (o.ok()) o = register_regions(c, out);
  if (!o.ok()) {
    reset();
    return o;
  }
  cfg_ = c;
  cfg_->peer.reset();
  out.gid = gid_;
  out.mac = mac_;
  out.ipv4 = c.ipv4 ? opt_.ipv4 : 0;
  out.qpns = qpns_;
  out.mpr_dest = c.qp.mpr_dest;
  out.max_wimm_dest = c.qp.max_wimm_dest;
  out.qp_caps = c.qp.caps;
  out.first_psn = c.qp.first_psn;
  if (c.peer) return connect(*c.peer);
  return Outcome::success();
}

Outcome ReferenceBackend::setup_profiles(const ap::ApplyConfig& c) {
  ev::Controller& ctl = ep_->controller();
  std::string why;
  const bool auto_mode = c.ev_mode == ap::EvMode::kAuto;
  if (!auto_mode || !c.format_widths.empty()) {
    ev::FmtProfileAttr f;
    f.mode = fmt_mode(c.format_mode);
    f.widths = c.format_widths;
    f.state = ev::ProfileState::kOffline;
    if (int rc = ctl.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kMode, &why)) {
      return refused(rc, "EV format profile", why);
    }
    f.state = ev::ProfileState::kOnline;
    if (int rc = ctl.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kFields, &why)) {
      return refused(rc, "EV format profile", why);
    }
  }

  ev::EvProfileAttr e;
  e.state = ev::ProfileState::kOffline;
  e.mode = ev_mode(c.ev_mode);
  e.fmt_id = 0;
  e.ev_count = c.ev_mode == ap::EvMode::kExplicit ? static_cast<std::uint32_t>(c.evs.size()) : c.generate_count;
  e.gen_seed = c.generate_seed;
  for (const ap::EvField& f : c.fields) e.fields.push_back({f.width, f.init, f.min, f.max, f.mask});
  e.ev_min_active = c.ev_min_active;
  e.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
  std::uint32_t mask = ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kCount;
  if (!auto_mode) mask |= ev::ev_attr::kFmtId | ev::ev_attr::kFields;
  if (c.ev_mode == ap::EvMode::kGenerated) mask |= ev::ev_attr::kGenSeed;
  if (int rc = ctl.modify_ev_profile(0, e, mask, &why)) return refused(rc, "EV profile", why);

  if (c.ev_mode == ap::EvMode::kExplicit) {
    // Every slot starts UNPOPULATED; replacing "the lowest UNPOPULATED copy" fills them in order.
    std::vector<ev::EvOpEntry> ops(c.evs.size());
    for (std::size_t i = 0; i < c.evs.size(); ++i) {
      const ap::EvValue& v = c.evs[i];
      std::copy(v.value.begin(), v.value.end(), ops[i].ev_new.val.begin());
      ops[i].ev_new.port = v.port;
    }
    const std::size_t batch = std::max<std::size_t>(1, ctl.limits().ev_op_max_entries);
    for (std::size_t at = 0; at < ops.size(); at += batch) {
      const std::size_t n = std::min(batch, ops.size() - at);
      if (int rc = ctl.replace_ev(0, std::span(ops).subspan(at, n), nullptr, &why)) {
        return refused(rc, "REPLACE_EV", why);
      }
    }
  }
  e.state = ev::ProfileState::kOnline;
  if (int rc = ctl.modify_ev_profile(0, e, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask,
                                     &why)) {
    return refused(rc, "EV profile ONLINE", why);
  }
  for (std::uint32_t idx : c.denied) {
    if (Outcome o = set_ev_state({idx, true}); !o.ok()) return o;
  }

  ev::CcProfileAttr cc;
  cc.state = ev::ProfileState::kOffline;
  std::uint32_t cc_mask = ev::cc_attr::kState | ev::cc_attr::kAlgorithm;
  if (c.cc) {
    cc.algorithm = c.cc->algorithm;
    const std::string text = nscc_text(*c.cc);
    cc.config.assign(text.begin(), text.end());
    cc_mask |= ev::cc_attr::kConfig;
  }
  if (int rc = ctl.modify_cc_profile(0, cc, cc_mask, &why)) return refused(rc, "CC profile", why);
  cc.state = ev::ProfileState::kOnline;
  if (int rc = ctl.modify_cc_profile(0, cc, ev::cc_attr::kState, &why)) return refused(rc, "CC profile ONLINE", why);
  return Outcome::success();
}

Outcome ReferenceBackend::create_qps(const ap::ApplyConfig& c) {
  for (std::uint32_t i = 0; i < c.qp.count; ++i) {
    transport::QpInitAttr init;
    init.protocol_version = transport::kProtocolVersion1;  // MODEL: M4 negotiated out of band
    std::uint32_t qpn = 0;
    if (int rc = ep_->create_qp(init, qpn)) return refused(rc, "create_qp", "");
    transport::QpAttr a;
    a.qp_state = transport::QpState::kInit;
    a.ev_profile_id = 0;
    a.cc_profile_id = 0;
    if (int rc = ep_->modify_qp(qpn, a, qa::kState | qa::kEvProfile | qa::kCcProfile)) {
      return refused(rc, "modify_qp(INIT)", "");
    }
    qpns_.push_back(qpn);
  }
  return Outcome::success();
}

Outcome ReferenceBackend::register_regions(const ap::ApplyConfig& c, ap::ApplyOk& out) {
  for (const ap::RegionRequest& r : c.regions) {
    transport::MemoryRegion mr;
    if (int rc = ep_->reg_mr(r.addr, r.length, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, mr)) {
      return refused(rc, "reg_mr", "");
    }
    regions_.push_back({mr});
    out.regions.push_back({mr.addr, mr.length, mr.lkey, mr.rkey});
  }
  return Outcome::success();
}

Outcome ReferenceBackend::connect(const ap::PeerInfo& peer) {
  if (!ep_ || !cfg_) return Outcome::fail(ap::ErrorCode::kNotApplied, "CONNECT before APPLY_CONFIG");
  if (peer.qpns.size() < qpns_.size()) {
    return Outcome::fail(ap::ErrorCode::kBadValue, "peer names " + std::to_string(peer.qpns.size()) +
                                                       " QPs, this side has " + std::to_string(qpns_.size()));
  }
  const ap::QpParams& q = cfg_->qp;
  for (std::size_t i = 0; i < qpns_.size(); ++i) {
    transport::QpAttr a;
    a.qp_state = transport::QpState::kRtr;
    a.ah.dgid = cfg_->ipv4 ? ipv4_mapped(peer.ipv4) : peer.gid;
    a.ah.dmac = peer.mac;
    a.dest_qp_num = peer.qpns[i];
    a.rq_psn = peer.first_psn;
    a.path_mtu = ibv_mtu_of(q.mtu);
    a.mpr_dest = q.mpr_dest;
    a.max_wimm_dest = q.max_wimm_dest;
    a.cap = q.caps;
    if (int rc = ep_->modify_qp(qpns_[i], a,
                                qa::kRtrRequired | qa::kMprDest | qa::kMaxWimmDest | qa::kCap)) {
      return refused(rc, "modify_qp(RTR)", "");
    }
    a.qp_state = transport::QpState::kRts;
    a.sq_psn = q.first_psn;
    a.mpr = q.mpr;
    a.max_wimm = q.max_wimm;
    a.retry = {q.retry_linear, q.retry_exp};
    a.timeout = q.timeout;
    a.peer.mpr_dest = peer.mpr_dest;          // MODEL: M9 the peer's window, learned out of band
    a.peer.max_wimm_dest = peer.max_wimm_dest;  // MODEL: M10
    a.peer.cap = peer.qp_caps;
    if (int rc = ep_->modify_qp(qpns_[i], a,
                                qa::kRtsRequired | qa::kMpr | qa::kMaxWimm | qa::kRetry | qa::kTimeout | qa::kPeer)) {
      return refused(rc, "modify_qp(RTS)", "");
    }
  }
  peer_ = peer;
  return Outcome::success();
}

}  // namespace mrc::agent
