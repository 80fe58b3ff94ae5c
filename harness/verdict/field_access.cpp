#include "harness/verdict/field_access.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstdio>

#include "harness/case/frame_fields.hpp"

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
    "bth.dqpn", "bth.ack_req", "bth.r", "bth.rtx", "bth.ts", "bth.psn",
    "reth.va", "reth.rkey", "reth.len", "imm",
    "meth.msn", "meth.rqmsn", "tseth.ts", "tseth.tsr", "tseth.ftype",
    "aeth.syndrome", "aeth.msn",
    "seth.m", "seth.pr", "seth.ack_psn_offset", "seth.ack_psn", "seth.entropy", "seth.spdcid", "seth.dpdcid",
    "seth.cack_psn", "seth.cc_type", "seth.cc_flags", "seth.mpr", "seth.sack_offset", "seth.sack_bitmap",
    "cc.tx_timestamp", "cc.ooo_count", "cc.restore_cwnd", "cc.rcv_cwnd_pen", "cc.rcvd_bytes",
    "neth.reason", "neth.vendor_info", "neth.entropy", "neth.spdcid", "neth.dpdcid", "neth.nack_psn",
    "neth.cc_type", "neth.cc_flags", "neth.tx_timestamp",
    "peth.probe_id", "peth.vendor_info", "peth.spdcid", "peth.dpdcid", "peth.ts", "peth.tsr", "peth.ftype",
    "erth.op", "erth.vendor_info", "erth.port_status_mask", "erth.ts", "erth.tsr", "erth.ftype",
    "eeth.op", "eeth.tx_timestamp",
    "icrc", "trimmed", "payload.len", "frame.len",
    "ep.id", "seth.sack_base", "seth.probe_id", "feedback", "path_probe",
    "ev", "ev_index", "port", "plane", "direction",
    "ts", "payload"};

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
    case FieldId::kBthR: return "mrc.bth.r";
    case FieldId::kBthRtx: return "mrc.bth.rtx";
    case FieldId::kBthTs: return "mrc.bth.ts";
    case FieldId::kMethMsn: return "mrc.meth.msn";
    case FieldId::kMethRqmsn: return "mrc.meth.rqmsn";
    case FieldId::kTsethTs: return "mrc.tseth.ts";
    case FieldId::kTsethTsr: return "mrc.tseth.tsr";
    case FieldId::kTsethFtype: return "mrc.tseth.ftype";
    case FieldId::kSethM: return "mrc.seth.m";
    case FieldId::kSethPr: return "mrc.seth.pr";
    case FieldId::kSethAckPsnOffset: return "mrc.seth.ack_psn_offset";
    case FieldId::kSethAckPsn: return "mrc.seth.ack_psn";
    case FieldId::kSethEntropy: return "mrc.seth.entropy";
    case FieldId::kSethSpdcid: return "mrc.seth.spdcid";
    case FieldId::kSethDpdcid: return "mrc.seth.dpdcid";
    case FieldId::kSethCackPsn: return "mrc.seth.cack_psn";
    case FieldId::kSethCcType: return "mrc.seth.cc_type";
    case FieldId::kSethCcFlags: return "mrc.seth.cc_flags";
    case FieldId::kSethMpr: return "mrc.seth.mpr";
    case FieldId::kSethSackOffset: return "mrc.seth.sack_offset";
    case FieldId::kSethSackBitmap: return "mrc.seth.sack_bitmap";
    case FieldId::kSethSackBase: return "mrc.seth.sack_base";
    case FieldId::kSethProbeId: return "mrc.seth.probe_id";
    case FieldId::kCcTxTimestamp: return "mrc.cc.tx_timestamp";
    case FieldId::kCcOooCount: return "mrc.cc.ooo_count";
    case FieldId::kCcRestoreCwnd: return "mrc.cc.restore_cwnd";
    case FieldId::kCcRcvCwndPen: return "mrc.cc.rcv_cwnd_pen";
    case FieldId::kCcRcvdBytes: return "mrc.cc.rcvd_bytes";
    case FieldId::kNethReason: return "mrc.neth.reason";
    case FieldId::kNethVendorInfo: return "mrc.neth.vendor_info";
    case FieldId::kNethEntropy: return "mrc.neth.entropy";
    case FieldId::kNethSpdcid: return "mrc.neth.spdcid";
    case FieldId::kNethDpdcid: return "mrc.neth.dpdcid";
    case FieldId::kNethNackPsn: return "mrc.neth.nack_psn";
    case FieldId::kNethCcType: return "mrc.neth.cc_type";
    case FieldId::kNethCcFlags: return "mrc.neth.cc_flags";
    case FieldId::kNethTxTimestamp: return "mrc.neth.tx_timestamp";
    case FieldId::kPethProbeId: return "mrc.peth.probe_id";
    case FieldId::kPethVendorInfo: return "mrc.peth.vendor_info";
    case FieldId::kPethSpdcid: return "mrc.peth.spdcid";
    case FieldId::kPethDpdcid: return "mrc.peth.dpdcid";
    case FieldId::kPethTs: return "mrc.peth.tx_timestamp";
    case FieldId::kPethTsr: return "mrc.peth.tsr";
    case FieldId::kPethFtype: return "mrc.peth.ftype";
    case FieldId::kErthOp: return "mrc.erth.op";
    case FieldId::kErthVendorInfo: return "mrc.erth.vendor_info";
    case FieldId::kErthPortStatusMask: return "mrc.erth.port_status_mask";
    case FieldId::kErthTs: return "mrc.erth.tx_timestamp";
    case FieldId::kErthTsr: return "mrc.erth.tsr";
    case FieldId::kErthFtype: return "mrc.erth.ftype";
    case FieldId::kEethOp: return "mrc.eeth.op";
    case FieldId::kEethTxTimestamp: return "mrc.eeth.tx_timestamp";
    case FieldId::kEpId: return "mrc.ep.id";
    case FieldId::kBthPsn: return "mrc.bth.psn";
    case FieldId::kRethVa: return "mrc.reth.va";
    case FieldId::kRethRkey: return "mrc.reth.rkey";
    case FieldId::kRethLen: return "mrc.reth.len";
    case FieldId::kImm: return "mrc.immdt";
    case FieldId::kAethSyndrome: return "mrc.aeth.syndrome";
    case FieldId::kAethMsn: return "mrc.aeth.msn";
    case FieldId::kIcrc: return "mrc.icrc_ok";
    case FieldId::kTrimmed: return "mrc.trimmed";
    case FieldId::kPayloadLen: return "mrc.payload_len";
    case FieldId::kFrameLen: return "frame.len";
    case FieldId::kEv: return "mrc.ev.value";
    default: return {};
  }
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
    case FieldId::kRethRkey: case FieldId::kImm: case FieldId::kAethSyndrome: case FieldId::kEv: case FieldId::kUdpSport:
    case FieldId::kSethEntropy: case FieldId::kSethSackBitmap: case FieldId::kNethEntropy: case FieldId::kNethReason:
    case FieldId::kErthPortStatusMask: case FieldId::kSethAckPsnOffset: case FieldId::kSethSackOffset:
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
