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
//
// The fixed-size codecs every data packet goes through (Ethernet, IP, UDP, BTH, RETH, AETH, ImmDt,
// METH, TSETH) are defined here, inline: decode_frame() and encode_frame() run them once per
// packet, and compiled into those bodies their calls, span slicing and repeated bound checks go
// away (bench/wire_bench.cpp). The rest live in ip_codec.cpp, srh.cpp and mrc_codec.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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
inline WireError decode_eth(Bytes in, Eth& out) {
  if (in.size() < kEthLen) return WireError::kTruncated;
  std::uint16_t type = load_be16(in.data() + 12);  // before the stores, which might alias `in`
  std::memcpy(out.dst.data(), in.data(), 6);
  std::memcpy(out.src.data(), in.data() + 6, 6);
  out.has_vlan = false;
  out.vlan_tci = 0;
  if (type == kEthTypeVlan) {
    if (in.size() < kEthLen + kVlanTagLen) return WireError::kTruncated;
    out.has_vlan = true;
    out.vlan_tci = load_be16(in.data() + 14);
    type = load_be16(in.data() + 16);
  }
  out.ethertype = type;
  // One tag only: a QinQ stack (or anything not IP) is not a RoCEv2 frame.
  if (type != kEthTypeIpv4 && type != kEthTypeIpv6) return WireError::kBadEthertype;
  return WireError::kOk;
}
inline void encode_eth(const Eth& h, std::uint8_t* out) {
  std::memcpy(out, h.dst.data(), 6);
  std::memcpy(out + 6, h.src.data(), 6);
  if (h.has_vlan) {
    store_be16(out + 12, kEthTypeVlan);
    store_be16(out + 14, h.vlan_tci);
    store_be16(out + 16, h.ethertype);
  } else {
    store_be16(out + 12, h.ethertype);
  }
}

// ---- IPv4 -----------------------------------------------------------------------------------
// Decode: kTruncated, kBadIpVersion (version != 4), kBadIpHeaderLength (IHL < 5). Options are
// skipped (ihl * 4 bytes are consumed). The checksum is read, not verified: trimming switches
// rewrite DSCP and routers rewrite TTL; use ipv4_checksum_ok() when it matters.
inline std::size_t ipv4_length(const Ipv4& h) { return std::size_t{h.ihl} * 4u; }
inline WireError decode_ipv4(Bytes in, Ipv4& out) {
  if (in.size() < kIpv4MinLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  if ((p[0] >> 4) != 4) return WireError::kBadIpVersion;
  out.ihl = p[0] & 0x0F;
  if (out.ihl < 5) return WireError::kBadIpHeaderLength;
  if (in.size() < ipv4_length(out)) return WireError::kTruncated;
  out.dscp = p[1] >> 2;
  out.ecn = p[1] & 0x03;
  out.total_length = load_be16(p + 2);
  out.id = load_be16(p + 4);
  out.flags_frag = load_be16(p + 6);
  out.ttl = p[8];
  out.protocol = p[9];
  out.checksum = load_be16(p + 10);
  out.src = load_be32(p + 12);
  out.dst = load_be32(p + 16);
  return WireError::kOk;
}
// Writes ihl*4 bytes (options, if ihl > 5, as zero bytes = End of Option List) and computes the
// header checksum over them; h.checksum is ignored. Precondition: 5 <= ihl <= 15.
void encode_ipv4(const Ipv4& h, std::uint8_t* out);
// RFC 1071 ones'-complement sum over a header whose checksum field is zero -> the checksum.
std::uint16_t ipv4_checksum(Bytes header);
// True when the header (ihl*4 bytes at the start of `in`) sums to 0xFFFF.
bool ipv4_checksum_ok(Bytes in);

// ---- IPv6 (fixed header) --------------------------------------------------------------------
// Decode: kTruncated, kBadIpVersion (version != 6).
inline WireError decode_ipv6(Bytes in, Ipv6& out) {
  if (in.size() < kIpv6Len) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  if ((p[0] >> 4) != 6) return WireError::kBadIpVersion;
  // Version, traffic class and flow label are one 32-bit word; read the fixed fields before the
  // first store (`p` may alias `out` as far as the compiler knows).
  const std::uint32_t w0 = load_be32(p);
  const std::uint16_t payload_length = load_be16(p + 4);
  const std::uint8_t next_header = p[6];
  const std::uint8_t hop_limit = p[7];
  const auto tc = static_cast<std::uint8_t>(w0 >> 20);
  out.dscp = tc >> 2;
  out.ecn = tc & 0x03;
  out.flow_label = w0 & 0xFFFFFu;
  out.payload_length = payload_length;
  out.next_header = next_header;
  out.hop_limit = hop_limit;
  std::memcpy(out.src.data(), p + 8, 16);
  std::memcpy(out.dst.data(), p + 24, 16);
  return WireError::kOk;
}
inline void encode_ipv6(const Ipv6& h, std::uint8_t* out) {
  const std::uint8_t tc = static_cast<std::uint8_t>((h.dscp << 2) | (h.ecn & 0x03));
  out[0] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
  out[1] = static_cast<std::uint8_t>(((tc & 0x0F) << 4) | ((h.flow_label >> 16) & 0x0F));
  store_be16(out + 2, static_cast<std::uint16_t>(h.flow_label));
  store_be16(out + 4, h.payload_length);
  out[6] = h.next_header;
  out[7] = h.hop_limit;
  std::memcpy(out + 8, h.src.data(), 16);
  std::memcpy(out + 24, h.dst.data(), 16);
}

// ---- UDP ------------------------------------------------------------------------------------
// Decode: kTruncated only; port and length checks belong to decode_frame().
inline WireError decode_udp(Bytes in, Udp& out) {
  if (in.size() < kUdpLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  const std::uint16_t sport = load_be16(p);
  const std::uint16_t dport = load_be16(p + 2);
  const std::uint16_t length = load_be16(p + 4);
  const std::uint16_t checksum = load_be16(p + 6);
  out.sport = sport;
  out.dport = dport;
  out.length = length;
  out.checksum = checksum;
  return WireError::kOk;
}
inline void encode_udp(const Udp& h, std::uint8_t* out) {
  store_be16(out, h.sport);
  store_be16(out + 2, h.dport);
  store_be16(out + 4, h.length);
  store_be16(out + 6, h.checksum);
}

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

// ---- IBA transport headers: BTH, RETH, AETH, ImmDt (IBA vol 1 §9.2-9.3; RoCEv2 A17) ---------
// BTH decode: kTruncated only (the opcode's layout is ext_layout()'s job). Reserved bits are
// ignored on decode and written as zero. BTH byte 8 carries MRC's A, R, RTX, TS (W3).
// read_xxx(p, out): decode_xxx without the bound check, for a caller that has bounded p already
// (decode_frame() checks an MRC data packet's headers once, all together).
inline void read_bth(const std::uint8_t* p, Bth& out) {
  // Every byte is read once, before the first store: `p` may alias `out` as far as the compiler
  // knows, and would otherwise be reloaded after each field.
  const std::uint8_t b1 = p[1];
  const std::uint32_t w4 = load_be32(p + 4);  // byte 4 (FECN, BECN) and the 24-bit DestQP
  const std::uint32_t w8 = load_be32(p + 8);  // byte 8 (A, R, RTX, TS) and the 24-bit PSN
  const std::uint8_t op = p[0];
  const std::uint16_t pkey = load_be16(p + 2);
  out.opcode = op;
  out.se = (b1 & 0x80) != 0;
  out.mig_req = (b1 & 0x40) != 0;
  out.pad_count = (b1 >> 4) & 0x03;
  out.tver = b1 & 0x0F;
  out.pkey = pkey;
  out.fecn = (w4 & 0x80000000u) != 0;
  out.becn = (w4 & 0x40000000u) != 0;
  out.dest_qp = w4 & 0xFFFFFFu;
  out.ack_req = (w8 & 0x80000000u) != 0;
  out.r = (w8 & 0x40000000u) != 0;
  out.rtx = (w8 & 0x20000000u) != 0;
  out.ts = (w8 & 0x10000000u) != 0;
  out.psn = w8 & 0xFFFFFFu;
}
inline WireError decode_bth(Bytes in, Bth& out) {
  if (in.size() < kBthLen) return WireError::kTruncated;
  read_bth(in.data(), out);
  return WireError::kOk;
}
inline void encode_bth(const Bth& h, std::uint8_t* out) {
  out[0] = h.opcode;
  out[1] = static_cast<std::uint8_t>((h.se ? 0x80 : 0) | (h.mig_req ? 0x40 : 0) |
                                     ((h.pad_count & 0x03) << 4) | (h.tver & 0x0F));
  store_be16(out + 2, h.pkey);
  out[4] = static_cast<std::uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0));
  store_be24(out + 5, h.dest_qp);
  out[8] = static_cast<std::uint8_t>((h.ack_req ? 0x80 : 0) | (h.r ? 0x40 : 0) | (h.rtx ? 0x20 : 0) |
                                     (h.ts ? 0x10 : 0));
  store_be24(out + 9, h.psn);
}
inline void read_reth(const std::uint8_t* p, Reth& out) {
  const std::uint64_t va = load_be64(p);
  const std::uint32_t rkey = load_be32(p + 8);
  const std::uint32_t dma_length = load_be32(p + 12);
  out.va = va;
  out.rkey = rkey;
  out.dma_length = dma_length;
}
inline WireError decode_reth(Bytes in, Reth& out) {
  if (in.size() < kRethLen) return WireError::kTruncated;
  read_reth(in.data(), out);
  return WireError::kOk;
}
inline void encode_reth(const Reth& h, std::uint8_t* out) {
  store_be64(out, h.va);
  store_be32(out + 8, h.rkey);
  store_be32(out + 12, h.dma_length);
}
inline WireError decode_aeth(Bytes in, Aeth& out) {
  if (in.size() < kAethLen) return WireError::kTruncated;
  out.syndrome = in[0];
  out.msn = load_be24(in.data() + 1);
  return WireError::kOk;
}
inline void encode_aeth(const Aeth& h, std::uint8_t* out) {
  out[0] = h.syndrome;
  store_be24(out + 1, h.msn);
}
inline WireError decode_immdt(Bytes in, std::uint32_t& out) {
  if (in.size() < kImmDtLen) return WireError::kTruncated;
  out = load_be32(in.data());
  return WireError::kOk;
}
inline void encode_immdt(std::uint32_t immdt, std::uint8_t* out) { store_be32(out, immdt); }

// ---- MRC 1.0 headers (mrc_headers.hpp; METH and the timestamp here, the rest in mrc_codec.cpp) -
// Decoders: kTruncated only. Every bit pattern of the right length decodes (reserved bits and an
// unknown NACK reason or SETH.m value included): judging a value is the receiver's business.
inline void read_meth(const std::uint8_t* p, Meth& out) {
  const std::uint16_t rqmsn = load_be16(p);
  const std::uint16_t msn = load_be16(p + 2);
  out.rqmsn = rqmsn;
  out.msn = msn;
}
inline WireError decode_meth(Bytes in, Meth& out) {
  if (in.size() < kMethLen) return WireError::kTruncated;
  read_meth(in.data(), out);
  return WireError::kOk;
}
inline void encode_meth(const Meth& h, std::uint8_t* out) {
  store_be16(out, h.rqmsn);
  store_be16(out + 2, h.msn);
}
// The 4-byte timestamp of TSETH, PETH and ERTH (mrc_headers.hpp), from p[0..3].
inline void read_timestamp(const std::uint8_t* p, Timestamp& out) {
  const std::uint16_t tx = load_be16(p);
  const std::uint8_t b2 = p[2];
  const std::uint8_t b3 = p[3];
  out.tx_timestamp = tx;
  out.tsr = (b2 & 0x80) != 0;
  out.ftype = b3 & 0x0F;
}
inline WireError decode_tseth(Bytes in, Tseth& out) {
  if (in.size() < kTsethLen) return WireError::kTruncated;
  read_timestamp(in.data(), out);
  return WireError::kOk;
}
inline void write_timestamp(const Timestamp& t, std::uint8_t* out) {
  store_be16(out, t.tx_timestamp);
  out[2] = t.tsr ? 0x80 : 0;
  out[3] = t.ftype & 0x0F;
}
inline void encode_tseth(const Tseth& h, std::uint8_t* out) { write_timestamp(h, out); }
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
