// The address plan of address_plan.hpp as code.
#include "harness/testbed/sim/address_plan.hpp"

namespace mrc::sim::addr {

wire::Ipv6Addr host_gid(std::uint32_t host) {
  wire::Ipv6Addr a{};
  a[0] = 0xfd;
  const std::uint32_t h = host + 1;
  a[14] = static_cast<std::uint8_t>(h >> 8);
  a[15] = static_cast<std::uint8_t>(h);
  return a;
}

std::optional<std::uint32_t> host_of_gid(const wire::Ipv6Addr& gid, std::uint32_t hosts) {
  if (gid[0] != 0xfd) return std::nullopt;
  for (std::size_t i = 1; i < 14; ++i) {
    if (gid[i] != 0) return std::nullopt;
  }
  const std::uint32_t h = (std::uint32_t{gid[14]} << 8) | gid[15];
  if (h == 0 || h > hosts) return std::nullopt;
  return h - 1;
}

std::uint32_t host_ipv4(std::uint32_t host) { return 0xC6120000u + host + 1; }  // 198.18.0.0 + H

std::optional<std::uint32_t> host_of_ipv4(std::uint32_t ip, std::uint32_t hosts) {
  if (ip <= 0xC6120000u || ip - 0xC6120000u > hosts) return std::nullopt;
  return ip - 0xC6120000u - 1;
}

wire::Ipv6Addr host_ipv4_mapped_gid(std::uint32_t host) {
  wire::Ipv6Addr a{};
  a[10] = 0xff;
  a[11] = 0xff;
  const std::uint32_t ip = host_ipv4(host);
  a[12] = static_cast<std::uint8_t>(ip >> 24);
  a[13] = static_cast<std::uint8_t>(ip >> 16);
  a[14] = static_cast<std::uint8_t>(ip >> 8);
  a[15] = static_cast<std::uint8_t>(ip);
  return a;
}

wire::MacAddr host_mac(std::uint32_t host) {
  const std::uint32_t h = host + 1;
  return {0x02, 0, 0, 0, static_cast<std::uint8_t>(h >> 8), static_cast<std::uint8_t>(h)};
}

wire::MacAddr switch_mac(const NodeInfo& sw) {
  const std::uint8_t kind = sw.kind == NodeKind::kLeaf ? 1 : 2;
  return {0x06, 0, static_cast<std::uint8_t>(sw.plane), kind, static_cast<std::uint8_t>(sw.index >> 8),
          static_cast<std::uint8_t>(sw.index)};
}

std::uint32_t block(std::uint32_t plane) { return kBlockPrefix | plane; }

std::optional<std::uint32_t> plane_of_block(std::uint32_t block32, std::uint32_t planes) {
  if ((block32 & 0xFFFF0000u) != kBlockPrefix) return std::nullopt;
  const std::uint32_t p = block32 & 0xFFFFu;
  if (p < 1 || p > planes) return std::nullopt;
  return p;
}

std::uint16_t leaf_usid(std::uint32_t leaf) { return static_cast<std::uint16_t>(kLeafUsidBase | leaf); }
std::uint16_t spine_usid(std::uint32_t spine) { return static_cast<std::uint16_t>(kSpineUsidBase | spine); }
std::uint16_t host_decap_usid(std::uint32_t host) {
  return static_cast<std::uint16_t>(kHostDecapUsidBase + host);
}

UsidRef decode_usid(std::uint16_t usid) {
  if (usid == 0) return {UsidKind::kEndOfCarrier, 0};
  if (usid >= kHostDecapUsidBase && usid < kHostDecapUsidBase + kMaxHosts) {
    return {UsidKind::kHostDecap, static_cast<std::uint32_t>(usid - kHostDecapUsidBase)};
  }
  switch (usid & 0xF000) {
    case kLeafUsidBase: return {UsidKind::kLeaf, usid & 0x0FFFu};
    case kSpineUsidBase: return {UsidKind::kSpine, usid & 0x0FFFu};
    default: return {UsidKind::kUnknown, 0};
  }
}

wire::Ipv6Addr container(std::uint32_t plane, std::span<const std::uint16_t> usids) {
  wire::Ipv6Addr a{};
  const std::uint32_t b = block(plane);
  a[0] = static_cast<std::uint8_t>(b >> 24);
  a[1] = static_cast<std::uint8_t>(b >> 16);
  a[2] = static_cast<std::uint8_t>(b >> 8);
  a[3] = static_cast<std::uint8_t>(b);
  for (std::size_t i = 0; i < usids.size() && i < 6; ++i) {
    a[4 + 2 * i] = static_cast<std::uint8_t>(usids[i] >> 8);
    a[5 + 2 * i] = static_cast<std::uint8_t>(usids[i]);
  }
  return a;
}

}  // namespace mrc::sim::addr
