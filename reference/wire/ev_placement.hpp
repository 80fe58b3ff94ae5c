// Where an EV sits in a frame, per EV format mode (mrc-wire-model.md §1.6 and §5 W1, W2).
//
// `wire` is the EV *after* expansion (reference/ev does the expansion): the bytes that go on the
// wire, MSB-first.
#pragma once

#include <cstdint>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::wire {

// STEV value V: the big-endian read of expanded bytes 0..3.            W2
std::uint32_t stev_value(const EvBytes& wire);
// Flow label = V >> 16, UDP sport = V & 0xFFFF.                         W2 option A
std::uint32_t stev_flow_label(std::uint32_t v);
std::uint16_t stev_sport(std::uint32_t v);
// UDP mode: sport = big-endian read of bytes 0..1; flow label 0.        W2
std::uint16_t udp_mode_sport(const EvBytes& wire);

// Fill the EV-carrying fields of a FrameSpec for the given mode. For SRv6 the spec gets
// srv6_encap (outer DA = bytes 0..15), a single-segment SRH when bytes 16..31 are not all zero
// (NH 41, HdrExtLen 2, RT 4, SL 1, LastEntry 0), and sport = 0xC000 | ev_index (W1; sport: the W2 SRv6 tag).
// `srh_segment` must outlive the spec: it receives bytes 16..31 and the SRH points at it.
void place_ev(FrameSpec& spec, EvFmtMode mode, const EvBytes& wire, std::uint8_t ev_index,
              std::array<std::uint8_t, 16>& srh_segment);

// The EV identity a receiver can see (what SETH / NETH entropy echoes, W2): (flow label[15:0] << 16)
// | sport of the IPv6 header before the UDP header for STEV and SRv6 (the inner one), sport for
// UDP mode. Under SRv6 the value is a tag each requester chooses for its EVs; the reference's is
// 0xC000 | the EV's index with flow label 0, and a receiver never needs to know it.
std::uint32_t ev_echo_value(const DecodedFrame& f, EvFmtMode mode);
// The same identity computed from the sender's side: the expanded EV bytes and the EV's index in
// its profile array. The one place that says which identity an EV is echoed as, so the harness,
// the simulator's path query and the DUT agent all agree with what a receiver puts on the wire.
std::uint32_t ev_echo_identity(EvFmtMode mode, const EvBytes& wire, std::uint32_t ev_index);

}  // namespace mrc::wire
