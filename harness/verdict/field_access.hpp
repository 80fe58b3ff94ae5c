// Reading one named field out of a decoded frame: the verdict engine's side of the frame-field
// vocabulary in harness/case/frame_fields.hpp (expect.match, `field` checks, golden masks).
//
// Every field of that vocabulary has a FieldId here, in the same order, plus two the golden diff
// needs that YAML cannot name yet (`ts`, `payload`). get_field() never allocates; matching against
// a case's MatchValue and formatting a value for evidence are separate (they may allocate, and
// run only when a check reports).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/case/case_model.hpp"
#include "harness/verdict/check_context.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {

enum class FieldId : std::uint8_t {
  kEthSrc, kEthDst, kEthVlan,
  kIpVersion, kIpDscp, kIpEcn, kIpFlowLabel, kIpHopLimit, kIpSrc, kIpDst, kIpLength,
  kSrhPresent, kSrhSegmentsLeft, kSrhLastEntry, kSrhSegment0,
  kInnerSrc, kInnerDst,
  kUdpSport, kUdpDport,
  kBthOpcode, kBthSe, kBthMigreq, kBthPad, kBthTver, kBthPkey, kBthFecn, kBthBecn, kBthDqpn,
  kBthAckReq, kBthPsn,
  kRethVa, kRethRkey, kRethLen, kImm,
  kAethSyndrome, kAethMsn,
  kMfehType, kMfehCe, kMfehSvcValid, kMfehEvValid, kMfehMprValid, kMfehSackValid, kMfehSvcTime,
  kMfehTrigPsn, kMfehEvEcho, kMfehEvPort, kMfehMpr, kMfehSackBaseOff, kMfehSackBitmap,
  kMfehRcvdBytes,
  kEpOp, kEpReqId, kEpPortStatus, kEpTxTimestamp, kEpSvcTimeNs, kEpRspPort, kEpRspEvLen,
  kIcrc, kTrimmed, kPayloadLen, kFrameLen, kEv, kEvIndex, kPort, kPlane, kDirection,
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

FieldValue get_field(FieldId id, const wire::DecodedFrame& f, const FrameMeta& m);

// Does `v` satisfy a case's expected value (a wildcard matches any present value)?
bool matches(const FieldValue& v, const MatchValue& expected);
// A value as evidence shows it: hex for addresses-like numbers (PSN, QPN, VA, EV), text for
// addresses, good/bad, to_dut/from_dut, "absent".
std::string format_value(FieldId id, const FieldValue& v);

// The EV identity of a frame as a receiver sees it (ev_echo_value() for the DUT's mode).
wire::EvFmtMode ev_mode(const DutObservations& dut);

}  // namespace mrc::harness
