// Field-level models of every header MRC puts on the wire, plus their codepoints.
//
// These are plain values: the codecs in this folder decode bytes into them (zero-copy: variable
// parts such as SRH segments and payload stay spans into the caller's buffer) and encode them into
// caller buffers. Everything the public sources fix is marked with its source; everything the
// project had to model is marked `// MODEL: M<n>` (../shared/mrc-wire-model.md §5) so a correction
// to the model is a change in this one place.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace mrc::wire {

using Bytes = std::span<const std::uint8_t>;
using MutBytes = std::span<std::uint8_t>;
using MacAddr = std::array<std::uint8_t, 6>;
using Ipv6Addr = std::array<std::uint8_t, 16>;

// ---- Ethernet (+802.1Q) -------------------------------------------------------------------
inline constexpr std::uint16_t kEthTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEthTypeIpv6 = 0x86DD;
inline constexpr std::uint16_t kEthTypeVlan = 0x8100;
inline constexpr std::size_t kEthLen = 14;
inline constexpr std::size_t kVlanTagLen = 4;

struct Eth {
  MacAddr dst{};
  MacAddr src{};
  bool has_vlan = false;
  std::uint16_t vlan_tci = 0;  // PCP:3 DEI:1 VID:12
  std::uint16_t ethertype = kEthTypeIpv6;  // the type after any VLAN tag
};

// ---- IP -------------------------------------------------------------------------------------
inline constexpr std::uint8_t kIpProtoUdp = 17;
inline constexpr std::uint8_t kIpProtoIpv6 = 41;     // IPv6-in-IPv6 (SRv6 encapsulation)
inline constexpr std::uint8_t kIpProtoRouting = 43;  // IPv6 Routing header (SRH)
inline constexpr std::size_t kIpv4MinLen = 20;
inline constexpr std::size_t kIpv6Len = 40;

struct Ipv4 {
  std::uint8_t ihl = 5;  // 32-bit words; options (ihl > 5) are skipped on decode
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint16_t total_length = 0;  // encoders fill it
  std::uint16_t id = 0;
  std::uint16_t flags_frag = 0x4000;  // DF
  std::uint8_t ttl = 64;
  std::uint8_t protocol = kIpProtoUdp;
  std::uint16_t checksum = 0;  // encoders fill it
  std::uint32_t src = 0;       // host order
  std::uint32_t dst = 0;       // host order
};

struct Ipv6 {
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint32_t flow_label = 0;  // 20 bits
  std::uint16_t payload_length = 0;  // encoders fill it
  std::uint8_t next_header = kIpProtoUdp;
  std::uint8_t hop_limit = 64;
  Ipv6Addr src{};
  Ipv6Addr dst{};
};

// ECN codepoints (RFC 3168).
inline constexpr std::uint8_t kEcnNotEct = 0;
inline constexpr std::uint8_t kEcnEct1 = 1;
inline constexpr std::uint8_t kEcnEct0 = 2;
inline constexpr std::uint8_t kEcnCe = 3;

// ---- UDP ------------------------------------------------------------------------------------
inline constexpr std::uint16_t kRoceV2Port = 4791;  // IBA Annex A17
inline constexpr std::size_t kUdpLen = 8;

struct Udp {
  std::uint16_t sport = 0xC000;
  std::uint16_t dport = kRoceV2Port;
  std::uint16_t length = 0;    // encoders fill it
  std::uint16_t checksum = 0;  // RoCEv2 sends 0; masked for the ICRC anyway
};

// ---- SRv6 Segment Routing Header (RFC 8754) -------------------------------------------------
inline constexpr std::uint8_t kSrhRoutingType = 4;
inline constexpr std::size_t kSrhFixedLen = 8;
inline constexpr std::size_t kSrhSegmentLen = 16;

struct Srh {
  std::uint8_t next_header = kIpProtoIpv6;
  std::uint8_t hdr_ext_len = 2;  // 8-octet units past the first 8; encoders fill it
  std::uint8_t routing_type = kSrhRoutingType;
  std::uint8_t segments_left = 1;
  std::uint8_t last_entry = 0;
  std::uint8_t flags = 0;
  std::uint16_t tag = 0;
  Bytes segments;  // 16 bytes per segment, Segment List[0] first (RFC order: [0] is the LAST hop)
  Bytes tlvs;      // whatever follows the segment list inside hdr_ext_len; skipped, never parsed

  std::size_t segment_count() const { return segments.size() / kSrhSegmentLen; }
  Ipv6Addr segment(std::size_t i) const;  // precondition: i < segment_count()
  std::size_t wire_length() const { return kSrhFixedLen + 8u * hdr_ext_len; }
};

// ---- InfiniBand transport headers (IBA vol 1; RoCEv2 Annex A17) -----------------------------
namespace opcode {
inline constexpr std::uint8_t kRcSendFirst = 0x00;
inline constexpr std::uint8_t kRcSendMiddle = 0x01;
inline constexpr std::uint8_t kRcSendLast = 0x02;
inline constexpr std::uint8_t kRcSendLastImm = 0x03;
inline constexpr std::uint8_t kRcSendOnly = 0x04;
inline constexpr std::uint8_t kRcSendOnlyImm = 0x05;
inline constexpr std::uint8_t kRcWriteFirst = 0x06;
inline constexpr std::uint8_t kRcWriteMiddle = 0x07;
inline constexpr std::uint8_t kRcWriteLast = 0x08;
inline constexpr std::uint8_t kRcWriteLastImm = 0x09;
inline constexpr std::uint8_t kRcWriteOnly = 0x0A;
inline constexpr std::uint8_t kRcWriteOnlyImm = 0x0B;
inline constexpr std::uint8_t kRcReadRequest = 0x0C;
inline constexpr std::uint8_t kRcReadRespFirst = 0x0D;
inline constexpr std::uint8_t kRcReadRespMiddle = 0x0E;
inline constexpr std::uint8_t kRcReadRespLast = 0x0F;
inline constexpr std::uint8_t kRcReadRespOnly = 0x10;
inline constexpr std::uint8_t kRcAck = 0x11;
inline constexpr std::uint8_t kRcAtomicAck = 0x12;
inline constexpr std::uint8_t kRcCompareSwap = 0x13;
inline constexpr std::uint8_t kRcFetchAdd = 0x14;
inline constexpr std::uint8_t kCnp = 0x81;
inline constexpr std::uint8_t kUdSendOnly = 0x64;     // CM MADs travel on UD QP 1 (IBA 12.6)
inline constexpr std::uint8_t kUdSendOnlyImm = 0x65;
}  // namespace opcode

inline constexpr std::size_t kBthLen = 12;
inline constexpr std::size_t kRethLen = 16;
inline constexpr std::size_t kAethLen = 4;
inline constexpr std::size_t kImmDtLen = 4;
inline constexpr std::size_t kIcrcLen = 4;

struct Bth {
  std::uint8_t opcode = opcode::kRcWriteOnly;
  bool se = false;
  bool mig_req = false;
  std::uint8_t pad_count = 0;  // encoders fill it from the payload length
  std::uint8_t tver = 0;
  std::uint16_t pkey = 0xFFFF;
  bool fecn = false;
  bool becn = false;
  std::uint32_t dest_qp = 0;  // 24 bits
  // Byte 8 (IBA: AckReq + 7 reserved bits; MRC W3: A, R, RTX, TS + 4 reserved bits).
  bool ack_req = false;  // A: asks for an immediate SACK / Transport ACK
  bool r = false;        // R: meaning not given by any source; sent 0, ignored
  bool rtx = false;      // RTX: this data packet is a retransmission
  bool ts = false;       // TS: a TSETH follows the METH
  std::uint32_t psn = 0;  // 24 bits
};

struct Reth {
  std::uint64_t va = 0;
  std::uint32_t rkey = 0;
  std::uint32_t dma_length = 0;
};

struct Aeth {
  std::uint8_t syndrome = 0x1F;
  std::uint32_t msn = 0;  // 24 bits
};

// AETH syndromes (IBA 9.7.5.1.6).
namespace syndrome {
inline constexpr std::uint8_t kAck = 0x1F;              // ACK, credits invalid
inline constexpr std::uint8_t kNakPsnSeqError = 0x60;   // NAK code 0
inline constexpr std::uint8_t kNakInvalidRequest = 0x61;
inline constexpr std::uint8_t kNakRemoteAccess = 0x62;
inline constexpr std::uint8_t kNakRemoteOpError = 0x63;
}  // namespace syndrome

// ---- DSCP and trimming (W13; the defaults are DscpConfig's, mrc_headers.hpp) ----------------
inline constexpr std::uint8_t kDscpTrimmable = 10;  // W13 DSCP_TRIMMABLE: data
inline constexpr std::uint8_t kDscpTrimmed = 11;    // W13 DSCP_TRIMMED: rewritten by a trimming switch
inline constexpr std::uint8_t kDscpControl = 46;    // W13 DSCP_CONTROL: feedback, endpoint responses
inline constexpr std::size_t kTrimLength = 256;     // W13 default trim size (SwitchParams::trim_bytes)

// ---- EV format modes (host API enum values) -------------------------------------------------
enum class EvFmtMode : std::uint8_t { kStev = 1u << 0, kSrv6 = 1u << 1, kUdp = 1u << 2 };
inline constexpr std::size_t kEvMaxBytes = 32;
using EvBytes = std::array<std::uint8_t, kEvMaxBytes>;

// The reference's SRv6 echo tag: inner sport = 0xC000 | the EV's index, inner flow label 0. W2
// leaves the tag to each requester (options (a) compressed EV bits, (b) the index); the reference
// takes (b), whose values can never collide between EVs of one profile (at most 256).
inline constexpr std::uint16_t kSrv6SportBase = 0xC000;  // MODEL: W2

}  // namespace mrc::wire
