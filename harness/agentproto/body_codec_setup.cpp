// Body layouts of the handshake and configuration messages (HELLO, HELLO_OK, APPLY_CONFIG,
// APPLY_OK, CONNECT). Field order here IS the wire layout (harness/dut/agent-protocol.md §4).
#include <string>

#include "harness/agentproto/body_codec.hpp"

namespace mrc::agentproto::detail {
namespace {

// ---- shared pieces ------------------------------------------------------------------------------

void put(Writer& w, const PeerInfo& p) {
  w.fixed(p.gid);
  w.fixed(p.mac);
  w.u32(p.ipv4);
  if (w.count(p.qpns.size(), limit::kQps, "PeerInfo.qpns")) {
    for (std::uint32_t q : p.qpns) w.u32(q);
  }
  w.u8(p.mpr_dest);
  w.u16(p.max_wimm_dest);
  w.u32(p.qp_caps);
  w.u32(p.first_psn);
}

void get(Reader& r, PeerInfo& p) {
  r.fixed(p.gid, "PeerInfo.gid");
  r.fixed(p.mac, "PeerInfo.mac");
  p.ipv4 = r.u32("PeerInfo.ipv4");
  p.qpns.resize(r.count(limit::kQps, 4, "PeerInfo.qpns"));
  for (auto& q : p.qpns) q = r.u32("PeerInfo.qpns[]");
  p.mpr_dest = r.u8("PeerInfo.mpr_dest");
  p.max_wimm_dest = r.u16("PeerInfo.max_wimm_dest");
  p.qp_caps = r.u32("PeerInfo.qp_caps");
  p.first_psn = r.u32("PeerInfo.first_psn");
}

void put(Writer& w, const NsccParams& c) {
  w.str(c.algorithm, limit::kAlgorithm, "NsccParams.algorithm");
  w.boolean(c.disable_qa);
  w.u32(c.adjust_bytes_threshold);
  w.u32(c.adjust_period_threshold);
  w.u32(c.base_rtt);
  w.f64(c.eta);
  w.f64(c.fi);
  w.f64(c.fi_scale);
  w.f64(c.gamma);
  w.f64(c.max_md_jump);
  w.u32(c.max_cwnd);
  w.u8(c.qa_gate);
  w.u32(c.qa_threshold);
  w.u32(c.target_delay);
}

void get(Reader& r, NsccParams& c) {
  r.str(c.algorithm, limit::kAlgorithm, "NsccParams.algorithm");
  c.disable_qa = r.boolean("NsccParams.disable_qa");
  c.adjust_bytes_threshold = r.u32("NsccParams.adjust_bytes_threshold");
  c.adjust_period_threshold = r.u32("NsccParams.adjust_period_threshold");
  c.base_rtt = r.u32("NsccParams.base_rtt");
  c.eta = r.f64("NsccParams.eta");
  c.fi = r.f64("NsccParams.fi");
  c.fi_scale = r.f64("NsccParams.fi_scale");
  c.gamma = r.f64("NsccParams.gamma");
  c.max_md_jump = r.f64("NsccParams.max_md_jump");
  c.max_cwnd = r.u32("NsccParams.max_cwnd");
  c.qa_gate = r.u8("NsccParams.qa_gate");
  c.qa_threshold = r.u32("NsccParams.qa_threshold");
  c.target_delay = r.u32("NsccParams.target_delay");
}

}  // namespace

void put(Writer& w, const EvField& f) {
  w.u32(f.width);
  w.u32(f.init);
  w.u32(f.min);
  w.u32(f.max);
  w.u32(f.mask);
}
void get(Reader& r, EvField& f) {
  f.width = r.u32("EvField.width");
  f.init = r.u32("EvField.init");
  f.min = r.u32("EvField.min");
  f.max = r.u32("EvField.max");
  f.mask = r.u32("EvField.mask");
}

void put(Writer& w, const EvValue& e) {
  w.blob8(e.value, limit::kEvBytes, "EvValue.value");
  w.u8(e.port);
}
void get(Reader& r, EvValue& e) {
  r.blob8(e.value, limit::kEvBytes, "EvValue.value");
  e.port = r.u8("EvValue.port");
}

// ---- handshake ------------------------------------------------------------------------------------

void put(Writer& w, const Hello& m) {
  w.u16(m.version);
  w.str(m.token, limit::kToken, "Hello.token");
  w.str(m.client, limit::kName, "Hello.client");
}
void get(Reader& r, Hello& m) {
  m.version = r.u16("Hello.version");
  r.str(m.token, limit::kToken, "Hello.token");
  r.str(m.client, limit::kName, "Hello.client");
}

void put(Writer& w, const HelloOk& m) {
  w.u16(m.version);
  w.str(m.agent, limit::kName, "HelloOk.agent");
  if (w.count(m.capabilities.size(), limit::kCapabilities, "HelloOk.capabilities")) {
    for (const auto& c : m.capabilities) w.str(c, limit::kName, "HelloOk.capabilities[]");
  }
  if (w.count(m.ports.size(), limit::kPorts, "HelloOk.ports")) {
    for (const auto& p : m.ports) {
      w.u8(p.port);
      w.str(p.name, limit::kName, "HelloOk.ports[].name");
      w.fixed(p.mac);
      w.boolean(p.up);
    }
  }
  w.u8(static_cast<std::uint8_t>(m.clock));
}
void get(Reader& r, HelloOk& m) {
  m.version = r.u16("HelloOk.version");
  r.str(m.agent, limit::kName, "HelloOk.agent");
  m.capabilities.resize(r.count(limit::kCapabilities, 2, "HelloOk.capabilities"));
  for (auto& c : m.capabilities) r.str(c, limit::kName, "HelloOk.capabilities[]");
  m.ports.resize(r.count(limit::kPorts, 10, "HelloOk.ports"));
  for (auto& p : m.ports) {
    p.port = r.u8("HelloOk.ports[].port");
    r.str(p.name, limit::kName, "HelloOk.ports[].name");
    r.fixed(p.mac, "HelloOk.ports[].mac");
    p.up = r.boolean("HelloOk.ports[].up");
  }
  m.clock = get_enum<Clock>(r, 1, "HelloOk.clock");
}

// ---- configuration ----------------------------------------------------------------------------------

void put(Writer& w, const ApplyConfig& m) {
  w.u8(static_cast<std::uint8_t>(m.format_mode));
  if (w.count(m.format_widths.size(), limit::kFormatWidths, "ApplyConfig.format_widths")) {
    for (std::uint32_t x : m.format_widths) w.u32(x);
  }
  w.u8(static_cast<std::uint8_t>(m.ev_mode));
  if (w.count(m.fields.size(), limit::kEvFields, "ApplyConfig.fields")) {
    for (const auto& f : m.fields) put(w, f);
  }
  if (w.count(m.evs.size(), limit::kEvs, "ApplyConfig.evs")) {
    for (const auto& e : m.evs) put(w, e);
  }
  w.u32(m.generate_count);
  w.u64(m.generate_seed);
  w.u32(m.ev_min_active);
  w.u32(m.ev_event_mask);
  if (w.count(m.denied.size(), limit::kEvs, "ApplyConfig.denied")) {
    for (std::uint32_t d : m.denied) w.u32(d);
  }
  w.boolean(m.cc.has_value());
  if (m.cc) put(w, *m.cc);
  w.u64(m.cc_line_rate_bps);
  w.boolean(m.cc_fabric_trims);
  const QpParams& q = m.qp;
  w.u32(q.count);
  w.u32(q.mtu);
  w.u8(q.mpr);
  w.u8(q.mpr_dest);
  w.u16(q.max_wimm);
  w.u16(q.max_wimm_dest);
  w.u8(q.timeout);
  w.u8(q.retry_linear);
  w.u8(q.retry_exp);
  w.u32(q.caps);
  w.u32(q.first_psn);
  w.boolean(m.ipv4);
  w.u64(m.seed);
  if (w.count(m.regions.size(), limit::kRegions, "ApplyConfig.regions")) {
    for (const auto& g : m.regions) {
      w.u64(g.addr);
      if (g.length > limit::kRegionBytes) {
        w.fail(ErrorCode::kFieldTooLong, "ApplyConfig.regions[].length",
               std::to_string(g.length) + " exceeds the limit of " + std::to_string(limit::kRegionBytes));
      }
      w.u64(g.length);
    }
  }
  w.boolean(m.peer.has_value());
  if (m.peer) put(w, *m.peer);
  // v4: the six DSCP values (W13), 6 bits each in one byte.
  for (std::uint8_t v : {m.dscp.trimmable, m.dscp.trimmable_retx, m.dscp.no_trim, m.dscp.trimmed,
                         m.dscp.trimmed_lasthop, m.dscp.control}) {
    if (v > limit::kMaxDscp) w.fail(ErrorCode::kBadValue, "ApplyConfig.dscp", std::to_string(v) + " is not a 6-bit DSCP");
    w.u8(v);
  }
}

void get(Reader& r, ApplyConfig& m) {
  m.format_mode = get_enum<FormatMode>(r, 2, "ApplyConfig.format_mode");
  m.format_widths.resize(r.count(limit::kFormatWidths, 4, "ApplyConfig.format_widths"));
  for (auto& x : m.format_widths) x = r.u32("ApplyConfig.format_widths[]");
  m.ev_mode = get_enum<EvMode>(r, 2, "ApplyConfig.ev_mode");
  m.fields.resize(r.count(limit::kEvFields, kEvFieldBytes, "ApplyConfig.fields"));
  for (auto& f : m.fields) get(r, f);
  m.evs.resize(r.count(limit::kEvs, kMinEvValueBytes, "ApplyConfig.evs"));
  for (auto& e : m.evs) get(r, e);
  m.generate_count = r.u32("ApplyConfig.generate_count");
  m.generate_seed = r.u64("ApplyConfig.generate_seed");
  m.ev_min_active = r.u32("ApplyConfig.ev_min_active");
  m.ev_event_mask = r.u32("ApplyConfig.ev_event_mask");
  m.denied.resize(r.count(limit::kEvs, 4, "ApplyConfig.denied"));
  for (auto& d : m.denied) d = r.u32("ApplyConfig.denied[]");
  m.cc.reset();
  if (r.boolean("ApplyConfig.has_cc")) get(r, m.cc.emplace());
  m.cc_line_rate_bps = r.u64("ApplyConfig.cc_line_rate_bps");
  m.cc_fabric_trims = r.boolean("ApplyConfig.cc_fabric_trims");
  QpParams& q = m.qp;
  q.count = r.u32("ApplyConfig.qp.count");
  q.mtu = r.u32("ApplyConfig.qp.mtu");
  q.mpr = r.u8("ApplyConfig.qp.mpr");
  q.mpr_dest = r.u8("ApplyConfig.qp.mpr_dest");
  q.max_wimm = r.u16("ApplyConfig.qp.max_wimm");
  q.max_wimm_dest = r.u16("ApplyConfig.qp.max_wimm_dest");
  q.timeout = r.u8("ApplyConfig.qp.timeout");
  q.retry_linear = r.u8("ApplyConfig.qp.retry_linear");
  q.retry_exp = r.u8("ApplyConfig.qp.retry_exp");
  q.caps = r.u32("ApplyConfig.qp.caps");
  q.first_psn = r.u32("ApplyConfig.qp.first_psn");
  if (q.count > limit::kQps) {
    r.fail(ErrorCode::kFieldTooLong, "ApplyConfig.qp.count",
           std::to_string(q.count) + " exceeds the limit of " + std::to_string(limit::kQps));
  }
  m.ipv4 = r.boolean("ApplyConfig.ipv4");
  m.seed = r.u64("ApplyConfig.seed");
  m.regions.resize(r.count(limit::kRegions, 16, "ApplyConfig.regions"));
  for (auto& g : m.regions) {
    g.addr = r.u64("ApplyConfig.regions[].addr");
    g.length = r.u64("ApplyConfig.regions[].length");
    if (g.length > limit::kRegionBytes) {
      r.fail(ErrorCode::kFieldTooLong, "ApplyConfig.regions[].length",
             std::to_string(g.length) + " exceeds the limit of " + std::to_string(limit::kRegionBytes));
    }
  }
  m.peer.reset();
  if (r.boolean("ApplyConfig.has_peer")) get(r, m.peer.emplace());
  for (std::uint8_t* v : {&m.dscp.trimmable, &m.dscp.trimmable_retx, &m.dscp.no_trim, &m.dscp.trimmed,
                          &m.dscp.trimmed_lasthop, &m.dscp.control}) {
    *v = r.u8("ApplyConfig.dscp");
    if (*v > limit::kMaxDscp) r.fail(ErrorCode::kBadValue, "ApplyConfig.dscp", std::to_string(*v) + " is not a 6-bit DSCP");
  }
}

void put(Writer& w, const ApplyOk& m) {
  w.fixed(m.gid);
  w.fixed(m.mac);
  w.u32(m.ipv4);
  if (w.count(m.qpns.size(), limit::kQps, "ApplyOk.qpns")) {
    for (std::uint32_t q : m.qpns) w.u32(q);
  }
  if (w.count(m.regions.size(), limit::kRegions, "ApplyOk.regions")) {
    for (const auto& g : m.regions) {
      w.u64(g.addr);
      w.u64(g.length);
      w.u32(g.lkey);
      w.u32(g.rkey);
    }
  }
  w.u8(m.mpr_dest);
  w.u16(m.max_wimm_dest);
  w.u32(m.qp_caps);
  w.u32(m.first_psn);
}

void get(Reader& r, ApplyOk& m) {
  r.fixed(m.gid, "ApplyOk.gid");
  r.fixed(m.mac, "ApplyOk.mac");
  m.ipv4 = r.u32("ApplyOk.ipv4");
  m.qpns.resize(r.count(limit::kQps, 4, "ApplyOk.qpns"));
  for (auto& q : m.qpns) q = r.u32("ApplyOk.qpns[]");
  m.regions.resize(r.count(limit::kRegions, 24, "ApplyOk.regions"));
  for (auto& g : m.regions) {
    g.addr = r.u64("ApplyOk.regions[].addr");
    g.length = r.u64("ApplyOk.regions[].length");
    g.lkey = r.u32("ApplyOk.regions[].lkey");
    g.rkey = r.u32("ApplyOk.regions[].rkey");
  }
  m.mpr_dest = r.u8("ApplyOk.mpr_dest");
  m.max_wimm_dest = r.u16("ApplyOk.max_wimm_dest");
  m.qp_caps = r.u32("ApplyOk.qp_caps");
  m.first_psn = r.u32("ApplyOk.first_psn");
}

void put(Writer& w, const Connect& m) { put(w, m.peer); }
void get(Reader& r, Connect& m) { get(r, m.peer); }

}  // namespace mrc::agentproto::detail
