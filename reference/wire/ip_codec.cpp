// Ethernet, IPv4, IPv6 and UDP codecs (see codec.hpp for the contract of each function).
#include <cstring>

#include "reference/wire/codec.hpp"

namespace mrc::wire {

// ---- Ethernet -------------------------------------------------------------------------------

WireError decode_eth(Bytes in, Eth& out) {
  if (in.size() < kEthLen) return WireError::kTruncated;
  std::memcpy(out.dst.data(), in.data(), 6);
  std::memcpy(out.src.data(), in.data() + 6, 6);
  std::uint16_t type = load_be16(in.data() + 12);
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

void encode_eth(const Eth& h, std::uint8_t* out) {
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

std::uint16_t ipv4_checksum(Bytes header) {
  std::uint32_t sum = 0;
  std::size_t i = 0;
  for (; i + 1 < header.size(); i += 2) sum += load_be16(header.data() + i);
  if (i < header.size()) sum += std::uint32_t{header[i]} << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

bool ipv4_checksum_ok(Bytes in) {
  if (in.size() < kIpv4MinLen) return false;
  std::size_t len = std::size_t{static_cast<std::uint8_t>(in[0] & 0x0F)} * 4u;
  if (len < kIpv4MinLen || len > in.size()) return false;
  // Summing a header that includes a correct checksum gives 0xFFFF, whose complement is 0.
  return ipv4_checksum(in.first(len)) == 0;
}

WireError decode_ipv4(Bytes in, Ipv4& out) {
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

void encode_ipv4(const Ipv4& h, std::uint8_t* out) {
  const std::size_t len = ipv4_length(h);
  out[0] = static_cast<std::uint8_t>(0x40 | (h.ihl & 0x0F));
  out[1] = static_cast<std::uint8_t>((h.dscp << 2) | (h.ecn & 0x03));
  store_be16(out + 2, h.total_length);
  store_be16(out + 4, h.id);
  store_be16(out + 6, h.flags_frag);
  out[8] = h.ttl;
  out[9] = h.protocol;
  store_be16(out + 10, 0);
  store_be32(out + 12, h.src);
  store_be32(out + 16, h.dst);
  if (len > kIpv4MinLen) std::memset(out + kIpv4MinLen, 0, len - kIpv4MinLen);
  store_be16(out + 10, ipv4_checksum(Bytes(out, len)));
}

// ---- IPv6 -----------------------------------------------------------------------------------

WireError decode_ipv6(Bytes in, Ipv6& out) {
  if (in.size() < kIpv6Len) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  if ((p[0] >> 4) != 6) return WireError::kBadIpVersion;
  const std::uint8_t tc = static_cast<std::uint8_t>(((p[0] & 0x0F) << 4) | (p[1] >> 4));
  out.dscp = tc >> 2;
  out.ecn = tc & 0x03;
  out.flow_label = (std::uint32_t{p[1] & 0x0Fu} << 16) | load_be16(p + 2);
  out.payload_length = load_be16(p + 4);
  out.next_header = p[6];
  out.hop_limit = p[7];
  std::memcpy(out.src.data(), p + 8, 16);
  std::memcpy(out.dst.data(), p + 24, 16);
  return WireError::kOk;
}

void encode_ipv6(const Ipv6& h, std::uint8_t* out) {
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

WireError decode_udp(Bytes in, Udp& out) {
  if (in.size() < kUdpLen) return WireError::kTruncated;
  out.sport = load_be16(in.data());
  out.dport = load_be16(in.data() + 2);
  out.length = load_be16(in.data() + 4);
  out.checksum = load_be16(in.data() + 6);
  return WireError::kOk;
}

void encode_udp(const Udp& h, std::uint8_t* out) {
  store_be16(out, h.sport);
  store_be16(out + 2, h.dport);
  store_be16(out + 4, h.length);
  store_be16(out + 6, h.checksum);
}

}  // namespace mrc::wire
