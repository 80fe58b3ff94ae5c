// Per-header codecs: one decoder and one encoder for every header in headers.hpp.
//
// Decoders read a header from the start of `in`. They never read past `in`, allocate nothing and
// keep variable parts (SRH segments and TLVs) as spans into `in`. They return kTruncated when `in`
// is shorter than the header, or the typed error for a field the header itself makes invalid. A
// decoder checks only what its own header can know; decode_frame() (frame.hpp) checks how headers
// fit together (next-header chain, lengths, opcode layout).
//
// Encoders write exactly `*_length(h)` bytes at `out` (the caller guarantees the room) and copy
// every field as given, masked to its width: they do not invent lengths. encode_frame() fills the
// lengths; the only computed field here is the IPv4 header checksum.
#pragma once

#include <cstddef>
#include <cstdint>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::wire {

// ---- big-endian helpers (the whole wire is big-endian except the ICRC) ----------------------
inline std::uint16_t load_be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}
inline std::uint32_t load_be24(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
}
inline std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
inline std::uint64_t load_be64(const std::uint8_t* p) {
  return (std::uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline void store_be16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void store_be24(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 16);
  p[1] = static_cast<std::uint8_t>(v >> 8);
  p[2] = static_cast<std::uint8_t>(v);
}
inline void store_be32(std::uint8_t* p, std::uint32_t v) {
  store_be16(p, static_cast<std::uint16_t>(v >> 16));
  store_be16(p + 2, static_cast<std::uint16_t>(v));
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
  store_be32(p, static_cast<std::uint32_t>(v >> 32));
  store_be32(p + 4, static_cast<std::uint32_t>(v));
}

// ---- Ethernet (+ at most one 802.1Q tag) ----------------------------------------------------
// Decode: kTruncated, kBadEthertype (a second VLAN tag, or a type other than IPv4/IPv6).
inline std::size_t eth_length(const Eth& h) { return kEthLen + (h.has_vlan ? kVlanTagLen : 0); }
WireError decode_eth(Bytes in, Eth& out);
void encode_eth(const Eth& h, std::uint8_t* out);

// ---- IPv4 -----------------------------------------------------------------------------------
// Decode: kTruncated, kBadIpVersion (version != 4), kBadIpHeaderLength (IHL < 5). Options are
// skipped (ihl * 4 bytes are consumed). The checksum is read, not verified: trimming switches
// rewrite DSCP and routers rewrite TTL; use ipv4_checksum_ok() when it matters.
inline std::size_t ipv4_length(const Ipv4& h) { return std::size_t{h.ihl} * 4u; }
WireError decode_ipv4(Bytes in, Ipv4& out);
// Writes ihl*4 bytes (options, if ihl > 5, as zero bytes = End of Option List) and computes the
// header checksum over them; h.checksum is ignored. Precondition: 5 <= ihl <= 15.
void encode_ipv4(const Ipv4& h, std::uint8_t* out);
// RFC 1071 ones'-complement sum over a header whose checksum field is zero -> the checksum.
std::uint16_t ipv4_checksum(Bytes header);
// True when the header (ihl*4 bytes at the start of `in`) sums to 0xFFFF.
bool ipv4_checksum_ok(Bytes in);

// ---- IPv6 (fixed header) --------------------------------------------------------------------
// Decode: kTruncated, kBadIpVersion (version != 6).
WireError decode_ipv6(Bytes in, Ipv6& out);
void encode_ipv6(const Ipv6& h, std::uint8_t* out);

// ---- UDP ------------------------------------------------------------------------------------
// Decode: kTruncated only; port and length checks belong to decode_frame().
WireError decode_udp(Bytes in, Udp& out);
void encode_udp(const Udp& h, std::uint8_t* out);

// ---- SRH (RFC 8754) -------------------------------------------------------------------------
// Decode: kTruncated (fixed part or hdr_ext_len runs past `in`); kBadSrh when routing type != 4,
// Last Entry > (hdr_ext_len / 2) - 1 (the segment list does not fit), or Segments Left >
// Last Entry + 1 (RFC 8754 §4.3.1.1). segments = (last_entry + 1) * 16 bytes; tlvs = the rest of
// hdr_ext_len, skipped without parsing.
WireError decode_srh(Bytes in, Srh& out);
// Bytes the encoder writes: 8 + segments + tlvs (h.hdr_ext_len is not used).
inline std::size_t srh_length(const Srh& h) {
  return kSrhFixedLen + h.segments.size() + h.tlvs.size();
}
// kOk when the SRH can be encoded: segments a multiple of 16, segments + tlvs a multiple of 8 and
// at most 255 * 8 bytes. Otherwise kBadArgument.
WireError check_srh_encodable(const Srh& h);
// Writes the SRH with hdr_ext_len computed from segments + tlvs. last_entry and segments_left are
// copied as given (W1: reduced encapsulation puts SL = 1, Last Entry = 0).
// Precondition: check_srh_encodable(h) == kOk.
void encode_srh(const Srh& h, std::uint8_t* out);

// ---- IBA transport headers ------------------------------------------------------------------
// BTH decode: kTruncated only (the opcode's layout is ext_layout()'s job). Reserved bits are
// ignored on decode and written as zero.
WireError decode_bth(Bytes in, Bth& out);
void encode_bth(const Bth& h, std::uint8_t* out);
WireError decode_reth(Bytes in, Reth& out);
void encode_reth(const Reth& h, std::uint8_t* out);
WireError decode_aeth(Bytes in, Aeth& out);
void encode_aeth(const Aeth& h, std::uint8_t* out);
WireError decode_immdt(Bytes in, std::uint32_t& out);
void encode_immdt(std::uint32_t immdt, std::uint8_t* out);

// ---- MRC 1.0 headers (mrc_headers.hpp; layouts in mrc_codec.cpp) ------------------------------
// Decoders: kTruncated only. Every bit pattern of the right length decodes (reserved bits and an
// unknown NACK reason or SETH.m value included): judging a value is the receiver's business.
WireError decode_meth(Bytes in, Meth& out);
void encode_meth(const Meth& h, std::uint8_t* out);
WireError decode_tseth(Bytes in, Tseth& out);
void encode_tseth(const Tseth& h, std::uint8_t* out);
// SETH (28 bytes) followed by CC_STATE (8 bytes): the body of every SACK (opcode 0xDC).
WireError decode_sack(Bytes in, Seth& seth, CcState& cc);
void encode_sack(const Seth& seth, const CcState& cc, std::uint8_t* out);
WireError decode_neth(Bytes in, Neth& out);
void encode_neth(const Neth& h, std::uint8_t* out);
WireError decode_peth(Bytes in, Peth& out);
void encode_peth(const Peth& h, std::uint8_t* out);
WireError decode_erth(Bytes in, Erth& out);
void encode_erth(const Erth& h, std::uint8_t* out);
// EETH.opaque is a view into `in` (bytes 2..27); the encoder writes it when it holds exactly 26
// bytes, zeros otherwise.
WireError decode_eeth(Bytes in, Eeth& out);
void encode_eeth(const Eeth& h, std::uint8_t* out);

}  // namespace mrc::wire
