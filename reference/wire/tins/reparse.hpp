// Bridges between libtins' generic parsing and the RoCEv2 / MRC PDUs (roce_pdus.hpp).
//
// libtins hands every UDP payload over as a RawPDU: it has no port-based dispatch to register a
// BTH on 4791. reparse() walks a parsed packet, finds each UDP with destination port 4791 whose
// inner PDU is still a RawPDU, and replaces that RawPDU with
//
//   BTH / [METH [/ TSETH]] / [RETH] / [ImmDt] / [AETH] / [SACK | NETH | PETH | ERTH | EETH] /
//   [RawPDU(payload)]
//
// where the extension headers are the ones ext_layout(opcode) names (frame.hpp) and
// the RawPDU is left out when the payload is empty. The pad count and the 4 ICRC bytes go into the
// BTH (its trailer, see roce_pdus.hpp); pad bytes are re-written as zeros on serialization.
//
// SRv6 (W1): libtins 4.0 parses outer IPv6 -> Routing extension header (43, kept as a
// generic IPv6::ext_header) -> inner IPv6 (next header 41) -> UDP, so reparse() works on
// encapsulated frames unchanged. libtins cannot parse a frame whose IP length runs past the
// captured bytes (a snap length): EthernetII(bytes) throws Tins::malformed_packet; use the native
// decode_frame() for those.
#pragma once

#include <tins/pdu.h>

#include <cstddef>
#include <cstdint>

#include "reference/wire/frame.hpp"

namespace mrc::wire::tins_adapters {

struct ReparseOptions {
  bool verify_icrc = true;  // recompute the ICRC of each replaced packet (serializes the root)
};

struct ReparseResult {
  WireError error = WireError::kOk;  // first failure; that UDP payload is left as a RawPDU
  unsigned replaced = 0;             // UDP payloads turned into a BTH chain
  bool icrc_ok = true;               // every replaced packet's ICRC matched (when verified)
  bool nonzero_pad = false;          // some pad byte was not zero (re-serialization writes zeros)
  bool ok() const { return error == WireError::kOk; }
};

// Never throws for bad bytes: a payload the native decoders reject gives a typed error (kNotRoce
// when the packet has no UDP/4791 at all) and is left untouched.
ReparseResult reparse(Tins::PDU& root, const ReparseOptions& opt = {});

struct IcrcResult {
  WireError error = WireError::kOk;  // kBadArgument: no BTH right under UDP under IPv4/IPv6, or
                                     // the IPv6 carrying the UDP has extension headers
  std::uint32_t icrc = 0;
  bool ok() const { return error == WireError::kOk; }
};

// ICRC of the (first) RoCEv2 packet in `root`, computed over a serialization of `root` with
// the native icrc_compute(): the IP header right above the UDP (the inner one for SRv6), UDP, BTH,
// extension headers, payload and pad. Leaves `root` unchanged.
IcrcResult compute_icrc(Tins::PDU& root);

// compute_icrc() and store the value in the BTH, so root.serialize() gives a valid RoCEv2 frame.
// Call it after the last field change: the UDP source port and every byte after the IP header
// count (the IP DSCP/ECN, TTL/hop limit, flow label and checksums do not).
IcrcResult finalize_icrc(Tins::PDU& root);

}  // namespace mrc::wire::tins_adapters
