#include "harness/verdict/field_access.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstdio>

#include "harness/case/frame_fields.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::harness {
namespace {

// Same order as FieldId; the first entries are the case vocabulary's canonical names.
constexpr std::array<std::string_view, kFieldCount> kNames{
    "eth.src", "eth.dst", "eth.vlan",
    "ip.version", "ip.dscp", "ip.ecn", "ip.flow_label", "ip.hop_limit", "ip.src", "ip.dst", "ip.length",
    "srh.present", "srh.segments_left", "srh.last_entry", "srh.segment0",
    "inner.src", "inner.dst",
    "udp.sport", "udp.dport",
    "bth.opcode", "bth.se", "bth.migreq", "bth.pad", "bth.tver", "bth.pkey", "bth.fecn", "bth.becn",
    "bth.dqpn", "bth.ack_req", "bth.psn",
    "reth.va", "reth.rkey", "reth.len", "imm",
    "aeth.syndrome", "aeth.msn",
    "mfeh.type", "mfeh.ce", "mfeh.svc_valid", "mfeh.ev_valid", "mfeh.mpr_valid", "mfeh.sack_valid",
    "mfeh.svc_time", "mfeh.trig_psn", "mfeh.ev_echo", "mfeh.ev_port", "mfeh.mpr", "mfeh.sack_base_off",
    "mfeh.sack_bitmap", "mfeh.rcvd_bytes",
    "ep.op", "ep.req_id", "ep.port_status", "ep.tx_timestamp", "ep.svc_time_ns", "ep.rsp_port",
    "ep.rsp_ev_len",
    "icrc", "trimmed", "payload.len", "frame.len", "ev", "ev_index", "port", "plane", "direction",
    "ts", "payload"};

FieldValue uint_value(std::uint64_t u) { return FieldValue{FieldKind::kUInt, u, {}}; }
FieldValue bool_value(bool b) { return FieldValue{FieldKind::kBool, b ? 1u : 0u, {}}; }
FieldValue mac_value(const wire::MacAddr& m) {
  std::uint64_t u = 0;
  for (auto b : m) u = (u << 8) | b;
  return FieldValue{FieldKind::kMac, u, {}};
}
FieldValue ip6_value(const wire::Ipv6Addr& a) { return FieldValue{FieldKind::kIpv6, 0, a}; }
FieldValue ip4_value(std::uint32_t a) { return FieldValue{FieldKind::kIpv4, a, {}}; }

bool is_ipv4(const wire::DecodedFrame& f) { return f.l3 == wire::L3Kind::kIpv4; }

// The IP header whose DSCP/ECN/flow label a field names: the outer one (what switches act on).
FieldValue ip_field(FieldId id, const wire::DecodedFrame& f) {
  const bool v4 = is_ipv4(f);
  switch (id) {
    case FieldId::kIpVersion: return uint_value(v4 ? 4 : 6);
    case FieldId::kIpDscp: return uint_value(v4 ? f.ip4.dscp : f.ip6.dscp);
    case FieldId::kIpEcn: return uint_value(v4 ? f.ip4.ecn : f.ip6.ecn);
    case FieldId::kIpFlowLabel: return v4 ? FieldValue{} : uint_value(f.ip6.flow_label);
    case FieldId::kIpHopLimit: return uint_value(v4 ? f.ip4.ttl : f.ip6.hop_limit);
    case FieldId::kIpSrc: return v4 ? ip4_value(f.ip4.src) : ip6_value(f.ip6.src);
    case FieldId::kIpDst: return v4 ? ip4_value(f.ip4.dst) : ip6_value(f.ip6.dst);
    case FieldId::kIpLength: return uint_value(v4 ? f.ip4.total_length : f.ip6.payload_length);
    default: return {};
  }
}

FieldValue mfeh_field(FieldId id, const wire::Mfeh& h) {  // MODEL: M5
  switch (id) {
    case FieldId::kMfehType: return uint_value(static_cast<std::uint8_t>(h.type));
    case FieldId::kMfehCe: return bool_value(h.ce);
    case FieldId::kMfehSvcValid: return bool_value(h.svc_valid);
    case FieldId::kMfehEvValid: return bool_value(h.ev_valid);
    case FieldId::kMfehMprValid: return bool_value(h.mpr_valid);
    case FieldId::kMfehSackValid: return bool_value(h.sack_valid);
    case FieldId::kMfehSvcTime: return uint_value(h.svc_time);
    case FieldId::kMfehTrigPsn: return uint_value(h.trig_psn);
    case FieldId::kMfehEvEcho: return uint_value(h.ev_echo);
    case FieldId::kMfehEvPort: return uint_value(h.ev_port);
    case FieldId::kMfehMpr: return uint_value(h.mpr);
    case FieldId::kMfehSackBaseOff: return uint_value(h.sack_base_off);
    case FieldId::kMfehSackBitmap: return uint_value(h.sack_bitmap);
    case FieldId::kMfehRcvdBytes: return uint_value(h.rcvd_bytes);
    default: return {};
  }
}

FieldValue ep_field(FieldId id, const wire::EpHdr& h) {  // MODEL: M6
  switch (id) {
    case FieldId::kEpOp: return uint_value(static_cast<std::uint8_t>(h.op));
    case FieldId::kEpReqId: return uint_value(h.req_id);
    case FieldId::kEpPortStatus: return uint_value(h.port_status);
    case FieldId::kEpTxTimestamp: return uint_value(h.tx_timestamp);
    case FieldId::kEpSvcTimeNs: return uint_value(h.svc_time_ns);
    case FieldId::kEpRspPort: return uint_value(h.rsp_port);
    case FieldId::kEpRspEvLen: return uint_value(h.rsp_ev_len);
    default: return {};
  }
}

bool parse_mac(const std::string& s, std::uint64_t& out) {
  unsigned b[6];
  char tail = 0;
  if (std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) {
    return false;
  }
  out = 0;
  for (unsigned x : b) out = (out << 8) | x;
  return true;
}

}  // namespace

std::string_view field_name(FieldId id) {
  const auto i = static_cast<std::size_t>(id);
  return i < kNames.size() ? kNames[i] : std::string_view{"?"};
}

std::optional<FieldId> field_id(std::string_view name) {
  if (const FrameField* f = find_frame_field(name)) name = f->name;  // resolves aliases
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<FieldId>(i);
  }
  return std::nullopt;
}

std::string_view display_field(FieldId id, bool ipv4) {
  switch (id) {
    case FieldId::kEthSrc: return "eth.src";
    case FieldId::kEthDst: return "eth.dst";
    case FieldId::kEthVlan: return "vlan.id";
    case FieldId::kIpVersion: return "ip.version";
    case FieldId::kIpDscp: return "mrc.dscp";
    case FieldId::kIpEcn: return ipv4 ? "ip.dsfield.ecn" : "ipv6.tclass.ecn";
    case FieldId::kIpFlowLabel: return "ipv6.flow";
    case FieldId::kIpHopLimit: return ipv4 ? "ip.ttl" : "ipv6.hlim";
    case FieldId::kIpSrc: return ipv4 ? "ip.src" : "ipv6.src";
    case FieldId::kIpDst: return ipv4 ? "ip.dst" : "ipv6.dst";
    case FieldId::kIpLength: return ipv4 ? "ip.len" : "ipv6.plen";
    case FieldId::kSrhSegmentsLeft: return "mrc.ev.srh_segments_left";
    case FieldId::kSrhSegment0: return "mrc.ev.srh_segment";
    case FieldId::kInnerSrc: return "ipv6.src";
    case FieldId::kInnerDst: return "ipv6.dst";
    case FieldId::kUdpSport: return "udp.srcport";
    case FieldId::kUdpDport: return "udp.dstport";
    case FieldId::kBthOpcode: return "mrc.bth.opcode";
    case FieldId::kBthSe: return "mrc.bth.se";
    case FieldId::kBthMigreq: return "mrc.bth.m";
    case FieldId::kBthPad: return "mrc.bth.padcnt";
    case FieldId::kBthTver: return "mrc.bth.tver";
    case FieldId::kBthPkey: return "mrc.bth.pkey";
    case FieldId::kBthFecn: return "mrc.bth.fecn";
    case FieldId::kBthBecn: return "mrc.bth.becn";
    case FieldId::kBthDqpn: return "mrc.bth.dqpn";
    case FieldId::kBthAckReq: return "mrc.bth.ackreq";
    case FieldId::kBthPsn: return "mrc.bth.psn";
    case FieldId::kRethVa: return "mrc.reth.va";
    case FieldId::kRethRkey: return "mrc.reth.rkey";
    case FieldId::kRethLen: return "mrc.reth.len";
    case FieldId::kImm: return "mrc.immdt";
    case FieldId::kAethSyndrome: return "mrc.aeth.syndrome";
    case FieldId::kAethMsn: return "mrc.aeth.msn";
    case FieldId::kMfehType: return "mrc.mfeh.type";
    case FieldId::kMfehCe: return "mrc.mfeh.ce";
    case FieldId::kMfehSvcValid: return "mrc.mfeh.svc_valid";
    case FieldId::kMfehEvValid: return "mrc.mfeh.ev_valid";
    case FieldId::kMfehMprValid: return "mrc.mfeh.mpr_valid";
    case FieldId::kMfehSackValid: return "mrc.mfeh.sack_valid";
    case FieldId::kMfehSvcTime: return "mrc.mfeh.svc_time";
    case FieldId::kMfehTrigPsn: return "mrc.mfeh.trig_psn";
    case FieldId::kMfehEvEcho: return "mrc.mfeh.ev_echo";
    case FieldId::kMfehEvPort: return "mrc.mfeh.ev_port";
    case FieldId::kMfehMpr: return "mrc.mfeh.mpr";
    case FieldId::kMfehSackBaseOff: return "mrc.mfeh.sack_base_off";
    case FieldId::kMfehSackBitmap: return "mrc.mfeh.sack_bitmap";
    case FieldId::kMfehRcvdBytes: return "mrc.mfeh.rcvd_bytes";
    case FieldId::kEpOp: return "mrc.ep.op";
    case FieldId::kEpReqId: return "mrc.ep.req_id";
    case FieldId::kEpPortStatus: return "mrc.ep.port_status";
    case FieldId::kEpTxTimestamp: return "mrc.ep.tx_timestamp";
    case FieldId::kEpSvcTimeNs: return "mrc.ep.svc_time_ns";
    case FieldId::kEpRspPort: return "mrc.ep.rsp_port";
    case FieldId::kEpRspEvLen: return "mrc.ep.rsp_ev_len";
    case FieldId::kIcrc: return "mrc.icrc_ok";
    case FieldId::kTrimmed: return "mrc.trimmed";
    case FieldId::kPayloadLen: return "mrc.payload_len";
    case FieldId::kFrameLen: return "frame.len";
    case FieldId::kEv: return "mrc.ev.value";
    case FieldId::kEvIndex: return "mrc.ev.index";
    default: return {};
  }
}

FieldValue get_field(FieldId id, const wire::DecodedFrame& f, const FrameMeta& m) {
  switch (id) {
    case FieldId::kEthSrc: return mac_value(f.eth.src);
    case FieldId::kEthDst: return mac_value(f.eth.dst);
    case FieldId::kEthVlan: return f.eth.has_vlan ? uint_value(f.eth.vlan_tci) : FieldValue{};
    case FieldId::kIpVersion: case FieldId::kIpDscp: case FieldId::kIpEcn: case FieldId::kIpFlowLabel:
    case FieldId::kIpHopLimit: case FieldId::kIpSrc: case FieldId::kIpDst: case FieldId::kIpLength:
      return ip_field(id, f);
    case FieldId::kSrhPresent: return is_ipv4(f) ? FieldValue{} : bool_value(f.has_srh);
    case FieldId::kSrhSegmentsLeft: return f.has_srh ? uint_value(f.srh.segments_left) : FieldValue{};
    case FieldId::kSrhLastEntry: return f.has_srh ? uint_value(f.srh.last_entry) : FieldValue{};
    case FieldId::kSrhSegment0:
      return f.has_srh && f.srh.segment_count() > 0 ? ip6_value(f.srh.segment(0)) : FieldValue{};
    case FieldId::kInnerSrc: return f.encapsulated ? ip6_value(f.inner_ip6.src) : FieldValue{};
    case FieldId::kInnerDst: return f.encapsulated ? ip6_value(f.inner_ip6.dst) : FieldValue{};
    case FieldId::kUdpSport: return uint_value(f.udp.sport);
    case FieldId::kUdpDport: return uint_value(f.udp.dport);
    case FieldId::kBthOpcode: return uint_value(f.bth.opcode);
    case FieldId::kBthSe: return bool_value(f.bth.se);
    case FieldId::kBthMigreq: return bool_value(f.bth.mig_req);
    case FieldId::kBthPad: return uint_value(f.bth.pad_count);
    case FieldId::kBthTver: return uint_value(f.bth.tver);
    case FieldId::kBthPkey: return uint_value(f.bth.pkey);
    case FieldId::kBthFecn: return bool_value(f.bth.fecn);
    case FieldId::kBthBecn: return bool_value(f.bth.becn);
    case FieldId::kBthDqpn: return uint_value(f.bth.dest_qp);
    case FieldId::kBthAckReq: return bool_value(f.bth.ack_req);
    case FieldId::kBthPsn: return uint_value(f.bth.psn);
    case FieldId::kRethVa: return f.has_reth ? uint_value(f.reth.va) : FieldValue{};
    case FieldId::kRethRkey: return f.has_reth ? uint_value(f.reth.rkey) : FieldValue{};
    case FieldId::kRethLen: return f.has_reth ? uint_value(f.reth.dma_length) : FieldValue{};
    case FieldId::kImm: return f.has_immdt ? uint_value(f.immdt) : FieldValue{};
    case FieldId::kAethSyndrome: return f.has_aeth ? uint_value(f.aeth.syndrome) : FieldValue{};
    case FieldId::kAethMsn: return f.has_aeth ? uint_value(f.aeth.msn) : FieldValue{};
    case FieldId::kMfehType: case FieldId::kMfehCe: case FieldId::kMfehSvcValid: case FieldId::kMfehEvValid:
    case FieldId::kMfehMprValid: case FieldId::kMfehSackValid: case FieldId::kMfehSvcTime:
    case FieldId::kMfehTrigPsn: case FieldId::kMfehEvEcho: case FieldId::kMfehEvPort: case FieldId::kMfehMpr:
    case FieldId::kMfehSackBaseOff: case FieldId::kMfehSackBitmap: case FieldId::kMfehRcvdBytes:
      return f.has_mfeh ? mfeh_field(id, f.mfeh) : FieldValue{};
    case FieldId::kEpOp: case FieldId::kEpReqId: case FieldId::kEpPortStatus: case FieldId::kEpTxTimestamp:
    case FieldId::kEpSvcTimeNs: case FieldId::kEpRspPort: case FieldId::kEpRspEvLen:
      return f.has_ep ? ep_field(id, f.ep) : FieldValue{};
    case FieldId::kIcrc: return FieldValue{FieldKind::kIcrc, f.icrc_ok ? 1u : 0u, {}};
    case FieldId::kTrimmed: return bool_value(f.trimmed);
    case FieldId::kPayloadLen: return uint_value(f.payload.size());
    case FieldId::kFrameLen: return uint_value(m.caplen);
    case FieldId::kEv: return uint_value(wire::ev_echo_value(f, m.mode));
    case FieldId::kEvIndex: {
      if (!m.dut) return {};
      const std::uint32_t ev = wire::ev_echo_value(f, m.mode);
      for (const auto& e : m.dut->evs) {
        if (e.echo == ev) return uint_value(e.index);
      }
      return {};
    }
    case FieldId::kPort:
    case FieldId::kPlane: return m.port > 0 ? uint_value(static_cast<std::uint64_t>(m.port)) : FieldValue{};
    case FieldId::kDirection: return FieldValue{FieldKind::kDirection, m.from_dut ? 1u : 0u, {}};
    case FieldId::kTs: return uint_value(m.ts_ns);
    case FieldId::kPayload:  // a digest, so the diff table stays one word per field
      return uint_value((std::uint64_t{wire::crc32(0, f.payload)} << 32) | (f.payload.size() & 0xFFFFFFFFu));
    case FieldId::kCount: break;
  }
  return {};
}

bool matches(const FieldValue& v, const MatchValue& expected) {
  if (std::holds_alternative<Wildcard>(expected)) return v.present();
  if (!v.present()) return false;
  if (const auto* u = std::get_if<std::uint64_t>(&expected)) {
    return (v.kind == FieldKind::kUInt) && v.u == *u;
  }
  if (const auto* b = std::get_if<bool>(&expected)) return v.kind == FieldKind::kBool && (v.u != 0) == *b;
  const std::string& s = std::get<std::string>(expected);
  switch (v.kind) {
    case FieldKind::kIcrc: return (s == "good") == (v.u != 0) && (s == "good" || s == "bad");
    case FieldKind::kDirection: return (s == "from_dut") == (v.u != 0) && (s == "from_dut" || s == "to_dut");
    case FieldKind::kMac: {
      std::uint64_t mac = 0;
      return parse_mac(s, mac) && mac == v.u;
    }
    case FieldKind::kIpv4: {
      in_addr a{};
      return inet_pton(AF_INET, s.c_str(), &a) == 1 && ntohl(a.s_addr) == v.u;
    }
    case FieldKind::kIpv6: {
      wire::Ipv6Addr a{};
      return inet_pton(AF_INET6, s.c_str(), a.data()) == 1 && a == v.a;
    }
    default: return false;
  }
}

std::string format_value(FieldId id, const FieldValue& v) {
  char buf[64];
  switch (v.kind) {
    case FieldKind::kAbsent: return "absent";
    case FieldKind::kBool: return v.u ? "true" : "false";
    case FieldKind::kIcrc: return v.u ? "good" : "bad";
    case FieldKind::kDirection: return v.u ? "from_dut" : "to_dut";
    case FieldKind::kMac:
      std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", unsigned(v.u >> 40 & 0xFF),
                    unsigned(v.u >> 32 & 0xFF), unsigned(v.u >> 24 & 0xFF), unsigned(v.u >> 16 & 0xFF),
                    unsigned(v.u >> 8 & 0xFF), unsigned(v.u & 0xFF));
      return buf;
    case FieldKind::kIpv4: {
      in_addr a{};
      a.s_addr = htonl(static_cast<std::uint32_t>(v.u));
      return inet_ntop(AF_INET, &a, buf, sizeof buf) ? buf : "?";
    }
    case FieldKind::kIpv6: return inet_ntop(AF_INET6, v.a.data(), buf, sizeof buf) ? buf : "?";
    case FieldKind::kUInt: break;
  }
  switch (id) {  // identities read best in hex, counts and PSNs in decimal
    case FieldId::kBthOpcode: case FieldId::kBthPkey: case FieldId::kBthDqpn: case FieldId::kRethVa:
    case FieldId::kRethRkey: case FieldId::kImm: case FieldId::kAethSyndrome: case FieldId::kMfehEvEcho:
    case FieldId::kMfehSackBitmap: case FieldId::kEpPortStatus: case FieldId::kEv: case FieldId::kUdpSport:
    case FieldId::kIpFlowLabel: case FieldId::kPayload:
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v.u));
      return buf;
    default: return std::to_string(v.u);
  }
}

wire::EvFmtMode ev_mode(const DutObservations& dut) {
  switch (dut.ev_fmt_mode) {
    case 2: return wire::EvFmtMode::kSrv6;
    case 4: return wire::EvFmtMode::kUdp;
    default: return wire::EvFmtMode::kStev;
  }
}

}  // namespace mrc::harness
