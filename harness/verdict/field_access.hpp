// Reading one named field out of a decoded frame: the verdict engine's side of the frame-field
// vocabulary in harness/case/frame_fields.hpp (expect.match, `field` checks, golden masks).
//
// Every field of that vocabulary has a FieldId here, in the same order, plus two the golden diff
// needs that YAML cannot name yet (`ts`, `payload`). get_field() never allocates; matching against
// a case's MatchValue and formatting a value for evidence are separate (they may allocate, and
// run only when a check reports).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "harness/case/case_model.hpp"
#include "harness/verdict/check_context.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::harness {

enum class FieldId : std::uint8_t {
  kEthSrc, kEthDst, kEthVlan,
  kIpVersion, kIpDscp, kIpEcn, kIpFlowLabel, kIpHopLimit, kIpSrc, kIpDst, kIpLength,
  kSrhPresent, kSrhSegmentsLeft, kSrhLastEntry, kSrhSegment0,
  kInnerSrc, kInnerDst,
  kUdpSport, kUdpDport,
  kBthOpcode, kBthSe, kBthMigreq, kBthPad, kBthTver, kBthPkey, kBthFecn, kBthBecn, kBthDqpn,
  kBthAckReq, kBthR, kBthRtx, kBthTs, kBthPsn,
  kRethVa, kRethRkey, kRethLen, kImm,
  kMethMsn, kMethRqmsn, kTsethTs, kTsethTsr, kTsethFtype,
  kAethSyndrome, kAethMsn,
  kSethM, kSethPr, kSethAckPsnOffset, kSethAckPsn, kSethEntropy, kSethSpdcid, kSethDpdcid,
  kSethCackPsn, kSethCcType, kSethCcFlags, kSethMpr, kSethSackOffset, kSethSackBitmap,
  kCcTxTimestamp, kCcOooCount, kCcRestoreCwnd, kCcRcvCwndPen, kCcRcvdBytes,
  kNethReason, kNethVendorInfo, kNethEntropy, kNethSpdcid, kNethDpdcid, kNethNackPsn, kNethCcType,
  kNethCcFlags, kNethTxTimestamp,
  kPethProbeId, kPethVendorInfo, kPethSpdcid, kPethDpdcid, kPethTs, kPethTsr, kPethFtype,
  kErthOp, kErthVendorInfo, kErthPortStatusMask, kErthTs, kErthTsr, kErthFtype,
  kEethOp, kEethTxTimestamp,
  kIcrc, kTrimmed, kPayloadLen, kFrameLen,
  // Derived from other fields: the vocabulary has them, the golden diff compares their sources.
  kEpId, kSethSackBase, kSethProbeId, kFeedback, kPathProbe,
  kEv, kEvIndex, kPort, kPlane, kDirection,
  // Not (yet) in the YAML vocabulary: used by the golden diff.
  kTs,       // capture timestamp, ns
  kPayload,  // a 64-bit digest of the payload bytes
  kCount
};
inline constexpr std::size_t kFieldCount = static_cast<std::size_t>(FieldId::kCount);

std::string_view field_name(FieldId id);
// Canonical names, the vocabulary's aliases ("psn"), and "ts" / "payload".
std::optional<FieldId> field_id(std::string_view name);
// The project dissector / Wireshark field that shows this field ("mrc.bth.psn", "udp.srcport"),
// empty when there is none. `ipv4` picks the IPv4 spelling of IP fields.
std::string_view display_field(FieldId id, bool ipv4);

// What kind of value a field holds.
enum class FieldKind : std::uint8_t { kAbsent, kUInt, kBool, kMac, kIpv4, kIpv6, kIcrc, kDirection };

struct FieldValue {
  FieldKind kind = FieldKind::kAbsent;
  std::uint64_t u = 0;     // uint, bool (0/1), icrc (1 = good), direction (1 = from_dut), MAC, IPv4
  wire::Ipv6Addr a{};      // kIpv6 only
  bool present() const { return kind != FieldKind::kAbsent; }
};

// Where a frame was seen: what the derived fields (port, plane, direction, ev, ev_index) need.
struct FrameMeta {
  std::uint64_t ts_ns = 0;
  std::uint32_t caplen = 0;
  bool from_dut = false;
  int port = 0;   // 1-based port of the tap = plane
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;
  const DutObservations* dut = nullptr;  // for ev_index; may be null
};

// Inline (below) so that a caller looping over constant ids gets each switch folded away: the
// golden diff extracts every field of every packet through it.
inline FieldValue get_field(FieldId id, const wire::DecodedFrame& f, const FrameMeta& m);

// Does `v` satisfy a case's expected value (a wildcard matches any present value)?
bool matches(const FieldValue& v, const MatchValue& expected);
// A value as evidence shows it: hex for addresses-like numbers (PSN, QPN, VA, EV), text for
// addresses, good/bad, to_dut/from_dut, "absent".
std::string format_value(FieldId id, const FieldValue& v);

// The EV identity of a frame as a receiver sees it (ev_echo_value() for the DUT's mode).
wire::EvFmtMode ev_mode(const DutObservations& dut);

// ---- inline implementation of get_field ----------------------------------------------------
namespace field_detail {
inline FieldValue uint_value(std::uint64_t u) { return FieldValue{FieldKind::kUInt, u, {}}; }
inline FieldValue bool_value(bool b) { return FieldValue{FieldKind::kBool, b ? 1u : 0u, {}}; }
inline FieldValue mac_value(const wire::MacAddr& m) {
  // The six bytes big-endian in the low 48 bits: one load and a byte swap (a per-packet path).
  std::uint64_t u = 0;
  static_assert(sizeof m == 6);
  std::memcpy(reinterpret_cast<std::uint8_t*>(&u) + 2, m.data(), 6);
  return FieldValue{FieldKind::kMac, __builtin_bswap64(u), {}};
}
inline FieldValue ip6_value(const wire::Ipv6Addr& a) { return FieldValue{FieldKind::kIpv6, 0, a}; }
inline FieldValue ip4_value(std::uint32_t a) { return FieldValue{FieldKind::kIpv4, a, {}}; }

inline bool is_ipv4(const wire::DecodedFrame& f) { return f.l3 == wire::L3Kind::kIpv4; }

// The IP header whose DSCP/ECN/flow label a field names: the outer one (what switches act on).
[[gnu::always_inline]] inline FieldValue ip_field(FieldId id, const wire::DecodedFrame& f) {
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

// W5: SETH + CC_STATE. Signed offsets read as their 16-bit two's complement, as on the wire.
[[gnu::always_inline]] inline FieldValue sack_field(FieldId id, const wire::Seth& s, const wire::CcState& c) {
  switch (id) {
    case FieldId::kSethM: return uint_value(static_cast<std::uint8_t>(s.m));
    case FieldId::kSethPr: return bool_value(s.pr);
    case FieldId::kSethAckPsnOffset: return uint_value(static_cast<std::uint16_t>(s.ack_psn_offset));
    case FieldId::kSethAckPsn: return s.pr ? FieldValue{} : uint_value(s.ack_psn());
    case FieldId::kSethEntropy: return uint_value(s.entropy);
    case FieldId::kSethSpdcid: return uint_value(s.spdcid);
    case FieldId::kSethDpdcid: return uint_value(s.dpdcid);
    case FieldId::kSethCackPsn: return uint_value(s.cack_psn);
    case FieldId::kSethCcType: return uint_value(s.cc_type);
    case FieldId::kSethCcFlags: return uint_value(s.cc_flags);
    case FieldId::kSethMpr: return uint_value(s.mpr);
    case FieldId::kSethSackOffset: return uint_value(static_cast<std::uint16_t>(s.sack_offset));
    case FieldId::kSethSackBitmap: return uint_value(s.sack_bitmap);
    case FieldId::kCcTxTimestamp: return uint_value(c.tx_timestamp);
    case FieldId::kCcOooCount: return uint_value(c.ooo_count);
    case FieldId::kCcRestoreCwnd: return bool_value(c.restore_cwnd);
    case FieldId::kCcRcvCwndPen: return uint_value(c.rcv_cwnd_pen);
    case FieldId::kCcRcvdBytes: return uint_value(c.rcvd_bytes);
    case FieldId::kSethSackBase: return uint_value(s.sack_base());
    case FieldId::kSethProbeId: return s.pr ? uint_value(s.probe_id()) : FieldValue{};
    default: return {};
  }
}

[[gnu::always_inline]] inline FieldValue neth_field(FieldId id, const wire::Neth& n) {  // W7
  switch (id) {
    case FieldId::kNethReason: return uint_value(n.nack_reason);
    case FieldId::kNethVendorInfo: return uint_value(n.vendor_info);
    case FieldId::kNethEntropy: return uint_value(n.entropy);
    case FieldId::kNethSpdcid: return uint_value(n.spdcid);
    case FieldId::kNethDpdcid: return uint_value(n.dpdcid);
    case FieldId::kNethNackPsn: return uint_value(n.nack_psn);
    case FieldId::kNethCcType: return uint_value(n.cc_type);
    case FieldId::kNethCcFlags: return uint_value(n.cc_flags);
    case FieldId::kNethTxTimestamp: return uint_value(n.tx_timestamp);
    default: return {};
  }
}

[[gnu::always_inline]] inline FieldValue peth_field(FieldId id, const wire::Peth& p) {  // W9
  switch (id) {
    case FieldId::kPethProbeId: return uint_value(p.probe_id);
    case FieldId::kPethVendorInfo: return uint_value(p.vendor_info);
    case FieldId::kPethSpdcid: return uint_value(p.spdcid);
    case FieldId::kPethDpdcid: return uint_value(p.dpdcid);
    case FieldId::kPethTs: return uint_value(p.ts.tx_timestamp);
    case FieldId::kPethTsr: return bool_value(p.ts.tsr);
    case FieldId::kPethFtype: return uint_value(p.ts.ftype);
    default: return {};
  }
}

[[gnu::always_inline]] inline FieldValue erth_field(FieldId id, const wire::Erth& e) {  // W10
  switch (id) {
    case FieldId::kErthOp: return uint_value(e.op);
    case FieldId::kErthVendorInfo: return uint_value(e.vendor_info);
    case FieldId::kErthPortStatusMask: return uint_value(e.port_status_mask);
    case FieldId::kErthTs: return uint_value(e.ts.tx_timestamp);
    case FieldId::kErthTsr: return bool_value(e.ts.tsr);
    case FieldId::kErthFtype: return uint_value(e.ts.ftype);
    default: return {};
  }
}

}  // namespace field_detail

[[gnu::always_inline]] inline FieldValue get_field(FieldId id, const wire::DecodedFrame& f, const FrameMeta& m) {
  using namespace field_detail;
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
    case FieldId::kBthR: return bool_value(f.bth.r);
    case FieldId::kBthRtx: return bool_value(f.bth.rtx);
    case FieldId::kBthTs: return bool_value(f.bth.ts);
    case FieldId::kBthPsn: return uint_value(f.bth.psn);
    case FieldId::kRethVa: return f.has_reth ? uint_value(f.reth.va) : FieldValue{};
    case FieldId::kRethRkey: return f.has_reth ? uint_value(f.reth.rkey) : FieldValue{};
    case FieldId::kRethLen: return f.has_reth ? uint_value(f.reth.dma_length) : FieldValue{};
    case FieldId::kImm: return f.has_immdt ? uint_value(f.immdt) : FieldValue{};
    case FieldId::kMethMsn: return f.has_meth ? uint_value(f.meth.msn) : FieldValue{};
    case FieldId::kMethRqmsn: return f.has_meth ? uint_value(f.meth.rqmsn) : FieldValue{};
    case FieldId::kTsethTs: return f.has_tseth ? uint_value(f.tseth.tx_timestamp) : FieldValue{};
    case FieldId::kTsethTsr: return f.has_tseth ? bool_value(f.tseth.tsr) : FieldValue{};
    case FieldId::kTsethFtype: return f.has_tseth ? uint_value(f.tseth.ftype) : FieldValue{};
    case FieldId::kSethM: case FieldId::kSethPr: case FieldId::kSethAckPsnOffset: case FieldId::kSethAckPsn:
    case FieldId::kSethEntropy: case FieldId::kSethSpdcid: case FieldId::kSethDpdcid: case FieldId::kSethCackPsn:
    case FieldId::kSethCcType: case FieldId::kSethCcFlags: case FieldId::kSethMpr: case FieldId::kSethSackOffset:
    case FieldId::kSethSackBitmap: case FieldId::kCcTxTimestamp: case FieldId::kCcOooCount:
    case FieldId::kCcRestoreCwnd: case FieldId::kCcRcvCwndPen: case FieldId::kCcRcvdBytes:
    case FieldId::kSethSackBase: case FieldId::kSethProbeId:
      return f.has_sack ? sack_field(id, f.seth, f.cc) : FieldValue{};
    case FieldId::kNethReason: case FieldId::kNethVendorInfo: case FieldId::kNethEntropy: case FieldId::kNethSpdcid:
    case FieldId::kNethDpdcid: case FieldId::kNethNackPsn: case FieldId::kNethCcType: case FieldId::kNethCcFlags:
    case FieldId::kNethTxTimestamp:
      return f.has_neth ? neth_field(id, f.neth) : FieldValue{};
    case FieldId::kPethProbeId: case FieldId::kPethVendorInfo: case FieldId::kPethSpdcid: case FieldId::kPethDpdcid:
    case FieldId::kPethTs: case FieldId::kPethTsr: case FieldId::kPethFtype:
      return f.has_peth ? peth_field(id, f.peth) : FieldValue{};
    case FieldId::kErthOp: case FieldId::kErthVendorInfo: case FieldId::kErthPortStatusMask: case FieldId::kErthTs:
    case FieldId::kErthTsr: case FieldId::kErthFtype:
      return f.has_erth ? erth_field(id, f.erth) : FieldValue{};
    case FieldId::kEethOp: return f.has_eeth ? uint_value(f.eeth.op) : FieldValue{};
    case FieldId::kEethTxTimestamp: return f.has_eeth ? uint_value(f.eeth.tx_timestamp) : FieldValue{};
    case FieldId::kEpId:
      return f.has_erth || f.has_eeth ? uint_value(f.bth.psn & 0xFFFFu) : FieldValue{};
    case FieldId::kFeedback:
      return bool_value(f.bth.opcode == wire::opcode::kMrcAck || f.bth.opcode == wire::opcode::kMrcSack ||
                        f.bth.opcode == wire::opcode::kMrcNack || f.bth.opcode == wire::opcode::kRcAck);
    case FieldId::kPathProbe:
      return bool_value(f.has_peth || (f.has_erth && f.erth.op == static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe)));
    case FieldId::kAethSyndrome: return f.has_aeth ? uint_value(f.aeth.syndrome) : FieldValue{};
    case FieldId::kAethMsn: return f.has_aeth ? uint_value(f.aeth.msn) : FieldValue{};
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
      return uint_value((std::uint64_t{f.has_payload_crc ? f.payload_crc : wire::crc32(0, f.payload)} << 32) |
                        (f.payload.size() & 0xFFFFFFFFu));
    case FieldId::kCount: break;
  }
  return {};
}

}  // namespace mrc::harness
