// EV placement per EV format mode (ev_placement.hpp; W1, W2).
#include "reference/wire/ev_placement.hpp"

#include <algorithm>

namespace mrc::wire {

std::uint32_t stev_value(const EvBytes& wire) {  // MODEL: W2 big-endian read of bytes 0..3
  return (std::uint32_t{wire[0]} << 24) | (std::uint32_t{wire[1]} << 16) |
         (std::uint32_t{wire[2]} << 8) | wire[3];
}

// MODEL: W2 option A: flow label[15:0] = V[31:16] (bits 19..16 sent 0), UDP sport = V[15:0].
std::uint32_t stev_flow_label(std::uint32_t v) { return v >> 16; }

std::uint16_t stev_sport(std::uint32_t v) { return static_cast<std::uint16_t>(v & 0xFFFF); }

std::uint16_t udp_mode_sport(const EvBytes& wire) {  // MODEL: W2 UDP mode (flow label 0)
  return static_cast<std::uint16_t>((wire[0] << 8) | wire[1]);
}

// On entry spec.ip6 holds the endpoint addressing (SA = local GID, DA = remote GID). SRv6 moves
// it to inner_ip6 and puts the EV container in the outer DA; STEV/UDP move it back if the spec
// was SRv6-encapsulated before, so the same spec can be re-placed for every packet and mode.
void place_ev(FrameSpec& spec, EvFmtMode mode, const EvBytes& wire, std::uint8_t ev_index,
              std::array<std::uint8_t, 16>& srh_segment) {
  if (mode != EvFmtMode::kSrv6 && spec.srv6_encap) {
    spec.ip6.src = spec.inner_ip6.src;
    spec.ip6.dst = spec.inner_ip6.dst;
    spec.srv6_encap = false;
  }
  switch (mode) {
    case EvFmtMode::kStev: {
      const std::uint32_t v = stev_value(wire);
      spec.l3 = L3Kind::kIpv6;
      spec.has_srh = false;
      spec.ip6.flow_label = stev_flow_label(v);
      spec.udp.sport = stev_sport(v);
      break;
    }
    case EvFmtMode::kUdp:
      spec.has_srh = false;
      spec.ip6.flow_label = 0;
      spec.udp.sport = udp_mode_sport(wire);
      break;
    case EvFmtMode::kSrv6: {  // W1 stack
      if (!spec.srv6_encap) {
        spec.inner_ip6 = spec.ip6;
        spec.inner_ip6.flow_label = 0;
        spec.srv6_encap = true;
      }
      spec.l3 = L3Kind::kIpv6;
      std::copy(wire.begin(), wire.begin() + 16, spec.ip6.dst.begin());
      spec.ip6.flow_label = 0;
      std::copy(wire.begin() + 16, wire.end(), srh_segment.begin());
      spec.has_srh = std::any_of(srh_segment.begin(), srh_segment.end(),
                                 [](std::uint8_t b) { return b != 0; });
      if (spec.has_srh) {  // MODEL: W1 single-segment SRH, SL = 1 (reduced encapsulation)
        spec.srh = Srh{};
        spec.srh.next_header = kIpProtoIpv6;
        spec.srh.hdr_ext_len = 2;
        spec.srh.routing_type = kSrhRoutingType;
        spec.srh.segments_left = 1;
        spec.srh.last_entry = 0;
        spec.srh.segments = Bytes(srh_segment.data(), srh_segment.size());
        spec.srh.tlvs = {};
      }
      spec.udp.sport = static_cast<std::uint16_t>(kSrv6SportBase | ev_index);  // W2 SRv6 tag (kSrv6SportBase)
      break;
    }
  }
}

std::uint32_t ev_echo_value(const DecodedFrame& f, EvFmtMode mode) {
  // MODEL: W2 echo rule: (FL[15:0] << 16) | sport of the IPv6 header right before the UDP header (the
  // inner one under SRv6, encapsulated or already decapsulated), the flow label part zero over
  // IPv4. Under SRv6 the tag rides there as under STEV [P; S1: F5], whatever its value.
  const Ipv6& ip = f.encapsulated ? f.inner_ip6 : f.ip6;
  switch (mode) {
    case EvFmtMode::kStev:
    case EvFmtMode::kSrv6:
      return f.l3 == L3Kind::kIpv6 ? ((ip.flow_label & 0xFFFFu) << 16) | f.udp.sport : f.udp.sport;
    case EvFmtMode::kUdp:
      return f.udp.sport;
  }
  return 0;
}

std::uint32_t ev_echo_identity(EvFmtMode mode, const EvBytes& wire, std::uint32_t ev_index) {
  switch (mode) {
    case EvFmtMode::kStev: return stev_value(wire);
    case EvFmtMode::kUdp: return udp_mode_sport(wire);
    case EvFmtMode::kSrv6: return kSrv6SportBase | (ev_index & 0xFFu);  // the tag place_ev() writes, flow label 0
  }
  return 0;
}

}  // namespace mrc::wire
