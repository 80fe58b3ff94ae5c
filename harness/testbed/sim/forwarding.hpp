// Static forwarding: per-switch tables computed once when the fabric is built, and the per-packet
// decision a switch makes from them.
//
// SRv6 (outer IPv6 DA inside fc00::/16, the uSID blocks of address_plan.hpp) is forwarded on uSIDs
// only, never hashed (W1; RFC 9800 NEXT-CSID):
//   - the active uSID (after the 32-bit block) is this switch's own: uN. If more uSIDs follow,
//     shift them up by 16 bits and look again; at End-of-Carrier, if an SRH has Segments Left > 0,
//     decrement it and copy the next segment into the DA, and look again; otherwise the packet
//     ends at a switch and is dropped.
//   - it is the decap uSID of a host on this leaf: strip the outer IPv6 (+ SRH) and send the
//     inner packet down to that host (decapsulation at the last hop, W1).
//   - otherwise forward on the table entry for that uSID (spine uSIDs at leaves, leaf and host
//     decap uSIDs at spines); no entry = drop.
// Everything else (STEV / UDP-mode traffic, probe answers) is routed on the destination address:
// a host on this leaf goes down, any other host goes up through a deterministic ECMP hash over
// flow label, UDP ports and addresses (ecmp_hash); a spine sends it down to the host's leaf.
// Each switch decrements the outer hop limit / TTL once.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/testbed/sim/frame_edit.hpp"
#include "harness/testbed/sim/topology.hpp"

namespace mrc::sim {

// kDecap: the last hop strips the outer IPv6 (+ SRH); kDeliver: the last hop forwards the frame to
// the host as it is (SwitchParams::srv6_decap_at_leaf false: the host decapsulates, W1).
enum class RouteAction : std::uint8_t { kNoRoute, kForward, kLocal, kDecap, kDeliver, kEcmp };

struct Route {
  RouteAction action = RouteAction::kNoRoute;
  std::uint16_t port = 0;
};

// One switch's tables.
struct SwitchTable {
  std::vector<Route> leaf_usid;   // by leaf number (uSID 0x1000|l)
  std::vector<Route> spine_usid;  // by spine number (uSID 0x2000|s)
  std::vector<Route> decap_usid;  // by host number (uSID 0x8000+h)
  std::vector<Route> host_ip;     // by host number: route for the host's GID / IPv4 address
  std::vector<std::uint16_t> ecmp_ports;  // leaf uplinks, in spine order
};

// Builds every switch's tables (index = node id - hosts).
std::vector<SwitchTable> build_tables(const Topology& topo);

// The deterministic ECMP hash (our own mixing: a splitmix64 finalizer folded over the fields).
// `addr_len` is 16 (IPv6) or 4 (IPv4).
std::uint64_t ecmp_hash(std::uint32_t flow_label, std::uint16_t sport, std::uint16_t dport,
                        const std::uint8_t* src, const std::uint8_t* dst, unsigned addr_len);
// Index into n members: the high 32 bits scaled (no modulo bias worth caring about).
inline std::uint32_t ecmp_pick(std::uint64_t h, std::uint32_t n) {
  return static_cast<std::uint32_t>(((h >> 32) * n) >> 32);
}

enum class DropReason : std::uint8_t {
  kNone = 0,
  kMalformed,          // no parseable IP header, or a broken SRv6 header chain
  kNoRoute,            // no table entry for the address / uSID
  kHopLimit,           // hop limit / TTL exhausted
  kWrongPlane,         // SRv6 block of another plane (or an unknown block)
  kEndsAtSwitch,       // End-of-Carrier at a switch with no segment left
  kDecapNotLast,       // decap uSID followed by more uSIDs, or SRH segments left
  kTooManyHops,        // uSID processing did not converge inside one switch
};
const char* to_string(DropReason r);

struct ForwardResult {
  DropReason drop = DropReason::kNone;
  std::uint16_t port = 0;      // egress port of the switch
  bool decapsulated = false;   // the frame now starts later in the buffer (see forward())
  std::uint8_t shifts = 0;     // uN shifts done here
  std::uint8_t segments = 0;   // SRH segments consumed here
  bool srv6 = false;
};

struct SwitchContext {
  const SwitchTable* table = nullptr;
  NodeInfo node;
  std::uint32_t hosts = 0;
  std::uint32_t planes = 0;
};

// Decides and applies one switch hop on the frame at buf[off, off+len): uSID shifts, SRH segment
// updates, hop limit. On decapsulation the inner IPv6 packet gets the outer Ethernet header
// copied in front of it and `off` / `len` move (no bytes are shifted). MAC addresses are left to
// the caller, which knows the next hop.
ForwardResult forward(const SwitchContext& sw, std::uint8_t* buf, std::uint16_t& off, std::uint16_t& len);

}  // namespace mrc::sim
