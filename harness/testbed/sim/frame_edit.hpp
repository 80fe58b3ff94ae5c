// The few header fields a switch reads and rewrites, located in raw frame bytes without a full
// decode: where the IP header(s), SRH and UDP header sit, DSCP/ECN of every IP header, hop limit
// / TTL (with the IPv4 checksum kept right) and the Ethernet addresses. Every read is bounded by
// the frame length; nothing allocates. These run once per packet per hop.
#pragma once

#include <cstdint>

#include "reference/wire/headers.hpp"

namespace mrc::sim {

struct FrameLayout {
  std::uint16_t l3 = 0;        // outer IP header offset
  bool v6 = true;
  std::uint8_t nh = 0;         // outer IPv6 next header / IPv4 protocol
  std::uint16_t srh = 0;       // SRH offset (0 = none)
  std::uint16_t srh_len = 0;   // SRH bytes
  std::uint16_t inner = 0;     // inner IPv6 offset when encapsulated (0 = none)
  std::uint16_t l4 = 0;        // UDP header offset (0 = not found within the frame)
};

// False when the frame has no complete outer IPv4/IPv6 header after Ethernet (+ one VLAN tag).
bool parse_layout(const std::uint8_t* f, std::uint16_t len, FrameLayout& out);

// DSCP / ECN of the outer IP header.
std::uint8_t outer_dscp(const std::uint8_t* f, const FrameLayout& l);
std::uint8_t outer_ecn(const std::uint8_t* f, const FrameLayout& l);
// Rewrites DSCP in every IP header of the frame (outer and, for SRv6, inner) that lies inside
// `len` bytes. IPv4 checksums are recomputed.
void set_dscp_all(std::uint8_t* f, std::uint16_t len, const FrameLayout& l, std::uint8_t dscp);
// Sets CE in every ECN-capable IP header of the frame (ECT(0)/ECT(1) -> CE). Returns true when
// at least one header was ECN-capable (a Not-ECT packet is never marked).
bool mark_ce_all(std::uint8_t* f, std::uint16_t len, const FrameLayout& l);
// Decrements the outer hop limit / TTL; false (unchanged) when it is already <= 1.
bool decrement_hop_limit(std::uint8_t* f, const FrameLayout& l);
void set_macs(std::uint8_t* f, const wire::MacAddr& src, const wire::MacAddr& dst);
// Bytes of the Ethernet header including a VLAN tag.
std::uint16_t l2_length(const std::uint8_t* f, std::uint16_t len);

void ipv4_fix_checksum(std::uint8_t* ip);  // ip points at an IPv4 header (IHL read from it)

}  // namespace mrc::sim
