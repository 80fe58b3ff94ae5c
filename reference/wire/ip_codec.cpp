// The IPv4 header checksum and encoder (see codec.hpp for the contract of each function). The
// other Ethernet, IP and UDP codecs are inline in codec.hpp.
#include <cstring>

#include "reference/wire/codec.hpp"

namespace mrc::wire {

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

}  // namespace mrc::wire
