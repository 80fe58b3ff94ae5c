// The simulated fabric's address plan (documented in this folder's README).
//
//   host h (0-based)   GID fd00::H (H = h+1, the last 16 bits), MAC 02:00:00:00:HH:HH,
//                      IPv4 198.18.0.0 + H (RFC 2544 benchmarking range; IPv4-mapped GID
//                      ::ffff:198.18.x.y for UDP-mode EVs over IPv4)
//   plane p (1-based)  uSID locator block fc00:00pp::/32 (32 bits, RFC 9800 layout with 16-bit uSIDs)
//   uSIDs (16-bit, the same numbers in every plane; the block says which plane):
//     0x0000           End-of-Carrier (never a node)
//     0x1000 | l       leaf l (uN: shift and go on)
//     0x2000 | s       spine s (uN)
//     0x8000 + h       host h's decapsulation function, owned by h's leaf in that plane
//                      (End.DX6-like: strip outer IPv6 + SRH, send the inner packet to host h)
//   switch MAC         06:00:PP:KK:NN:NN (PP plane, KK 1 leaf / 2 spine, NN number)
//
// A path from host a to host b through spine s of plane p is the container
// fc00:00pp:2sss:1lll:8hhh:: (l = b's leaf, hhh = b's decap uSID): a's leaf forwards on the spine
// uSID, the spine shifts its own uSID away and forwards on the leaf uSID, b's leaf shifts and
// then finds its own decap uSID active and delivers the inner packet.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "harness/testbed/sim/topology.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::sim::addr {

wire::Ipv6Addr host_gid(std::uint32_t host);
std::optional<std::uint32_t> host_of_gid(const wire::Ipv6Addr& gid, std::uint32_t hosts);
std::uint32_t host_ipv4(std::uint32_t host);  // host order
std::optional<std::uint32_t> host_of_ipv4(std::uint32_t ip, std::uint32_t hosts);
wire::Ipv6Addr host_ipv4_mapped_gid(std::uint32_t host);
wire::MacAddr host_mac(std::uint32_t host);
wire::MacAddr switch_mac(const NodeInfo& sw);

// SRv6 uSID plan (W1 decapsulation at the last hop).
inline constexpr std::uint32_t kBlockPrefix = 0xFC000000u;
inline constexpr std::uint16_t kLeafUsidBase = 0x1000;
inline constexpr std::uint16_t kSpineUsidBase = 0x2000;
inline constexpr std::uint16_t kHostDecapUsidBase = 0x8000;

std::uint32_t block(std::uint32_t plane);                        // fc00:00pp as 32 bits
std::optional<std::uint32_t> plane_of_block(std::uint32_t block32, std::uint32_t planes);
std::uint16_t leaf_usid(std::uint32_t leaf);
std::uint16_t spine_usid(std::uint32_t spine);
std::uint16_t host_decap_usid(std::uint32_t host);

enum class UsidKind : std::uint8_t { kEndOfCarrier, kLeaf, kSpine, kHostDecap, kUnknown };
struct UsidRef {
  UsidKind kind = UsidKind::kUnknown;
  std::uint32_t index = 0;  // leaf / spine / host number
};
UsidRef decode_usid(std::uint16_t usid);

// A 128-bit uSID container: the plane's block followed by up to six uSIDs (zero-filled).
wire::Ipv6Addr container(std::uint32_t plane, std::span<const std::uint16_t> usids);

}  // namespace mrc::sim::addr
