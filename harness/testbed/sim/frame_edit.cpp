// Raw header access for the switches (frame_edit.hpp).
#include "harness/testbed/sim/frame_edit.hpp"

#include <cstring>

namespace mrc::sim {
namespace {

constexpr std::uint16_t be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

std::uint8_t v6_tc(const std::uint8_t* ip) {
  return static_cast<std::uint8_t>(((ip[0] & 0x0F) << 4) | (ip[1] >> 4));
}

void v6_set_tc(std::uint8_t* ip, std::uint8_t tc) {
  ip[0] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
  ip[1] = static_cast<std::uint8_t>(((tc & 0x0F) << 4) | (ip[1] & 0x0F));
}

// Visits every IP header of the frame that lies wholly inside `len`: f(offset, is_v6).
template <typename F>
void each_ip(std::uint16_t len, const FrameLayout& l, F&& fn) {
  const std::uint16_t need = l.v6 ? wire::kIpv6Len : wire::kIpv4MinLen;
  if (l.l3 + need <= len) fn(l.l3, l.v6);
  if (l.inner != 0 && l.inner + wire::kIpv6Len <= len) fn(l.inner, true);
}

}  // namespace

std::uint16_t l2_length(const std::uint8_t* f, std::uint16_t len) {
  if (len < wire::kEthLen) return 0;
  if (be16(f + 12) == wire::kEthTypeVlan) return len >= wire::kEthLen + wire::kVlanTagLen ? 18 : 0;
  return wire::kEthLen;
}

bool parse_layout(const std::uint8_t* f, std::uint16_t len, FrameLayout& out) {
  out = FrameLayout{};
  const std::uint16_t l2 = l2_length(f, len);
  if (l2 == 0) return false;
  const std::uint16_t type = be16(f + l2 - 2);
  out.l3 = l2;
  const std::uint8_t* ip = f + l2;
  if (type == wire::kEthTypeIpv6) {
    if (l2 + wire::kIpv6Len > len || (ip[0] >> 4) != 6) return false;
    out.v6 = true;
    out.nh = ip[6];
    std::uint16_t next = static_cast<std::uint16_t>(l2 + wire::kIpv6Len);
    std::uint8_t nh = out.nh;
    if (nh == wire::kIpProtoRouting && next + wire::kSrhFixedLen <= len) {
      out.srh = next;
      out.srh_len = static_cast<std::uint16_t>(wire::kSrhFixedLen + 8u * f[next + 1]);
      nh = f[next];
      next = static_cast<std::uint16_t>(next + out.srh_len);
    }
    if (nh == wire::kIpProtoIpv6 && next + wire::kIpv6Len <= len && (f[next] >> 4) == 6) {
      out.inner = next;
      nh = f[next + 6];
      next = static_cast<std::uint16_t>(next + wire::kIpv6Len);
    }
    if (nh == wire::kIpProtoUdp && next + wire::kUdpLen <= len) out.l4 = next;
    return true;
  }
  if (type == wire::kEthTypeIpv4) {
    if (l2 + wire::kIpv4MinLen > len || (ip[0] >> 4) != 4) return false;
    const std::uint16_t ihl = static_cast<std::uint16_t>((ip[0] & 0x0F) * 4);
    if (ihl < wire::kIpv4MinLen || l2 + ihl > len) return false;
    out.v6 = false;
    out.nh = ip[9];
    if (out.nh == wire::kIpProtoUdp && l2 + ihl + wire::kUdpLen <= len) out.l4 = static_cast<std::uint16_t>(l2 + ihl);
    return true;
  }
  return false;
}

std::uint8_t outer_dscp(const std::uint8_t* f, const FrameLayout& l) {
  const std::uint8_t* ip = f + l.l3;
  return l.v6 ? static_cast<std::uint8_t>(v6_tc(ip) >> 2) : static_cast<std::uint8_t>(ip[1] >> 2);
}

std::uint8_t outer_ecn(const std::uint8_t* f, const FrameLayout& l) {
  const std::uint8_t* ip = f + l.l3;
  return l.v6 ? static_cast<std::uint8_t>(v6_tc(ip) & 3) : static_cast<std::uint8_t>(ip[1] & 3);
}

void ipv4_fix_checksum(std::uint8_t* ip) {
  const unsigned ihl = (ip[0] & 0x0Fu) * 4u;
  ip[10] = 0;
  ip[11] = 0;
  std::uint32_t sum = 0;
  for (unsigned i = 0; i + 1 < ihl; i += 2) sum += be16(ip + i);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const auto c = static_cast<std::uint16_t>(~sum);
  ip[10] = static_cast<std::uint8_t>(c >> 8);
  ip[11] = static_cast<std::uint8_t>(c);
}

void set_dscp_all(std::uint8_t* f, std::uint16_t len, const FrameLayout& l, std::uint8_t dscp) {
  each_ip(len, l, [&](std::uint16_t off, bool v6) {
    std::uint8_t* ip = f + off;
    if (v6) {
      v6_set_tc(ip, static_cast<std::uint8_t>((dscp << 2) | (v6_tc(ip) & 3)));
    } else {
      ip[1] = static_cast<std::uint8_t>((dscp << 2) | (ip[1] & 3));
      ipv4_fix_checksum(ip);
    }
  });
}

bool mark_ce_all(std::uint8_t* f, std::uint16_t len, const FrameLayout& l) {
  bool any = false;
  each_ip(len, l, [&](std::uint16_t off, bool v6) {
    std::uint8_t* ip = f + off;
    const std::uint8_t ecn = v6 ? static_cast<std::uint8_t>(v6_tc(ip) & 3) : static_cast<std::uint8_t>(ip[1] & 3);
    if (ecn == wire::kEcnNotEct) return;
    any = true;
    if (ecn == wire::kEcnCe) return;
    if (v6) {
      v6_set_tc(ip, static_cast<std::uint8_t>(v6_tc(ip) | wire::kEcnCe));
    } else {
      ip[1] = static_cast<std::uint8_t>(ip[1] | wire::kEcnCe);
      ipv4_fix_checksum(ip);
    }
  });
  return any;
}

bool decrement_hop_limit(std::uint8_t* f, const FrameLayout& l) {
  std::uint8_t* ip = f + l.l3;
  std::uint8_t& hl = l.v6 ? ip[7] : ip[8];
  if (hl <= 1) return false;
  --hl;
  if (!l.v6) ipv4_fix_checksum(ip);
  return true;
}

void set_macs(std::uint8_t* f, const wire::MacAddr& src, const wire::MacAddr& dst) {
  std::memcpy(f, dst.data(), 6);
  std::memcpy(f + 6, src.data(), 6);
}

}  // namespace mrc::sim
