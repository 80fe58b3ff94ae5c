// Whole-frame encoding (frame.hpp). The encoder owns every derived field: ethertype, IPv4
// protocol and the IPv6/SRH next-header chain (W1), all lengths, the IPv4 checksum, the
// BTH pad count and the ICRC. Everything else is copied from the FrameSpec as given, so invalid
// frames for negative cases can still be built (a wrong dport, an opcode without its headers, a
// corrupt ICRC).
#include <cstring>

#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::wire {

namespace {

std::size_t ext_length(const FrameSpec& s) {
  return (s.has_meth ? kMethLen : 0) + (s.has_tseth ? kTsethLen : 0) +
         (s.has_reth ? kRethLen : 0) + (s.has_immdt ? kImmDtLen : 0) +
         (s.has_aeth ? kAethLen : 0) + (s.has_sack ? kSackHdrLen : 0) +
         (s.has_neth ? kNethLen : 0) + (s.has_peth ? kPethLen : 0) +
         (s.has_erth ? kErthLen : 0) + (s.has_eeth ? kEethLen : 0);
}

WireError check_spec(const FrameSpec& s) {
  if (s.l3 == L3Kind::kIpv4) {
    if (s.srv6_encap || s.has_srh) return WireError::kBadArgument;  // SRv6 needs IPv6
    if (s.ip4.ihl < 5 || s.ip4.ihl > 15) return WireError::kBadArgument;
  }
  if (s.has_srh) {
    if (WireError e = check_srh_encodable(s.srh); e != WireError::kOk) return e;
  }
  return WireError::kOk;
}

}  // namespace

EncodeResult encode_frame(const FrameSpec& spec, MutBytes out) {
  if (WireError e = check_spec(spec); e != WireError::kOk) return EncodeResult{e, 0};

  // ---- sizes, inside out ----
  const std::size_t pad = (4 - spec.payload.size() % 4) % 4;
  const std::size_t udp_len =
      kUdpLen + kBthLen + ext_length(spec) + spec.payload.size() + pad + kIcrcLen;
  const std::size_t inner_len = spec.srv6_encap ? kIpv6Len + udp_len : udp_len;
  const std::size_t srh_len = spec.has_srh ? srh_length(spec.srh) : 0;
  const std::size_t l3_hdr = spec.l3 == L3Kind::kIpv4 ? ipv4_length(spec.ip4) : kIpv6Len;
  const std::size_t ip_len = l3_hdr + srh_len + inner_len;  // whole outer IP packet
  const std::size_t ip_len_field = spec.l3 == L3Kind::kIpv4 ? ip_len : ip_len - kIpv6Len;
  if (ip_len_field > 0xFFFF || udp_len > 0xFFFF) return EncodeResult{WireError::kBadArgument, 0};
  const std::size_t eth_len = eth_length(spec.eth);
  const std::size_t total = eth_len + ip_len;
  if (out.size() < total) return EncodeResult{WireError::kBufferTooSmall, 0};

  std::uint8_t* p = out.data();
  std::size_t off = 0;

  Eth eth = spec.eth;
  eth.ethertype = spec.l3 == L3Kind::kIpv4 ? kEthTypeIpv4 : kEthTypeIpv6;
  encode_eth(eth, p);
  off += eth_len;
  std::size_t roce_ip = off;

  if (spec.l3 == L3Kind::kIpv4) {
    Ipv4 ip = spec.ip4;
    ip.total_length = static_cast<std::uint16_t>(ip_len);
    ip.protocol = kIpProtoUdp;
    encode_ipv4(ip, p + off);
    off += l3_hdr;
  } else {
    Ipv6 ip = spec.ip6;
    ip.payload_length = static_cast<std::uint16_t>(ip_len_field);
    ip.next_header = spec.has_srh ? kIpProtoRouting                       // W1
                                  : (spec.srv6_encap ? kIpProtoIpv6 : kIpProtoUdp);
    encode_ipv6(ip, p + off);
    off += kIpv6Len;
    if (spec.has_srh) {
      Srh srh = spec.srh;
      srh.next_header = spec.srv6_encap ? kIpProtoIpv6 : kIpProtoUdp;  // W1
      encode_srh(srh, p + off);
      off += srh_len;
    }
    if (spec.srv6_encap) {
      Ipv6 inner = spec.inner_ip6;
      inner.payload_length = static_cast<std::uint16_t>(udp_len);
      inner.next_header = kIpProtoUdp;
      roce_ip = off;  // MODEL: W1 the ICRC covers the inner packet only
      encode_ipv6(inner, p + off);
      off += kIpv6Len;
    }
  }

  Udp udp = spec.udp;
  udp.length = static_cast<std::uint16_t>(udp_len);
  encode_udp(udp, p + off);
  off += kUdpLen;

  Bth bth = spec.bth;
  bth.pad_count = static_cast<std::uint8_t>(pad);
  bth.ts = spec.has_tseth;  // W3: TS says a TSETH follows the METH
  encode_bth(bth, p + off);
  off += kBthLen;
  // Extension header order: METH, TSETH, RETH, ImmDt (W4), AETH, SETH + CC_STATE, NETH, PETH,
  // ERTH, EETH (W5-W10; one of them per packet).
  if (spec.has_meth) {
    encode_meth(spec.meth, p + off);
    off += kMethLen;
  }
  if (spec.has_tseth) {
    encode_tseth(spec.tseth, p + off);
    off += kTsethLen;
  }
  if (spec.has_reth) {
    encode_reth(spec.reth, p + off);
    off += kRethLen;
  }
  if (spec.has_immdt) {
    encode_immdt(spec.immdt, p + off);
    off += kImmDtLen;
  }
  if (spec.has_aeth) {
    encode_aeth(spec.aeth, p + off);
    off += kAethLen;
  }
  if (spec.has_sack) {
    encode_sack(spec.seth, spec.cc, p + off);
    off += kSackHdrLen;
  }
  if (spec.has_neth) {
    encode_neth(spec.neth, p + off);
    off += kNethLen;
  }
  if (spec.has_peth) {
    encode_peth(spec.peth, p + off);
    off += kPethLen;
  }
  if (spec.has_erth) {
    encode_erth(spec.erth, p + off);
    off += kErthLen;
  }
  if (spec.has_eeth) {
    encode_eeth(spec.eeth, p + off);
    off += kEethLen;
  }
  if (!spec.payload.empty()) std::memcpy(p + off, spec.payload.data(), spec.payload.size());
  off += spec.payload.size();
  std::memset(p + off, 0, pad);
  off += pad;

  std::uint32_t icrc = icrc_compute(Bytes(p + roce_ip, off - roce_ip));
  if (spec.corrupt_icrc) icrc ^= 0xFFFFFFFFu;
  icrc_write(p + off, icrc);
  off += kIcrcLen;
  return EncodeResult{WireError::kOk, off};
}

}  // namespace mrc::wire
