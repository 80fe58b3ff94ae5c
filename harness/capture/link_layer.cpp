#include "harness/capture/link_layer.hpp"

#include <algorithm>

namespace mrc::harness {
namespace {

constexpr std::size_t kEthLen = 14;
constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86DD;

std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

// dst zero, src = `mac` (6 bytes) or zero, EtherType, then the L3 bytes.
void emit(std::vector<std::uint8_t>& out, const std::uint8_t* mac, std::uint16_t ethertype,
          std::span<const std::uint8_t> l3) {
  out.assign(kEthLen, 0);
  if (mac != nullptr) std::copy(mac, mac + 6, out.begin() + 6);
  out[12] = static_cast<std::uint8_t>(ethertype >> 8);
  out[13] = static_cast<std::uint8_t>(ethertype & 0xFF);
  out.insert(out.end(), l3.begin(), l3.end());
}

std::string too_short(std::size_t have, std::size_t need, const char* what) {
  return std::to_string(have) + " bytes, shorter than the " + std::to_string(need) + "-byte " + what + " header";
}

}  // namespace

std::string link_type_name(int linktype) {
  switch (linktype) {
    case kLinkEthernet: return "Ethernet";
    case kLinkRaw: return "raw IP";
    case kLinkLinuxSll: return "Linux cooked v1 (SLL)";
    case kLinkIpv4: return "raw IPv4";
    case kLinkIpv6: return "raw IPv6";
    case kLinkLinuxSll2: return "Linux cooked v2 (SLL2)";
    default: return {};
  }
}

long link_header_delta(int linktype) {
  switch (linktype) {
    case kLinkLinuxSll: return static_cast<long>(kSllHeaderLen) - static_cast<long>(kEthLen);
    case kLinkLinuxSll2: return static_cast<long>(kSll2HeaderLen) - static_cast<long>(kEthLen);
    case kLinkRaw:
    case kLinkIpv4:
    case kLinkIpv6: return -static_cast<long>(kEthLen);
    default: return 0;
  }
}

std::string to_ethernet(int linktype, std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out) {
  switch (linktype) {
    case kLinkEthernet:
      out.assign(in.begin(), in.end());
      return {};
    case kLinkLinuxSll: {
      // packet type (2), ARPHRD type (2), address length (2), address (8), protocol (2)
      if (in.size() < kSllHeaderLen) return too_short(in.size(), kSllHeaderLen, "Linux cooked (SLL)");
      const bool mac = be16(in.data() + 4) == 6;
      emit(out, mac ? in.data() + 6 : nullptr, be16(in.data() + 14), in.subspan(kSllHeaderLen));
      return {};
    }
    case kLinkLinuxSll2: {
      // protocol (2), reserved (2), ifindex (4), ARPHRD type (2), packet type (1),
      // address length (1), address (8)
      if (in.size() < kSll2HeaderLen) return too_short(in.size(), kSll2HeaderLen, "Linux cooked v2 (SLL2)");
      const bool mac = in[11] == 6;
      emit(out, mac ? in.data() + 12 : nullptr, be16(in.data()), in.subspan(kSll2HeaderLen));
      return {};
    }
    case kLinkIpv4:
      emit(out, nullptr, kEtherIpv4, in);
      return {};
    case kLinkIpv6:
      emit(out, nullptr, kEtherIpv6, in);
      return {};
    case kLinkRaw: {
      // The version nibble says which; anything else gets EtherType 0, which the decoder refuses
      // as bad-ethertype for that one packet.
      const int version = in.empty() ? 0 : in[0] >> 4;
      emit(out, nullptr, version == 4 ? kEtherIpv4 : version == 6 ? kEtherIpv6 : 0, in);
      return {};
    }
    default:
      return "link type " + std::to_string(linktype) + " is not supported";
  }
}

std::string ethernet_view(int linktype, std::span<const std::uint8_t> in, std::vector<std::uint8_t>& eth,
                          std::span<const std::uint8_t>& out) {
  if (linktype == kLinkEthernet) {
    out = in;
    return {};
  }
  std::string why = to_ethernet(linktype, in, eth);
  out = {eth.data(), eth.size()};
  return why;
}

std::string supported_link_types() {
  return "mrc-conform reads Ethernet, Linux cooked v1/v2 (SLL, SLL2) and raw IPv4/IPv6 captures";
}

}  // namespace mrc::harness
