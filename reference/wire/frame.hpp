// Whole-frame decode and encode: the one place that knows how MRC stacks its headers (W1-W10).
//
// decode_frame() never allocates, never throws and never reads past the span it is given: every
// failure is a typed WireError with the byte offset where decoding stopped. encode_frame() writes
// into a caller buffer, fills every length, the pad count, the IPv4 checksum and the ICRC, and
// allocates nothing. It also derives the header chain from the spec's structure: the ethertype
// from l3, IPv4 protocol 17, the IPv6 / SRH next headers (43 / 41 / 17, W1); those fields
// of the spec are not used. Per-header codecs are in codec.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::wire {

enum class WireError : std::uint8_t {
  kOk = 0,
  kTruncated,          // a header or declared length runs past the end of the frame
  kBadEthertype,       // not IPv4/IPv6 (after at most one VLAN tag)
  kBadIpVersion,       // version nibble does not match the ethertype
  kBadIpHeaderLength,  // IPv4 IHL < 5
  kBadIpLength,        // IP total/payload length smaller than the headers it must hold
  kNotUdp,             // the transport after IP/SRH is not UDP
  kNotRoce,            // UDP destination port is not 4791
  kBadUdpLength,       // UDP length < 8 or past the IP payload
  kBadSrh,             // SRH routing type != 4, last_entry/segment count inconsistent, ...
  kBadOpcode,          // an opcode the decoder has no layout for
  kBadPadCount,        // pad count larger than what follows the headers
  kBufferTooSmall,     // encode: the caller buffer cannot hold the frame
  kBadArgument,        // encode: inconsistent FrameSpec (e.g. SRH segments not a multiple of 16)
};

std::string_view to_string(WireError e);

enum class L3Kind : std::uint8_t { kIpv4, kIpv6 };

struct DecodeOptions {
  bool verify_icrc = true;
  // Also the plain CRC-32 of the payload (DecodedFrame::payload_crc). With verify_icrc the payload
  // is read once for both (icrc_compute_split): the diff's per-packet payload digest.
  bool payload_crc = false;
  // The DSCP values (bit d = DSCP d) a trimming switch writes: a data packet (0xC6..0xCB) with one
  // of them is a trimmed packet (W13), whatever its lengths.
  std::uint64_t trimmed_dscps = DscpConfig{}.trimmed_mask();
  // The DSCP of the last-hop trim among them (NACK TRIMMED_LASTHOP rather than TRIMMED).
  std::uint8_t trimmed_lasthop_dscp = DscpConfig{}.trimmed_lasthop;
};

struct DecodedFrame {
  Eth eth;
  L3Kind l3 = L3Kind::kIpv6;
  Ipv4 ip4;        // valid when l3 == kIpv4
  Ipv6 ip6;        // outer IPv6 when l3 == kIpv6
  bool has_srh = false;
  Srh srh;         // valid when has_srh
  bool encapsulated = false;  // outer IPv6 carried an inner IPv6 (SRv6, W1)
  Ipv6 inner_ip6;  // valid when encapsulated
  Udp udp;
  Bth bth;
  bool has_meth = false;  // every MRC data packet (0xC6..0xCB)
  Meth meth;
  bool has_tseth = false;  // MRC data packet with BTH.TS = 1
  Tseth tseth;
  bool has_reth = false;
  Reth reth;
  bool has_immdt = false;
  std::uint32_t immdt = 0;
  bool has_aeth = false;
  Aeth aeth;
  bool has_sack = false;  // opcode 0xDC: SETH + CC_STATE
  Seth seth;
  CcState cc;
  bool has_neth = false;  // opcode 0xDD
  Neth neth;
  bool has_peth = false;  // opcode 0xDE
  Peth peth;
  bool has_erth = false;  // opcode 0xD8
  Erth erth;
  bool has_eeth = false;  // opcode 0xD9
  Eeth eeth;
  Bytes payload;   // after every header, before pad and ICRC (view into the frame)

  // Byte offsets into the frame, for evidence, diffs and the ICRC.
  std::size_t roce_ip_offset = 0;  // start of the IP header the ICRC covers (inner for SRv6)
  std::size_t bth_offset = 0;
  std::size_t frame_length = 0;    // bytes the IP length says the packet has, from frame start

  std::uint32_t icrc_wire = 0;      // the value read from the wire (LSB-first decoded)
  std::uint32_t icrc_computed = 0;  // valid when DecodeOptions::verify_icrc
  bool icrc_ok = false;
  std::uint32_t payload_crc = 0;    // crc32(0, payload), valid when has_payload_crc
  bool has_payload_crc = false;     // set by DecodeOptions::payload_crc on a decoded frame

  // An MRC data packet carrying a trimmed DSCP (W13): never placed by a receiver. `payload` is
  // whatever the switch left after the headers (details: frame.cpp).
  bool trimmed = false;
  // MRC data packet whose DSCP is the last-hop trim DSCP (W13): NACK TRIMMED_LASTHOP, not TRIMMED.
  bool trim_lasthop = false;
};

struct DecodeResult {
  WireError error = WireError::kOk;
  // Where decoding stopped (on error; always <= the frame size) or, on success, the bytes the
  // packet occupies: min(frame_length, bytes captured) (a packet cut by the capture stops there).
  std::size_t offset = 0;
  bool ok() const { return error == WireError::kOk; }
};

// Decodes Ethernet through ICRC. A frame whose IP length runs past the captured bytes (a snap
// length) decodes without error as long as its headers are complete; only the DSCP marks a trim.
DecodeResult decode_frame(Bytes frame, DecodedFrame& out, const DecodeOptions& opt = {});

// Everything needed to build one frame. Optional layers are switched on by their flags.
struct FrameSpec {
  Eth eth;
  L3Kind l3 = L3Kind::kIpv6;
  Ipv4 ip4;
  Ipv6 ip6;         // the outer IPv6 (for SRv6: SA = local GID, DA = EV bytes 0..15)
  bool srv6_encap = false;  // W1 outer IPv6 [+ SRH] + inner IPv6
  bool has_srh = false;     // with srv6_encap: a SRH after the outer IPv6
  Srh srh;                  // segments point at caller bytes (16 per segment)
  Ipv6 inner_ip6;           // with srv6_encap: SA/DA = GIDs
  Udp udp;
  Bth bth;  // bth.ts is derived from has_tseth on encode
  bool has_meth = false;
  Meth meth;
  bool has_tseth = false;
  Tseth tseth;
  bool has_reth = false;
  Reth reth;
  bool has_immdt = false;
  std::uint32_t immdt = 0;
  bool has_aeth = false;
  Aeth aeth;
  bool has_sack = false;
  Seth seth;
  CcState cc;
  bool has_neth = false;
  Neth neth;
  bool has_peth = false;
  Peth peth;
  bool has_erth = false;
  Erth erth;
  bool has_eeth = false;
  Eeth eeth;
  Bytes payload;
  bool corrupt_icrc = false;  // write ICRC ^ 0xFFFFFFFF (for invalid-input cases and defects)
};

struct EncodeResult {
  WireError error = WireError::kOk;
  std::size_t length = 0;  // bytes written
  bool ok() const { return error == WireError::kOk; }
};

// Worst-case frame size the encoder can produce (Ethernet + VLAN + IPv6 + SRH with 8 segments +
// IPv6 + UDP + BTH + every extension + 4096-byte payload + pad + ICRC).
inline constexpr std::size_t kMaxFrameLen = 14 + 4 + 40 + 8 + 8 * 16 + 40 + 8 + 12 + kMethLen +
                                            kTsethLen + 16 + 4 + 4 + kSackHdrLen + kNethLen +
                                            kPethLen + kErthLen + kEethLen + 4096 + 3 + 4;

EncodeResult encode_frame(const FrameSpec& spec, MutBytes out);

// The headers a packet carries after the BTH, by opcode (W3; IBA for the RC opcodes).
struct ExtLayout {
  bool meth = false;  // and a TSETH after it when BTH.TS = 1
  bool reth = false;
  bool immdt = false;
  bool aeth = false;
  bool sack = false;
  bool neth = false;
  bool peth = false;
  bool erth = false;
  bool eeth = false;
  bool known = false;  // false: no layout for this opcode
};
ExtLayout ext_layout(std::uint8_t opcode);

}  // namespace mrc::wire
