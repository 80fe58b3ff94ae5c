// Not a *_test.cpp: compiled into the test binary through endpoint_pair_support_test.cpp, which
// includes it (the test glob only picks *_test.cpp files).
#include "tests/reference/endpoint/endpoint_pair.hpp"

#include <algorithm>

#include "reference/transport/qp_types.hpp"
#include "reference/wire/codec.hpp"

namespace mrc::ref::testing {

bool Fabric::run_until(const std::function<bool()>& done, std::uint64_t limit_ns) {
  std::uint64_t stuck = 0;
  while (!done()) {
    const std::uint64_t before = now_;
    if (!step(limit_ns)) return done();
    stuck = now_ == before ? stuck + 1 : 0;
    if (stuck > 1'000'000) {
      ADD_FAILURE() << "fabric made no progress in virtual time at t=" << now_;
      return false;
    }
  }
  return true;
}

void Fabric::run_for(std::uint64_t ns) {
  const std::uint64_t end = now_ + ns;
  run_until([&] { return now_ >= end; }, end);
}

bool Fabric::step(std::uint64_t limit_ns) {
  for (int e = 0; e < 2; ++e) {
    while (ep_[e]->poll_frame(tx_)) {
      ++sent[e];
      if (record) taps.push_back(TapRecord{e, tx_.port, now_, {tx_.bytes.begin(), tx_.bytes.begin() + tx_.len}, false});
      if (filter && !filter(e, tx_, now_)) {
        ++dropped;
        if (record) taps.back().filtered = true;
        continue;
      }
      schedule(e, tx_);
    }
  }
  std::uint64_t t = std::min(ep_[0]->next_deadline(), ep_[1]->next_deadline());
  if (!q_.empty()) t = std::min(t, q_.top().arrive);
  if (t == UINT64_MAX || t > limit_ns) {
    now_ = std::max(now_, std::min(limit_ns, t));
    return false;
  }
  now_ = std::max(now_, t);
  while (!q_.empty() && q_.top().arrive <= now_) {
    InFlight f = q_.top();
    q_.pop();
    ++delivered;
    ep_[f.to]->on_frame(f.port, wire::Bytes(f.bytes.data(), f.bytes.size()), now_);
  }
  ep_[0]->advance(now_);
  ep_[1]->advance(now_);
  return true;
}

void Fabric::schedule(int from, transport::TxFrame& f) {
  wire::DecodedFrame d;
  wire::DecodeOptions opt;
  opt.verify_icrc = false;
  const bool decoded = wire::decode_frame(f.view(), d, opt).ok();
  const bool data = decoded && is_data(d);
  const bool v4 = decoded && d.l3 == wire::L3Kind::kIpv4;
  const std::uint8_t dscp = decoded ? (v4 ? d.ip4.dscp : d.ip6.dscp) : 0;
  const bool trimmable = decoded && (dscp == imp_.dscp.trimmable || dscp == imp_.dscp.trimmable_retx);
  const bool impair = !imp_.data_only || data;
  if (impair && chance(imp_.drop)) {
    ++dropped;
    return;
  }
  std::vector<std::uint8_t> bytes(f.bytes.begin(), f.bytes.begin() + f.len);
  if (trimmable && bytes.size() > imp_.trim_bytes && chance(imp_.trim)) {
    // W13 a switch cuts the frame to trim_bytes (256 by default) and rewrites DSCP to TRIMMED; lengths and the
    // ICRC are left as they were (so the ICRC fails). DSCP sits in the IPv6 traffic class.
    bytes.resize(imp_.trim_bytes);
    const std::size_t ip = wire::kEthLen;
    if (v4) {
      // IPv4: DSCP in the TOS byte; a switch rewriting it also fixes the header checksum.
      bytes[ip + 1] = static_cast<std::uint8_t>((imp_.dscp.trimmed << 2) | d.ip4.ecn);
      bytes[ip + 10] = bytes[ip + 11] = 0;
      const std::uint16_t sum = wire::ipv4_checksum(wire::Bytes(bytes.data() + ip, std::size_t{d.ip4.ihl} * 4));
      bytes[ip + 10] = static_cast<std::uint8_t>(sum >> 8);
      bytes[ip + 11] = static_cast<std::uint8_t>(sum);
    } else {
      const std::uint8_t tc = static_cast<std::uint8_t>((imp_.dscp.trimmed << 2) | d.ip6.ecn);
      bytes[ip] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
      bytes[ip + 1] = static_cast<std::uint8_t>(((tc & 0x0F) << 4) | (bytes[ip + 1] & 0x0F));
    }
    ++trimmed;
  } else if (data && !v4 && chance(imp_.ecn)) {
    // A congested switch marks CE in the traffic class (ECN is outside the ICRC).
    const std::uint8_t tc = static_cast<std::uint8_t>((d.ip6.dscp << 2) | wire::kEcnCe);
    bytes[wire::kEthLen] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
    bytes[wire::kEthLen + 1] = static_cast<std::uint8_t>(((tc & 0x0F) << 4) | (bytes[wire::kEthLen + 1] & 0x0F));
  }
  const int to = 1 - from;
  std::uint64_t& busy = busy_[from][f.port];
  const auto ser = static_cast<std::uint64_t>(static_cast<double>(bytes.size()) * 8.0 / link_.gbps);
  const std::uint64_t depart = std::max(now_, busy) + ser;
  busy = depart;
  std::uint64_t arrive = depart + link_.prop_ns;
  if (impair && chance(imp_.reorder)) {
    arrive += 1 + rng_() % imp_.reorder_extra_ns;
    ++reordered;
  }
  if (impair && chance(imp_.duplicate)) {
    ++duplicated;
    q_.push(InFlight{arrive + 1 + rng_() % 3000, seq_++, to, f.port, bytes});
  }
  q_.push(InFlight{arrive, seq_++, to, f.port, std::move(bytes)});
}

EndpointConfig endpoint_config(const PairOptions& o, int side) {
  EndpointConfig c;
  c.seed = o.seed + static_cast<std::uint64_t>(side);
  c.defects = side == 0 ? o.defects_a : o.defects_b;
  c.variants = o.variants;
  c.random_spray = o.random_spray;
  c.num_ports = o.num_ports;
  c.mac = {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(side + 1)};
  c.gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(side + 1)};
  if (o.ipv4) {
    c.ipv4 = true;
    c.ipv4_addr = 0x0A000001u + static_cast<std::uint32_t>(side);
    c.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, static_cast<std::uint8_t>(side + 1)};
  }
  c.limits.phy_port_mask = o.num_ports >= 32 ? 0xFFFFFFFFu : ((1u << o.num_ports) - 1u);
  c.health = o.health;
  c.dscp = o.dscp;
  return c;
}

std::string setup_profiles(Endpoint& ep, const PairOptions& o) {
  ev::Controller& c = ep.controller();
  std::string why;
  ev::FmtProfileAttr f;
  f.mode = o.fmt;
  switch (o.fmt) {
    case wire::EvFmtMode::kStev: f.widths = {16, 16}; break;
    case wire::EvFmtMode::kUdp: f.widths = {16}; break;
    case wire::EvFmtMode::kSrv6:
      f.widths = {32, 16, 16, 16, 16, 16, 16};
      if (o.srh) f.widths = {32, 16, 16, 16, 16, 16, 16, 32, 16, 16};  // + SRH segment[0]
      break;
  }
  f.state = ev::ProfileState::kOffline;
  if (c.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kMode, &why)) return "fmt: " + why;
  f.state = ev::ProfileState::kOnline;
  if (c.modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kFields, &why)) return "fmt: " + why;

  ev::EvProfileAttr e;
  e.state = ev::ProfileState::kOffline;
  e.mode = o.auto_ev ? ev::EvMode::kAuto : ev::EvMode::kGen;
  e.fmt_id = 0;
  e.ev_count = o.ev_count;
  e.gen_seed = o.seed;
  switch (o.fmt) {
    case wire::EvFmtMode::kStev: e.fields = {{16, 0, 1, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}}; break;
    case wire::EvFmtMode::kUdp: e.fields = {{16, 0xC000, 0, 0x3FFF, 0x3FFF}}; break;
    case wire::EvFmtMode::kSrv6:
      e.fields = {{32, 0xfc000000, 0, 0, 0}, {16, 0x0100, 1, 15, 0x000F}, {16, 0x0200, 1, 15, 0x000F},
                  {16, 0x0300, 1, 15, 0x000F}};
      if (o.full_usid) {
        e.fields.push_back({16, 0xF4F4, 0, 0, 0});
        e.fields.push_back({16, 0xF5F5, 0, 0, 0});
        e.fields.push_back({16, 0xF6F6, 0, 0, 0});
      }
      if (o.srh) {
        e.fields.push_back({16, 0, 0, 0, 0});
        e.fields.push_back({16, 0, 0, 0, 0});
        e.fields.push_back({16, 0, 0, 0, 0});
        e.fields.push_back({32, 0xfc000001, 0, 0, 0});
        e.fields.push_back({16, 0x0500, 1, 15, 0x000F});
      }
      break;
  }
  e.ev_min_active = o.ev_min_active;
  e.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
  const std::uint32_t layout = o.auto_ev ? 0u : (ev::ev_attr::kFmtId | ev::ev_attr::kFields | ev::ev_attr::kGenSeed);
  if (c.modify_ev_profile(0, e, ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kCount | layout, &why)) {
    return "ev: " + why;
  }
  e.state = ev::ProfileState::kOnline;
  if (c.modify_ev_profile(0, e, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask, &why)) {
    return "ev online: " + why;
  }

  ev::CcProfileAttr cc;
  cc.state = ev::ProfileState::kOffline;
  cc.algorithm = o.nscc ? ev::kCcAlgoNscc : "";
  cc.config.assign(o.nscc_config.begin(), o.nscc_config.end());
  std::uint32_t mask = ev::cc_attr::kState | ev::cc_attr::kAlgorithm;
  if (o.nscc) mask |= ev::cc_attr::kConfig;
  if (c.modify_cc_profile(0, cc, mask, &why)) return "cc: " + why;
  cc.state = ev::ProfileState::kOnline;
  if (c.modify_cc_profile(0, cc, ev::cc_attr::kState, &why)) return "cc online: " + why;
  return {};
}

std::string connect(Endpoint& a, Endpoint& b, const PairOptions& o, QpPair& out) {
  namespace qa = transport::qp_attr;
  transport::QpInitAttr init;
  if (a.create_qp(init, out.qpn_a) || b.create_qp(init, out.qpn_b)) return "create_qp";
  Endpoint* eps[2] = {&a, &b};
  const std::uint32_t qpns[2] = {out.qpn_a, out.qpn_b};
  const std::uint32_t caps[2] = {o.cap_a, o.cap_b};
  for (int s = 0; s < 2; ++s) {
    Endpoint& ep = *eps[s];
    Endpoint& peer = *eps[1 - s];
    transport::QpAttr at;
    at.qp_state = transport::QpState::kInit;
    at.ev_profile_id = 0;
    at.cc_profile_id = 0;
    if (int rc = ep.modify_qp(qpns[s], at, qa::kState | qa::kEvProfile | qa::kCcProfile)) {
      return "INIT rc=" + std::to_string(rc);
    }
    at.qp_state = transport::QpState::kRtr;
    at.ah.dgid = peer.config().gid;
    at.ah.dmac = peer.config().mac;
    at.dest_qp_num = qpns[1 - s];
    at.rq_psn = 0x100 + static_cast<std::uint32_t>(1 - s) * 0x1000;
    at.path_mtu = o.mtu;
    at.mpr_dest = s == 1 ? o.mpr_dest : o.mpr;
    at.max_wimm_dest = o.max_wimm_dest;
    at.cap = caps[s];
    if (int rc = ep.modify_qp(qpns[s], at,
                              qa::kState | qa::kAv | qa::kDestQpn | qa::kRqPsn | qa::kPathMtu |
                                  qa::kMprDest | qa::kMaxWimmDest | qa::kCap)) {
      return "RTR rc=" + std::to_string(rc);
    }
    at.qp_state = transport::QpState::kRts;
    at.sq_psn = 0x100 + static_cast<std::uint32_t>(s) * 0x1000;
    at.mpr = o.mpr;
    at.max_wimm = o.max_wimm;
    at.retry = o.retry;
    at.timeout = o.timeout;
    at.peer.mpr_dest = s == 0 ? o.mpr_dest : o.mpr;
    at.peer.max_wimm_dest = o.max_wimm_dest;
    at.peer.cap = caps[1 - s];
    if (int rc = ep.modify_qp(qpns[s], at,
                              qa::kState | qa::kSqPsn | qa::kMpr | qa::kMaxWimm | qa::kRetry |
                                  qa::kTimeout | qa::kPeer)) {
      return "RTS rc=" + std::to_string(rc);
    }
  }
  return {};
}

Pair::Pair(const PairOptions& o, LinkParams link, Impairment imp) : opt(o) {
  a = std::make_unique<Endpoint>(endpoint_config(o, 0));
  b = std::make_unique<Endpoint>(endpoint_config(o, 1));
  error = setup_profiles(*a, o);
  if (error.empty()) error = setup_profiles(*b, o);
  if (error.empty()) error = connect(*a, *b, o, qp);
  fabric = std::make_unique<Fabric>(*a, *b, link, imp, o.seed * 31 + 5);
}

bool decode(const TapRecord& r, wire::DecodedFrame& f) {
  return wire::decode_frame(wire::Bytes(r.bytes.data(), r.bytes.size()), f).ok();
}

bool is_data(const wire::DecodedFrame& f) {
  return f.bth.opcode >= wire::opcode::kMrcWriteFirst && f.bth.opcode <= wire::opcode::kMrcWriteOnlyImm;
}

}  // namespace mrc::ref::testing
